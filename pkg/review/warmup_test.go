package review_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anchor-review/anchor-review/internal/memhttp"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/prompts"
)

// inMemory rewires e's Reviewer to reach its fakes in memory (memhttp):
// called inside a synctest bubble, every wait of the run passes on the
// bubble's clock. The fakes are started outside it.
func (e *env) inMemory(t *testing.T, wrap func(*llm.Client) llm.Completer) {
	t.Helper()
	hc := memhttp.Client(map[string]http.Handler{"github.test": e.gh.Handler(), "model.test": e.model.Handler()})
	gc, err := github.New(hc, "http://github.test/", "gh-token", github.WithSleep(noSleep))
	if err != nil {
		t.Fatal(err)
	}
	mc, err := llm.New(llm.Config{BaseURL: "http://model.test", APIKey: "k", Schemas: prompts.Schemas(), Sleep: noSleep, HTTPClient: hc, CallTimeout: time.Hour, Budget: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	e.rv.GitHub, e.rv.Model = gc, wrap(mc)
}

// TestWarmupHoldIsBounded: a warm-up whose first token takes 10 minutes (a
// self-hosted model reading a long prompt) holds the other calls for
// DefaultWarmupHold only; they go on then, without waiting for it.
func TestWarmupHoldIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const firstToken, latency = 10 * time.Minute, 11 * time.Minute
	e.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		rep := e.verdicts.reply(r)
		rep.FirstToken, rep.Delay = firstToken, latency
		return rep
	})
	e.calcPR(t)
	var logs []string
	var mu sync.Mutex
	synctest.Test(t, func(t *testing.T) {
		var tm *timedModel
		e.inMemory(t, func(c *llm.Client) llm.Completer { tm = &timedModel{next: c}; return tm })
		o := options()
		o.Personas, o.WarmCache = []string{"correctness", "testing", "maintainability"}, true
		o.Logf = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, fmt.Sprintf(format, args...))
		}
		if _, _, err := e.rv.ReviewPR(context.Background(), o); err != nil {
			t.Fatalf("ReviewPR: %v", err)
		}
		if len(tm.spans) != 3 {
			t.Fatalf("persona calls: %d; want 3", len(tm.spans))
		}
		slices.SortFunc(tm.spans, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
		first := tm.spans[0]
		for _, s := range tm.spans[1:] {
			if d := s[0].Sub(first[0]); d != review.DefaultWarmupHold {
				t.Errorf("a call started %v after the warm-up; want %v (the hold), not its first token at %v", d, review.DefaultWarmupHold, firstToken)
			}
		}
	})
	if !slices.ContainsFunc(logs, func(l string) bool { return strings.Contains(l, "no first token within") }) {
		t.Errorf("the log does not say the hold ran out: %q", logs)
	}
}

// threeFindings is a pull request of three files with one finding each
// (correctness's), every call of the fake model answering after firstToken
// and done after latency, with or without a prompt cache.
func threeFindings(t *testing.T, cache bool, firstToken, latency time.Duration) *env {
	t.Helper()
	files := []string{"pkg/a/one.go", "pkg/a/two.go", "pkg/a/three.go"}
	e := newEnv(t, nil)
	e.model.SimulatePromptCache(cache)
	e.helpersPR(t, 400, files...)
	var fs []finding.Finding
	for _, p := range files {
		fs = append(fs, f("Overflow in helper9 of "+p, finding.P1, p, 9, 100, func(x *finding.Finding) {
			x.Evidence = []string{"func helper8(x int) int { return x*8 + 1 }"}
		}))
	}
	first := llmtest.OK(answer(t, "correctness", fs, nil, nil))
	first.FirstToken, first.Delay = firstToken, latency
	e.model.Script("correctness", first)
	e.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		rep := e.verdicts.reply(r)
		if r.Persona == llm.Validator {
			rep = llmtest.Verdicts(r, func(string) string { return `{"validated":true,"reason":"Real."}` })
		}
		rep.FirstToken, rep.Delay = firstToken, latency
		return rep
	})
	return e
}

// warmReview runs e's review with the cache warm-up on the fake clock:
// three personas, per-file validation, all three findings confirmed. It
// returns the log and the calls' spans.
func warmReview(t *testing.T, e *env) ([]string, *timedModel) {
	t.Helper()
	var logs []string
	var mu sync.Mutex
	var tm *timedModel
	synctest.Test(t, func(t *testing.T) {
		e.inMemory(t, func(c *llm.Client) llm.Completer { tm = &timedModel{next: c}; return tm })
		o := options()
		o.Personas, o.WarmCache, o.ValidatorBatching = []string{"correctness", "testing", "maintainability"}, true, review.ValidatePerFile
		o.Logf = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, fmt.Sprintf(format, args...))
		}
		res, _, err := e.rv.ReviewPR(context.Background(), o)
		if err != nil {
			t.Fatalf("ReviewPR: %v", err)
		}
		if res.Coverage.Validated != 3 {
			t.Fatalf("validated %d; want 3", res.Coverage.Validated)
		}
	})
	return logs, tm
}

// TestWarmupStopsWithoutCachedTokens: when the calls the persona warm-up
// released report no cached tokens, the provider has no prompt cache, and
// the validator round is not warmed (no streamed warm-up, no call held).
// With a prompt cache, it is.
func TestWarmupStopsWithoutCachedTokens(t *testing.T) {
	t.Parallel()
	for _, cache := range []bool{true, false} {
		t.Run(map[bool]string{true: "cache", false: "no cache"}[cache], func(t *testing.T) {
			t.Parallel()
			e := threeFindings(t, cache, time.Second, 2*time.Second)
			logs, _ := warmReview(t, e)
			streamed := 0
			for _, r := range e.model.RequestsFor(llm.Validator) {
				if r.Stream {
					streamed++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[cache]; streamed != want {
				t.Errorf("%d streamed validator requests; want %d (a warm-up only while the cache pays)", streamed, want)
			}
			said := slices.ContainsFunc(logs, func(l string) bool { return strings.Contains(l, "no cached tokens") })
			if said == cache {
				t.Errorf("the log says the warm-up stopped: %t; want %t\n%q", said, !cache, logs)
			}
		})
	}
}

// TestWarmupHoldIsBoundedEveryRound: on a server whose first token takes
// 10 minutes, each round's warm-up holds the other calls DefaultWarmupHold
// and no longer: the validator round's held calls start 30 s after its
// warm-up, as the persona round's do. Warming goes on (a slow first call
// is no proof the provider has no cache), so a slow server pays the hold
// once a round: twice a run.
func TestWarmupHoldIsBoundedEveryRound(t *testing.T) {
	t.Parallel()
	e := threeFindings(t, true, 10*time.Minute, 11*time.Minute)
	logs, tm := warmReview(t, e)
	spans := tm.vspans
	if len(spans) != 3 {
		t.Fatalf("validator calls: %d; want 3", len(spans))
	}
	slices.SortFunc(spans, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	for _, s := range spans[1:] {
		if d := s[0].Sub(spans[0][0]); d != review.DefaultWarmupHold {
			t.Errorf("a validator call started %v after the round's warm-up; want %v (the hold)", d, review.DefaultWarmupHold)
		}
	}
	holds := 0
	for _, l := range logs {
		if strings.Contains(l, "no first token within") {
			holds++
		}
	}
	if holds != 4 { // two held calls a round, two rounds
		t.Errorf("the log says %d held calls went on after the hold; want 4\n%q", holds, logs)
	}
}
