package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/prompts"
)

// The repository the benchmarks' pull requests live in.
const (
	owner   = "octo-shop"
	repo    = "shopfront"
	botName = "github-actions[bot]"
	// wantFindings is how many findings the team PR sends to the validator.
	wantFindings = 15
)

// migrationPatch extends the demo's buggy PR with a migration, so that
// data-migrations selects too (the other ten personas select on the demo
// diff, its AGENTS.md and a human review comment).
const migrationPatch = `diff --git a/migrations/0007_users_name_search.sql b/migrations/0007_users_name_search.sql
new file mode 100644
index 0000000..3b18e51
--- /dev/null
+++ b/migrations/0007_users_name_search.sql
@@ -0,0 +1,8 @@
+-- Backs Store.SearchUsers: ILIKE '%q%' needs a trigram index.
+CREATE EXTENSION IF NOT EXISTS pg_trgm;
+
+CREATE INDEX users_name_trgm_idx
+    ON users USING gin (name gin_trgm_ops);
+
+ALTER TABLE users ADD COLUMN last_searched_at timestamptz NOT NULL DEFAULT now();
+UPDATE users SET last_searched_at = now();
`

// findingTitles are the scripted findings' titles, one per finding; they
// are distinct so synthesis neither merges nor promotes any of them.
var findingTitles = [wantFindings]string{
	"User input reaches the SQL text unescaped",
	"OFFSET skips the first page of results",
	"Webhook client has no timeout",
	"Search goroutine outlives the request",
	"Negative per_page is not rejected",
	"Trigram index built without CONCURRENTLY locks users",
	"Backfill UPDATE rewrites every row in one transaction",
	"SearchUsers changes an exported signature without a version bump",
	"Search response omits the total count the API reference promises",
	"No test covers the page clamp",
	"Webhook errors are dropped silently",
	"Exported Searched has no doc comment",
	"Reviewer asked for a rate limit that is still missing",
	"Query string is logged with personal data",
	"Loop re-encodes the payload for every user",
}

// teamPR is the benchmarks' realistic pull request: the demo's buggy PR
// plus a migration and a human review comment, which selects the 11
// generic personas and the go stack persona and yields exactly wantFindings findings at anchor 75 or 100.
type teamPR struct {
	Number           int
	Title, Body      string
	HeadSHA, BaseSHA string
	Diff             string
	Head, Base       map[string]string // file contents by path
	// Answers holds each persona's answer JSON.
	Answers map[string]string
	// Personas is the full team, in SPEC order.
	Personas []persona.Persona
}

// loadTeamPR builds the team PR from the embedded demo fixture.
func loadTeamPR(tb testing.TB) teamPR {
	tb.Helper()
	dir := "demo/buggy"
	var meta struct {
		Number  int    `json:"number"`
		Title   string `json:"title"`
		Body    string `json:"body"`
		HeadSHA string `json:"head_sha"`
		BaseSHA string `json:"base_sha"`
	}
	b, err := fs.ReadFile(fixtures.FS, path.Join(dir, "pr.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		tb.Fatal(err)
	}
	patch, err := fs.ReadFile(fixtures.FS, path.Join(dir, "diff.patch"))
	if err != nil {
		tb.Fatal(err)
	}
	p := teamPR{
		Number: meta.Number, Title: meta.Title, Body: meta.Body, HeadSHA: meta.HeadSHA, BaseSHA: meta.BaseSHA,
		Diff: string(patch) + migrationPatch,
		Head: readTree(tb, path.Join(dir, "head"), ".txt"),
		Base: readTree(tb, path.Join(dir, "base"), ""),
	}
	p.Head["migrations/0007_users_name_search.sql"] = newSide(migrationPatch)
	if p.Personas, err = teamPersonas(); err != nil {
		tb.Fatal(err)
	}
	d, err := diff.Parse([]byte(p.Diff))
	if err != nil {
		tb.Fatal(err)
	}
	p.Answers = scriptAnswers(tb, p.Personas, d)
	return p
}

// readTree reads every file under dir, keyed by its path below dir with
// suffix trimmed (head files carry .txt so Go tooling ignores them).
func readTree(tb testing.TB, dir, suffix string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := fs.WalkDir(fixtures.FS, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fixtures.FS, p)
		if err != nil {
			return err
		}
		out[strings.TrimSuffix(strings.TrimPrefix(p, dir+"/"), suffix)] = string(b)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// newSide returns the new version of a patch that adds one file.
func newSide(patch string) string {
	var b strings.Builder
	for line := range strings.Lines(patch) {
		if strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++") {
			b.WriteString(line[1:])
		}
	}
	return b.String()
}

// scriptAnswers spreads wantFindings findings over the personas (the first
// four report two each) on added lines of the diff that no lint-ignore
// comment covers, alternating anchors 75 and 100. Severity P0..P2 and
// autofix_class manual keep every one through mode-aware demotion.
func scriptAnswers(tb testing.TB, team []persona.Persona, d *diff.Diff) map[string]string {
	tb.Helper()
	type spot struct {
		file string
		line int
		text string
	}
	var spots [][]spot // per file
	for _, f := range d.Files {
		var s []spot
		prev := ""
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Kind == diff.Add && strings.TrimSpace(l.Text) != "" && !lintIgnore(l.Text) && !lintIgnore(prev) {
					s = append(s, spot{f.Path(), l.NewNo, l.Text})
				}
				prev = l.Text
			}
		}
		if len(s) > 0 {
			spots = append(spots, s)
		}
	}
	answers := map[string]*finding.Answer{}
	for _, p := range team {
		answers[p.Name] = &finding.Answer{Reviewer: p.Name, Findings: []finding.Finding{}, ResidualRisks: []string{}, TestingGaps: []string{}}
	}
	used := map[spot]bool{}
	for i, title := range findingTitles {
		fileSpots := spots[i%len(spots)]
		sp := fileSpots[(i/len(spots)*7)%len(fileSpots)]
		for used[sp] {
			sp = fileSpots[(slices.Index(fileSpots, sp)+1)%len(fileSpots)]
		}
		used[sp] = true
		name := team[i%len(team)].Name
		sev := []finding.Severity{finding.P0, finding.P1, finding.P2}[i%3]
		if sev == finding.P2 && (name == "testing" || name == "maintainability") {
			sev = finding.P1 // their P2/P3 findings alone are demoted: every finding here must reach the validator
		}
		answers[name].Findings = append(answers[name].Findings, finding.Finding{
			Title:                title,
			Severity:             sev,
			File:                 sp.file,
			Line:                 sp.line,
			WhyItMatters:         "Normal use of the search endpoint hits this: " + strings.ToLower(title) + ".",
			AutofixClass:         "manual",
			Owner:                "human",
			RequiresVerification: true,
			Confidence:           []int{75, 100}[i%2],
			Evidence:             []string{fmt.Sprintf("%s:%d: %s", sp.file, sp.line, strings.TrimSpace(sp.text))},
		})
	}
	out := map[string]string{}
	for name, a := range answers {
		b, err := json.Marshal(a)
		if err != nil {
			tb.Fatal(err)
		}
		out[name] = string(b)
	}
	return out
}

// lintIgnore reports whether a line carries a lint-disable comment.
func lintIgnore(s string) bool {
	for _, m := range []string{"nolint", "noqa", "lint-disable", "rubocop:disable", "type: ignore", "SuppressWarnings"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// serve loads the PR into a fake GitHub: the PR, its diff, both trees, and
// one human review comment (which selects previous-comments).
func (p teamPR) serve(gh *githubtest.Server) {
	gh.AddPR(githubtest.PR{
		Number: p.Number, Title: p.Title, Body: p.Body, Author: "octodev",
		HeadSHA: p.HeadSHA, BaseSHA: p.BaseSHA,
		HeadRepo: owner + "/" + repo, BaseRepo: owner + "/" + repo,
	})
	gh.SetDiff(p.Number, p.Diff)
	for f, c := range p.Head {
		gh.SetContent(p.HeadSHA, f, c)
	}
	for f, c := range p.Base {
		gh.SetContent(p.BaseSHA, f, c)
	}
	gh.AddReviewComment(p.Number, "octoreviewer", "Please put a rate limit on search before this ships.")
}

// scriptModel makes the fake model answer every persona with its scripted
// answer and the validator with a confirmation, each after latency.
func (p teamPR) scriptModel(m *llmtest.Server, latency time.Duration) {
	m.SetDefault(func(r llmtest.Request) llmtest.Reply {
		if r.Persona == llm.Validator {
			rep := llmtest.Verdicts(r, func(string) string {
				return `{"validated":true,"reason":"Real, introduced by this diff, and not handled elsewhere."}`
			})
			rep.Delay = latency
			return rep
		}
		if a, ok := p.Answers[r.Persona]; ok {
			return llmtest.Reply{Content: a, Delay: latency}
		}
		return llmtest.Reply{Content: llmtest.DefaultContent(r), Delay: latency}
	})
}

// newModel is the real model client pointed at the fake model server.
func newModel(tb testing.TB, m *llmtest.Server) *llm.Client {
	tb.Helper()
	c, err := llm.New(llm.Config{BaseURL: m.URL + "/v1", APIKey: "sk-bench", HTTPClient: m.Client(), Schemas: prompts.Schemas()})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// newGitHub is the real GitHub client pointed at the fake GitHub.
func newGitHub(tb testing.TB, gh *githubtest.Server) *github.Client {
	tb.Helper()
	c, err := github.New(gh.HTTPClient(), gh.URL+"/", "ghs_bench")
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// critical is one critical-path rig: the team PR on a fake GitHub and a
// fake model answering after a fixed latency.
type critical struct {
	pr      teamPR
	gh      *githubtest.Server
	model   *llmtest.Server
	latency time.Duration
}

func newCritical(tb testing.TB, latency time.Duration) *critical {
	tb.Helper()
	c := &critical{pr: loadTeamPR(tb), gh: githubtest.New(), model: llmtest.New(), latency: latency}
	tb.Cleanup(c.gh.Close)
	tb.Cleanup(c.model.Close)
	c.pr.serve(c.gh)
	c.pr.scriptModel(c.model, latency)
	return c
}

// run reviews the team PR once (comment mode, validator on) with the
// given max-concurrency and returns the wall time of ReviewPR. It fails
// tb unless all 12 personas ran and exactly wantFindings findings were
// validated, so a benchmark never times a run that went wrong.
func (c *critical) run(tb testing.TB, concurrency int) time.Duration {
	tb.Helper()
	rv := review.Reviewer{GitHub: newGitHub(tb, c.gh), Model: newModel(tb, c.model), Personas: c.pr.Personas}
	opts := review.Options{
		Owner: owner, Repo: repo, PR: c.pr.Number, Mode: review.ModeComment, Validate: true,
		Model: "gpt-4.1-mini", MaxValidations: -1, MaxConcurrency: concurrency, BotLogin: botName,
	}
	start := time.Now()
	res, _, err := rv.ReviewPR(context.Background(), opts)
	wall := time.Since(start)
	if err != nil {
		tb.Fatalf("ReviewPR: %v", err)
	}
	if got := len(res.Coverage.Personas); got != len(c.pr.Personas) {
		tb.Fatalf("got %d personas; want %d (%v)", got, len(c.pr.Personas), res.Coverage.Personas)
	}
	if got := res.Coverage.Validated + len(res.Coverage.Rejections); got != wantFindings || len(res.Findings) != wantFindings {
		tb.Fatalf("got %d findings validated, %d posted; want %d (drops %v)", got, len(res.Findings), wantFindings, res.Coverage.DroppedByReason)
	}
	return wall
}

// teamPersonas loads the personas the team PR selects: the eleven generic
// ones and the go stack persona (it changes Go code, nothing in Python,
// TypeScript or workflows), with testing and maintainability always on as
// in release 2 (fullTeam), so the critical path is measured on the
// largest team.
func teamPersonas() ([]persona.Persona, error) {
	all, err := fullTeam()
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(p persona.Persona) bool {
		return p.Name == "python" || p.Name == "typescript" || p.Name == "ci-security"
	}), nil
}

// fullTeam is persona.Load with testing and maintainability always on, as
// they were until release 3 made them conditional: the critical-path and
// prompt-shape benchmarks measure the layout over the most personas a
// review sends, whatever the selection rules of the day.
func fullTeam() ([]persona.Persona, error) {
	all, err := persona.Load()
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].Name == "testing" || all[i].Name == "maintainability" {
			all[i].AlwaysOn = true
		}
	}
	return all, nil
}
