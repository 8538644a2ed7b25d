package synth_test

import (
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/synth"
)

func ExampleSynthesize() {
	file := &diff.File{OldPath: "store.go", NewPath: "store.go", Status: diff.Modified, Hunks: []diff.Hunk{{
		OldStart: 10, OldLines: 2, NewStart: 10, NewLines: 3,
		Lines: []diff.Line{
			{Kind: diff.Context, Text: "func (s *Store) Get(k string) string {", OldNo: 10, NewNo: 10},
			{Kind: diff.Add, Text: "\tv := s.m[k] // no lock", NewNo: 11},
			{Kind: diff.Context, Text: "\treturn v", OldNo: 11, NewNo: 12},
		},
	}}}
	race := func(title string, line int) finding.Finding {
		return finding.Finding{
			Title: title, Severity: finding.P1, File: file.NewPath, Line: line,
			WhyItMatters: "concurrent Get and Set crash the process", AutofixClass: "manual",
			Owner: "human", Confidence: 50, Evidence: []string{"store.go:11 v := s.m[k]"},
		}
	}
	out := synth.Synthesize(synth.Input{
		Files: []*diff.File{file},
		Mode:  synth.ModeComment,
		Results: []synth.PersonaResult{
			{Persona: "correctness", Answer: finding.Answer{Findings: []finding.Finding{race("Map read without lock", 11)}}},
			{Persona: "reliability", Answer: finding.Answer{Findings: []finding.Finding{race("map read without lock.", 12)}}},
		},
	})
	for _, f := range out.Gated {
		fmt.Printf("#%d %s %s:%d %q anchor %d by %v (promoted: %v)\n",
			f.Number, f.Severity, f.File, f.Line, f.Title, f.Confidence, f.Reviewers, f.Promoted)
	}
	fmt.Println("dropped:", out.DroppedByReason)
	// Output:
	// #1 P1 store.go:11 "Map read without lock" anchor 75 by [correctness reliability] (promoted: true)
	// dropped: map[duplicate:1]
}
