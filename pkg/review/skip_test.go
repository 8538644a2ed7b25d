package review_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// TestSkip: a skipped PR costs two GitHub requests (three under rule 4:
// the check runs that vouch for the report) and no model call; Rerun bypasses rule 4 (already reviewed) and no other rule.
func TestSkip(t *testing.T) {
	t.Parallel()
	ourReport := marker.Report + "\n" + marker.FormatMeta(marker.Meta{HeadSHA: headSHA, Verdict: "not-ready", Conclusion: "failure", Blocking: 1}) + "\n## anchor-review\n"
	// A report for an older head: the new commits were not reviewed.
	olderReport := strings.Replace(ourReport, headSHA, baseSHA, 1)
	for _, tc := range []struct {
		name     string
		pr       func(*githubtest.PR)
		comment  [2]string // author, body
		rerun    bool
		forged   bool // the bot's comment has no check run naming it
		wantRule int  // 0: reviewed
		wantVerd review.Verdict
	}{
		{name: "closed", pr: func(p *githubtest.PR) { p.State = "closed" }, wantRule: 1, wantVerd: ""},
		{name: "merged, rerun", pr: func(p *githubtest.PR) { p.State, p.Merged = "closed", true }, rerun: true, wantRule: 1, wantVerd: ""},
		{name: "draft", pr: func(p *githubtest.PR) { p.Draft = true }, wantRule: 2, wantVerd: ""},
		{name: "draft, rerun", pr: func(p *githubtest.PR) { p.Draft = true }, rerun: true, wantRule: 2, wantVerd: ""},
		{name: "bump, rerun", pr: func(p *githubtest.PR) {
			p.Title, p.Body, p.Author = "chore(deps): bump x from 1 to 2", "", "release-bot[bot]"
		}, rerun: true, wantRule: 3, wantVerd: ""},
		{name: "reviewed", comment: [2]string{"github-actions[bot]", ourReport}, wantRule: 4, wantVerd: review.NotReady},
		{name: "reviewed, rerun", comment: [2]string{"github-actions[bot]", ourReport}, rerun: true},
		{name: "reviewed at an older head", comment: [2]string{"github-actions[bot]", olderReport}},
		{name: "marker from someone else", comment: [2]string{"mallory", ourReport}},
		// Issue 28: our identity and marker, but no check run of ours names
		// the comment (another workflow echoed it): no report of ours.
		{name: "our identity and marker, no check run of ours", comment: [2]string{"github-actions[bot]", ourReport}, forged: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.addOrdersPR(t)
			p := githubtest.PR{Number: prNum, Title: "Add order search and delete endpoints", Body: "Adds search.", HeadSHA: headSHA, BaseSHA: baseSHA}
			if tc.pr != nil {
				tc.pr(&p)
			}
			e.gh.AddPR(p)
			switch {
			case tc.comment[0] == "github-actions[bot]" && !tc.forged:
				e.gh.AddReport(prNum, tc.comment[0], tc.comment[1])
			case tc.comment[0] != "":
				e.gh.AddComment(prNum, tc.comment[0], tc.comment[1])
			}
			o := options()
			o.Rerun = tc.rerun

			res, pr, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if pr == nil || pr.Info.Number != prNum {
				t.Fatalf("got PR %+v; want #%d as read", pr, prNum)
			}
			gh, model := len(e.gh.Requests()), len(e.model.Requests())
			if tc.wantRule == 0 {
				if res.Skipped || model == 0 {
					t.Errorf("got skipped %t (rule %d), %d model calls; want a review", res.Skipped, res.SkipRule, model)
				}
				return
			}
			if !res.Skipped || res.SkipRule != tc.wantRule || res.SkipReason == "" {
				t.Errorf("got skipped %t rule %d reason %q; want rule %d with a reason", res.Skipped, res.SkipRule, res.SkipReason, tc.wantRule)
			}
			reads := 2 // the PR, its comments
			if tc.wantRule == 4 {
				reads++ // the check runs that vouch for the report
			}
			if gh != reads || model != 0 {
				t.Errorf("cost: %d GitHub requests, %d model calls; want %d, 0", gh, model, reads)
			}
			if res.Verdict != tc.wantVerd {
				t.Errorf("verdict: got %s; want %s", res.Verdict, tc.wantVerd)
			}
			if tc.wantRule == 4 && (res.Carried == nil || res.Carried.Verdict != "not-ready") {
				t.Errorf("carried: got %+v; want the earlier report's not-ready", res.Carried)
			}
		})
	}
}

// TestAllPersonasFail: when no persona answers, the error wraps
// ErrAllPersonasFailed and the Result says degraded.
func TestAllPersonasFail(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.addOrdersPR(t)
	e.model.SetDefault(func(llmtest.Request) llmtest.Reply { return llmtest.Malformed() })

	res, _, err := e.rv.ReviewPR(context.Background(), options())
	if !errors.Is(err, review.ErrAllPersonasFailed) {
		t.Fatalf("got error %v; want one wrapping ErrAllPersonasFailed", err)
	}
	if !res.AllFailed || !res.Partial || res.Verdict != review.Degraded || len(res.Findings) != 0 {
		t.Errorf("got allFailed %t partial %t verdict %s findings %d; want true, true, degraded, 0", res.AllFailed, res.Partial, res.Verdict, len(res.Findings))
	}
	for _, p := range res.Coverage.Personas {
		if p.Failed == "" {
			t.Errorf("persona %s not marked failed", p.Name)
		}
	}
	if n, want := len(e.model.Requests()), 2*len(ordersTeam()); n != want {
		t.Errorf("model requests: got %d; want %d (%d personas, each repaired once, no validator)", n, want, len(ordersTeam()))
	}
}
