package review_test

import (
	"context"
	"slices"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
)

// TestReviewDeduplicatesNotes: a model that repeats one residual risk fifty
// times, and two personas that write the same testing gap differently,
// leave one note each, and Coverage counts what was dropped.
func TestReviewDeduplicatesNotes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.helpersPR(t, 10, "pkg/a/x.go")
	risks := make([]string, 50)
	for i := range risks {
		risks[i] = "The retry loop has no upper bound."
	}
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", nil, []string{"No test covers x."}, risks)))
	e.model.Script("testing", llmtest.OK(answer(t, "testing", nil, []string{"no test covers X"}, nil)))
	res, _, err := e.rv.ReviewPR(context.Background(), options())
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	if !slices.Equal(res.ResidualRisks, []string{"The retry loop has no upper bound."}) || res.Coverage.ResidualRisksDropped != 49 {
		t.Errorf("residual risks %q, %d dropped; want one, 49 dropped", res.ResidualRisks, res.Coverage.ResidualRisksDropped)
	}
	if len(res.TestingGaps) != 1 || res.Coverage.TestingGapsDropped != 1 {
		t.Errorf("testing gaps %q, %d dropped; want one, 1 dropped", res.TestingGaps, res.Coverage.TestingGapsDropped)
	}
}
