package suite

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
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

// TestDeadlineBoundsTheCommandsPermissionRead: the /anchor-review
// command's one read before anything else, its author's permission,
// stalls. The run's deadline bounds it like every other read (an attempt
// alone may wait minutes, and retries): the command is ignored with a
// notice that names the deadline, before the job's timeout, and nothing
// is posted.
func TestDeadlineBoundsTheCommandsPermissionRead(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.gh.SetRole("maintainer", "maintain")
	w.commentEvent("maintainer")
	w.gh.Inject(githubtest.Fault{Method: http.MethodGet, PathContains: "/collaborators/", Delay: 30 * time.Minute})
	w.tweak = func(c *action.Config) { c.Deadline = 5 * time.Second }
	sl := &waits{}
	// One attempt, longer than the deadline, so what ends the read is
	// the deadline (or, before it bounded this read, the attempt).
	policy := github.Policy{MaxAttempts: 1, AttemptTimeout: 20 * time.Second}

	o := w.runWith([]github.Option{github.WithSleep(sl.Sleep), github.WithRetry(policy)}, llm.Config{})

	wantCode(t, o, 0)
	if !strings.Contains(o.stdout, "could not read their permission") || !strings.Contains(o.stdout, action.ErrDeadline.Error()) {
		t.Errorf("the notice does not say the run's deadline ended the permission read:\n%s", o.stdout)
	}
	if n := len(w.gh.CheckRuns()); n != 0 {
		t.Errorf("%d check runs; want none (the command was not authorized)", n)
	}
	if n := len(w.model.Requests()); n != 0 {
		t.Errorf("%d model requests; want none", n)
	}
}

// commentEvent makes the run's event an /anchor-review comment by login
// on the PR (the octokit example payload, moved onto it).
func (w *world) commentEvent(login string) {
	w.t.Helper()
	id := w.gh.AddComment(prNumber, login, "/anchor-review")
	var ev map[string]any
	readJSON(w.t, "github/issue_comment.created.json", &ev)
	ev["repository"].(map[string]any)["full_name"] = owner + "/" + repoName
	issue := ev["issue"].(map[string]any)
	issue["number"] = prNumber
	issue["pull_request"] = map[string]any{"url": w.gh.URL + "/repos/" + owner + "/" + repoName + "/pulls/42"}
	c := ev["comment"].(map[string]any)
	c["id"], c["body"], c["author_association"] = id, "/anchor-review", "MEMBER"
	c["user"].(map[string]any)["login"] = login
	b, err := json.Marshal(ev)
	if err != nil {
		w.t.Fatal(err)
	}
	path := filepath.Join(w.dir, "issue_comment.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		w.t.Fatal(err)
	}
	w.env["GITHUB_EVENT_NAME"], w.env["GITHUB_EVENT_PATH"] = "issue_comment", path
}
