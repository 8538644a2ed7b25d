package action_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// The pull request every publisher test publishes to.
const (
	pubOwner = "shopfront"
	pubRepo  = "orders"
	pubPR    = 7
	pubHead  = "4b1f0c0de5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0"
	pubBot   = "github-actions[bot]" // also the author githubtest gives created comments
	tP0      = "SQL injection through the status parameter"
)

// notifier is a recording action.Notifier.
type notifier struct {
	mu                                    sync.Mutex
	warnings, errors, summaries, annotate []string
}

func (n *notifier) Warningf(format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.warnings = append(n.warnings, fmt.Sprintf(format, args...))
}

func (n *notifier) Errorf(format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.errors = append(n.errors, fmt.Sprintf(format, args...))
}

func (n *notifier) AddStepSummary(markdown string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.summaries = append(n.summaries, markdown)
}

func (n *notifier) Annotate(level, file string, line, endLine int, title, message string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.annotate = append(n.annotate, fmt.Sprintf("%s %s:%d-%d %s", level, file, line, endLine, title))
}

// pubEnv is the fake GitHub and the real client pointed at it.
type pubEnv struct {
	srv *githubtest.Server
	gh  *github.Client
	n   *notifier
}

func newPubEnv(t *testing.T) *pubEnv {
	t.Helper()
	srv := githubtest.New()
	t.Cleanup(srv.Close)
	gh, err := github.New(srv.HTTPClient(), srv.URL+"/", "t", github.WithSleep(func(context.Context, time.Duration) error { return nil }))
	if err != nil {
		t.Fatalf("github.New: %v", err)
	}
	srv.AddPR(githubtest.PR{Number: pubPR, Title: "Add order search", HeadSHA: pubHead, BaseSHA: strings.Repeat("0", 40)})
	return &pubEnv{srv: srv, gh: gh, n: &notifier{}}
}

// pr is what Stage 1 would have read: the PR's comments as listed now.
func (e *pubEnv) pr(t *testing.T) *review.PR {
	t.Helper()
	cs, err := e.gh.IssueComments(context.Background(), pubOwner, pubRepo, pubPR)
	if err != nil {
		t.Fatalf("IssueComments: %v", err)
	}
	return &review.PR{Comments: cs}
}

// publish runs action.Publish against the fake through gh.
func (e *pubEnv) publish(t *testing.T, gh action.GitHub, mode string, quiet bool, res review.Result, pr *review.PR) action.StepOutputs {
	t.Helper()
	po := action.PublishOptions{GitHub: gh, Notifier: e.n, Logf: t.Logf, Owner: pubOwner, Repo: pubRepo, PR: pubPR, BotLogin: pubBot, Mode: mode, FailOn: "P1", Quiet: quiet}
	ro := report.Options{Repo: pubOwner + "/" + pubRepo, HeadSHA: pubHead, FailOn: "P1", Quiet: quiet}
	return action.Publish(context.Background(), po, res, pr, ro)
}

// writes are the requests that change state on GitHub.
func writes(reqs []githubtest.Request) []string {
	var out []string
	for _, r := range reqs {
		if r.Method != "GET" && r.Method != "HEAD" {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// markerComments are the PR's comments by the bot carrying the marker.
func (e *pubEnv) markerComments() []githubtest.Comment {
	var out []githubtest.Comment
	for _, c := range e.srv.Comments(pubPR) {
		if c.Author == pubBot && marker.HasReport(c.Body) {
			out = append(out, c)
		}
	}
	return out
}

// result is a finished review of the PR; p0 adds one posted P0 finding.
func result(mode string, p0 bool) review.Result {
	r := review.Result{Repo: pubOwner + "/" + pubRepo, PR: pubPR, HeadSHA: pubHead, Title: "Add order search", Mode: mode, Verdict: review.Ready}
	if p0 {
		r.Findings = []finding.Finding{{
			Number: 1, Title: tP0, Severity: finding.P0, File: "internal/api/orders.go", Line: 37, Confidence: 100,
			WhyItMatters: "Any caller can read every order.", AutofixClass: "manual", Owner: "human",
			Evidence: []string{"internal/api/orders.go:37"}, Reviewers: []string{"security"},
		}}
		r.Verdict = review.NotReady
	}
	return r
}

// oldReport is an earlier report comment of ours.
func oldReport(text string) string {
	return marker.Report + "\n" + marker.FormatMeta(marker.Meta{Version: 1, HeadSHA: "old", Verdict: "not-ready", Conclusion: "failure", Blocking: 1}) + "\n" + text + "\n"
}

// TestPublishReportOnly: report-only posts nothing at all (no comment, no
// check run) and writes the job summary. With no check run its conclusion
// output is empty, never "success" beside a not-ready verdict; the verdict
// output carries what the review found.
func TestPublishReportOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		res            func() review.Result
		wantConclusion string
	}{
		{name: "P0 finding", res: func() review.Result { return result(action.ModeReportOnly, true) }, wantConclusion: ""},
		{name: "partial", res: func() review.Result {
			r := result(action.ModeReportOnly, true)
			r.Partial, r.Verdict = true, review.Degraded
			return r
		}, wantConclusion: ""},
		{name: "every persona failed", res: func() review.Result {
			r := result(action.ModeReportOnly, false)
			r.AllFailed, r.Partial, r.Verdict, r.Failure = true, true, review.Degraded, "every persona failed"
			return r
		}, wantConclusion: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newPubEnv(t)
			e.srv.AddReport(pubPR, pubBot, oldReport("old findings"))
			pr := e.pr(t)
			before := len(e.srv.Requests())
			res := tc.res()

			out := e.publish(t, e.gh, action.ModeReportOnly, false, res, pr)
			if w := writes(e.srv.Requests()[before:]); len(w) != 0 {
				t.Errorf("write requests: got %q; want none in report-only mode", w)
			}
			if n := len(e.srv.CheckRuns()); n != 0 {
				t.Errorf("check runs: got %d; want 0", n)
			}
			if cs := e.srv.Comments(pubPR); len(cs) != 1 || cs[0].Edits != 0 {
				t.Errorf("comments: got %+v; want the earlier one, untouched", cs)
			}
			if len(e.n.summaries) != 1 || strings.TrimSpace(e.n.summaries[0]) == "" {
				t.Fatalf("job summaries: got %d (%q); want one, not empty", len(e.n.summaries), e.n.summaries)
			}
			if len(res.Findings) > 0 && !strings.Contains(e.n.summaries[0], tP0) {
				t.Errorf("job summary does not list the finding %q", tP0)
			}
			if out.Conclusion != tc.wantConclusion || out.Verdict != string(res.Verdict) {
				t.Errorf("conclusion %q, verdict %q: want %q, %q", out.Conclusion, out.Verdict, tc.wantConclusion, res.Verdict)
			}
			if out.CommentURL != "" || len(e.n.annotate) != 0 {
				t.Errorf("comment URL %q, annotations %q; want none", out.CommentURL, e.n.annotate)
			}
		})
	}
}

// TestPublishQuiet: with quiet and nothing to report, an existing report of
// ours is edited (with a real body, never an empty one, so it shows no
// stale findings); without one nothing is posted. Someone else's marker
// comment is never ours to edit.
func TestPublishQuiet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		existing [2]string // author, body of an earlier comment
		p0       bool
		// wantOurs is the number of our marker comments afterwards;
		// wantEdited whether the earlier one was edited.
		wantOurs   int
		wantEdited bool
	}{
		{name: "earlier report, no findings", existing: [2]string{pubBot, oldReport("| 1 | stale finding |")}, wantOurs: 1, wantEdited: true},
		{name: "no earlier report, no findings", wantOurs: 0},
		{name: "marker by someone else, no findings", existing: [2]string{"mallory", oldReport("spoofed")}, wantOurs: 0},
		{name: "no earlier report, a finding", p0: true, wantOurs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newPubEnv(t)
			var earlier int64
			if tc.existing[0] != "" {
				earlier = e.srv.AddComment(pubPR, tc.existing[0], tc.existing[1])
			}
			out := e.publish(t, e.gh, action.ModeComment, true, result(action.ModeComment, tc.p0), e.pr(t))

			ours := e.markerComments()
			if len(ours) != tc.wantOurs {
				t.Fatalf("our report comments: got %d; want %d (%+v)", len(ours), tc.wantOurs, e.srv.Comments(pubPR))
			}
			for _, c := range e.srv.Comments(pubPR) {
				if c.ID == earlier && (c.Edits > 0) != tc.wantEdited {
					t.Errorf("earlier comment edited %d times; want edited %t", c.Edits, tc.wantEdited)
				}
			}
			if tc.wantOurs == 0 {
				if out.CommentURL != "" {
					t.Errorf("comment URL: got %q; want none", out.CommentURL)
				}
				if n := len(e.srv.Comments(pubPR)); n != len(filterEmpty(tc.existing[0])) {
					t.Errorf("comments: got %d; want nothing posted", n)
				}
			} else {
				c := ours[0]
				if strings.TrimSpace(strings.ReplaceAll(c.Body, marker.Report, "")) == "" {
					t.Errorf("report body: got %q; want a report under the marker", c.Body)
				}
				if strings.Contains(c.Body, "stale finding") {
					t.Errorf("report still shows the stale finding: %q", c.Body)
				}
				if tc.wantEdited && c.ID != earlier {
					t.Errorf("kept comment %d; want the earlier %d edited in place", c.ID, earlier)
				}
				if !strings.Contains(out.CommentURL, fmt.Sprint(c.ID)) {
					t.Errorf("comment URL %q does not name comment %d", out.CommentURL, c.ID)
				}
			}
			// The check run is written whatever quiet says.
			if n := len(e.srv.CheckRuns()); n != 1 {
				t.Errorf("check runs: got %d; want 1", n)
			}
		})
	}
}

func filterEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// racingGitHub is the real client, except that right after it creates a
// comment a concurrent run of the action creates its own report.
type racingGitHub struct {
	*github.Client
	srv *githubtest.Server
}

func (r racingGitHub) CreateComment(ctx context.Context, owner, repo string, n int, body string) (github.Comment, error) {
	c, err := r.Client.CreateComment(ctx, owner, repo, n, body)
	r.srv.AddReport(n, pubBot, oldReport("concurrent run"))
	return c, err
}

// fasterRunGitHub is the real client, except that a concurrent run posted
// its report just before ours and, having re-listed first, deleted ours
// as the newer duplicate before we re-list.
type fasterRunGitHub struct {
	*github.Client
	srv *githubtest.Server
}

func (r fasterRunGitHub) CreateComment(ctx context.Context, owner, repo string, n int, body string) (github.Comment, error) {
	r.srv.AddReport(n, pubBot, oldReport("concurrent run"))
	c, err := r.Client.CreateComment(ctx, owner, repo, n, body)
	if err != nil {
		return c, err
	}
	return c, r.Client.DeleteComment(ctx, owner, repo, c.ID)
}

// TestPublishConcurrentDuplicate: when another run's report appears
// between our listing and our re-listing, exactly one report comment
// remains: the oldest, holding our body.
func TestPublishConcurrentDuplicate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, e *pubEnv) action.StepOutputs
		// wantOldest: the survivor is the comment that existed first
		// (created by the other run), not the one we created.
		wantOldest bool
		// reread: the publisher's re-read before posting saw the other
		// report, so it edited that one and created no duplicate at all.
		reread bool
	}{
		{
			name: "other report created after our listing, before ours",
			run: func(t *testing.T, e *pubEnv) action.StepOutputs {
				stale := e.pr(t)
				e.srv.AddReport(pubPR, pubBot, oldReport("concurrent run"))
				return e.publish(t, e.gh, action.ModeComment, false, result(action.ModeComment, true), stale)
			},
			wantOldest: true, reread: true,
		},
		{
			name: "other report created right after ours",
			run: func(t *testing.T, e *pubEnv) action.StepOutputs {
				return e.publish(t, racingGitHub{e.gh, e.srv}, action.ModeComment, false, result(action.ModeComment, true), e.pr(t))
			},
		},
		{
			name: "other run posted first and deleted ours before we re-listed",
			run: func(t *testing.T, e *pubEnv) action.StepOutputs {
				return e.publish(t, fasterRunGitHub{e.gh, e.srv}, action.ModeComment, false, result(action.ModeComment, true), e.pr(t))
			},
			wantOldest: true,
		},
		{
			name: "two runs with the same stale listing",
			run: func(t *testing.T, e *pubEnv) action.StepOutputs {
				stale := e.pr(t)
				e.publish(t, e.gh, action.ModeComment, false, result(action.ModeComment, true), stale)
				return e.publish(t, e.gh, action.ModeComment, false, result(action.ModeComment, true), stale)
			},
			wantOldest: true, reread: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newPubEnv(t)
			out := tc.run(t, e)
			ours := e.markerComments()
			if len(ours) != 1 {
				t.Fatalf("our report comments: got %d; want exactly 1 (%+v)", len(ours), ours)
			}
			c := ours[0]
			if !strings.Contains(c.Body, tP0) || strings.Contains(c.Body, "concurrent run") {
				t.Errorf("surviving report: got %q; want our report", c.Body)
			}
			if !strings.Contains(out.CommentURL, fmt.Sprint(c.ID)) {
				t.Errorf("comment URL %q does not name the surviving comment %d", out.CommentURL, c.ID)
			}
			// The fake hands out rising IDs: the survivor must be older than
			// every report deleted as a duplicate.
			var deleted []int64
			for _, r := range e.srv.Requests() {
				if r.Method != "DELETE" {
					continue
				}
				var id int64
				if _, err := fmt.Sscanf(r.Path[strings.LastIndex(r.Path, "/")+1:], "%d", &id); err != nil {
					t.Fatalf("DELETE %s: %v", r.Path, err)
				}
				deleted = append(deleted, id)
			}
			if tc.reread {
				if len(deleted) != 0 {
					t.Errorf("deleted %v; want no duplicate ever created", deleted)
				}
			} else if len(deleted) != 1 || deleted[0] <= c.ID {
				t.Errorf("deleted %v, kept %d; want one newer duplicate deleted and the oldest kept", deleted, c.ID)
			}
			if tc.wantOldest && c.Edits == 0 {
				t.Errorf("survivor %d was not edited; want the older report rewritten with our body", c.ID)
			}
		})
	}
}

// TestPublishCannotRun: a review that could not run (AllFailed) gives a
// failing check run whose title names the reason, quiet or not, and a
// comment that names it instead of claiming a clean PR.
func TestPublishCannotRun(t *testing.T) {
	t.Parallel()
	const reason = "diff unavailable: HTTP 500"
	for _, quiet := range []bool{false, true} {
		t.Run(fmt.Sprintf("quiet=%t", quiet), func(t *testing.T) {
			t.Parallel()
			e := newPubEnv(t)
			res := result(action.ModeComment, false)
			res.AllFailed, res.Partial, res.Verdict, res.Failure = true, true, review.Degraded, reason

			out := e.publish(t, e.gh, action.ModeComment, quiet, res, e.pr(t))
			runs := e.srv.CheckRuns()
			if len(runs) != 1 {
				t.Fatalf("check runs: got %d; want 1", len(runs))
			}
			if cr := runs[0]; cr.Conclusion != "failure" || !strings.Contains(cr.Title, reason) || cr.HeadSHA != pubHead || cr.Name != action.CheckName {
				t.Errorf("check run: got %s %q on %s named %q; want failure, a title holding %q, on %s, named %q",
					cr.Conclusion, cr.Title, cr.HeadSHA, cr.Name, reason, pubHead, action.CheckName)
			}
			if out.Conclusion != "failure" {
				t.Errorf("conclusion: got %q; want failure", out.Conclusion)
			}
			if quiet {
				return // whether quiet posts a could-not-run report is not pinned here
			}
			ours := e.markerComments()
			if len(ours) != 1 || !strings.Contains(ours[0].Body, reason) {
				t.Errorf("report comments: got %+v; want one naming %q", ours, reason)
			}
		})
	}
}

// deletedReportGitHub is the real client, except that our earlier report is
// deleted (by a person, say) between Stage 1's listing and the edit.
type deletedReportGitHub struct {
	*github.Client
	srv *githubtest.Server
}

func (d deletedReportGitHub) EditComment(ctx context.Context, owner, repo string, id int64, body string) (github.Comment, error) {
	if err := d.Client.DeleteComment(ctx, owner, repo, id); err != nil {
		return github.Comment{}, err
	}
	return d.Client.EditComment(ctx, owner, repo, id, body)
}

// TestPublishReportDeletedMeanwhile: when the report comment Stage 1 found
// is gone by the time it is edited (404), a new report is posted; the run
// is not treated as a read-only token.
func TestPublishReportDeletedMeanwhile(t *testing.T) {
	t.Parallel()
	e := newPubEnv(t)
	e.srv.AddReport(pubPR, pubBot, oldReport("earlier run"))
	out := e.publish(t, deletedReportGitHub{e.gh, e.srv}, action.ModeComment, false, result(action.ModeComment, true), e.pr(t))
	ours := e.markerComments()
	if len(ours) != 1 || !strings.Contains(ours[0].Body, tP0) {
		t.Fatalf("report comments %+v; want exactly one, with this run's report", ours)
	}
	if !strings.Contains(out.CommentURL, fmt.Sprint(ours[0].ID)) {
		t.Errorf("comment URL %q does not name the new report %d", out.CommentURL, ours[0].ID)
	}
	if len(e.srv.CheckRuns()) != 1 {
		t.Errorf("check runs: got %d; want 1", len(e.srv.CheckRuns()))
	}
}

// TestOutcome: the one exit decision the Action and `review --post` share.
func TestOutcome(t *testing.T) {
	t.Parallel()
	boom := errors.New("dispatch: every persona failed")
	tests := []struct {
		name string
		res  review.Result
		out  action.StepOutputs
		err  error
		want error // nil: exit 0
	}{
		{"clean", review.Result{}, action.StepOutputs{Conclusion: "success", CheckWritten: true}, nil, nil},
		{"neutral", review.Result{Partial: true}, action.StepOutputs{Conclusion: "neutral", CheckWritten: true}, nil, nil},
		{"blocking", review.Result{}, action.StepOutputs{Conclusion: "failure", Blocking: 2, CheckWritten: true}, nil, action.ErrBlocking},
		{"blocking, check not written", review.Result{}, action.StepOutputs{Conclusion: "failure", Blocking: 1}, nil, action.ErrBlocking},
		{"every persona failed", review.Result{AllFailed: true}, action.StepOutputs{Conclusion: "failure"}, boom, action.ErrCannotRun},
		{"skipped by rule 1-3", review.Result{Skipped: true}, action.StepOutputs{Skipped: true}, nil, nil},
		{"rule 4 carries failure on a written check", review.Result{Skipped: true}, action.StepOutputs{Skipped: true, Conclusion: "failure", CheckWritten: true}, nil, nil},
		{"rule 4 carries failure, check not written", review.Result{Skipped: true}, action.StepOutputs{Skipped: true, Conclusion: "failure"}, nil, action.ErrBlocking},
		{"report-only with findings", review.Result{Findings: result(action.ModeReportOnly, true).Findings}, action.StepOutputs{Findings: 1, Verdict: "not-ready"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := action.Outcome(tt.res, tt.out, "P1", tt.err)
			if (tt.want == nil) != (got == nil) || (tt.want != nil && !errors.Is(got, tt.want)) {
				t.Errorf("Outcome = %v; want %v", got, tt.want)
			}
			if tt.err != nil && got != nil && !errors.Is(got, tt.err) {
				t.Errorf("Outcome = %v; want it to wrap the review's error", got)
			}
		})
	}
}
