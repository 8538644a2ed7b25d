package review_test

import (
	"context"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/persona"
)

// TestConditionalPersonasInReview: with the shipped personas, testing runs
// on a PR that changes 40 lines of a source file whose test, in the head
// tree, it leaves alone, and says why in Coverage; it does not run on the
// same change in a repository without tests, nor on a one-line change.
// Neither testing nor maintainability is asked when not selected.
func TestConditionalPersonasInReview(t *testing.T) {
	t.Parallel()
	lines := goLines("a", 40)
	src := strings.Join(lines, "\n") + "\n"
	tests := []struct {
		name        string
		heads       map[string]string
		oneLine     bool
		wantTesting string
	}{
		{"40 lines, its test untouched", map[string]string{"pkg/a/one.go": src, "pkg/a/one_test.go": "package a\n"}, false,
			"40 executable lines changed with no change to their tests in pkg/a/one.go in a repository that has tests"},
		{"a repository without tests", map[string]string{"pkg/a/one.go": src}, false, ""},
		{"a one-line change", map[string]string{"pkg/calc/calc.go": "", "pkg/calc/calc_test.go": "package calc\n"}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			all, err := persona.Load()
			if err != nil {
				t.Fatal(err)
			}
			e.rv.Personas = all
			if tt.oneLine {
				e.calcPR(t)
			} else {
				e.addPR(t, addedFile("pkg/a/one.go", lines), tt.heads)
			}
			res, _, err := e.rv.ReviewPR(context.Background(), options())
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			noViolations(t, e.model)
			reasons := map[string]string{}
			for _, p := range res.Coverage.Personas {
				reasons[p.Name] = p.Reason
			}
			if got := reasons["testing"]; got != tt.wantTesting {
				t.Errorf("testing: reason %q; want %q", got, tt.wantTesting)
			}
			if _, ok := reasons["maintainability"]; ok {
				t.Errorf("maintainability selected (%q) on a small change", reasons["maintainability"])
			}
			for _, p := range []string{"testing", "maintainability"} {
				_, selected := reasons[p]
				if n := len(e.model.RequestsFor(p)); (n > 0) != selected {
					t.Errorf("%s: %d requests, selected %t; a persona not selected is never asked", p, n, selected)
				}
			}
		})
	}
}
