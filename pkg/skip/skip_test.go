package skip

import (
	"reflect"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/marker"
)

func TestTrivialTitle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		title string
		want  bool
	}{
		{"chore(deps): bump x from 1.0 to 1.1", true},
		{"Chore(Deps): Bump", true},
		{"CHORE(DEPS-DEV): bump eslint", true},
		{"chore(deps-dev): bump vitest from 1 to 2", true},
		{"build(deps): bump golang.org/x/net", true},
		{"build(deps-dev): bump typescript", true},
		{"chore(deps)!: drop node 16", true},
		{"chore: bump version to 1.2.3", true},
		{"chore: bump", true},
		{"chore: bump: v2", true},
		{"chore(release): 1.4.0", true},
		{"chore: release 2.0.0", true},
		{"chore: release-please", false}, // '-' continues the word
		{"release: v1.2", true},
		{"Release: v1.2", true},
		{"  release: v1.2", true}, // leading space is not content
		{"released the kraken", false},
		{"release v1.2", false}, // no colon
		{"chore: bumped the parser's buffer size", false},
		{"chore: bumps", false},
		{"chore: releases page", false},
		{"fix: chore(deps) regression", false},
		{"feat(deps): add a dependency", false},
		{"chore: update deps", false},
		{"chore(dep): bump", false},
		{"Bump lodash from 4.17.20 to 4.17.21", false},
		{"chore(deps", false},
		{"", false},
		{"chore：bump", false}, // full-width colon
	}
	for _, tt := range tests {
		if got := TrivialTitle(tt.title); got != tt.want {
			t.Errorf("TrivialTitle(%q) = %v; want %v", tt.title, got, tt.want)
		}
	}
}

const bot = "github-actions[bot]"

func report(m marker.Meta) string {
	return marker.Report + "\n" + marker.FormatMeta(m) + "\n## anchor-review\n\nReady to merge\n"
}

func TestDecide(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("a", 40)
	older := strings.Repeat("b", 40)
	open := PR{State: "open", Title: "Fix the parser", Body: "It broke on CRLF.", Author: "alice", HeadSHA: head}
	meta1 := marker.Meta{Version: 1, HeadSHA: head, Verdict: "not-ready", Conclusion: "failure", Blocking: 2}
	meta2 := marker.Meta{Version: 1, HeadSHA: older, Verdict: "ready", Conclusion: "success"}
	meta3 := marker.Meta{Version: 2, HeadSHA: head, Verdict: "ready", Conclusion: "success"}
	meta4 := marker.Meta{Version: 2, HeadSHA: head, Verdict: "degraded", Conclusion: "failure", Incomplete: true}
	ours := Comment{Author: bot, Body: report(meta1)}
	with := func(p PR, f func(*PR)) PR { f(&p); return p }
	botPR := func(author, title, body string) PR {
		return PR{State: "open", Title: title, Body: body, Author: author, AuthorIsBot: true, HeadSHA: head}
	}
	reviewed := "already reviewed at this head commit: github-actions[bot] posted a report for aaaaaaaaaaaa; run the workflow manually (workflow_dispatch) to review again"

	tests := []struct {
		name     string
		pr       PR
		comments []Comment
		botLogin string
		rerun    bool
		want     Decision
	}{
		{name: "open PR is reviewed", pr: open, botLogin: bot},
		{name: "closed", pr: with(open, func(p *PR) { p.State = "closed" }), botLogin: bot,
			want: Decision{Skip: true, Rule: RuleClosed, Reason: "the pull request is closed"}},
		{name: "closed upper case", pr: with(open, func(p *PR) { p.State = "CLOSED" }), botLogin: bot,
			want: Decision{Skip: true, Rule: RuleClosed, Reason: "the pull request is closed"}},
		{name: "merged", pr: with(open, func(p *PR) { p.State, p.Merged = "closed", true }), botLogin: bot,
			want: Decision{Skip: true, Rule: RuleClosed, Reason: "the pull request is merged"}},
		{name: "closed draft hits rule 1", pr: with(open, func(p *PR) { p.State, p.Draft = "closed", true }), botLogin: bot,
			want: Decision{Skip: true, Rule: RuleClosed, Reason: "the pull request is closed"}},
		{name: "closed with a rerun still skips", pr: with(open, func(p *PR) { p.State = "closed" }), botLogin: bot, rerun: true,
			want: Decision{Skip: true, Rule: RuleClosed, Reason: "the pull request is closed"}},
		{name: "draft", pr: with(open, func(p *PR) { p.Draft = true }), botLogin: bot,
			want: Decision{Skip: true, Rule: RuleDraft, Reason: "the pull request is a draft"}},
		{name: "rerun still skips draft", pr: with(open, func(p *PR) { p.Draft = true }), botLogin: bot, rerun: true,
			want: Decision{Skip: true, Rule: RuleDraft, Reason: "the pull request is a draft"}},
		{name: "trivial draft hits rule 2", pr: with(botPR("app[bot]", "chore(deps): bump x", ""), func(p *PR) { p.Draft = true }), botLogin: bot,
			want: Decision{Skip: true, Rule: RuleDraft, Reason: "the pull request is a draft"}},
		{name: "bot's trivial bump with empty body", pr: botPR("release-bot[bot]", "chore(deps): bump x from 1 to 2", ""), botLogin: bot,
			want: Decision{Skip: true, Rule: RuleTrivial, Reason: "trivial automated pull request: a bot's title starts with chore(deps) and the body is empty"}},
		{name: "bot's trivial bump with whitespace body", pr: botPR("release-bot[bot]", "Release: v2", " \r\n\t\n"), botLogin: bot,
			want: Decision{Skip: true, Rule: RuleTrivial, Reason: "trivial automated pull request: a bot's title starts with release: and the body is empty"}},
		{name: "dependabot with release notes", pr: botPR("dependabot[bot]", "build(deps): bump golang.org/x/net from 0.22.0 to 0.23.0", "Bumps golang.org/x/net.\n<details>release notes</details>"), botLogin: bot,
			want: Decision{Skip: true, Rule: RuleTrivial, Reason: "trivial automated pull request: dependabot[bot]'s title starts with build(deps)"}},
		{name: "renovate with release notes", pr: botPR("renovate[bot]", "chore(deps): update lodash", "This PR contains..."), botLogin: bot,
			want: Decision{Skip: true, Rule: RuleTrivial, Reason: "trivial automated pull request: renovate[bot]'s title starts with chore(deps)"}},
		{name: "rerun still skips trivial", pr: botPR("app[bot]", "build(deps): bump y", ""), botLogin: bot, rerun: true,
			want: Decision{Skip: true, Rule: RuleTrivial, Reason: "trivial automated pull request: a bot's title starts with build(deps) and the body is empty"}},
		{name: "a human's bump-style PR with an empty body is reviewed", pr: PR{State: "open", Title: "chore: bump", Author: "mallory", HeadSHA: head}, botLogin: bot},
		{name: "a human named like a dependency bot is reviewed", pr: PR{State: "open", Title: "chore(deps): bump x", Body: "notes", Author: "dependabot[bot]", HeadSHA: head}, botLogin: bot},
		{name: "another bot's bump with a written body is reviewed", pr: botPR("app[bot]", "chore(deps): bump x", "Bumps x.\n\nAlso rewrites auth."), botLogin: bot},
		{name: "trivial and already reviewed hits rule 3", pr: botPR("app[bot]", "chore: bump", ""), comments: []Comment{ours}, botLogin: bot,
			want: Decision{Skip: true, Rule: RuleTrivial, Reason: "trivial automated pull request: a bot's title starts with chore: bump and the body is empty"}},
		{name: "already reviewed at this head", pr: open, comments: []Comment{{Author: "alice", Body: "LGTM"}, ours}, botLogin: bot,
			want: Decision{Skip: true, Rule: RuleReviewed, Reason: reviewed, Carried: &meta1}},
		{name: "bot login compared case-insensitively", pr: open, comments: []Comment{{Author: "GitHub-Actions[Bot]", Body: report(meta1)}}, botLogin: bot,
			want: Decision{Skip: true, Rule: RuleReviewed, Reason: reviewed, Carried: &meta1}},
		{name: "custom bot login", pr: open, comments: []Comment{{Author: "review-app[bot]", Body: report(meta1)}, {Author: bot, Body: report(meta2)}}, botLogin: "review-app[bot]",
			want: Decision{Skip: true, Rule: RuleReviewed, Reason: strings.ReplaceAll(reviewed, bot, "review-app[bot]"), Carried: &meta1}},
		{name: "report for an older head is not a skip", pr: open, comments: []Comment{{Author: bot, Body: report(meta2)}}, botLogin: bot,
			want: Decision{Previous: &meta2}},
		{name: "newest report decides", pr: open, comments: []Comment{ours, {Author: "alice", Body: "fixed"}, {Author: bot, Body: report(meta2)}}, botLogin: bot,
			want: Decision{Previous: &meta2}},
		{name: "unreadable metadata is no report", pr: open, comments: []Comment{{Author: bot, Body: marker.Report + "\n<!-- anchor-review:meta {broken -->\n"}}, botLogin: bot},
		{name: "broken newer report falls back to the last valid one", pr: open, comments: []Comment{ours, {Author: bot, Body: marker.Report + "\nold format\n"}}, botLogin: bot,
			want: Decision{Skip: true, Rule: RuleReviewed, Reason: reviewed, Carried: &meta1}},
		{name: "spoofed marker by another user does not skip", pr: open, comments: []Comment{{Author: "mallory", Body: report(meta1)}}, botLogin: bot},
		{name: "spoofed marker by a look-alike login does not skip", pr: open, comments: []Comment{{Author: "github-actions", Body: report(meta1)}}, botLogin: bot},
		{name: "bot comment without marker does not skip", pr: open, comments: []Comment{{Author: bot, Body: "Deployed to staging."}}, botLogin: bot},
		{name: "marker quoted by another workflow does not skip", pr: open, comments: []Comment{{Author: bot, Body: "PR text:\n" + report(meta1)}}, botLogin: bot},
		{name: "marker quoted inside a line does not skip", pr: open, comments: []Comment{{Author: bot, Body: "see `" + marker.Report + "`"}}, botLogin: bot},
		{name: "a release-1 green report at this head is reviewed again", pr: open,
			comments: []Comment{{Author: bot, Body: report(marker.Meta{Version: 1, HeadSHA: head, Verdict: "ready", Conclusion: "success"})}}, botLogin: bot},
		{name: "an incomplete review's neutral at this head is reviewed again", pr: open,
			comments: []Comment{{Author: bot, Body: report(marker.Meta{Version: 2, HeadSHA: head, Verdict: "degraded", Conclusion: "neutral", Incomplete: true})}}, botLogin: bot},
		{name: "a complete release-2 green report at this head", pr: open, comments: []Comment{{Author: bot, Body: report(meta3)}}, botLogin: bot,
			want: Decision{Skip: true, Rule: RuleReviewed, Reason: reviewed, Carried: &meta3}},
		{name: "an incomplete review's failure at this head is carried", pr: open, comments: []Comment{{Author: bot, Body: report(meta4)}}, botLogin: bot,
			want: Decision{Skip: true, Rule: RuleReviewed, Reason: reviewed, Carried: &meta4}},
		{name: "a green report beside a duplicate of ours is reviewed again", pr: open,
			comments: []Comment{{Author: bot, Body: report(meta4)}, {Author: bot, Body: report(meta3)}}, botLogin: bot},
		{name: "a failing report beside a duplicate is carried", pr: open,
			comments: []Comment{{Author: bot, Body: report(meta3)}, {Author: bot, Body: report(meta4)}}, botLogin: bot,
			want: Decision{Skip: true, Rule: RuleReviewed, Reason: reviewed, Carried: &meta4}},
		{name: "rerun bypasses rule 4", pr: open, comments: []Comment{ours}, botLogin: bot, rerun: true,
			want: Decision{Previous: &meta1}},
		{name: "empty bot login trusts nobody", pr: open, comments: []Comment{{Author: "", Body: report(meta1)}}, botLogin: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			comments := numbered(tt.comments)
			got := Decide(tt.pr, comments, tt.botLogin, tt.rerun, vouchAll(comments))
			if got.Skip != tt.want.Skip || got.Rule != tt.want.Rule || got.Reason != tt.want.Reason {
				t.Errorf("Decide() = {Skip:%v Rule:%d Reason:%q}; want {Skip:%v Rule:%d Reason:%q}",
					got.Skip, got.Rule, got.Reason, tt.want.Skip, tt.want.Rule, tt.want.Reason)
			}
			for _, m := range []struct {
				name      string
				got, want *marker.Meta
			}{{"Carried", got.Carried, tt.want.Carried}, {"Previous", got.Previous, tt.want.Previous}} {
				switch {
				case (m.got == nil) != (m.want == nil):
					t.Errorf("Decide().%s = %v; want %v", m.name, m.got, m.want)
				case m.got != nil && !reflect.DeepEqual(*m.got, *m.want):
					t.Errorf("Decide().%s = %+v; want %+v", m.name, *m.got, *m.want)
				}
			}
		})
	}
}

// A Decision's Reason goes to the skip-reason output: it must never repeat
// the untrusted title.
func TestDecideReasonOmitsTitle(t *testing.T) {
	t.Parallel()
	title := "chore(deps): ::set-output name=x::pwned"
	d := Decide(PR{State: "open", Title: title, AuthorIsBot: true}, nil, bot, false, nil)
	if !d.Skip || strings.Contains(d.Reason, "set-output") {
		t.Errorf("Decide(%q) = %+v; want a skip whose reason omits the title", title, d)
	}
}

func FuzzTrivialTitle(f *testing.F) {
	for _, s := range []string{"chore(deps): bump", "release: v1", "chore: bumped", "ſelease:", "K", "  Chore: Release"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		if !TrivialTitle(title) {
			return
		}
		// The pattern is anchored at the start: text before it never matches.
		if TrivialTitle("fix: " + title) {
			t.Errorf("TrivialTitle(%q) = true; want false (prefix not at the start)", "fix: "+title)
		}
		if strings.TrimSpace(title) == "" {
			t.Errorf("TrivialTitle(%q) = true for a blank title", title)
		}
	})
}

// numbered gives each comment an id, as the API does (1, 2, ... in order).
func numbered(cs []Comment) []Comment {
	out := make([]Comment, len(cs))
	for i, c := range cs {
		c.ID = int64(i + 1)
		out[i] = c
	}
	return out
}

// vouchAll lists, on any head, a check run of each comment's app naming
// that comment: every comment passes the ownership test that its author
// and marker allow.
func vouchAll(cs []Comment) Runs {
	return func(head string) ([]CheckRun, error) {
		var out []CheckRun
		for _, c := range cs {
			out = append(out, CheckRun{HeadSHA: head, App: AppOf(c.Author), ExternalID: marker.CheckRef(c.ID)})
		}
		return out, nil
	}
}
