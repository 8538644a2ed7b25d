package action_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// inlineDiff: internal/api/orders.go, new lines 30-39 (36 and 37 added,
// 39 a context line).
const inlineDiff = `diff --git a/internal/api/orders.go b/internal/api/orders.go
--- a/internal/api/orders.go
+++ b/internal/api/orders.go
@@ -30,8 +30,10 @@ func (h *Handler) Search(w http.ResponseWriter, r *http.Request) {
 	ctx := r.Context()
 	status := r.URL.Query().Get("status")
 	limit := 50
 	if status == "" {
 		status = "open"
 	}
+	q := "SELECT * FROM orders WHERE status = '" + status + "'"
+	rows, _ := h.db.QueryContext(ctx, q)
 	defer rows.Close()
 	writeJSON(w, rows, limit)
`

// shiftedDiff is the same change after a push added ten lines above it.
var shiftedDiff = strings.Replace(inlineDiff, "@@ -30,8 +30,10 @@", "@@ -40,8 +40,10 @@", 1)

// inlineResult: three posted findings: #1 on added line 36 with a
// suggestion, #2 on added line 37, #3 outside the diff (line 80).
func inlineResult(t *testing.T, text string, shift int) review.Result {
	t.Helper()
	d, err := diff.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r := result(action.ModeComment, true)
	f1 := r.Findings[0]
	f1.Line = 36 + shift
	f1.Suggestion = &finding.Suggestion{StartLine: 36 + shift, EndLine: 37 + shift, Replacement: "\trows, err := h.db.QueryContext(ctx, \"SELECT * FROM orders WHERE status = $1\", status)"}
	f2 := finding.Finding{Number: 2, Title: "Query error ignored", Severity: finding.P1, File: f1.File, Line: 37 + shift, Confidence: 100,
		WhyItMatters: "A failed query panics on rows.Close.", AutofixClass: "manual", Owner: "human", Reviewers: []string{"correctness"}, Evidence: []string{"rows, _ :="}}
	f3 := finding.Finding{Number: 3, Title: "Handler has no auth check", Severity: finding.P1, File: f1.File, Line: 80, Confidence: 75,
		WhyItMatters: "Anyone can list orders.", AutofixClass: "manual", Owner: "human", Reviewers: []string{"security"}, Evidence: []string{"func (h *Handler) Search"}}
	r.Findings = []finding.Finding{f1, f2, f3}
	r.Files = d.Files
	return r
}

func (e *pubEnv) publishInline(t *testing.T, res review.Result) (action.StepOutputs, string) {
	t.Helper()
	po := action.PublishOptions{GitHub: e.gh, Notifier: e.n, Logf: t.Logf, Owner: pubOwner, Repo: pubRepo, PR: pubPR, BotLogin: pubBot, Mode: action.ModeComment, FailOn: "P1", Inline: true}
	ro := report.Options{Repo: pubOwner + "/" + pubRepo, HeadSHA: res.HeadSHA, FailOn: "P1"}
	out := action.Publish(context.Background(), po, res, e.pr(t), ro)
	body := ""
	if mc := e.markerComments(); len(mc) == 1 {
		body = mc[0].Body
	}
	return out, body
}

func TestInlineFirstRunAndRerun(t *testing.T) {
	e := newPubEnv(t)
	e.srv.SetDiff(pubPR, inlineDiff)
	out, body := e.publishInline(t, inlineResult(t, inlineDiff, 0))

	rvs := e.srv.Reviews(pubPR)
	if len(rvs) != 1 || rvs[0].Event != "COMMENT" || rvs[0].CommitID != pubHead || len(rvs[0].Comments) != 2 {
		t.Fatalf("reviews %+v; want one COMMENT review on the head with 2 comments", rvs)
	}
	rc := e.srv.ReviewComments(pubPR)
	if rc[0].StartLine != 36 || rc[0].Line != 37 || !strings.Contains(rc[0].Body, "```suggestion\n\trows, err := h.db.QueryContext") {
		t.Errorf("first comment %d-%d:\n%s\nwant a 36-37 suggestion", rc[0].StartLine, rc[0].Line, rc[0].Body)
	}
	if rc[1].Line != 37 || rc[1].StartLine != 0 {
		t.Errorf("second comment on %d-%d; want 37", rc[1].StartLine, rc[1].Line)
	}
	// The report links both and says #3 stayed in the report.
	for _, id := range []int64{rc[0].ID, rc[1].ID} {
		if !strings.Contains(body, "discussion_r"+itoa(id)+")") {
			t.Errorf("report does not link comment %d:\n%s", id, body)
		}
	}
	if !strings.Contains(body, "**Inline comments:** 2 of 3 findings on their lines.") || !strings.Contains(body, "finding 3 (internal/api/orders.go:80): its line is outside the diff") {
		t.Errorf("report does not say what stayed off the lines:\n%s", body)
	}
	if !out.CheckWritten || out.CommentURL == "" {
		t.Errorf("outputs %+v", out)
	}

	// A human replies to the first comment, quoting our marker.
	human := e.srv.AddLineComment(pubPR, "octocat", "internal/api/orders.go", 37, rc[0].ID, rc[0].Body+"\nI disagree.")

	// Rerun after a push that moved everything down ten lines and fixed #2.
	next := strings.Repeat("e", 40)
	e.srv.AddPR(githubtest.PR{Number: pubPR, Title: "Add order search", HeadSHA: next, BaseSHA: strings.Repeat("0", 40)})
	e.srv.SetDiff(pubPR, shiftedDiff)
	res := inlineResult(t, shiftedDiff, 10)
	res.HeadSHA = next
	res.Findings = []finding.Finding{res.Findings[0], res.Findings[2]}
	res.Findings[1].Number = 2
	_, body = e.publishInline(t, res)

	if n := len(e.srv.Reviews(pubPR)); n != 1 {
		t.Fatalf("%d reviews after the rerun; want still 1 (nothing new to post)", n)
	}
	rc = e.srv.ReviewComments(pubPR)
	if len(rc) != 3 {
		t.Fatalf("%d review comments; want 3 (two of ours, one reply)", len(rc))
	}
	if rc[0].Edits != 0 {
		t.Errorf("the still-open finding's comment was edited:\n%s", rc[0].Body)
	}
	if rc[1].Edits != 1 || !strings.Contains(rc[1].Body, "Resolved in "+next) {
		t.Errorf("the fixed finding's comment is not resolved:\n%s", rc[1].Body)
	}
	for _, c := range rc {
		if c.ID == human && c.Edits != 0 {
			t.Errorf("the human reply was edited")
		}
	}
	if !strings.Contains(body, "discussion_r"+itoa(rc[0].ID)+")") {
		t.Errorf("rerun report does not link the earlier comment:\n%s", body)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestInline422 covers GitHub refusing a line our diff check accepted
// (here: the PR's diff changed under the run): the review is retried once
// with comments on added lines only, and the report says what did not post.
func TestInline422(t *testing.T) {
	t.Run("retry posts the added-line comments", func(t *testing.T) {
		e := newPubEnv(t)
		e.srv.SetDiff(pubPR, inlineDiff)
		res := inlineResult(t, inlineDiff, 0)
		ctxLine := finding.Finding{Number: 4, Title: "Limit ignored", Severity: finding.P2, File: res.Findings[0].File, Line: 39, Confidence: 75,
			WhyItMatters: "Unbounded pages.", Reviewers: []string{"performance"}, Evidence: []string{"writeJSON(w, rows, limit)"}}
		res.Findings = append(res.Findings, ctxLine)
		e.srv.Inject(githubtest.Fault{Method: "POST", PathContains: "/reviews", Status: http.StatusUnprocessableEntity, Times: 1,
			Body: `{"message":"Unprocessable Entity","errors":["Line could not be resolved"],"documentation_url":"https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request","status":"422"}`})
		_, body := e.publishInline(t, res)
		rvs := e.srv.Reviews(pubPR)
		if len(rvs) != 1 || len(rvs[0].Comments) != 2 {
			t.Fatalf("reviews %+v; want the retry with the 2 added-line comments", rvs)
		}
		for _, c := range e.srv.ReviewComments(pubPR) {
			if c.StartLine != 0 || strings.Contains(c.Body, "```suggestion") {
				t.Errorf("retry kept a multi-line range or suggestion: %d-%d\n%s", c.StartLine, c.Line, c.Body)
			}
		}
		if !strings.Contains(body, "finding 4 (internal/api/orders.go:39): GitHub refused its line (HTTP 422: Unprocessable Entity: Line could not be resolved)") {
			t.Errorf("report does not say finding 4 was refused:\n%s", body)
		}
		if !strings.Contains(body, "### P0") && !strings.Contains(body, tP0) {
			t.Errorf("report lost its findings:\n%s", body)
		}
	})
	t.Run("refused twice: nothing posted, report intact", func(t *testing.T) {
		e := newPubEnv(t)
		e.srv.SetDiff(pubPR, inlineDiff)
		e.srv.Inject(githubtest.Fault{Method: "POST", PathContains: "/reviews", Status: http.StatusUnprocessableEntity})
		out, body := e.publishInline(t, inlineResult(t, inlineDiff, 0))
		if len(e.srv.Reviews(pubPR)) != 0 {
			t.Fatal("a review was created")
		}
		if !strings.Contains(body, tP0) || !strings.Contains(body, "**Inline comments:** 0 of 3 findings on their lines.") ||
			!strings.Contains(body, "finding 1 (internal/api/orders.go:36): the inline review failed") {
			t.Errorf("report does not say what did not post:\n%s", body)
		}
		if !out.CheckWritten || out.Conclusion != "failure" {
			t.Errorf("the check must still carry the verdict: %+v", out)
		}
	})
}

// TestInlineReadOnly: a read-only token posts no review, no report
// comment and no check; the findings reach the annotations as before.
func TestInlineReadOnly(t *testing.T) {
	e := newPubEnv(t)
	e.srv.SetDiff(pubPR, inlineDiff)
	e.srv.Inject(githubtest.ReadOnlyToken())
	out, _ := e.publishInline(t, inlineResult(t, inlineDiff, 0))
	if len(e.srv.Reviews(pubPR)) != 0 || len(e.srv.Comments(pubPR)) != 0 {
		t.Fatal("something was posted with a read-only token")
	}
	if len(e.n.annotate) != 3 || out.CheckWritten {
		t.Errorf("annotations %v, check written %v; want the 3 findings as annotations", e.n.annotate, out.CheckWritten)
	}
	joined := strings.Join(e.n.warnings, "\n")
	if !strings.Contains(joined, "cannot post inline comments") || !strings.Contains(joined, "pull-requests: write") {
		t.Errorf("warnings do not name the missing permission:\n%s", joined)
	}
	if s := strings.Join(e.n.summaries, "\n"); !strings.Contains(s, "the token lacks") {
		t.Errorf("job summary does not say the inline comments did not post:\n%s", s)
	}
	// Only one write attempt per kind: no retry storm.
	var posts int
	for _, w := range writes(e.srv.Requests()) {
		if strings.HasSuffix(w, "/reviews") {
			posts++
		}
	}
	if posts != 1 {
		t.Errorf("%d review POSTs; want 1", posts)
	}
}

// TestInlineIncompleteResolvesNothing: a partial review (a persona failed)
// leaves our earlier comments alone: a missing finding is not a fixed one.
func TestInlineIncompleteResolvesNothing(t *testing.T) {
	e := newPubEnv(t)
	e.srv.SetDiff(pubPR, inlineDiff)
	e.publishInline(t, inlineResult(t, inlineDiff, 0))
	res := inlineResult(t, inlineDiff, 0)
	res.Findings = res.Findings[:1]
	res.Partial, res.Verdict = true, review.Degraded
	e.publishInline(t, res)
	for _, c := range e.srv.ReviewComments(pubPR) {
		if c.Edits != 0 {
			t.Errorf("comment %d edited by a partial review:\n%s", c.ID, c.Body)
		}
	}
}

// TestInlineOff: without the input nothing but the report and check is
// written, as before.
func TestInlineOff(t *testing.T) {
	e := newPubEnv(t)
	e.srv.SetDiff(pubPR, inlineDiff)
	res := inlineResult(t, inlineDiff, 0)
	e.publish(t, e.gh, action.ModeComment, false, res, e.pr(t))
	if len(e.srv.Reviews(pubPR)) != 0 {
		t.Fatal("a review was posted without the inline input")
	}
	for _, r := range e.srv.Requests() {
		if strings.Contains(r.Path, "/pulls/7/comments") {
			t.Errorf("review comments read without the inline input: %s", r.Path)
		}
	}
	if mc := e.markerComments(); len(mc) != 1 || strings.Contains(mc[0].Body, "Inline comments") {
		t.Errorf("report mentions inline comments without the input")
	}
}

// racingReviewGitHub lets another run post the same inline comments between our
// plan and our POST (both read the same comments, both post).
type racingReviewGitHub struct {
	action.GitHub
	srv   *githubtest.Server
	other []githubtest.Comment // the other run's comments, posted first
}

func (r *racingReviewGitHub) CreateReview(ctx context.Context, owner, repo string, n int, rv github.Review) (int64, error) {
	for _, c := range rv.Comments {
		r.srv.AddLineComment(n, pubBot, c.Path, c.Line, 0, c.Body)
	}
	r.other = r.srv.ReviewComments(n)
	return r.GitHub.CreateReview(ctx, owner, repo, n, rv)
}

// TestInlineConcurrentRunsConverge: when another run posted the same
// findings first, ours are deleted and the report links the older ones.
func TestInlineConcurrentRunsConverge(t *testing.T) {
	e := newPubEnv(t)
	e.srv.SetDiff(pubPR, inlineDiff)
	race := &racingReviewGitHub{GitHub: e.gh, srv: e.srv}
	po := action.PublishOptions{GitHub: race, Notifier: e.n, Logf: t.Logf, Owner: pubOwner, Repo: pubRepo, PR: pubPR, BotLogin: pubBot, Mode: action.ModeComment, FailOn: "P1", Inline: true}
	ro := report.Options{Repo: pubOwner + "/" + pubRepo, HeadSHA: pubHead, FailOn: "P1"}
	action.Publish(context.Background(), po, inlineResult(t, inlineDiff, 0), e.pr(t), ro)

	rc := e.srv.ReviewComments(pubPR)
	if len(rc) != 2 || len(race.other) != 2 || rc[0].ID != race.other[0].ID || rc[1].ID != race.other[1].ID {
		t.Fatalf("review comments %+v; want only the other run's two (older) comments", rc)
	}
	body := e.markerComments()[0].Body
	for _, c := range rc {
		if !strings.Contains(body, "discussion_r"+itoa(c.ID)+")") {
			t.Errorf("report does not link the surviving comment %d:\n%s", c.ID, body)
		}
	}
}
