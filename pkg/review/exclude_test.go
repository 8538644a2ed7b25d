package review_test

import (
	"context"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// TestExcludePersonas: an excluded persona gets no call, whatever selects
// it, and the exclusion is part of the review's scope key, so a later
// incremental review under another exclusion reviews the whole PR.
func TestExcludePersonas(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.calcPR(t)
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{}, nil, nil)))
	o := options()
	o.Personas, o.ExcludePersonas = []string{"correctness", "testing"}, []string{"testing"}
	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	if n := len(e.model.RequestsFor("testing")); n != 0 {
		t.Errorf("testing got %d requests; want none (excluded)", n)
	}
	if n := len(e.model.RequestsFor("correctness")); n != 1 {
		t.Errorf("correctness got %d requests; want 1", n)
	}
	for _, p := range res.Coverage.Personas {
		if p.Name == "testing" {
			t.Errorf("Coverage lists testing, which was excluded: %+v", res.Coverage.Personas)
		}
	}
	without := review.ScopeKey(o.Exclude, o.Personas, scope.Attributes{})
	if k := res.ScopeKey; k == "" || k == without || review.ScopeKey(o.Exclude, review.TeamKey(o.Personas, nil), scope.Attributes{}) != without {
		t.Errorf("scope key %q; want it to differ from %q, the key without the exclusion (which is as before)", k, without)
	}
}
