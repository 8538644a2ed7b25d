package synth

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// recordedCase is an eval case's diff and the answers a real model gave for
// it (fixtures/eval/real/<name>/recorded), read as eval replays them.
func recordedCase(t *testing.T, name string, personas ...string) ([]*diff.File, []PersonaResult) {
	t.Helper()
	dir := filepath.Join("..", "..", "fixtures", "eval", "real", name)
	b, err := os.ReadFile(filepath.Join(dir, "diff.patch"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := diff.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	var results []PersonaResult
	for _, p := range personas {
		b, err := os.ReadFile(filepath.Join(dir, "recorded", p+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var a finding.Answer
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for i := range a.Findings {
			a.Findings[i].Reviewers = []string{p}
		}
		results = append(results, PersonaResult{Persona: p, Answer: a})
	}
	return d.Files, results
}

// TestRecordedParaphrasesMerge is "one defect, one finding" on the answers
// a real model gave (recorded 2026-11-28): the pairs that were posted twice
// until findings quoting one line and proposing the same fix in other words
// counted as one defect (sameFix). The other defect on nearby lines of each
// case stays its own finding.
func TestRecordedParaphrasesMerge(t *testing.T) {
	tests := []struct {
		name     string
		personas []string
		posted   map[int][]string // line → reviewers of the finding posted there
	}{
		{
			// The routing ReDoS in four wordings (adversarial's "backtrack
			// for seconds (routing ReDoS)", typescript's "backtrack on
			// crafted URLs and block Node's event loop", ...) is one finding
			// on line 70; the re-escaped backslashes on line 66 are another.
			name:     "js-path-to-regexp-backtracking",
			personas: []string{"correctness", "testing", "security", "api-contract", "adversarial", "typescript"},
			posted: map[int][]string{
				66: {"api-contract", "correctness"},
				70: {"typescript", "adversarial", "security"},
			},
		},
		{
			// Security and typescript each name both crash paths on line 31
			// ("TypeError (null.length / string.join), a remote crash" and
			// "match() can return null and decodeComponents now returns a
			// string"): one finding. Correctness's line 9 is the string
			// return alone, outside the dedupe window: its own finding.
			name:     "js-decode-uri-component-crash",
			personas: []string{"correctness", "security", "typescript"},
			posted: map[int][]string{
				9:  {"correctness"},
				31: {"security", "typescript"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, results := recordedCase(t, tt.name, tt.personas...)
			out := Synthesize(Input{Files: files, Results: results, Mode: ModeComment})
			got := map[int][]string{}
			for _, f := range out.Gated {
				if _, dup := got[f.Line]; dup {
					t.Errorf("line %d posted twice: %q", f.Line, f.Title)
				}
				got[f.Line] = f.Reviewers
			}
			for line, want := range tt.posted {
				if !sameSet(got[line], want) {
					t.Errorf("line %d: reviewers %v; want %v", line, got[line], want)
				}
			}
			if len(got) != len(tt.posted) {
				t.Errorf("posted on lines %v; want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(tt.posted)))
			}
		})
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestBackslashSlipKeepsTheLine: a model writing JSON often halves a
// quote's backslashes. Testing's answer in a live run of path-to-regexp
// (2026-11-28) quoted line 70 as `'([^\/'` where the file says `'([^\\/'`;
// anchoring then moved its test gap to line 10, its next quote, and the
// gap was posted apart from the ReDoS finding it belongs to. Quotes match
// whatever the run of backslashes, so the gap stays on line 70 and folds
// into the ReDoS finding there.
func TestBackslashSlipKeepsTheLine(t *testing.T) {
	files, results := recordedCase(t, "js-path-to-regexp-backtracking", "security")
	gap := finding.Finding{
		Title:        "Rewritten path compiler changes param splitting and escape handling with no tests",
		Severity:     finding.P1,
		File:         "index.js",
		Line:         70,
		Confidence:   75,
		WhyItMatters: "The change drops the backtrack-aware capture for parameters that share a segment and touches no test: nothing pins how '/:from-:to' splits '/a-b-c', or that matching a long crafted URL against a two-parameter segment finishes quickly.",
		Evidence: []string{
			`index.js:70: capture = capture || '([^\/' + format + ']+?)';`,
			`index.js:10: var MATCHING_GROUP_REGEXP = /\((?:\?<(.*?)>)?(?!\?)/g;`,
		},
		AutofixClass:         "manual",
		Owner:                "review-fixer",
		RequiresVerification: true,
		Reviewers:            []string{"testing"},
	}
	results = append(results, PersonaResult{Persona: "testing", Answer: finding.Answer{Reviewer: "testing", Findings: []finding.Finding{gap}}})
	out := Synthesize(Input{Files: files, Results: results, Mode: ModeComment})
	if len(out.Gated) != 1 || out.Folded != 1 {
		var got []string
		for _, f := range out.Gated {
			got = append(got, fmt.Sprintf("%d %s", f.Line, f.Title))
		}
		t.Fatalf("posted %q, %d folded (drops %v, by anchor %v); want the ReDoS finding alone, the test gap folded into it", got, out.Folded, out.DroppedByReason, out.DroppedByAnchor)
	}
	if f := out.Gated[0]; f.Line != 70 || f.TestGap == nil {
		t.Errorf("posted line %d, test gap %v; want line 70 carrying the gap", f.Line, f.TestGap)
	}
}
