package suite

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anchor-review/anchor-review/internal/memhttp"
	"github.com/anchor-review/anchor-review/pkg/cli"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
)

// slowCall is how long the slow model takes to answer every call.
const slowCall = 5 * time.Minute

// runInMemory runs the Action through cli.Run as the container does, with
// the real GitHub and model clients reaching the fakes in memory
// (memhttp), inside a synctest bubble: every wait, the fake model's
// five-minute answers, the client's call timeout and budget and the run's
// deadline, passes on the bubble's clock, not the machine's. It returns
// the outcome and the time that passed on that clock.
func (w *world) runInMemory() (outcome, time.Duration) {
	w.t.Helper()
	w.env["GITHUB_API_URL"] = "http://github.test/"
	w.env["INPUT_BASE-URL"] = "http://model.test/v1"
	client := memhttp.Client(map[string]http.Handler{"github.test": w.gh.Handler(), "model.test": w.model.Handler()})
	var o outcome
	var took time.Duration
	synctest.Test(w.t, func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		start := time.Now()
		err := cli.Run(context.Background(), &cli.Factory{Getenv: w.getenv, Stdout: &stdout, Stderr: &stderr, HTTPClient: client}, nil)
		took = time.Since(start)
		o = w.collect(err, stdout.String(), stderr.String())
	})
	return o, took
}

// TestSlowModelCompletesUnderTheDeadline: a self-hosted model that answers
// every call in 5 minutes, one at a time (max-concurrency 1), reviews the
// demo's pull request completely under deadline-minutes 60: no call is cut
// by a per-call timeout (derived from the deadline) or by the model-time
// budget (which follows the deadline), and the report is posted with a
// check that says the review is complete.
func TestSlowModelCompletesUnderTheDeadline(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		reply := w.fixtureAnswer(r)
		reply.Delay = slowCall
		return reply
	})
	w.env["INPUT_DEADLINE-MINUTES"] = "60"
	w.env["INPUT_MAX-CONCURRENCY"] = "1"

	o, took := w.runInMemory()

	calls := len(w.model.Requests())
	t.Logf("%d model calls of %v each, one at a time: %v on the fake clock", calls, slowCall, took)
	if o.code != 1 {
		// The buggy PR has blocking findings: exit 1 is a complete review.
		t.Errorf("exit code %d (err %v); want 1 (blocking findings)\nstdout:\n%s", o.code, o.err, o.stdout)
	}
	checkInvariants(t, w)
	checkRun(t, w, "failure")
	body := oneComment(t, w)
	if strings.Contains(body, "Review incomplete") || strings.Contains(body, "timed out") || strings.Contains(body, "deadline") {
		t.Errorf("the review is not complete:\n%s", body)
	}
	if o.outputs["verdict"] != "not-ready" {
		t.Errorf("verdict %q; want not-ready", o.outputs["verdict"])
	}
	if m := w.model.MaxInFlight(); m != 1 {
		t.Errorf("%d model calls at once; want 1 (max-concurrency)", m)
	}
	// The calls ran one after the other, each for its whole five minutes:
	// the review took that long on the bubble's clock, and ended within
	// the deadline.
	if min := time.Duration(calls) * slowCall; took < min || took > 60*time.Minute {
		t.Errorf("the run took %v for %d calls; want between %v and the 60-minute deadline", took, calls, min)
	}
}

// TestSlowModelTimeoutInput: model-timeout bounds each call. With 4
// minutes, the five-minute answers all time out, and the review is
// incomplete and says so, long before the deadline.
func TestSlowModelTimeoutInput(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		reply := w.fixtureAnswer(r)
		reply.Delay = slowCall
		return reply
	})
	w.env["INPUT_DEADLINE-MINUTES"] = "60"
	w.env["INPUT_MAX-CONCURRENCY"] = "1"
	w.env["INPUT_MODEL-TIMEOUT"] = "4m"

	o, took := w.runInMemory()

	if o.code == 0 {
		t.Errorf("exit code 0; want a failure (every call timed out)\nstdout:\n%s", o.stdout)
	}
	if !strings.Contains(o.stdout, "timed out after 4m0s") {
		t.Errorf("the log does not name the 4-minute timeout:\n%s", o.stdout)
	}
	if took >= 60*time.Minute {
		t.Errorf("the run took %v; want the timeouts to end it before the deadline", took)
	}
}
