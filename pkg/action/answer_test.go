package action

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// TestParseAnswer: dismiss and restore are the command's second word, in
// any case; anything else is not an answer (a plain /anchor-review stays a
// re-review request).
func TestParseAnswer(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body string
		want Answer
		ok   bool
	}{
		{"/anchor-review dismiss a1b2c3 intended change\nsee #12", Answer{Verb: VerbDismiss, Words: "a1b2c3 intended change\nsee #12"}, true},
		{"  /anchor-review   DISMISS   ", Answer{Verb: VerbDismiss}, true},
		{"/anchor-review restore a1b2c3", Answer{Verb: VerbRestore, Words: "a1b2c3"}, true},
		{"/anchor-review please", Answer{}, false},
		{"/anchor-review dismissal a1b2c3 x", Answer{}, false},
		{"please /anchor-review dismiss a1b2c3 x", Answer{}, false},
		{"/anchor-reviewdismiss a1b2c3 x", Answer{}, false},
	} {
		got, ok := ParseAnswer(tt.body)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseAnswer(%q) = %+v, %v; want %+v, %v", tt.body, got, ok, tt.want, tt.ok)
		}
	}
}

// TestParseAnswerEvents: a dismiss in a PR comment is an answer, never a
// re-review; a reply in an inline thread (pull_request_review_comment,
// with in_reply_to_id as GitHub sends a reply) is an answer naming its
// thread; a review comment that starts a thread, or is no command, is a
// notice.
func TestParseAnswerEvents(t *testing.T) {
	t.Parallel()
	ev, err := ParseEvent(EventIssueComment, prComment(t, "created", "/anchor-review dismiss a1b2c3 intended", "MEMBER"), "")
	if err != nil {
		t.Fatal(err)
	}
	if ev.Answer == nil || ev.Answer.Verb != VerbDismiss || ev.Rerun || ev.Review || ev.Commenter != "Codertocat" || ev.PRNumber != 2 {
		t.Fatalf("issue_comment dismiss = %+v (answer %+v); want an answer, no review", ev, ev.Answer)
	}
	reply := func(body string, inReplyTo any) []byte {
		return edit(t, webhook(t, "pull_request_review_comment.created.json"), func(p map[string]any) {
			c := p["comment"].(map[string]any)
			c["body"], c["in_reply_to_id"] = body, inReplyTo
		})
	}
	ev, err = ParseEvent(EventReviewComment, reply("/anchor-review dismiss the API change is intended", 284312000), "")
	if err != nil {
		t.Fatal(err)
	}
	if ev.Answer == nil || ev.Answer.Thread != 284312000 || ev.Answer.Words != "the API change is intended" || ev.PRNumber != 2 ||
		ev.CommentID != 284312630 || ev.Commenter != "Codertocat" || ev.Review || ev.Owner != "Codertocat" {
		t.Fatalf("review-comment reply = %+v (answer %+v)", ev, ev.Answer)
	}
	for name, b := range map[string][]byte{
		"a thread's first comment":  reply("/anchor-review dismiss intended", nil),
		"not a command":             reply("looks fine", 284312000),
		"a plain re-review request": reply("/anchor-review", 284312000),
	} {
		ev, err := ParseEvent(EventReviewComment, b, "")
		if err != nil || ev.Answer != nil || ev.Review || ev.Notice == "" {
			t.Errorf("%s: %+v, %v; want a notice", name, ev, err)
		}
	}
}

// racingReport is a GitHub whose first listing of the comments is followed
// at once by a review publishing a new report over the one just read.
type racingReport struct {
	GitHub
	once    sync.Once
	rewrite func()
}

func (r *racingReport) IssueComments(ctx context.Context, owner, repo string, n int) ([]github.Comment, error) {
	cs, err := r.GitHub.IssueComments(ctx, owner, repo, n)
	r.once.Do(r.rewrite)
	return cs, err
}

// TestAnswerRacingReview: a review that rewrites the report while a
// dismissal is decided is not overwritten: the dismissal is decided again
// on the new report and recorded in it.
func TestAnswerRacingReview(t *testing.T) {
	t.Parallel()
	srv, gh, head := answerPR(t, "package a\n\nfunc f() {}\n")
	f := finding.Finding{Number: 1, Title: "Exported func removed", Severity: finding.P1, File: "a.go", Line: 3, Confidence: 100, Reviewers: []string{"correctness"}}
	body := func(text string, fs ...finding.Finding) string {
		r := review.Result{HeadSHA: head, Repo: "o/r", Findings: fs, Verdict: review.DecideVerdict(review.Result{Findings: fs}), Coverage: review.Coverage{}}
		return report.Comment(r, report.Options{}) + text
	}
	id := srv.AddReport(7, "github-actions[bot]", body("first", f))
	other := f
	other.Number, other.Title, other.Line = 2, "Interface grew a method", 1
	race := &racingReport{GitHub: gh, rewrite: func() {
		if _, err := gh.EditComment(context.Background(), "o", "r", id, body("second", f, other)); err != nil {
			t.Error(err)
		}
	}}
	fp := finding.Fingerprint(f)
	a := answerer{gh: race, n: discard{}, logf: t.Logf, c: Config{BotLogin: "github-actions[bot]", DismissBy: DismissByOthers, FailOn: "P1"},
		ev: Event{Owner: "o", Repo: "r", PRNumber: 7, Commenter: "maint", Answer: &Answer{Verb: VerbDismiss, Words: fp[:6] + " intended"}}}
	out, err := a.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cs := srv.Comments(7)
	m, err := marker.ParseReport(cs[0].Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Findings) != 2 || len(m.Dismissals) != 1 || m.Dismissals[0].Fingerprint != fp || m.Blocking != 1 || out.Conclusion != "failure" {
		t.Fatalf("meta %+v, conclusion %s; want the new report's two findings, the dismissal, the other still blocking", m, out.Conclusion)
	}
}

type discard struct{}

func (discard) Warningf(string, ...any)                           {}
func (discard) Errorf(string, ...any)                             {}
func (discard) AddStepSummary(string)                             {}
func (discard) Annotate(string, string, int, int, string, string) {}

// FuzzParseAnswer: any comment body parses without panicking; an answer is
// always the command, a known verb, and trimmed words.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{"/anchor-review dismiss a1b2c3 intended", "/anchor-review restore", "/anchor-review", "\u00a0/anchor-review\tDISMISS\u2028x", "/anchor-review dismiss\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		a, ok := ParseAnswer(body)
		if !ok {
			return
		}
		if !IsCommand(body) || a.Verb != VerbDismiss && a.Verb != VerbRestore || a.Words != strings.TrimSpace(a.Words) || a.Thread != 0 {
			t.Fatalf("ParseAnswer(%q) = %+v", body, a)
		}
	})
}

// overwritingEdit is a GitHub where another run's edit lands right after
// this run's first edit of the report, putting back what it read.
type overwritingEdit struct {
	GitHub
	once  sync.Once
	other func()
}

func (o *overwritingEdit) EditComment(ctx context.Context, owner, repo string, id int64, body string) (github.Comment, error) {
	c, err := o.GitHub.EditComment(ctx, owner, repo, id, body)
	o.once.Do(o.other)
	return c, err
}

// TestAnswerLostUpdate: a concurrent edit that overwrites the dismissal
// just written is noticed by reading the report back, and the dismissal is
// decided again on the report as it then is, so it is not lost.
func TestAnswerLostUpdate(t *testing.T) {
	t.Parallel()
	srv, gh, head := answerPR(t, "package a\n\nfunc f() {}\n")
	f := finding.Finding{Number: 1, Title: "Exported func removed", Severity: finding.P1, File: "a.go", Line: 3, Confidence: 100, Reviewers: []string{"correctness"}}
	first := report.Comment(review.Result{HeadSHA: head, Repo: "o/r", Findings: []finding.Finding{f}, Verdict: review.NotReady}, report.Options{})
	id := srv.AddReport(7, "github-actions[bot]", first)
	gh2 := &overwritingEdit{GitHub: gh, other: func() {
		if _, err := gh.EditComment(context.Background(), "o", "r", id, first); err != nil {
			t.Error(err)
		}
	}}
	fp := finding.Fingerprint(f)
	a := answerer{gh: gh2, n: discard{}, logf: t.Logf, c: Config{BotLogin: "github-actions[bot]", DismissBy: DismissByOthers, FailOn: "P1"},
		ev: Event{Owner: "o", Repo: "r", PRNumber: 7, Commenter: "maint", Answer: &Answer{Verb: VerbDismiss, Words: fp[:6] + " intended"}}}
	if _, err := a.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	m, err := marker.ParseReport(srv.Comments(7)[0].Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Dismissals) != 1 || m.Blocking != 0 {
		t.Fatalf("dismissals %+v blocking %d; want the dismissal written again after the overwrite", m.Dismissals, m.Blocking)
	}
	if n := len(srv.CheckRuns()); n != 1 {
		t.Errorf("%d check runs; want one, written once the report holds the dismissal", n)
	}
}

// TestAnswerRepeatedProblem: the same problem at two lines of a file shares
// one id. A person answers each instance in turn: the first dismissal
// covers one line, the second covers the other (it is not "already
// dismissed"), and the check then passes; a restore undoes one at a time.
func TestAnswerRepeatedProblem(t *testing.T) {
	t.Parallel()
	srv, gh, head := answerPR(t, "package a\n\nfunc f() {}\n\nfunc g() {}\n")
	f := finding.Finding{Number: 1, Title: "Exported func removed", Severity: finding.P1, File: "a.go", Line: 3, Confidence: 100, Reviewers: []string{"correctness"}}
	g := f
	g.Number, g.Line = 2, 5
	srv.AddReport(7, "github-actions[bot]", report.Comment(review.Result{HeadSHA: head, Repo: "o/r", Findings: []finding.Finding{f, g}, Verdict: review.NotReady}, report.Options{}))
	id := finding.Fingerprint(f)[:6]
	answer := func(verb, words string) StepOutputs {
		t.Helper()
		a := answerer{gh: gh, n: discard{}, logf: t.Logf, c: Config{BotLogin: "github-actions[bot]", DismissBy: DismissByOthers, FailOn: "P1"},
			ev: Event{Owner: "o", Repo: "r", PRNumber: 7, Commenter: "maint", Answer: &Answer{Verb: verb, Words: words}}}
		out, err := a.run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	meta := func() marker.Meta {
		t.Helper()
		m, err := marker.ParseReport(srv.Comments(7)[0].Body)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if out := answer(VerbDismiss, id+" intended"); out.Skipped || meta().Blocking != 1 {
		t.Fatalf("first dismissal: %+v, blocking %d; want one instance dismissed, one blocking", out, meta().Blocking)
	}
	if out := answer(VerbDismiss, id+" intended here too"); out.Skipped || out.Conclusion != "success" {
		t.Fatalf("second dismissal: %+v (meta %+v); want the other instance dismissed and the check passing", out, meta())
	}
	if m := meta(); len(m.Dismissals) != 2 || m.Dismissals[0].Line == m.Dismissals[1].Line || m.Blocking != 0 {
		t.Fatalf("dismissals %+v blocking %d; want both lines", m.Dismissals, m.Blocking)
	}
	if out := answer(VerbRestore, id); out.Skipped || meta().Blocking != 1 || len(meta().Dismissals) != 1 {
		t.Fatalf("restore: %+v, meta %+v; want one instance restored", out, meta())
	}
}

// TestAnswerAtTheDismissalCap: a report holding MaxDismissals dismissals,
// one of which lapsed (its lines changed; it is history only), still takes
// a dismissal: the oldest lapsed entry makes room. A long-lived PR's
// history must not leave a blocking finding no person can answer.
func TestAnswerAtTheDismissalCap(t *testing.T) {
	t.Parallel()
	srv, gh, head := answerPR(t, "package a\n\nfunc f() {}\n")
	old := strings.Repeat("3", 40)
	f := finding.Finding{Number: 1, Title: "Exported func removed", Severity: finding.P1, File: "a.go", Line: 3, Confidence: 100, Reviewers: []string{"correctness"}}
	r := review.Result{HeadSHA: head, Repo: "o/r", Findings: []finding.Finding{f}, Verdict: review.NotReady}
	for i := range marker.MaxDismissals {
		fp := fmt.Sprintf("%04x%012x", i+1, i+1)
		d := marker.Dismissal{ID: fp[:6], Fingerprint: fp, File: "gone.go", Line: 1, Severity: "P2", Title: "old", By: "maint",
			At: "2026-11-20T05:40:00Z", Reason: "history", Head: old}
		if i == 3 {
			d.Lapsed = head
		}
		r.Dismissals = append(r.Dismissals, d)
	}
	srv.AddReport(7, "github-actions[bot]", report.Comment(r, report.Options{}))
	a := answerer{gh: gh, n: discard{}, logf: t.Logf, c: Config{BotLogin: "github-actions[bot]", DismissBy: DismissByOthers, FailOn: "P1"},
		ev: Event{Owner: "o", Repo: "r", PRNumber: 7, Commenter: "maint", Answer: &Answer{Verb: VerbDismiss, Words: finding.Fingerprint(f)[:6] + " intended"}}}
	out, err := a.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m, err := marker.ParseReport(srv.Comments(7)[0].Body)
	if err != nil {
		t.Fatal(err)
	}
	if out.Skipped || out.Conclusion != "success" || len(m.Dismissals) != marker.MaxDismissals || slices.ContainsFunc(m.Dismissals, func(d marker.Dismissal) bool { return d.Lapsed != "" }) {
		t.Fatalf("out %+v, %d dismissals; want the dismissal taken in the lapsed entry's place", out, len(m.Dismissals))
	}
}

// TestAnswerTakesOrgDefaults: the organization's defaults (the config
// input) decide who may answer a finding in a repository with no file of
// its own, as they decide the review there: dismiss_by: nobody refuses a
// dismissal that the input's default would take.
func TestAnswerTakesOrgDefaults(t *testing.T) {
	t.Parallel()
	c, err := LoadConfig(env(with(minimal(), "INPUT_CONFIG", "dismiss_by: nobody\n")))
	if err != nil {
		t.Fatal(err)
	}
	srv, gh, head := answerPR(t, "package a\n\nfunc f() {}\n")
	f := finding.Finding{Number: 1, Title: "Exported func removed", Severity: finding.P1, File: "a.go", Line: 3, Confidence: 100, Reviewers: []string{"correctness"}}
	srv.AddReport(7, c.BotLogin, report.Comment(review.Result{HeadSHA: head, Repo: "o/r", Findings: []finding.Finding{f}, Verdict: review.NotReady}, report.Options{}))
	a := answerer{gh: gh, n: discard{}, logf: t.Logf, c: c,
		ev: Event{Owner: "o", Repo: "r", PRNumber: 7, Commenter: "maint", Answer: &Answer{Verb: VerbDismiss, Words: finding.Fingerprint(f)[:6] + " intended"}}}
	out, err := a.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !out.Skipped || !strings.HasPrefix(out.SkipReason, "refused") {
		t.Errorf("out %+v; want the dismissal refused: the organization's dismiss_by is nobody", out)
	}
	if m, err := marker.ParseReport(srv.Comments(7)[0].Body); err != nil || len(m.Dismissals) != 0 {
		t.Errorf("dismissals %v (%v); want none recorded", m.Dismissals, err)
	}
}

// answerPR is a fake GitHub holding pull request 7 (head 444..., authored
// by author, its a.go at the head holding content) where maint has write
// access, and a client of it.
func answerPR(t *testing.T, content string) (*githubtest.Server, *github.Client, string) {
	t.Helper()
	srv := githubtest.New()
	t.Cleanup(srv.Close)
	gh, err := github.New(srv.HTTPClient(), srv.URL+"/", "t", github.WithSleep(func(context.Context, time.Duration) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Repeat("4", 40)
	srv.AddPR(githubtest.PR{Number: 7, Title: "t", HeadSHA: head, BaseSHA: strings.Repeat("0", 40), Author: "author"})
	srv.SetContent(head, "a.go", content)
	srv.SetRole("maint", "write")
	return srv, gh, head
}
