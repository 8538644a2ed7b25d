package eval

import (
	"context"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
)

// answerModel answers every request with one fixed JSON document.
type answerModel string

func (a answerModel) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{JSON: []byte(a)}, nil
}

// A validator answer the validation schema accepts, severity lowered
// included, is a verdict, never a failure.
func TestVerifyKeepsSeverity(t *testing.T) {
	it := PoolItem{ID: "p1", Case: "scripted/x", Finding: finding.Finding{Title: "t", File: "a.go", Line: 1, Severity: finding.P1, Evidence: []string{"x"}}}
	cases := map[string]Case{"scripted/x": {Name: "x"}}
	v, err := verify(context.Background(), it, cases, answerModel(`{"validated":true,"reason":"real","severity":"P2"}`), "m")
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if !v.Validated || v.Severity != finding.P2 {
		t.Errorf("verify = %+v; want validated with severity P2", v)
	}
}
