package stats

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/inline"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
)

const bot = "github-actions[bot]"

func client(t *testing.T, gh *githubtest.Server) *github.Client {
	t.Helper()
	c, err := github.New(gh.HTTPClient(), gh.URL, "ghs_test")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// reviewed is a result with one correctness finding, rendered by the
// report stage itself.
func reviewed(head string) (review.Result, finding.Finding) {
	f := finding.Finding{Title: "Loop reads past n", Severity: finding.P1, File: "a.go", Line: 3, Confidence: 100,
		Reviewers: []string{"correctness"}, Number: 1}
	return review.Result{Repo: "octocat/Hello-World", HeadSHA: head, Verdict: review.NotReady, Findings: []finding.Finding{f},
		Coverage: review.Coverage{Personas: []review.PersonaRun{{Name: "correctness", Model: "gpt-4.1-mini", Calls: 1,
			Usage: review.Usage{Calls: 1, PromptTokens: 10_000, CompletionTokens: 500}}}, Usage: review.Usage{Calls: 1, PromptTokens: 10_000, CompletionTokens: 500}}}, f
}

// TestInlineCommentsBeforeThePeriod: an inline comment written before the
// period, on a pull request whose report was rewritten in it, is not in
// the repository-wide listing (it lists comments updated since): stats
// reads that pull request's review comments whole, and its thumbs count.
func TestInlineCommentsBeforeThePeriod(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	head := strings.Repeat("a", 40)
	gh.AddPR(githubtest.PR{Number: 5, HeadSHA: head})
	res, f := reviewed(head)
	fp := inline.Fingerprint(f.File, f.Title, "for i := 0; i <= n; i++ {")
	id := gh.AddLineComment(5, bot, "a.go", 3, 0, inline.RenderComment(f, fp, nil, report.Options{}))
	gh.React(id, "+1")
	body := report.Comment(res, report.Options{Inline: &report.InlineStatus{Fingerprints: map[int]string{1: fp}}})
	rid := gh.AddReport(5, bot, body)
	c := client(t, gh)
	if _, err := c.EditComment(context.Background(), "octocat", "Hello-World", rid, body); err != nil {
		t.Fatal(err) // a later review rewrote the report: updated a minute later
	}
	reportAt := gh.Comments(5)[0].UpdatedAt
	r, err := Collect(context.Background(), c, Options{Repos: []string{"octocat/Hello-World"}, BotLogin: bot, Since: reportAt.Add(-30 * time.Second), Until: reportAt})
	if err != nil {
		t.Fatal(err)
	}
	if r.Totals.Reviewed != 1 || len(r.Personas) != 1 || r.Personas[0].ThumbsUp != 1 || r.Personas[0].Posted != 1 {
		t.Fatalf("report %+v, personas %+v; want the older inline comment's thumbs-up counted", r.Totals, r.Personas)
	}
	if p := r.Personas[0]; p.Cost == nil || *p.Cost <= 0 {
		t.Errorf("cost %v; want gpt-4.1-mini's list price applied by the report", p.Cost)
	}
	read := false
	for _, q := range gh.Requests() {
		read = read || q.Path == "/repos/octocat/Hello-World/pulls/5/comments"
	}
	if !read {
		t.Error("the pull request's review comments were not read")
	}
}

// TestPullReadWholeCountsEachCommentOnce: a pull request opened before the
// period is read whole, so its inline comment edited in the period, also in
// the repository-wide listing, counts once.
func TestPullReadWholeCountsEachCommentOnce(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	head := strings.Repeat("a", 40)
	gh.AddPR(githubtest.PR{Number: 5, HeadSHA: head})
	res, f := reviewed(head)
	fp := inline.Fingerprint(f.File, f.Title, "for i := 0; i <= n; i++ {")
	gh.React(gh.AddLineComment(5, bot, "a.go", 3, 0, inline.RenderComment(f, fp, nil, report.Options{})), "+1")
	body := report.Comment(res, report.Options{Inline: &report.InlineStatus{Fingerprints: map[int]string{1: fp}}})
	rid := gh.AddReport(5, bot, body)
	lid := gh.AddLineComment(5, bot, "a.go", 3, 0, inline.RenderComment(f, fp, nil, report.Options{}))
	gh.React(lid, "+1")
	c := client(t, gh)
	ctx := context.Background()
	if _, err := c.EditComment(ctx, "octocat", "Hello-World", rid, body); err != nil {
		t.Fatal(err)
	}
	reportAt := gh.Comments(5)[0].UpdatedAt
	since := reportAt.Add(-30 * time.Second)
	// Edited a minute after it was written: in the period, so listed.
	edited, err := c.EditReviewComment(ctx, "octocat", "Hello-World", lid, inline.RenderComment(f, fp, nil, report.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if edited.UpdatedAt.Before(since) {
		t.Fatalf("the edited inline comment (updated %v) is not in the period (since %v): the test checks nothing", edited.UpdatedAt, since)
	}
	r, err := Collect(ctx, c, Options{Repos: []string{"octocat/Hello-World"}, BotLogin: bot, Since: since, Until: reportAt})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Personas) != 1 || r.Personas[0].ThumbsUp != 2 {
		t.Fatalf("personas %+v; want the two inline comments' thumbs-up counted once each", r.Personas)
	}
}

// TestReportsThatDoNotCount: a forged metadata line is counted as
// unreadable, never read; a report-shaped comment by someone else, and a
// pull request updated before the period, do not count at all.
func TestReportsThatDoNotCount(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	for n := 1; n <= 3; n++ {
		gh.AddPR(githubtest.PR{Number: n, HeadSHA: strings.Repeat("b", 40)})
	}
	res, _ := reviewed(strings.Repeat("b", 40))
	body := report.Comment(res, report.Options{})
	gh.AddReport(1, bot, strings.Replace(body, `"version":2`, `"version":9`, 1))
	gh.AddComment(2, "mallory", body)
	r, err := Collect(context.Background(), client(t, gh), Options{Repos: []string{"octocat/Hello-World"}, BotLogin: bot, Since: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Totals.UnreadableReports != 1 || r.Totals.Reviewed != 0 || r.Totals.WithoutReport != 2 || len(r.Personas) != 0 {
		t.Errorf("totals %+v personas %+v; want 1 unreadable, 2 without a report, nothing counted", r.Totals, r.Personas)
	}
	if md := r.Markdown(); !strings.Contains(md, "unsupported version 9") || !strings.Contains(md, `No report of github-actions\[bot\] was written in the period.`) {
		t.Errorf("markdown:\n%s", md)
	}
}

// TestSuggestionNeedsTheMinimum: a persona is suggested for removal only
// over MinFindings judgeable findings; correctness and security never are;
// the suggestion is a removal, never a list that would keep out the
// personas added later.
func TestSuggestionNeedsTheMinimum(t *testing.T) {
	r := &Report{MinFindings: 20, MinRate: 0.1, Totals: Totals{Reviewed: 1}, Personas: []Persona{
		{Name: "correctness", Posted: 40, Judgeable: 40, ActedOn: 0},     // 0%: never removed
		{Name: "security", Posted: 30, Judgeable: 30, ActedOn: 1},        // 3%: never removed
		{Name: "maintainability", Posted: 20, Judgeable: 20, ActedOn: 1}, // 5%, over 20: removed
		{Name: "testing", Posted: 19, Judgeable: 19, ActedOn: 0},         // 0%, but 19: never judged
		{Name: "my-lens", Posted: 25, Judgeable: 25, ActedOn: 2},         // custom, 8%: removed
		{Name: "performance", Posted: 25, Judgeable: 25, ActedOn: 3},     // 12%: kept
	}}
	r.judge()
	s := r.Suggestion
	if s == nil || strings.Join(s.Remove, ",") != "maintainability,my-lens" || s.RestsOn != 45 {
		t.Fatalf("suggestion %+v", s)
	}
	if strings.Join(r.TooFew, ",") != "testing" || strings.Join(r.Kept, ",") != "correctness,security" {
		t.Errorf("too few %v, kept %v; want testing, and correctness and security kept", r.TooFew, r.Kept)
	}
	md := r.Markdown()
	if strings.Contains(md, "\npersonas:") || !strings.Contains(md, "Remove maintainability, my-lens from the team") ||
		!strings.Contains(md, "```yaml\nexclude_personas: [maintainability, my-lens]\n```") {
		t.Errorf("the Markdown suggests an allow-list, or no removal:\n%s", md)
	}
}

func TestHeadlineReviewer(t *testing.T) {
	for body, want := range map[string]string{
		"<!-- m -->\n**P1 · Loop · reads** · anchor 75 · correctness, security\n\nwhy": "correctness",
		"<!-- m -->\n~~**P1 · Loop** · anchor 75 · testing~~\n\nResolved in abc":       "testing",
		"<!-- m -->\n**P1 · Loop** · anchor 75\n":                                      "",
		"<!-- m -->\n\n": "",
	} {
		if got := headlineReviewer(body); got != want {
			t.Errorf("headlineReviewer(%q) = %q; want %q", body, got, want)
		}
	}
}

// TestReviewedBeforeThePeriod: a pull request commented on in the period
// whose report was written before it counts as without a report written
// in the period, not as reviewed.
func TestReviewedBeforeThePeriod(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	head := strings.Repeat("c", 40)
	gh.AddPR(githubtest.PR{Number: 4, HeadSHA: head})
	res, _ := reviewed(head)
	gh.AddReport(4, bot, report.Comment(res, report.Options{}))
	gh.AddComment(4, "octodev", "ping")
	since := gh.Comments(4)[1].CreatedAt
	r, err := Collect(context.Background(), client(t, gh), Options{Repos: []string{"octocat/Hello-World"}, BotLogin: bot, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	if r.Totals.PullRequests != 1 || r.Totals.Reviewed != 0 || r.Totals.WithoutReport != 1 {
		t.Errorf("totals %+v; want the PR listed, not reviewed in the period", r.Totals)
	}
}

// TestMarkdownDefusesRecordedText: a report comment's metadata is ours,
// but anyone with write access can edit a bot's comment, and another
// workflow posting as the same bot can echo PR text: a persona name or an
// unreadable line's text is data. Wherever the job summary shows it (the
// table, the suggestion, the too-few list, the unreadable note) it is no
// link, image or HTML.
func TestMarkdownDefusesRecordedText(t *testing.T) {
	link, img := "[docs](https://evil.example/x)", "<img src=https://evil.example/x.png>"
	r := &Report{Repositories: []RepositoryFigures{{Name: "octocat/Hello-World"}}, MinFindings: 20, MinRate: 0.1,
		Totals: Totals{Reviewed: 2, Reviews: 2, UnreadableReports: 1},
		Personas: []Persona{
			{Name: link, Reviews: 1, Posted: 25, Judgeable: 25, ActedOn: 0},
			{Name: img, Reviews: 1, Posted: 3, ActedOn: 0},
		},
		Unreadable: []string{`#3: report metadata: verdict "` + img + `" is not one of ready`},
	}
	r.judge()
	md := r.Markdown()
	for _, bad := range []string{"](https://", "<img"} {
		if strings.Contains(md, bad) {
			t.Errorf("the Markdown holds %q:\n%s", bad, md)
		}
	}
	if r.Suggestion != nil && slices.Contains(r.Suggestion.Remove, link) {
		t.Errorf("the suggestion removes %q, which no configuration can name", link)
	}
}

// TestReviewWithoutModelCalls: a release 3 review that made no model call
// (the deadline passed while the diff was read, or no persona applied)
// records no usage entry, yet its report is not one that predates
// per-persona figures: it counts as a review, and the repository's cost
// per review stays known.
func TestReviewWithoutModelCalls(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	for n := 1; n <= 2; n++ {
		gh.AddPR(githubtest.PR{Number: n, HeadSHA: strings.Repeat("c", 40)})
	}
	res, _ := reviewed(strings.Repeat("c", 40))
	gh.AddReport(1, bot, report.Comment(res, report.Options{}))
	cut := review.Result{Repo: "octocat/Hello-World", HeadSHA: strings.Repeat("c", 40), Verdict: review.Degraded,
		Partial: true, AllFailed: true, Failure: "the run's deadline passed before the review finished"}
	gh.AddReport(2, bot, report.Comment(cut, report.Options{}))

	r, err := Collect(context.Background(), client(t, gh), Options{Repos: []string{"octocat/Hello-World"}, BotLogin: bot, Since: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if t2 := r.Totals; t2.Reviewed != 2 || t2.Reviews != 2 || t2.OlderReports != 0 || !t2.CostComplete || t2.CostPerReview == nil {
		t.Errorf("totals %+v; want 2 reviews, no older report, the cost per review known", t2)
	}
	if md := r.Markdown(); strings.Contains(md, "predate") {
		t.Errorf("the Markdown calls a release 3 report older:\n%s", md)
	}
}
