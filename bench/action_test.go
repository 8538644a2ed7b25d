package bench

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/cli"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
)

// actionRig runs the Action in-process (cli.Main with no arguments and an
// injected environment) against a fake GitHub and a fake model.
type actionRig struct {
	pr    teamPR
	gh    *githubtest.Server
	model *llmtest.Server
	dir   string
}

func newActionRig(tb testing.TB, pr teamPR, latency time.Duration) *actionRig {
	tb.Helper()
	r := &actionRig{pr: pr, gh: githubtest.New(), model: llmtest.New(), dir: tb.TempDir()}
	pr.serve(r.gh)
	pr.scriptModel(r.model, latency)
	return r
}

// setDraft turns the PR into a draft on the fake GitHub (the action reads
// the PR's state from the API, not from the event payload).
func (r *actionRig) setDraft() {
	r.gh.AddPR(githubtest.PR{
		Number: r.pr.Number, Title: r.pr.Title, Body: r.pr.Body, Author: "octodev", Draft: true,
		HeadSHA: r.pr.HeadSHA, BaseSHA: r.pr.BaseSHA,
		HeadRepo: owner + "/" + repo, BaseRepo: owner + "/" + repo,
	})
}

// close stops both fakes.
func (r *actionRig) close() {
	r.gh.Close()
	r.model.Close()
}

// env writes the event payload and returns the environment of one step
// run: a pull_request event with the given action and draft flag, or with
// eventName "workflow_dispatch" a manual rerun of the PR.
func (r *actionRig) env(tb testing.TB, eventName, prAction string, draft bool) map[string]string {
	tb.Helper()
	repoRef := map[string]any{"full_name": owner + "/" + repo}
	payload := map[string]any{"repository": repoRef}
	if eventName == "workflow_dispatch" {
		payload["inputs"] = map[string]any{"pr-number": strconv.Itoa(r.pr.Number)}
	} else {
		payload["action"] = prAction
		payload["number"] = r.pr.Number
		payload["pull_request"] = map[string]any{
			"number": r.pr.Number, "state": "open", "title": r.pr.Title, "body": r.pr.Body, "draft": draft, "merged": false,
			"head": map[string]any{"sha": r.pr.HeadSHA, "repo": repoRef},
			"base": map[string]any{"repo": repoRef},
		}
	}
	b, err := json.Marshal(payload)
	if err != nil {
		tb.Fatal(err)
	}
	dir, err := os.MkdirTemp(r.dir, "step")
	if err != nil {
		tb.Fatal(err)
	}
	event := filepath.Join(dir, "event.json")
	if err := os.WriteFile(event, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return map[string]string{
		"GITHUB_ACTIONS":           "true",
		"GITHUB_EVENT_NAME":        eventName,
		"GITHUB_EVENT_PATH":        event,
		"GITHUB_REPOSITORY":        owner + "/" + repo,
		"GITHUB_API_URL":           r.gh.URL,
		"GITHUB_SERVER_URL":        "https://github.com",
		"GITHUB_OUTPUT":            filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY":      filepath.Join(dir, "summary"),
		"GITHUB_WORKSPACE":         dir,
		"INPUT_GITHUB-TOKEN":       "ghs_benchtoken",
		"INPUT_BASE-URL":           r.model.URL + "/v1",
		"INPUT_MAX-CONCURRENCY":    "16",
		"INPUT_MAX-VALIDATIONS":    "15",
		"INPUT_FAIL-ON":            "never",
		"INPUT_PR-NUMBER":          map[bool]string{true: strconv.Itoa(r.pr.Number)}[eventName == "workflow_dispatch"],
		"INPUT_MODEL":              "gpt-4.1-mini",
		"INPUT_BOT-LOGIN":          botName,
		"INPUT_MODE":               "comment",
		"INPUT_QUIET":              "false",
		"INPUT_MAX-LLM-CALLS":      "60",
		"INPUT_PERSONAS":           "",
		"INPUT_EXCLUDE":            "",
		"INPUT_STRONG-MODEL":       "",
		"INPUT_VALIDATOR-MODEL":    "",
		"INPUT_API-KEY":            "",
		"GITHUB_WORKFLOW":          "review",
		"GITHUB_RUN_ID":            "1",
		"GITHUB_ACTION":            "anchor-review",
		"GITHUB_ACTION_REPOSITORY": "anchor-review/anchor-review",
	}
}

// step runs the Action once and returns the GitHub requests it sent.
// The run must end with exit class 0 (fail-on is never).
func (r *actionRig) step(tb testing.TB, env map[string]string) []githubtest.Request {
	tb.Helper()
	before := len(r.gh.Requests())
	getenv := func(k string) string { return env[k] }
	var log strings.Builder
	err := cli.Main(context.Background(), nil, getenv, &log, io.Discard)
	if err != nil {
		tb.Fatalf("the action failed (exit class %v): %v\n%s", errors.Is(err, action.ErrCannotRun), err, log.String())
	}
	return r.gh.Requests()[before:]
}

// requestCounts are the GitHub requests of one run, by kind.
type requestCounts struct {
	total, writes, headFiles int
}

func countRequests(reqs []githubtest.Request, headSHA string) requestCounts {
	var c requestCounts
	for _, q := range reqs {
		c.total++
		if q.Method != "GET" {
			c.writes++
		}
		if strings.Contains(q.Path, "/contents/") && strings.Contains(q.Query, "ref="+headSHA) {
			c.headFiles++
		}
	}
	return c
}

// requestCase is one kind of Action run whose GitHub requests are counted.
type requestCase struct {
	name string
	// run does the run (and any run it needs first) and returns the
	// requests of the counted run.
	run func(tb testing.TB, r *actionRig) []githubtest.Request
}

// requestCases are the runs BenchmarkGitHubRequests counts:
//   - skipped-draft: pull_request opened on a draft (skip rule 2)
//   - skipped-reviewed: synchronize after our report exists (rule 4: the
//     check run carries the earlier verdict, one write)
//   - full: first review of the team PR (12 personas, 15 validated)
//   - rerun: workflow_dispatch after the full review, editing the comment
func requestCases() []requestCase {
	return []requestCase{
		{"skipped-draft", func(tb testing.TB, r *actionRig) []githubtest.Request {
			r.setDraft()
			return r.step(tb, r.env(tb, "pull_request", "opened", true))
		}},
		{"skipped-reviewed", func(tb testing.TB, r *actionRig) []githubtest.Request {
			r.step(tb, r.env(tb, "pull_request", "opened", false))
			return r.step(tb, r.env(tb, "pull_request", "synchronize", false))
		}},
		{"full", func(tb testing.TB, r *actionRig) []githubtest.Request {
			return r.step(tb, r.env(tb, "pull_request", "opened", false))
		}},
		{"rerun", func(tb testing.TB, r *actionRig) []githubtest.Request {
			r.step(tb, r.env(tb, "pull_request", "opened", false))
			reqs := r.step(tb, r.env(tb, "workflow_dispatch", "", false))
			cs := r.gh.Comments(r.pr.Number)
			if len(cs) != 1 || cs[0].Edits != 1 {
				tb.Fatalf("got %d comments (%+v); want 1 comment edited once", len(cs), cs)
			}
			return reqs
		}},
	}
}

// BenchmarkGitHubRequests runs the Action in-process (cli.Main, injected
// environment, real go-github and go-openai clients) against the fake
// GitHub and fake model (no latency), and reports for each of
// requestCases the GitHub requests (gh-requests), the writes among them
// (gh-writes) and the head-commit file reads for the validator
// (head-file-reads). SPEC section 6: a skipped PR at most 2; a full review
// a small constant plus one per file whose content a validator needs.
func BenchmarkGitHubRequests(b *testing.B) {
	pr := loadTeamPR(b)
	for _, tc := range requestCases() {
		b.Run(tc.name, func(b *testing.B) {
			var c requestCounts
			for b.Loop() {
				r := newActionRig(b, pr, 0)
				c = countRequests(tc.run(b, r), pr.HeadSHA)
				r.close()
			}
			b.ReportMetric(float64(c.total), "gh-requests")
			b.ReportMetric(float64(c.writes), "gh-writes")
			b.ReportMetric(float64(c.headFiles), "head-file-reads")
		})
	}
}
