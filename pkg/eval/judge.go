package eval

import (
	"context"
	"fmt"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/prompt"
)

// Judge decides whether a finding that overlaps a labelled issue by place
// describes the same issue. It can only remove matches: a finding the judge
// rejects is scored as if it had not overlapped that issue.
type Judge interface {
	SameIssue(ctx context.Context, c Case, is Issue, f finding.Finding) (same bool, reason string, err error)
}

// ModelJudge asks a model (`--judge-model`), through the same llm.Completer
// the review uses, with the strict schema prompt.JudgeSchema. The model's
// client must know that schema under the name prompt.Judge.
type ModelJudge struct {
	Model     llm.Completer
	ModelName string
}

// SameIssue implements Judge.
func (j ModelJudge) SameIssue(ctx context.Context, c Case, is Issue, f finding.Finding) (bool, string, error) {
	label := fmt.Sprintf("%s lines %d-%d (%s, %s): %s", is.File, is.Line, is.LineEnd, is.Severity, strings.Join(is.Personas, ", "), is.Description)
	req := prompt.ForJudge(f, label, c.Files, "", j.ModelName)
	resp, err := j.Model.Complete(ctx, req)
	if err != nil {
		return false, "", fmt.Errorf("eval: judge: %w", err)
	}
	var v struct {
		SameIssue *bool  `json:"same_issue"`
		Reason    string `json:"reason"`
	}
	if err := decodeStrict(resp.JSON, &v); err != nil || v.SameIssue == nil {
		return false, "", fmt.Errorf("eval: judge: %w: %s", ErrMalformed, resp.JSON)
	}
	return *v.SameIssue, v.Reason, nil
}
