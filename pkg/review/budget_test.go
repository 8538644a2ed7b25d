package review_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// budgetFiles are four files of 40 lines (about 500 tokens of diff each).
var budgetFiles = []string{"pkg/a/one.go", "pkg/a/two.go", "pkg/b/three.go", "pkg/b/four.go"}

// TestBudgetChunksAndCap: a diff over the input budget is split into
// chunks of whole files, the run never sends more than max-llm-calls
// requests, and the files the budget left out are listed, making the
// review partial.
func TestBudgetChunksAndCap(t *testing.T) {
	t.Parallel()
	team := []string{"correctness", "testing", "maintainability"}
	for _, tc := range []struct {
		name        string
		validate    bool
		maxCalls    int
		findings    int // correctness's gating findings on the first file
		chunks      int // chunks each persona reviews
		validations int
		overBudget  int
	}{
		// 7 calls for 3 personas: 2 chunks each, the last two files left out.
		{name: "report-only", maxCalls: 7, chunks: 2},
		// 10 calls, validation on: the validator's share is min(15, 10/2)
		// = 5, so 5 persona calls (1 chunk each), then 7 validations fit.
		{name: "with validator", validate: true, maxCalls: 10, findings: 9, chunks: 1, validations: 7, overBudget: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.helpersPR(t, 40, budgetFiles...)
			var fs []finding.Finding
			for i := range tc.findings {
				fs = append(fs, f(fmt.Sprintf("Problem %d", i+1), finding.P2, budgetFiles[0], 3+3*i, 75))
			}
			e.model.Script("correctness", llmtest.OK(answer(t, "correctness", fs, nil, nil)))
			o := options()
			o.Personas, o.Validate, o.MaxLLMCalls, o.MaxInputTokens = team, tc.validate, tc.maxCalls, diffBudget(t, 600, tc.validate, team...)
			if !tc.validate {
				o.Mode = review.ModeReportOnly
			}

			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			noViolations(t, e.model)
			reqs := e.model.Requests()
			if len(reqs) > tc.maxCalls {
				t.Errorf("model requests: got %d; want at most max-llm-calls %d", len(reqs), tc.maxCalls)
			}
			calls := modelCalls(e.model)
			for _, p := range team {
				if calls[p] != tc.chunks {
					t.Errorf("%s calls: got %d; want %d (one per chunk)", p, calls[p], tc.chunks)
				}
			}
			if calls[llm.Validator] != tc.validations || len(res.Coverage.OverBudget) != tc.overBudget {
				t.Errorf("validations %d, over budget %d; want %d, %d", calls[llm.Validator], len(res.Coverage.OverBudget), tc.validations, tc.overBudget)
			}

			// Every persona request holds whole files: each file it names
			// with all its 40 lines.
			for _, r := range reqs {
				if r.Persona == llm.Validator {
					continue
				}
				d := r.Messages[1].Content
				n := strings.Count(d, "diff --git ")
				if n != 1 {
					t.Errorf("%s request holds %d files; want 1 per chunk (the budget fits one)", r.Persona, n)
				}
				if !strings.Contains(d, "@@ -0,0 +1,40 @@") || !strings.Contains(d, "helper39(") {
					t.Errorf("%s request does not hold a whole file", r.Persona)
				}
			}

			// The files left out are listed with the reason.
			var left []string
			for _, x := range res.Coverage.NotReviewed {
				left = append(left, x.Path)
				if want := fmt.Sprintf("over the budget of %d model calls", tc.maxCalls); x.Reason != want {
					t.Errorf("not reviewed %s: reason %q; want %q", x.Path, x.Reason, want)
				}
			}
			if want := budgetFiles[tc.chunks:]; !slices.Equal(left, want) {
				t.Errorf("not reviewed: got %q; want %q", left, want)
			}
			if !res.Partial {
				t.Errorf("Partial: got false; want true")
			}
			if res.Coverage.Usage.Calls > tc.maxCalls {
				t.Errorf("Usage.Calls: got %d; want at most %d", res.Coverage.Usage.Calls, tc.maxCalls)
			}
		})
	}
}

// TestBudgetFixtureSplits checks the premise of TestBudgetChunksAndCap:
// with its budget each file is one chunk.
func TestBudgetFixtureSplits(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, p := range budgetFiles {
		b.WriteString(addedFile(p, goLines("helpers", 40)))
	}
	d, err := diff.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	// The review packs with Fit (numbered diff, test-file lines) in what
	// diffBudget leaves: 600 tokens.
	parts, left := prompt.Fit(prompt.Context{Files: d.Files, Tests: map[string][]string{}, Fence: fence}, 600)
	if len(parts) != 4 || len(left) != 0 {
		t.Fatalf("got %d parts, %d left; want 4, 0", len(parts), len(left))
	}
	for i, p := range parts {
		if len(p.Files) != 1 || p.Files[0].Path() != budgetFiles[i] || len(p.Files[0].Hunks) != 1 {
			t.Errorf("part %d: got %d files; want %s whole", i, len(p.Files), budgetFiles[i])
		}
	}
}
