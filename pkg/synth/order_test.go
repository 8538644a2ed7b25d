package synth

import (
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// These tests hold the order of the nine steps: each case would end
// differently if two steps ran the other way round.
func TestStepOrder(t *testing.T) {
	src := modified("pkg/a.go", 1,
		"package a",                             // 1
		"",                                      // 2
		"func f() {",                            // 3
		"+\t_ = os.Remove(p) //nolint:errcheck", // 4
		"+\tdefer mu.Unlock()",                  // 5
		"+\treturn",                             // 6
		"}",                                     // 7
	)
	// b.go: an unchanged line under a blanket directive, and one added.
	old := modified("pkg/b.go", 1, "\tx := legacy() //nolint", "+\ty := 1")
	files := []*diff.File{src, added("pkg/a_test.go", "package a", "func TestF(t *testing.T) {}"), old}
	type want struct {
		gated     []string // "title@anchor reviewers..." in order
		belowBar  int
		pre       int
		demoted   int
		byReason  map[string]int
		byAnchor  map[int]int
		demotions int
	}
	tests := []struct {
		name string
		in   Input
		want want
	}{
		{
			name: "promotion runs before the gate: two personas at 50 reach 75",
			in: Input{Files: files, Results: []PersonaResult{
				res("correctness", fnd("Unlock without lock", "pkg/a.go", 5, finding.P1, 50)),
				res("reliability", fnd("unlock without lock!", "pkg/a.go", 5, finding.P1, 50)),
			}},
			want: want{gated: []string{"Unlock without lock@75"}, byReason: map[string]int{ReasonDuplicate: 1}, byAnchor: map[int]int{}},
		},
		{
			name: "one persona at 50 is not promoted and the gate drops it",
			in: Input{Files: files, Results: []PersonaResult{
				res("correctness", fnd("Unlock without lock", "pkg/a.go", 5, finding.P1, 50)),
			}},
			want: want{byReason: map[string]int{ReasonBelowGate: 1}, byAnchor: map[int]int{50: 1}},
		},
		{
			name: "the gate runs after dedupe: two 50s three lines apart merge, promote, survive",
			in: Input{Files: files, Results: []PersonaResult{
				res("correctness", fnd("Unlock without lock", "pkg/a.go", 5, finding.P1, 50)),
				res("security", fnd("Unlock  without LOCK", "pkg/a.go", 2, finding.P2, 50)),
			}},
			want: want{gated: []string{"Unlock without lock@75"}, byReason: map[string]int{ReasonDuplicate: 1}, byAnchor: map[int]int{}},
		},
		{
			name: "validation runs before dedupe: an invalid twin neither merges nor promotes",
			in: Input{Files: files, Results: []PersonaResult{
				res("correctness", fnd("Unlock without lock", "pkg/a.go", 5, finding.P1, 50)),
				res("security", fnd("Unlock without lock", "pkg/a.go", 5, finding.P1, 72)),
			}},
			want: want{byReason: map[string]int{ReasonInvalid: 1, ReasonBelowGate: 1}, byAnchor: map[int]int{50: 1}},
		},
		{
			name: "lint-ignore runs after dedupe: the merged finding sits on its top member's line",
			in: Input{Files: files, Results: []PersonaResult{
				// security's copy is on the //nolint line; correctness ranks higher (P1) at line 6.
				res("security", fnd("Error ignored", "pkg/a.go", 4, finding.P2, 50)),
				res("correctness", fnd("error ignored", "pkg/a.go", 6, finding.P1, 50)),
			}},
			want: want{gated: []string{"error ignored@75"}, byReason: map[string]int{ReasonDuplicate: 1}, byAnchor: map[int]int{}},
		},
		{
			name: "lint-ignore drops a merged finding on a suppressed line once",
			in: Input{Files: files, Results: []PersonaResult{
				res("correctness", fnd("errcheck: Error ignored", "pkg/a.go", 4, finding.P2, 75)),
				res("reliability", fnd("errcheck: error ignored", "pkg/a.go", 5, finding.P3, 75)),
			}},
			want: want{byReason: map[string]int{ReasonDuplicate: 1, ReasonLintIgnore: 1}, byAnchor: map[int]int{}},
		},
		{
			name: "suppression forbidden keeps the finding",
			in: Input{Files: files, SuppressionForbidden: true, Results: []PersonaResult{
				res("correctness", fnd("errcheck: Error ignored", "pkg/a.go", 4, finding.P2, 75)),
			}},
			want: want{gated: []string{"errcheck: Error ignored@75"}, byReason: map[string]int{}, byAnchor: map[int]int{}},
		},
		{
			name: "demotion runs before the gate: a demoted 50 counts as demoted, not below gate",
			in: Input{Files: files, Results: []PersonaResult{
				res("testing", fnd("No test for f", "pkg/a.go", 3, finding.P3, 50, advisory)),
			}},
			want: want{byReason: map[string]int{ReasonDemoted: 1}, byAnchor: map[int]int{}, demotions: 1},
		},
		{
			name: "routing merges before demotion: advisory wins and the merged finding is demoted",
			in: Input{Files: files, Results: []PersonaResult{
				res("testing", fnd("No test for f", "pkg/a.go", 3, finding.P3, 75, advisory)),
				res("maintainability", fnd("no test for f", "pkg/a.go", 3, finding.P3, 75)),
			}},
			want: want{byReason: map[string]int{ReasonDuplicate: 1, ReasonDemoted: 1}, byAnchor: map[int]int{}, demotions: 1},
		},
		{
			name: "report-only mode moves demoted findings instead of dropping them",
			in: Input{Files: files, Mode: ModeReportOnly, Results: []PersonaResult{
				res("testing", fnd("No test for f", "pkg/a.go", 3, finding.P3, 50, advisory)),
			}},
			want: want{demoted: 1, byReason: map[string]int{}, byAnchor: map[int]int{}},
		},
		{
			name: "a second persona outside testing/maintainability blocks demotion and promotes",
			in: Input{Files: files, Results: []PersonaResult{
				res("testing", fnd("No test for f", "pkg/a.go", 3, finding.P3, 50, advisory)),
				res("correctness", fnd("No test for f", "pkg/a.go", 3, finding.P3, 50, advisory)),
			}},
			want: want{gated: []string{"No test for f@75"}, byReason: map[string]int{ReasonDuplicate: 1}, byAnchor: map[int]int{}},
		},
		{
			name: "pre-existing splits off before lint-ignore, demotion and the gate",
			in: Input{Files: files, Results: []PersonaResult{
				res("security", fnd("Old bug", "pkg/b.go", 1, finding.P3, 25, preExisting)),
				res("testing", fnd("Untested legacy branch", "pkg/a.go", 1, finding.P3, 50, advisory, preExisting)),
			}},
			want: want{pre: 2, byReason: map[string]int{}, byAnchor: map[int]int{}},
		},
		{
			name: "a pre-existing claim on a line the PR added does not split it off",
			in: Input{Files: files, Results: []PersonaResult{
				res("security", fnd("Shell built from input", "pkg/a.go", 5, finding.P1, 75, preExisting)),
			}},
			want: want{gated: []string{"Shell built from input@75"}, byReason: map[string]int{}, byAnchor: map[int]int{}},
		},
		{
			name: "P0 at 50 goes below the bar, not into Gated",
			in: Input{Files: files, Results: []PersonaResult{
				res("security", fnd("Secret logged", "pkg/a.go", 5, finding.P0, 50)),
				res("security", fnd("Test leaks", "pkg/a_test.go", 2, finding.P0, 100)),
			}},
			want: want{gated: []string{"Test leaks@100"}, belowBar: 1, byReason: map[string]int{}, byAnchor: map[int]int{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Synthesize(tt.in)
			var gated []string
			for _, f := range out.Gated {
				gated = append(gated, f.Title+"@"+strconv.Itoa(f.Confidence))
			}
			if !slices.Equal(gated, tt.want.gated) {
				t.Errorf("got gated %q; want %q", gated, tt.want.gated)
			}
			if len(out.BelowBar) != tt.want.belowBar || len(out.PreExisting) != tt.want.pre || len(out.Demoted) != tt.want.demoted {
				t.Errorf("got below bar %d, pre-existing %d, demoted %d; want %d, %d, %d",
					len(out.BelowBar), len(out.PreExisting), len(out.Demoted), tt.want.belowBar, tt.want.pre, tt.want.demoted)
			}
			if !maps.Equal(out.DroppedByReason, tt.want.byReason) {
				t.Errorf("got dropped by reason %v; want %v", out.DroppedByReason, tt.want.byReason)
			}
			if !maps.Equal(out.DroppedByAnchor, tt.want.byAnchor) {
				t.Errorf("got dropped by anchor %v; want %v", out.DroppedByAnchor, tt.want.byAnchor)
			}
			if out.Demotions != tt.want.demotions {
				t.Errorf("got %d demotions; want %d", out.Demotions, tt.want.demotions)
			}
		})
	}
}

func TestSynthesizeMergedFinding(t *testing.T) {
	files := []*diff.File{modified("pkg/a.go", 1, "a", "b", "+query := \"SELECT * FROM t WHERE id = \" + id", "+rows, err := db.Query(query)", "e", "f")}
	out := Synthesize(Input{Files: files, Results: []PersonaResult{
		res("security", fnd("SQL built by concatenation", "./pkg/a.go", 3, finding.P1, 75,
			evidence("a.go:3 query := \"...\" + id"), func(f *finding.Finding) {
				f.AutofixClass, f.Owner = "safe_auto", "review-fixer"
			})),
		res("correctness", fnd("SQL built by concatenation.", "b/pkg/a.go", 4, finding.P0, 50,
			evidence("a.go:4 db.Query(query)", "a.go:3 query := \"...\" + id"), func(f *finding.Finding) {
				f.AutofixClass, f.Owner, f.RequiresVerification = "gated_auto", "human", true
			})),
	}})
	if len(out.Gated) != 1 {
		t.Fatalf("got %d gated; want 1", len(out.Gated))
	}
	got := out.Gated[0]
	want := finding.Finding{
		Title: "SQL built by concatenation.", Severity: finding.P0, File: "pkg/a.go", Line: 4,
		AutofixClass: "gated_auto", Owner: "human",
		RequiresVerification: true, Confidence: 100,
		Evidence:  []string{"a.go:4 db.Query(query)", "a.go:3 query := \"...\" + id"},
		Reviewers: []string{"correctness", "security"}, Number: 1, Promoted: true,
	}
	if !equalFinding(got, want) {
		t.Errorf("got  %+v;\nwant %+v", got, want)
	}
}

func equalFinding(a, b finding.Finding) bool { return compareFindings(a, b) == 0 }
