package synth

import (
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// fnd builds a schema-valid finding; mods adjust it.
func fnd(title, file string, line int, sev finding.Severity, conf int, mods ...func(*finding.Finding)) finding.Finding {
	f := finding.Finding{
		Title:    title,
		Severity: sev,
		File:     file,
		Line:     line,
		// No reason by default: a shared stock reason would make every
		// pair of fixtures look alike to deduplication (similar.go).
		WhyItMatters: "",
		AutofixClass: "manual",
		Owner:        "human",
		Confidence:   conf,
		Evidence:     []string{fmt.Sprintf("%s:%d", file, line)},
	}
	for _, m := range mods {
		m(&f)
	}
	return f
}

func by(persona string) func(*finding.Finding) {
	return func(f *finding.Finding) { f.Reviewers = []string{persona} }
}

func advisory(f *finding.Finding)    { f.AutofixClass = "advisory" }
func preExisting(f *finding.Finding) { f.PreExisting = true }

func evidence(e ...string) func(*finding.Finding) {
	return func(f *finding.Finding) { f.Evidence = e }
}

func res(persona string, fs ...finding.Finding) PersonaResult {
	return PersonaResult{Persona: persona, Answer: finding.Answer{Reviewer: persona, Findings: fs}}
}

// added is an added file whose new version is exactly lines.
func added(path string, lines ...string) *diff.File {
	h := diff.Hunk{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: len(lines)}
	for i, t := range lines {
		h.Lines = append(h.Lines, diff.Line{Kind: diff.Add, Text: t, NewNo: i + 1})
	}
	return &diff.File{NewPath: path, Status: diff.Added, Hunks: []diff.Hunk{h}}
}

// modified is a modified file with one hunk whose new side starts at line
// start: every line is context except those whose text begins with "+",
// which are added (the "+" is stripped), and "-", which are deleted.
func modified(path string, start int, lines ...string) *diff.File {
	h := diff.Hunk{OldStart: start, NewStart: start}
	oldNo, newNo := start, start
	for _, t := range lines {
		switch {
		case len(t) > 0 && t[0] == '+':
			h.Lines = append(h.Lines, diff.Line{Kind: diff.Add, Text: t[1:], NewNo: newNo})
			newNo++
		case len(t) > 0 && t[0] == '-':
			h.Lines = append(h.Lines, diff.Line{Kind: diff.Delete, Text: t[1:], OldNo: oldNo})
			oldNo++
		default:
			h.Lines = append(h.Lines, diff.Line{Kind: diff.Context, Text: t, OldNo: oldNo, NewNo: newNo})
			oldNo++
			newNo++
		}
	}
	h.OldLines, h.NewLines = oldNo-start, newNo-start
	return &diff.File{OldPath: path, NewPath: path, Status: diff.Modified, Hunks: []diff.Hunk{h}}
}

func deleted(path string) *diff.File {
	return &diff.File{OldPath: path, Status: diff.Deleted, Hunks: []diff.Hunk{{
		OldStart: 1, OldLines: 1, Lines: []diff.Line{{Kind: diff.Delete, Text: "gone", OldNo: 1}},
	}}}
}

// groupsOf wraps already-merged findings as single-member groups.
func groupsOf(fs ...finding.Finding) []group {
	gs := make([]group, len(fs))
	for i, f := range fs {
		gs[i] = group{f: f, members: []finding.Finding{f}}
	}
	return gs
}

func findingsOf(gs []group) []finding.Finding {
	fs := make([]finding.Finding, len(gs))
	for i, g := range gs {
		fs[i] = g.f
	}
	return fs
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// quotingOf is what step 1 hands dedupe for fs when nothing is anchored:
// each finding's quotes, no matched lines.
func quotingOf(fs []finding.Finding) []quoting {
	out := make([]quoting, len(fs))
	for i, f := range fs {
		out[i].quotes = quotesOf(f.Evidence)
	}
	return out
}

// problemOf is newProblem of f without anchoring.
func problemOf(f finding.Finding) problem { return newProblem(f, quotingOf([]finding.Finding{f})[0]) }
