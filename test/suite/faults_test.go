package suite

// The end-to-end fault suite (SPEC sections 1 and 3): the
// whole Action runs in process against the fake GitHub and the fake model
// server while they misbehave, and each case asserts the safe outcome the
// specification names: a clear message, no duplicate or half-written
// comment, the right conclusion and exit code, and a bounded number of
// requests.

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/internal/sleeptest"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
)

// Clamps the real clients apply by default (pkg/github and pkg/llm).
const (
	ghMaxRetryAfter    = 60 * time.Second
	ghBudget           = 2 * time.Minute
	ghMaxAttempts      = 5
	modelMaxRetryAfter = 30 * time.Second
	// slowCallTimeout is the call timeout of the tests whose persona never
	// answers (its reply is held for minutes): generous, so a loaded
	// machine still delivers the request to the fake before it expires
	// (300 ms did not), and the timeout, not the load, ends the call.
	slowCallTimeout  = 3 * time.Second
	modelMaxAttempts = 4
)

// baseline is what an undisturbed run of the same PR costs.
type baseline struct {
	ghRequests int
	team       []string // personas that ran
}

// measureBaseline runs the PR once without faults.
func measureBaseline(t *testing.T, empty bool) baseline {
	t.Helper()
	w := newWorld(t)
	if empty {
		w.emptyAnswers()
	}
	o := w.run()
	if want := map[bool]int{false: 1, true: 0}[empty]; o.code != want {
		t.Fatalf("baseline: exit code %d (%v); want %d", o.code, o.err, want)
	}
	var team []string
	for p := range w.personaRequests() {
		if p != llm.Validator {
			team = append(team, p)
		}
	}
	return baseline{ghRequests: len(w.gh.Requests()), team: team}
}

// waits records the client sleeps instead of sleeping.
type waits = sleeptest.Recorder

// checkBounded fails when any wait is negative or above limit, or the
// waits add up to more than total.
func checkBounded(t *testing.T, what string, ws []time.Duration, limit, total time.Duration) {
	t.Helper()
	var sum time.Duration
	for _, d := range ws {
		if d < 0 || d > limit {
			t.Errorf("%s waited %v; want within [0, %v]", what, d, limit)
		}
		sum += d
	}
	if sum > total {
		t.Errorf("%s waited %v in all; want at most %v", what, sum, total)
	}
}

// checkInvariants holds in every fault case: never a second report
// comment, never a half-written one, never a review approval, never an
// invalid model request.
func checkInvariants(t *testing.T, w *world) {
	t.Helper()
	cs := w.reportComments()
	if len(cs) > 1 {
		t.Errorf("got %d report comments; want at most 1", len(cs))
	}
	for _, c := range cs {
		if !strings.HasPrefix(c.Body, "<!-- anchor-review:report -->\n") || !strings.Contains(c.Body, "<!-- anchor-review:meta {") {
			t.Errorf("report comment lacks its marker or metadata (half written?): %.200q", c.Body)
		}
	}
	if n := w.ghCount("", "/reviews"); n > 0 {
		t.Errorf("got %d requests to a pull request reviews endpoint; want 0", n)
	}
	if v := w.model.Violations(); len(v) > 0 {
		t.Errorf("model requests broke the protocol: %q", v)
	}
	if len(w.gh.CheckRuns()) > 1 {
		t.Errorf("got %d check runs; want at most 1", len(w.gh.CheckRuns()))
	}
}

func checkRun(t *testing.T, w *world, want string) {
	t.Helper()
	runs := w.gh.CheckRuns()
	if len(runs) != 1 {
		t.Fatalf("got %d check runs; want 1 (%s)", len(runs), want)
	}
	if runs[0].Conclusion != want || runs[0].HeadSHA != headSHA || runs[0].Name != "anchor-review" {
		t.Errorf("check run %q on %s: %s; want anchor-review on %s: %s", runs[0].Name, runs[0].HeadSHA, runs[0].Conclusion, headSHA, want)
	}
}

func wantCode(t *testing.T, o outcome, want int) {
	t.Helper()
	if o.code != want {
		t.Errorf("exit code %d (err %v); want %d\nstdout:\n%s", o.code, o.err, want, o.stdout)
	}
}

func oneComment(t *testing.T, w *world) string {
	t.Helper()
	cs := w.reportComments()
	if len(cs) != 1 {
		t.Fatalf("got %d report comments; want 1", len(cs))
	}
	return cs[0].Body
}

// noCleanClaim fails when a posted comment or check claims a clean PR.
func noCleanClaim(t *testing.T, w *world) {
	t.Helper()
	for _, c := range w.reportComments() {
		if strings.Contains(c.Body, "Ready to merge") {
			t.Errorf("comment claims the PR is ready although the review could not run:\n%s", c.Body)
		}
	}
	for _, cr := range w.gh.CheckRuns() {
		if cr.Conclusion == "success" || cr.Conclusion == "neutral" {
			t.Errorf("check run concluded %q although the review could not run; want failure", cr.Conclusion)
		}
	}
}

func failedPersonaNamed(t *testing.T, body, persona string) {
	t.Helper()
	if !strings.Contains(body, persona) || !strings.Contains(body, "failed") {
		t.Errorf("comment does not report persona %s as failed:\n%s", persona, body)
	}
}

func TestGitHubFaults(t *testing.T) {
	t.Parallel()
	full := measureBaseline(t, false)
	retryAfter0 := map[string]string{"Retry-After": "0"}

	cases := []struct {
		name  string
		setup func(w *world)
		check func(t *testing.T, w *world, o outcome)
	}{
		{
			name:  "406 on the diff falls back to the files endpoint",
			setup: func(w *world) { w.gh.Inject(githubtest.DiffTooLarge()) },
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 1)
				checkRun(t, w, "failure")
				oneComment(t, w)
				diffReqs := 0
				for _, r := range w.gh.Requests() {
					if strings.HasSuffix(r.Path, "/pulls/42") && strings.Contains(r.Header.Get("Accept"), "diff") {
						diffReqs++
					}
				}
				if diffReqs != 1 {
					t.Errorf("diff requested %d times; want 1 (a 406 is not retried)", diffReqs)
				}
				if n := w.ghCount(http.MethodGet, "/pulls/42/files"); n != 1 {
					t.Errorf("files endpoint requested %d times; want 1 page", n)
				}
				if got := len(w.personaRequests()); got-1 != len(full.team) {
					t.Errorf("%d personas and the validator asked; want the team of %d", got, len(full.team))
				}
			},
		},
		{
			name: "3,100 files: the list is capped and the review marked partial",
			setup: func(w *world) {
				w.emptyAnswers()
				w.gh.Inject(githubtest.DiffTooLarge())
				files := make([]githubtest.File, 3100)
				for i := range files {
					files[i] = githubtest.File{
						Filename: fmt.Sprintf("svc/mod%04d/handler.go", i), Status: "added",
						Patch: "@@ -0,0 +1,3 @@\n+package mod\n+\n+func Handle() error { return nil }", Additions: 3,
					}
				}
				w.gh.SetFiles(prNumber, files)
			},
			check: func(t *testing.T, w *world, o outcome) {
				// Issue 12: an incomplete review is never green; the
				// default `incomplete: failure` fails the check and the step.
				wantCode(t, o, 1)
				checkRun(t, w, "failure")
				if o.outputs["verdict"] != "degraded" {
					t.Errorf("verdict %q; want degraded", o.outputs["verdict"])
				}
				if n := w.ghCount(http.MethodGet, "/pulls/42/files"); n > 31 {
					t.Errorf("files endpoint requested %d times; want at most 31 pages for 3,000 files", n)
				}
				body := oneComment(t, w)
				if !strings.Contains(body, "3,000") {
					t.Errorf("comment does not say the file list was capped at 3,000:\n%.2000s", body)
				}
				if n := len(w.model.Requests()); n > 60 {
					t.Errorf("%d model calls; want at most max-llm-calls 60", n)
				}
			},
		},
		{
			name:  "403 on writes: read-only token falls back to summary and annotations",
			setup: func(w *world) { w.gh.Inject(githubtest.ReadOnlyToken()) },
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 1) // the verdict, carried by the exit code
				if o.outputs["conclusion"] != "failure" {
					t.Errorf("conclusion output %q; want failure", o.outputs["conclusion"])
				}
				if n := len(w.gh.Comments(prNumber)); n != 0 {
					t.Errorf("%d comments exist; want 0", n)
				}
				if n := len(w.gh.CheckRuns()); n != 0 {
					t.Errorf("%d check runs exist; want 0", n)
				}
				writes := 0
				for _, r := range w.gh.Requests() {
					if r.Method != http.MethodGet {
						writes++
					}
				}
				if writes > 2 {
					t.Errorf("%d write requests; want at most 2 (one comment, one check run, no retries)", writes)
				}
				for _, perm := range []string{"pull-requests: write", "checks: write"} {
					if !strings.Contains(o.stdout, perm) {
						t.Errorf("log does not name the missing permission %q:\n%s", perm, o.stdout)
					}
				}
				if !strings.Contains(o.stdout, "file=internal/store/users.go,line=42") {
					t.Errorf("log has no file annotations for the findings:\n%s", o.stdout)
				}
				if !strings.Contains(o.summary, "internal/store/users.go") {
					t.Errorf("job summary does not carry the report:\n%.1000s", o.summary)
				}
			},
		},
		{
			name:  "secondary rate limit with Retry-After 0, then success",
			setup: func(w *world) { w.gh.Inject(githubtest.SecondaryRateLimit("0", 2)) },
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 1)
				checkRun(t, w, "failure")
				oneComment(t, w)
				if got, want := len(w.gh.Requests()), full.ghRequests+2; got != want {
					t.Errorf("%d GitHub requests; want %d (baseline plus the two limited)", got, want)
				}
			},
		},
		{
			name: "500 once on a read, then OK",
			setup: func(w *world) {
				w.gh.Inject(githubtest.Fault{Method: http.MethodGet, Status: http.StatusInternalServerError, Headers: retryAfter0, Times: 1})
			},
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 1)
				checkRun(t, w, "failure")
				oneComment(t, w)
				if got, want := len(w.gh.Requests()), full.ghRequests+1; got != want {
					t.Errorf("%d GitHub requests; want %d", got, want)
				}
			},
		},
		{
			name: "500 once on the comment write, then OK",
			setup: func(w *world) {
				w.gh.Inject(githubtest.Fault{Method: http.MethodPost, PathContains: "/comments", Status: http.StatusInternalServerError, Headers: retryAfter0, Times: 1})
			},
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 1)
				checkRun(t, w, "failure")
				oneComment(t, w)
			},
		},
		{
			name: "500 forever on GitHub reads: exit 3, nothing posted",
			setup: func(w *world) {
				w.gh.Inject(githubtest.Fault{Method: http.MethodGet, Status: http.StatusInternalServerError, Headers: retryAfter0})
			},
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 3)
				if o.err == nil || !strings.Contains(o.err.Error(), "pull request") {
					t.Errorf("error %v; want a message naming the pull request read", o.err)
				}
				if n := len(w.gh.Comments(prNumber)); n != 0 {
					t.Errorf("%d comments; want 0", n)
				}
				if n := len(w.gh.Requests()); n > ghMaxAttempts {
					t.Errorf("%d GitHub requests; want at most %d", n, ghMaxAttempts)
				}
				if n := len(w.model.Requests()); n != 0 {
					t.Errorf("%d model requests; want 0", n)
				}
			},
		},
		{
			name: "500 forever on the diff: exit 3, no clean claim",
			setup: func(w *world) {
				w.gh.Inject(githubtest.Fault{Method: http.MethodGet, PathContains: "/pulls/42", Accept: "diff", Status: http.StatusInternalServerError, Headers: retryAfter0})
			},
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 3)
				noCleanClaim(t, w)
				if n := len(w.model.Requests()); n != 0 {
					t.Errorf("%d model requests; want 0", n)
				}
				diffReqs := 0
				for _, r := range w.gh.Requests() {
					if strings.Contains(r.Header.Get("Accept"), "diff") {
						diffReqs++
					}
				}
				if diffReqs > ghMaxAttempts {
					t.Errorf("diff requested %d times; want at most %d", diffReqs, ghMaxAttempts)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			tc.setup(w)
			o := w.run()
			checkInvariants(t, w)
			tc.check(t, w, o)
		})
	}
}

func TestModelFaults(t *testing.T) {
	t.Parallel()
	full := measureBaseline(t, false)
	valid := func(p string) string {
		return fmt.Sprintf(`{"reviewer":%q,"findings":[],"residual_risks":[],"testing_gaps":[]}`, p)
	}

	cases := []struct {
		name  string
		setup func(w *world)
		// timeout, when set, runs with that per-call model timeout.
		timeout time.Duration
		// short names the personas the timeout applies to (nil: every call).
		short map[string]bool
		check func(t *testing.T, w *world, o outcome)
	}{
		{
			name: "500 once, then OK",
			setup: func(w *world) {
				r := llmtest.ServerError()
				r.Headers = map[string]string{"Retry-After": "0"}
				w.model.Script("correctness", r)
			},
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 1)
				checkRun(t, w, "failure")
				if n := w.personaRequests()["correctness"]; n != 2 {
					t.Errorf("correctness sent %d requests; want 2", n)
				}
				if o.outputs["verdict"] != "not-ready" {
					t.Errorf("verdict %q; want not-ready (nothing failed)", o.outputs["verdict"])
				}
			},
		},
		{
			name: "malformed twice: one repair, then that persona fails; incomplete",
			setup: func(w *world) {
				w.emptyAnswers()
				// reliability: the demo PR selects it (testing is conditional
				// and this change leaves it out).
				w.model.Script("reliability", llmtest.Malformed(), llmtest.Malformed())
			},
			check: func(t *testing.T, w *world, o outcome) {
				// Issue 12: an incomplete review is never green; the
				// default `incomplete: failure` fails the check and the step.
				wantCode(t, o, 1)
				checkRun(t, w, "failure")
				if o.outputs["verdict"] != "degraded" {
					t.Errorf("verdict %q; want degraded", o.outputs["verdict"])
				}
				reqs := w.model.RequestsFor("reliability")
				if len(reqs) != 2 {
					t.Fatalf("reliability sent %d requests; want 2 (the answer and one repair)", len(reqs))
				}
				last := reqs[1].Messages[len(reqs[1].Messages)-1].Content
				if !strings.Contains(last, "does not validate") || !strings.Contains(last, "confidence") {
					t.Errorf("repair request does not send the schema errors back:\n%s", last)
				}
				failedPersonaNamed(t, oneComment(t, w), "reliability")
			},
		},
		{
			name: "malformed once: repaired, complete",
			setup: func(w *world) {
				w.emptyAnswers()
				w.model.Script("reliability", llmtest.Malformed(), llmtest.OK(valid("reliability")))
			},
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 0)
				checkRun(t, w, "success")
				if n := len(w.model.RequestsFor("reliability")); n != 2 {
					t.Errorf("reliability sent %d requests; want 2", n)
				}
			},
		},
		{
			// Issue 12, item 16: quota is the endpoint's, not a persona's.
			name:  "insufficient_quota on one persona stops the run: exit 3",
			setup: func(w *world) { w.model.Script("security", llmtest.Quota(), llmtest.Quota(), llmtest.Quota()) },
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 3)
				noCleanClaim(t, w)
				if n := len(w.model.RequestsFor("security")); n != 1 {
					t.Errorf("security sent %d requests; want 1 (quota is not retried)", n)
				}
			},
		},
		{
			name: "insufficient_quota everywhere: exit 3, no call after the first",
			setup: func(w *world) {
				w.env["INPUT_MAX-CONCURRENCY"] = "1"
				w.model.SetDefault(func(llmtest.Request) llmtest.Reply { return llmtest.Quota() })
			},
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 3)
				noCleanClaim(t, w)
				if got := len(w.model.Requests()); got != 1 {
					t.Errorf("%d model requests; want 1 (the run stops at the first refusal)", got)
				}
				if o.err == nil || !strings.Contains(o.err.Error(), "quota") {
					t.Errorf("error %v; want it to name the quota", o.err)
				}
			},
		},
		{
			name: "401 bad key: one message, no call after it, exit 3",
			setup: func(w *world) {
				w.env["INPUT_MAX-CONCURRENCY"] = "1"
				w.model.SetDefault(func(llmtest.Request) llmtest.Reply { return llmtest.Unauthorized() })
			},
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 3)
				noCleanClaim(t, w)
				if got := len(w.model.Requests()); got != 1 {
					t.Errorf("%d model requests; want 1", got)
				}
				if n := strings.Count(o.stdout, "http 401"); n > 2 {
					t.Errorf("the 401 is reported %d times in the log; want it once (plus the final error)", n)
				}
			},
		},
		{
			name: "404 model not found on the validator's model: exit 3",
			setup: func(w *world) {
				w.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
					if r.Persona == llm.Validator {
						return llmtest.ModelNotFound()
					}
					return w.fixtureAnswer(r)
				})
			},
			check: func(t *testing.T, w *world, o outcome) {
				if got := len(w.model.RequestsFor(llm.Validator)); got > 8 {
					t.Errorf("%d validator requests; want at most the calls in flight when the 404 came", got)
				}
				wantCode(t, o, 3)
				noCleanClaim(t, w)
				checkRun(t, w, "failure")
			},
		},
		{
			name:  "JSON-schema mode rejected: falls back to json_object",
			setup: func(w *world) { w.model.RejectJSONSchema(true) },
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 1)
				checkRun(t, w, "failure")
				oneComment(t, w)
				if o.outputs["verdict"] != "not-ready" {
					t.Errorf("verdict %q; want not-ready (no persona failed)", o.outputs["verdict"])
				}
				schemaMode := map[string]int{}
				for _, r := range w.model.Requests() {
					schemaMode[r.ResponseFormat]++
				}
				calls := len(full.team) + 6 // personas and validations of the baseline
				if schemaMode["json_schema"] > calls {
					t.Errorf("%d json_schema requests; want at most one per call (%d)", schemaMode["json_schema"], calls)
				}
				for _, r := range w.model.RequestsFor(llm.Validator) {
					if r.ResponseFormat != "json_object" {
						t.Errorf("validator request in %q mode after the fallback; want json_object", r.ResponseFormat)
					}
				}
			},
		},
		{
			name:    "one persona times out: not retried, the others go on",
			timeout: slowCallTimeout,
			short:   map[string]bool{"performance": true},
			setup: func(w *world) {
				w.model.Script("performance", llmtest.Reply{Delay: 10 * time.Minute, Content: valid("performance")})
			},
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 1)
				checkRun(t, w, "failure")
				if n := len(w.model.RequestsFor("performance")); n != 1 {
					t.Errorf("performance sent %d requests; want 1", n)
				}
				failedPersonaNamed(t, oneComment(t, w), "performance")
			},
		},
		{
			name:    "every persona times out: exit 3, failure, no clean claim",
			timeout: slowCallTimeout,
			setup: func(w *world) {
				w.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
					return llmtest.Reply{Delay: 10 * time.Minute, Content: valid(r.Persona)}
				})
			},
			check: func(t *testing.T, w *world, o outcome) {
				wantCode(t, o, 3)
				noCleanClaim(t, w)
				if got, want := len(w.model.Requests()), len(full.team); got != want {
					t.Errorf("%d model requests; want %d (a timeout is not retried)", got, want)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			tc.setup(w)
			var o outcome
			if tc.timeout > 0 {
				o = w.runShort(nil, llm.Config{CallTimeout: tc.timeout}, tc.short)
			} else {
				o = w.run()
			}
			checkInvariants(t, w)
			tc.check(t, w, o)
		})
	}
}

// hostileRetryAfter are Retry-After values a server may send: negative,
// garbage, absurdly large, a date far ahead, fractional and exponent forms.
var hostileRetryAfter = []string{"-5", "soon", "99999999999999999999", "Wed, 21 Oct 2099 07:28:00 GMT", "1e9", "NaN"}

// TestHostileRetryAfter runs with the real clients' sleeps recorded instead
// of slept: every wait must stay within the client's clamp and the requests
// within its attempt bound.
func TestHostileRetryAfter(t *testing.T) {
	t.Parallel()
	full := measureBaseline(t, false)
	for _, v := range hostileRetryAfter {
		t.Run("GitHub 429 Retry-After "+v+" once", func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.gh.Inject(githubtest.RateLimited(v, 1))
			var gw waits
			o := w.runWith([]github.Option{github.WithSleep(gw.Sleep)}, llm.Config{})
			checkInvariants(t, w)
			wantCode(t, o, 1)
			oneComment(t, w)
			checkBounded(t, "GitHub", gw.Waits(), ghMaxRetryAfter, ghBudget)
			if got, want := len(w.gh.Requests()), full.ghRequests+1; got != want {
				t.Errorf("%d GitHub requests; want %d", got, want)
			}
		})
		t.Run("model 429 Retry-After "+v+" once", func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.model.Script("correctness", llmtest.RateLimited(v))
			var mw waits
			o := w.runWith(nil, llm.Config{Sleep: mw.Sleep})
			checkInvariants(t, w)
			wantCode(t, o, 1)
			checkBounded(t, "model", mw.Waits(), modelMaxRetryAfter, modelMaxRetryAfter)
			if n := len(w.model.RequestsFor("correctness")); n != 2 {
				t.Errorf("correctness sent %d requests; want 2", n)
			}
		})
	}
	t.Run("GitHub secondary rate limit without Retry-After", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		w.gh.Inject(githubtest.SecondaryRateLimit("", 1))
		var gw waits
		o := w.runWith([]github.Option{github.WithSleep(gw.Sleep)}, llm.Config{})
		checkInvariants(t, w)
		wantCode(t, o, 1)
		if ws := gw.Waits(); len(ws) != 1 || ws[0] < time.Minute {
			t.Errorf("waits %v; want one wait of at least a minute (GitHub's rule)", ws)
		}
		checkBounded(t, "GitHub", gw.Waits(), ghMaxRetryAfter, ghBudget)
	})
	t.Run("GitHub 429 with a huge Retry-After forever: exit 3 within the budget", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		w.gh.Inject(githubtest.RateLimited("99999999", 0))
		var gw waits
		o := w.runWith([]github.Option{github.WithSleep(gw.Sleep)}, llm.Config{})
		checkInvariants(t, w)
		wantCode(t, o, 3)
		if n := len(w.gh.Comments(prNumber)); n != 0 {
			t.Errorf("%d comments; want 0", n)
		}
		if n := len(w.gh.Requests()); n > ghMaxAttempts {
			t.Errorf("%d GitHub requests; want at most %d", n, ghMaxAttempts)
		}
		checkBounded(t, "GitHub", gw.Waits(), ghMaxRetryAfter, ghBudget)
	})
	t.Run("model 429 with a huge Retry-After forever: that persona fails within its attempts", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		for range 10 {
			w.model.Script("correctness", llmtest.RateLimited("99999999"), llmtest.RateLimitedMs("1e300"))
		}
		var mw waits
		o := w.runWith(nil, llm.Config{Sleep: mw.Sleep})
		checkInvariants(t, w)
		wantCode(t, o, 1) // the other personas still found blocking problems
		if n := len(w.model.RequestsFor("correctness")); n != modelMaxAttempts {
			t.Errorf("correctness sent %d requests; want %d", n, modelMaxAttempts)
		}
		checkBounded(t, "model", mw.Waits(), modelMaxRetryAfter, modelMaxAttempts*modelMaxRetryAfter)
		failedPersonaNamed(t, oneComment(t, w), "correctness")
	})
}

// TestCancelledRunPostsNothing (issue 12): a run cancelled while the
// personas are at work (a newer push, SIGTERM) posts no report and no
// check: nothing half-written, nothing green.
func TestCancelledRunPostsNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		cancel() // the signal arrives while the first call is in flight
		time.Sleep(50 * time.Millisecond)
		return llmtest.OK(w.fixtureAnswer(r).Content)
	})

	o := w.runCtx(ctx)

	if o.code != 3 {
		t.Errorf("exit code %d (%v); want 3 (the review could not finish)", o.code, o.err)
	}
	for _, r := range w.gh.Requests() {
		if r.Method != http.MethodGet {
			t.Errorf("a cancelled run wrote to GitHub: %s %s", r.Method, r.Path)
		}
	}
	if n := len(w.gh.CheckRuns()); n != 0 {
		t.Errorf("check runs: %d; want 0", n)
	}
}
