package prompt

import (
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
)

// Judge is the persona name and schema name of an evaluation judge request
// (`eval --live --judge-model`): is a finding the same issue as a labelled
// one?
const Judge = "judge"

// JudgeSchema is the judge's answer schema, strict: a boolean and one
// sentence, nothing else.
const JudgeSchema = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "title": "judge",
  "type": "object",
  "additionalProperties": false,
  "required": ["same_issue", "reason"],
  "properties": {
    "same_issue": {"type": "boolean"},
    "reason": {"type": "string", "minLength": 1, "maxLength": 500}
  }
}`

const judgeSystem = "You grade a code-review evaluation. A reviewer reported a finding on a pull request; " +
	"the evaluation's ground truth labels one known issue at an overlapping place in the code. " +
	"Decide whether the finding describes the SAME problem as the labelled issue: the same defect, " +
	"even in other words, or citing another line of the same faulty code path. A different problem " +
	"that merely sits nearby is not the same issue.\n\n" + fencingRule

const judgeTurn = "Reply with the JSON object {\"same_issue\": true or false, \"reason\": \"one sentence\"} alone.\n"

// ForJudge builds the judge request for finding f against the labelled
// issue (description, file, lines), with the change's diff (files) as
// context. The finding, the label and the diff are each fenced: the finding
// is model output, the diff untrusted code.
func ForJudge(f finding.Finding, issue string, files []*diff.File, fence, model string) llm.Request {
	if fence == "" {
		fence = NewFence()
	}
	rendered := diff.Render(files)
	fj := findingJSON(f)
	var b strings.Builder
	b.WriteString("# The labelled issue\n\n")
	writeFenceNote(&b, fence)
	b.WriteString("\n")
	writeFenced(&b, fence, issue)
	b.WriteString("\n# The reviewer's finding\n\n")
	writeFenced(&b, fence, fj)
	b.WriteString("\n# Diff of the pull request\n\n")
	writeFencedCode(&b, fence, rendered)
	return llm.Request{
		Persona: Judge,
		Schema:  Judge,
		Model:   model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: judgeSystem},
			{Role: llm.RoleUser, Content: b.String()},
			{Role: llm.RoleUser, Content: llm.PersonaHeader + Judge + "\n\n" + judgeTurn},
		},
		Fence: fence,
		Key:   llm.Key(Judge, issue, fj, rendered),
		Label: f.File,
	}
}
