package stats

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/anchor-review/anchor-review/pkg/skip"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/inline"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/pricing"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
)

var since = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// metaBody is a report comment carrying m as its metadata line: what a
// person who edits the bot's comment, or a forger, controls. A cost of
// 0.125 is written as 1.7e308 (FormatMeta would not write it).
func metaBody(m marker.Meta) string {
	line := strings.ReplaceAll(marker.FormatMeta(m), `"cost":0.125`, `"cost":1.7e308`)
	return marker.Report + "\n" + line + "\n## anchor-review\n"
}

func sha(c byte) string { return strings.Repeat(string(c), 40) }

func collect(t *testing.T, gh *githubtest.Server) *Report {
	t.Helper()
	r, err := Collect(context.Background(), client(t, gh), Options{Repos: []string{"octocat/Hello-World"}, BotLogin: bot, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCountsSaturate: two reports whose counts are the largest a JSON
// number in the metadata can carry add up to that largest count, never to
// a negative one.
func TestCountsSaturate(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	for n := 1; n <= 2; n++ {
		gh.AddPR(githubtest.PR{Number: n, HeadSHA: sha('a')})
		gh.AddReport(n, bot, metaBody(marker.Meta{HeadSHA: sha('a'), Verdict: "ready", Conclusion: "success", Reviews: math.MaxInt64,
			Usage: []marker.Usage{{Name: "correctness", Reviews: math.MaxInt64, Calls: math.MaxInt64, PromptTokens: math.MaxInt64, Posted: math.MaxInt64, ActedOn: math.MaxInt64}}}))
	}
	r := collect(t, gh)
	if r.Totals.Reviews != math.MaxInt || r.Totals.Calls != math.MaxInt || r.Totals.PromptTokens != math.MaxInt || r.Totals.Posted != math.MaxInt {
		t.Errorf("totals %+v; want every sum held at %d", r.Totals, math.MaxInt)
	}
	if p := r.Personas[0]; p.Reviews != math.MaxInt || p.ActedOn != math.MaxInt || p.Judgeable != math.MaxInt {
		t.Errorf("persona %+v; want every sum held at %d", p, math.MaxInt)
	}
	if md := r.Markdown(); strings.Contains(md, "-9") {
		t.Errorf("a negative figure in the Markdown:\n%s", md)
	}
}

// TestNonFiniteCostRefused: two reports of 1.7e308 US dollars each are
// finite alone, infinite together: the second is left out, named, and the
// JSON still encodes.
func TestNonFiniteCostRefused(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	for n := 1; n <= 2; n++ {
		gh.AddPR(githubtest.PR{Number: n, HeadSHA: sha('a')})
		gh.AddReport(n, bot, metaBody(marker.Meta{HeadSHA: sha('a'), Verdict: "ready", Conclusion: "success", Reviews: 1,
			Usage: []marker.Usage{{Name: "correctness", Reviews: 1, Calls: 1, Cost: 0.125}}}))
	}
	gh.AddPR(githubtest.PR{Number: 3, HeadSHA: sha('a')}) // within one report, too
	gh.AddReport(3, bot, metaBody(marker.Meta{HeadSHA: sha('a'), Verdict: "ready", Conclusion: "success", Reviews: 1,
		Usage: []marker.Usage{{Name: "correctness", Reviews: 1, Cost: 0.125}, {Name: "security", Reviews: 1, Cost: 0.125}}}))
	// A look-alike beside #2's unreadable report is still counted as one.
	gh.AddComment(2, bot, metaBody(marker.Meta{HeadSHA: sha('f'), Verdict: "ready", Conclusion: "success", Reviews: 1}))
	r := collect(t, gh)
	if r.Totals.NotOurs != 1 || len(r.NotOurs) != 1 {
		t.Errorf("not ours %d (%q); want #2's look-alike counted beside its unreadable report", r.Totals.NotOurs, r.NotOurs)
	}
	if md := r.Markdown(); !strings.Contains(md, "2 reports were left out") || !strings.Contains(md, "1 report-shaped comment of") {
		t.Errorf("markdown does not say 2 reports were left out and 1 look-alike:\n%s", md)
	}
	if r.Totals.UnreadableReports != 2 || r.Totals.Reviewed != 1 {
		t.Fatalf("totals %+v; want PRs 2 and 3 left out", r.Totals)
	}
	if len(r.Unreadable) != 2 || !strings.Contains(r.Unreadable[0], "octocat/Hello-World#2: its recorded cost") ||
		!strings.Contains(r.Unreadable[1], "octocat/Hello-World#3: its recorded costs add up to +Inf") {
		t.Errorf("unreadable %q; want #2 and #3 named with their cost", r.Unreadable)
	}
	if _, err := r.JSON(); err != nil {
		t.Errorf("JSON: %v", err)
	}
}

// TestPrintedNamesSanitized: a persona name (in metadata anyone with write
// access can edit) that carries a bare URL or a right-to-left override
// reaches neither the Markdown nor the JSON as it is.
func TestPrintedNamesSanitized(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	gh.AddPR(githubtest.PR{Number: 1, HeadSHA: sha('a')})
	url, rlo := "https://evil.example/pay", "sec\u202eytiruc"
	gh.AddReport(1, bot, metaBody(marker.Meta{HeadSHA: sha('a'), Verdict: "ready", Conclusion: "success", Reviews: 1,
		Usage: []marker.Usage{{Name: url, Reviews: 1, Calls: 1, Cost: 0.01, Posted: 30}, {Name: rlo, Reviews: 1, Calls: 1, Cost: 0.01}}}))
	r := collect(t, gh)
	md := r.Markdown()
	j, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"Markdown": md, "JSON": string(j)} {
		if strings.Contains(out, "\u202e") {
			t.Errorf("the %s holds a right-to-left override", name)
		}
	}
	if strings.Contains(md, "evil.example") {
		t.Errorf("the Markdown holds the URL:\n%s", md)
	}
}

// rebased renders, through the report stage, a review of a PR whose team
// reviewed it whole every time (a team that rebases): posted findings, no
// incremental re-review.
func rebasedMeta(posted map[string]int) marker.Meta {
	m := marker.Meta{HeadSHA: sha('a'), Verdict: "ready", Conclusion: "success", Reviews: 3, Heads: []string{sha('b'), sha('a')}}
	for name, n := range posted {
		m.Usage = append(m.Usage, marker.Usage{Name: name, Reviews: 3, Calls: 3, PromptTokens: 1000, Cost: 0.002, Posted: n})
	}
	return m
}

// TestTooFewIncrementalPushes: a team that rebases gets whole re-reviews
// only, so nothing can be seen acted on: stats says so and suggests no
// removal, least of all of the persona whose findings were most posted.
func TestTooFewIncrementalPushes(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	for n := 1; n <= 10; n++ {
		gh.AddPR(githubtest.PR{Number: n, HeadSHA: sha('a')})
		gh.AddReport(n, bot, metaBody(rebasedMeta(map[string]int{"maintainability": 3, "testing": 3, "correctness": 5})))
	}
	r := collect(t, gh)
	if r.Suggestion != nil {
		t.Errorf("suggestion %+v; want none: no finding could be seen acted on", r.Suggestion)
	}
	if strings.Join(r.TooFewPushes, ",") != "correctness,maintainability,testing" || r.Totals.IncrementalPRs != 0 {
		t.Errorf("too few pushes %v, totals %+v; want all three named", r.TooFewPushes, r.Totals)
	}
	if md := r.Markdown(); !strings.Contains(md, "Too few incremental pushes to judge") || !strings.Contains(md, "rest on 0 pull requests with an incremental re-review") {
		t.Errorf("the Markdown does not say the figures rest on too few pushes:\n%s", md)
	}

	// The same PRs with one incremental re-review each are judged.
	gh2 := githubtest.New()
	defer gh2.Close()
	for n := 1; n <= 10; n++ {
		m := rebasedMeta(map[string]int{"maintainability": 3, "correctness": 5})
		m.Incremental = 1
		gh2.AddPR(githubtest.PR{Number: n, HeadSHA: sha('a')})
		gh2.AddReport(n, bot, metaBody(m))
	}
	r2 := collect(t, gh2)
	if r2.Suggestion == nil || strings.Join(r2.Suggestion.Remove, ",") != "maintainability" || strings.Join(r2.Kept, ",") != "correctness" {
		t.Errorf("suggestion %+v kept %v; want maintainability removed, correctness kept", r2.Suggestion, r2.Kept)
	}
}

// TestIdlePersonasFlagged: the evaluator's run: go and api-contract ran 5
// and 4 times for $0.0043 and $0.0034 and posted nothing. They are flagged
// with their cost, not silently left out.
func TestIdlePersonasFlagged(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	gh.AddPR(githubtest.PR{Number: 1, HeadSHA: sha('a')})
	gh.AddReport(1, bot, metaBody(marker.Meta{HeadSHA: sha('a'), Verdict: "ready", Conclusion: "success", Reviews: 5,
		Usage: []marker.Usage{
			{Name: "api-contract", Reviews: 4, Calls: 4, PromptTokens: 9000, Cost: 0.0034},
			{Name: "correctness", Reviews: 5, Calls: 5, PromptTokens: 9000, Cost: 0.01, Posted: 2},
			{Name: "go", Reviews: 5, Calls: 5, PromptTokens: 9000, Cost: 0.0043},
		}}))
	r := collect(t, gh)
	if len(r.Idle) != 2 || r.Idle[0].Name != "go" || r.Idle[1].Name != "api-contract" || *r.Idle[0].Cost != 0.0043 {
		t.Fatalf("idle %+v; want go and api-contract with their cost", r.Idle)
	}
	md := r.Markdown()
	if !strings.Contains(md, "Cost money and posted nothing in the period: **go** (5 reviews, $0.0043), **api-contract** (4 reviews, $0.0034)") {
		t.Errorf("the Markdown does not flag them:\n%s", md)
	}
}

// TestThumbsUpNotDismissed: a finding merged unchanged is dismissed unless
// a person gave its inline comment a thumbs-up: then it was accepted.
func TestThumbsUpNotDismissed(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	head := sha('a')
	res, f := reviewed(head)
	fp := inline.Fingerprint(f.File, f.Title, "for i := 0; i <= n; i++ {")
	for n, thumb := range map[int]string{1: "+1", 2: ""} {
		gh.AddPR(githubtest.PR{Number: n, HeadSHA: head, State: "closed", Merged: true})
		id := gh.AddLineComment(n, bot, "a.go", 3, 0, inline.RenderComment(f, fp, nil, report.Options{}))
		if thumb != "" {
			gh.React(id, thumb)
		}
		gh.AddReport(n, bot, report.Comment(res, report.Options{Inline: &report.InlineStatus{Fingerprints: map[int]string{1: fp}}}))
	}
	r := collect(t, gh)
	if p := r.Personas[0]; p.Dismissed != 1 || p.ThumbsUp != 1 || p.Posted != 2 {
		t.Errorf("persona %+v; want 2 posted, 1 thumbs-up, only the other one dismissed", p)
	}
}

// TestCostIsCoverages: the cost stats gives a repository is the figure
// the report's Coverage printed.
func TestCostIsCoverages(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	res, _ := reviewed(sha('a'))
	// The validator's calls are the run's usage less the personas'.
	res.Coverage.ValidatorRan, res.Coverage.ValidatorModel = true, "gpt-4.1-mini"
	res.Coverage.Usage = review.Usage{Calls: 2, PromptTokens: 13_000, CompletionTokens: 700}
	body := report.Comment(res, report.Options{})
	gh.AddPR(githubtest.PR{Number: 1, HeadSHA: sha('a')})
	gh.AddReport(1, bot, body)
	r := collect(t, gh)
	if r.Totals.Cost == nil {
		t.Fatal("no cost")
	}
	// The step output and the report JSON's cost: report.EstimateCost.
	if e := report.EstimateCost(res, pricing.Table{}); e.USD == nil || math.Abs(*e.USD-*r.Totals.Cost) > 1e-6 {
		t.Errorf("stats' cost %v; the review's cost output %v", *r.Totals.Cost, e.USD)
	}
	want := "**Estimated cost:** " + pricing.Format(*r.Totals.Cost) + ":"
	if !strings.Contains(body, want) {
		t.Errorf("stats' cost %s (%v) is not the report's Coverage figure:\n%s", pricing.Format(*r.Totals.Cost), *r.Totals.Cost, body)
	}
}

// route sends each repository's requests to its own fake GitHub, and the
// organization's listing to org: stats reads several repositories through
// one client, as it does against api.github.com.
func route(org *githubtest.Server, repos map[string]*githubtest.Server) *http.Client {
	return &http.Client{Transport: roundTrip(func(req *http.Request) (*http.Response, error) {
		s := org
		for name, r := range repos {
			if strings.HasPrefix(req.URL.Path, "/repos/"+name+"/") {
				s = r
			}
		}
		req = req.Clone(req.Context())
		req.URL.Host = strings.TrimPrefix(s.URL, "http://")
		req.Host = req.URL.Host
		return s.HTTPClient().Transport.RoundTrip(req)
	})}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestSeveralRepositories: figures add up over the repositories read;
// each repository keeps its own totals; an organization's archived and
// surplus repositories are left out and counted, and one the token cannot
// read is named, not fatal.
func TestSeveralRepositories(t *testing.T) {
	a, b, org := githubtest.New(), githubtest.New(), githubtest.New()
	defer a.Close()
	defer b.Close()
	defer org.Close()
	for _, gh := range []*githubtest.Server{a, b} {
		res, _ := reviewed(sha('a'))
		gh.AddPR(githubtest.PR{Number: 1, HeadSHA: sha('a')})
		gh.AddReport(1, bot, report.Comment(res, report.Options{}))
	}
	at := func(h int) time.Time { return since.Add(time.Duration(h) * time.Hour) }
	org.AddOrgRepo(githubtest.Repo{Name: "old", PushedAt: at(1)})
	org.AddOrgRepo(githubtest.Repo{Name: "a", PushedAt: at(5)})
	org.AddOrgRepo(githubtest.Repo{Name: "b", PushedAt: at(4)})
	org.AddOrgRepo(githubtest.Repo{Name: "gone", PushedAt: at(6), Archived: true})
	org.AddOrgRepo(githubtest.Repo{Name: "secret", PushedAt: at(3)})
	org.Inject(githubtest.Fault{PathContains: "/repos/acme/secret/", Status: http.StatusNotFound})

	c, err := github.New(route(org, map[string]*githubtest.Server{"acme/a": a, "acme/b": b}), org.URL, "ghs_test")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Collect(context.Background(), c, Options{Org: "acme", Limit: 3, BotLogin: bot, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	// One page of the organization's list, then per repository one page
	// each of pull requests, conversation comments and review comments
	// and one list of the check runs on each reviewed head (acme/secret
	// stops at its first).
	if n := c.Requests(); n != 1+4+4+1 {
		t.Errorf("%d requests; want 10", n)
	}
	if len(r.Repositories) != 2 || r.Repositories[0].Name != "acme/a" || r.Repositories[1].Name != "acme/b" ||
		r.Archived != 1 || r.Beyond != 1 || len(r.NotRead) != 1 || !strings.HasPrefix(r.NotRead[0], "acme/secret: ") {
		t.Fatalf("repositories %+v, archived %d, beyond %d, not read %q", r.Repositories, r.Archived, r.Beyond, r.NotRead)
	}
	if r.Totals.Reviewed != 2 || r.Repositories[0].Totals.Reviewed != 1 || r.Personas[0].Posted != 2 {
		t.Errorf("totals %+v personas %+v; want both repositories' reviews added", r.Totals, r.Personas)
	}
	if md := r.Markdown(); !strings.Contains(md, "## anchor-review stats: acme (2 repositories)") || !strings.Contains(md, "| acme/b | 1 | 1 |") ||
		!strings.Contains(md, "1 archived, 1 beyond `--limit`") {
		t.Errorf("markdown:\n%s", md)
	}

	// Named with --repo, a repository that cannot be read is an error
	// naming it.
	_, err = Collect(context.Background(), c, Options{Repos: []string{"acme/a", "acme/secret"}, BotLogin: bot, Since: since})
	if err == nil || !strings.Contains(err.Error(), "acme/secret") {
		t.Errorf("err %v; want one naming acme/secret", err)
	}
}

// TestJSONNames: the JSON keeps the figures a machine needs.
func TestJSONNames(t *testing.T) {
	r := &Report{Personas: []Persona{{Name: "go", Reviews: 5}}, Idle: []Idle{{Name: "go", Reviews: 5}}}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"repositories", "personas", "totals", "suggestion", "cost_without_findings", "too_few_incremental_pushes", "too_few_to_judge"} {
		if _, ok := v[k]; !ok {
			t.Errorf("no %q in the JSON", k)
		}
	}
}

// TestExplicitDismissals: `/anchor-review dismiss` answers, as the report's
// metadata records them, count per persona with their reasons in the JSON
// (a lapsed one too: it was made); a finding dismissed explicitly and
// also merged unchanged with a thumbs-down counts once; a reason carrying
// a link or a right-to-left override is printed sanitized.
func TestExplicitDismissals(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	head := sha('a')
	fpA, fpB := "0123456789abcdef", "fedcba9876543210"
	gh.AddPR(githubtest.PR{Number: 4, HeadSHA: head, State: "closed", Merged: true})
	m := marker.Meta{HeadSHA: head, Verdict: "ready", Conclusion: "success", Reviews: 1,
		Usage: []marker.Usage{{Name: "api-contract", Reviews: 1, Calls: 1, Posted: 2}},
		Findings: []marker.Finding{
			{File: "a.go", Line: 3, Severity: "P1", Anchor: 75, Fingerprint: fpA, Title: "Exported type removed", Reviewer: "api-contract", Commit: head},
			{File: "b.go", Line: 9, Severity: "P2", Anchor: 75, Fingerprint: fpB, Title: "Method added to interface", Reviewer: "api-contract", Commit: head},
		},
		Dismissals: []marker.Dismissal{
			{ID: "012345", Fingerprint: fpA, File: "a.go", Line: 3, Severity: "P1", Title: "Exported type removed", Reviewer: "api-contract",
				By: "maintainer", At: "2024-01-05T10:00:00Z", Reason: "removed on purpose for v2, see https://evil.example/x \u202eevil", Head: head},
			{ID: "fedcba", Fingerprint: fpB, File: "b.go", Line: 9, Severity: "P2", Title: "Method added to interface", Reviewer: "api-contract",
				By: "owner", At: "2024-01-04T10:00:00Z", Reason: "all implementations are ours", Head: sha('b'), Lapsed: head},
		}}
	gh.AddReport(4, bot, metaBody(m))
	r := collect(t, gh)
	p := r.Personas[0]
	if p.Name != "api-contract" || p.DismissedExplicitly != 2 || p.Dismissed != 2 || len(p.Dismissals) != 2 || r.Totals.DismissedExplicitly != 2 {
		t.Fatalf("persona %+v; want 2 explicit dismissals, counted once each", p)
	}
	if d := p.Dismissals[1]; d.Reason != "all implementations are ours" || d.By != "owner" || !d.Lapsed || d.PullRequest != 4 {
		t.Errorf("dismissal %+v; want owner's reason, lapsed, on #4", d)
	}
	j, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j), `"reason": "all implementations are ours"`) || !strings.Contains(string(j), `"dismissed_explicitly": 2`) || strings.Contains(string(j), "\u202e") {
		t.Errorf("JSON:\n%s", j)
	}
	md := r.Markdown()
	if !strings.Contains(md, "### Dismissed with a reason") || !strings.Contains(md, "all implementations are ours") ||
		strings.Contains(md, "evil.example") || strings.Contains(md, "\u202e") || !strings.Contains(md, "| 2 (2) |") {
		t.Errorf("markdown:\n%s", md)
	}
}

// TestForgedReportsDoNotCount: another workflow posting as
// github-actions[bot] writes report-shaped comments whose metadata says
// security posted 100 findings, none acted on, over 100 incremental
// re-reviews: one newer than our real report on #1, one alone on #2, and
// one on #3 that a check run of another app names. None is ours (no
// anchor-review check run of github-actions on its head names it): none
// counts, each is named, #1 counts its real report, and security is never
// suggested for removal. Each head's check runs are listed once.
func TestForgedReportsDoNotCount(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	forged := metaBody(marker.Meta{HeadSHA: sha('f'), Verdict: "ready", Conclusion: "success", Reviews: 100, Incremental: 100,
		Usage: []marker.Usage{{Name: "security", Reviews: 100, Calls: 100, Posted: 100}}})
	res, _ := reviewed(sha('a'))
	for n := 1; n <= 3; n++ {
		gh.AddPR(githubtest.PR{Number: n, HeadSHA: sha('a')})
	}
	gh.AddReport(1, bot, report.Comment(res, report.Options{}))
	gh.AddComment(1, bot, forged)
	gh.AddComment(2, bot, forged)
	id3 := gh.AddComment(3, bot, forged)
	gh.AddCheckRun(githubtest.CheckRun{Name: marker.CheckName, HeadSHA: sha('f'), App: "mallory-app", ExternalID: marker.CheckRef(id3), Conclusion: "success"})

	r := collect(t, gh)
	if r.Totals.NotOurs != 3 || r.Totals.Reviewed != 1 || r.Totals.WithoutReport != 2 || len(r.NotOurs) != 3 ||
		!strings.HasPrefix(r.NotOurs[0], "octocat/Hello-World#1: comment ") || !strings.Contains(r.NotOurs[0], "no anchor-review check run of github-actions on fffffff names it") {
		t.Fatalf("totals %+v, not ours %q; want 3 look-alikes named, #1's real report counted", r.Totals, r.NotOurs)
	}
	for _, p := range r.Personas {
		if p.Name == "security" {
			t.Errorf("the forged figures were counted: %+v", p)
		}
	}
	if r.Suggestion != nil && slices.Contains(r.Suggestion.Remove, "security") {
		t.Errorf("suggestion %+v removes security", r.Suggestion)
	}
	if md := r.Markdown(); !strings.Contains(md, "3 report-shaped comments of github-actions\\[bot\\] not counted") {
		t.Errorf("markdown:\n%s", md)
	}
	lists := gh.CountRequests("/check-runs")
	if lists != 2 {
		t.Errorf("%d check-run listings; want 2 (heads aaaaaaa and fffffff, once each)", lists)
	}
}

// TestLookAlikeHeadsBounded: report-shaped comments naming ever new heads
// cost one check-run listing each, so a pull request's comments are checked
// on skip.MaxHeadsAsked heads at most, as the review's own lookup is.
func TestLookAlikeHeadsBounded(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	gh.AddPR(githubtest.PR{Number: 1, HeadSHA: sha('a')})
	for i := range skip.MaxHeadsAsked + 5 {
		head := fmt.Sprintf("%040x", i+1)
		gh.AddComment(1, bot, metaBody(marker.Meta{HeadSHA: head, Verdict: "ready", Conclusion: "success", Reviews: 1}))
	}
	r := collect(t, gh)
	lists := gh.CountRequests("/check-runs")
	if lists != skip.MaxHeadsAsked {
		t.Errorf("%d check-run listings; want %d", lists, skip.MaxHeadsAsked)
	}
	if r.Totals.Reviewed != 0 || !slices.ContainsFunc(r.NotOurs, func(s string) bool { return strings.Contains(s, "more than 10 heads") }) {
		t.Errorf("totals %+v, not ours %q; want nothing counted and the bound named", r.Totals, r.NotOurs)
	}
}

// TestOlderPullRequestsReadOnlyWhenCounted: a pull request opened before
// the period is read whole (its inline comments are older than the
// repository listing's window) only when its report counts: an unreadable
// report costs no request for comments nobody will count.
func TestOlderPullRequestsReadOnlyWhenCounted(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	for n := 1; n <= 2; n++ {
		gh.AddPR(githubtest.PR{Number: n, HeadSHA: sha('a')})
	}
	res, _ := reviewed(sha('a'))
	gh.AddReport(1, bot, report.Comment(res, report.Options{}))
	gh.AddReport(2, bot, metaBody(marker.Meta{HeadSHA: sha('a'), Verdict: "ready", Conclusion: "success", Reviews: 1,
		Usage: []marker.Usage{{Name: "correctness", Reviews: 1, Cost: math.MaxFloat64}, {Name: "security", Reviews: 1, Cost: math.MaxFloat64}}}))
	// The pull requests were opened at 2024-01-02 03:04:06 and :07; the
	// reports later: a period from :10 has both reports, neither opening.
	after := time.Date(2024, 1, 2, 3, 4, 10, 0, time.UTC)
	r, err := Collect(context.Background(), client(t, gh), Options{Repos: []string{"octocat/Hello-World"}, BotLogin: bot, Since: after})
	if err != nil {
		t.Fatal(err)
	}
	if r.Totals.Reviewed != 1 || r.Totals.UnreadableReports != 1 {
		t.Fatalf("totals %+v; want #1 counted, #2 unreadable", r.Totals)
	}
	read := map[string]int{}
	for _, q := range gh.Requests() {
		if strings.HasSuffix(q.Path, "/comments") && strings.Contains(q.Path, "/pulls/") {
			read[q.Path]++
		}
	}
	if read["/repos/octocat/Hello-World/pulls/1/comments"] != 1 || read["/repos/octocat/Hello-World/pulls/2/comments"] != 0 {
		t.Errorf("pull requests read whole: %v; want #1 once, #2 never", read)
	}
}
