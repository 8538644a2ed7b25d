package eval

import (
	"context"
	"os"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/review"
)

// TestYieldOnRecordedCase: the follow-redirects answers the real model
// recorded for the release-2 team (testdata/release2/real/js-follow-redirects-proxy-auth: the
// case as fixtures/eval holds it, with the recording of commit 7a258b0,
// which asked every persona), with testing on the team, post security's Proxy-Authorization finding alone
// and fold testing's "no test" finding into it: testing posts nothing and
// counts one fold; without testing selected (the shipped rules, a small
// change) it is never asked.
func TestYieldOnRecordedCase(t *testing.T) {
	release2 := os.DirFS("testdata")
	c, err := LoadCase(release2, "release2/real/js-follow-redirects-proxy-auth", SuiteReal)
	if err != nil {
		t.Fatal(err)
	}
	yields := func(o Options) map[string]Yield {
		// The recording holds the per-finding validator's verdicts.
		o.Answerer, o.Concurrency, o.ValidatorBatching = Recorded{FS: release2, Root: "release2"}, 1, review.ValidatePerFinding
		r, err := Run(context.Background(), []Case{c}, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Pipeline.Duplicates != 0 || r.Pipeline.Findings != 1 {
			t.Errorf("posted %d, duplicates %d; want 1 and 0", r.Pipeline.Findings, r.Pipeline.Duplicates)
		}
		out := map[string]Yield{}
		for _, y := range r.Pipeline.Yield {
			out[y.Persona] = y
		}
		return out
	}
	with := yields(Options{Team: releaseTwoTeam(t)})
	if y := with["testing"]; y.Calls != 1 || y.Posted != 0 || y.Folded != 1 || y.Tokens == 0 {
		t.Errorf("testing on the team: %+v; want 1 call, estimated tokens, nothing posted, 1 folded", y)
	}
	if y := with["security"]; y.Posted != 1 || y.PostedAlone != 1 || y.Gated != 1 || y.Validated != 1 {
		t.Errorf("security: %+v; want 1 gated, validated, posted, posted alone", y)
	}
	shipped := yields(Options{})
	if y, ok := shipped["testing"]; ok {
		t.Errorf("testing not selected by the shipped rules, yet in the yield: %+v", y)
	}
}
