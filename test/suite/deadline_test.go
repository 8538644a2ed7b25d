package suite

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
)

// TestDeadlineBoundsAStalledGitHub: GitHub stops answering a read for
// minutes (the diff); the run's deadline cuts the review, publishes it as
// incomplete with a failing check that says why, and the run ends (exit
// 3) instead of waiting for the job's timeout. The deadline is seconds
// here (the input counts minutes); no assertion is about time: the
// stalled read ends only because the deadline ends it.
func TestDeadlineBoundsAStalledGitHub(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.gh.Inject(githubtest.Fault{Method: http.MethodGet, PathContains: "/pulls/42", Accept: "diff", Delay: 30 * time.Minute})
	w.tweak = func(c *action.Config) { c.Deadline = 5 * time.Second }
	sl := &waits{}

	o := w.runWith([]github.Option{github.WithSleep(sl.Sleep)}, llm.Config{})

	wantCode(t, o, 3)
	checkInvariants(t, w)
	checkRun(t, w, "failure")
	body := oneComment(t, w)
	if !strings.Contains(body, "deadline") {
		t.Errorf("the report does not say the deadline passed:\n%s", body)
	}
	noCleanClaim(t, w)
	if n := len(w.model.Requests()); n != 0 {
		t.Errorf("%d model requests; want none (the diff never arrived)", n)
	}
}

// TestDeadlineCutsAStalledPublishRead: the review finishes, but the
// publisher's re-read of the comments stalls; it gives way to the comments
// read at the start, so the report and the check still get written.
func TestDeadlineCutsAStalledPublishRead(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.emptyAnswers()
	// The first comments read (Stage 1) is served; every later one stalls.
	w.gh.Inject(githubtest.Fault{Method: http.MethodGet, PathContains: "/issues/42/comments", Times: 1},
		githubtest.Fault{Method: http.MethodGet, PathContains: "/issues/42/comments", Delay: 30 * time.Minute})
	w.tweak = func(c *action.Config) { c.Deadline = 10 * time.Second }
	sl := &waits{}

	o := w.runWith([]github.Option{github.WithSleep(sl.Sleep)}, llm.Config{})

	checkInvariants(t, w)
	if len(w.reportComments()) != 1 || len(w.gh.CheckRuns()) != 1 {
		t.Fatalf("report comments %d, check runs %d; want 1 and 1 (exit %d, %v)\n%s", len(w.reportComments()), len(w.gh.CheckRuns()), o.code, o.err, o.stdout)
	}
}
