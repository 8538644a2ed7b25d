package review_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// barrier holds the first n requests until all n have arrived, so the
// peak concurrency the fake measures reaches n whenever the orchestrator
// allows n calls at once, however the machine schedules them. The wait is
// bounded only so a broken bound fails the test instead of hanging it.
type barrier struct {
	mu      sync.Mutex
	n, seen int
	open    chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, open: make(chan struct{})} }

func (b *barrier) wait() {
	b.mu.Lock()
	b.seen++
	seen := b.seen
	if seen == b.n {
		close(b.open)
	}
	b.mu.Unlock()
	if seen > b.n {
		return
	}
	select {
	case <-b.open:
	case <-time.After(10 * time.Second):
	}
}

// TestDispatchConcurrencyBound: the orders PR selects all eleven personas;
// the peak of model calls in flight equals max-concurrency.
func TestDispatchConcurrencyBound(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{3, 8} {
		t.Run(fmt.Sprintf("max-concurrency=%d", limit), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.addOrdersPR(t)
			b := newBarrier(limit)
			e.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
				b.wait()
				reply := llmtest.OK(llmtest.DefaultContent(r))
				reply.Delay = 5 * time.Millisecond
				return reply
			})
			o := options()
			o.MaxConcurrency = limit
			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if n := len(res.Coverage.Personas); n != len(ordersTeam()) {
				t.Fatalf("got %d personas; want all %d", n, len(ordersTeam()))
			}
			if got := e.model.MaxInFlight(); got != limit {
				t.Errorf("max-concurrency %d: peak in-flight calls %d; want %d", limit, got, limit)
			}
			if got, want := len(e.model.Requests()), len(ordersTeam()); got != want {
				t.Errorf("model requests: got %d; want %d", got, want)
			}
		})
	}
}

// TestDispatchModels: correctness, security and adversarial use the strong
// model, the others the standard one, the validator its own.
func TestDispatchModels(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.addOrdersPR(t)
	e.model.Script("testing", llmtest.OK(answer(t, "testing", []finding.Finding{
		f("Missing error-path test", finding.P1, ordersTst, 9, 75), // P1: not demoted, so the validator runs
	}, nil, nil)))
	if _, _, err := e.rv.ReviewPR(context.Background(), options()); err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	strong := map[string]bool{"correctness": true, "security": true, "adversarial": true}
	seen := map[string]bool{}
	for _, r := range e.model.Requests() {
		want := "gpt-std"
		switch {
		case r.Persona == llm.Validator:
			want = "gpt-validator"
		case strong[r.Persona]:
			want = "gpt-strong"
		}
		seen[r.Persona] = true
		if r.Model != want {
			t.Errorf("%s asked model %q; want %q", r.Persona, r.Model, want)
		}
	}
	if len(seen) != len(ordersTeam())+1 {
		t.Errorf("got requests from %d personas (validator included); want %d: %v", len(seen), len(ordersTeam())+1, seen)
	}
}

// TestDispatchPersonaFailsAlone: a persona answering malformed JSON twice
// fails alone; the review goes on, is partial, and the verdict is degraded
// unless a blocking finding is posted.
func TestDispatchPersonaFailsAlone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sev  finding.Severity
		want review.Verdict
	}{
		{finding.P2, review.Degraded},
		{finding.P1, review.NotReady},
	} {
		t.Run(string(tc.sev), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.addOrdersPR(t)
			e.model.Script("security", llmtest.Malformed(), llmtest.Malformed())
			e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
				f(tRows, tc.sev, ordersGo, 38, 100),
			}, nil, nil)))
			res, _, err := e.rv.ReviewPR(context.Background(), options())
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			for _, p := range res.Coverage.Personas {
				if failed := p.Failed != ""; failed != (p.Name == "security") {
					t.Errorf("persona %s: Failed %q; want failed only for security", p.Name, p.Failed)
				}
			}
			if n := len(e.model.RequestsFor("security")); n != 2 {
				t.Errorf("security requests: got %d; want 2 (one repair)", n)
			}
			if len(res.Findings) != 1 || res.Findings[0].Title != tRows {
				t.Errorf("findings: got %+v; want correctness's %q", res.Findings, tRows)
			}
			if !res.Partial || res.AllFailed || res.Verdict != tc.want {
				t.Errorf("got partial %t allFailed %t verdict %s; want true, false, %s", res.Partial, res.AllFailed, res.Verdict, tc.want)
			}
		})
	}
}

// TestDispatchOrderIsFixed: the Result does not depend on the order in
// which the personas answer.
func TestDispatchOrderIsFixed(t *testing.T) {
	t.Parallel()
	names := persona.Names()
	run := func(delay func(i int) time.Duration) []byte {
		e := newEnv(t, nil)
		e.addOrdersPR(t)
		e.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
			if r.Persona == llm.Validator {
				return verdictReply("true")
			}
			i := slices.Index(names, r.Persona)
			// Every persona reports the same two findings (merged, promoted)
			// and one of its own.
			reply := llmtest.OK(answer(t, r.Persona, []finding.Finding{
				f(tSQLi, finding.P0, ordersGo, 37, 75),
				f(tRows, finding.P1, ordersGo, 38+i%3, 50),
				f("Own finding of "+r.Persona, finding.P2, ordersGo, 40+i, 75),
			}, []string{"gap from " + r.Persona}, []string{"risk from " + r.Persona}))
			reply.Delay = delay(i)
			return reply
		})
		res, _, err := e.rv.ReviewPR(context.Background(), options())
		if err != nil {
			t.Fatalf("ReviewPR: %v", err)
		}
		res.Coverage.Usage.Wall = 0
		b, err := json.MarshalIndent(res, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := run(func(i int) time.Duration { return time.Duration(i) * 2 * time.Millisecond })
	second := run(func(i int) time.Duration { return time.Duration(len(names)-i) * 2 * time.Millisecond })
	if string(first) != string(second) {
		t.Errorf("results differ with the finishing order:\n%s", lineDiff(string(first), string(second)))
	}
	var res review.Result
	if err := json.Unmarshal(first, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) < 3 || len(res.TestingGaps) != len(ordersTeam()) {
		t.Errorf("got %d findings, %d testing gaps; want the shared ones merged and each persona's own (%d gaps)", len(res.Findings), len(res.TestingGaps), len(ordersTeam()))
	}
}
