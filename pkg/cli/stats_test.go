package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/marker"
)

// TestStatsUsageErrors: every flag mistake is a usage error (exit 2) that
// names the flag, before any request.
func TestStatsUsageErrors(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"GITHUB_TOKEN": "ghs_x", "GITHUB_API_URL": "http://127.0.0.1:1"}[k]
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--repo", "a/b", "--days", "7", "--since", "2026-01-01"}, "--days and --since are exclusive"},
		{[]string{"--repo", "a/b", "--since", "last week"}, `--since "last week" is not a date`},
		{[]string{"--repo", "a/b", "--since", "2999-01-01"}, "is in the future"},
		{[]string{"--repo", "a/b", "--days", "0"}, "--days 0 is not within 1..3660"},
		{[]string{"--repo", "a/b", "--min-rate", "10"}, "--min-rate 10 is not a fraction"},
		{[]string{"--repo", "a/b", "--min-findings", "0"}, "--min-findings must be at least 1"},
		{[]string{"--repo", "a"}, "--repo must be OWNER/NAME"},
		{[]string{"--repo", "a/b", "extra"}, "takes no arguments"},
		{[]string{}, "name the repositories: --repo OWNER/NAME (repeatable) or --org OWNER"},
		{[]string{"--repo", "a/b", "--org", "acme"}, "--repo and --org are exclusive"},
		{[]string{"--repo", "a/b", "--repo", "c"}, `--repo must be OWNER/NAME, got "c"`},
		{[]string{"--org", "acme", "--limit", "0"}, "--limit 0 is not within 1..1000"},
		{[]string{"--org", "ac/me"}, `--org must be an organization's login (letters`},
		{[]string{"--repo", "a/b", "--limit", "5"}, "--limit goes with --org"},
	} {
		var stdout, stderr bytes.Buffer
		err := Main(context.Background(), append([]string{"stats"}, c.args...), env, &stdout, &stderr)
		if ExitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("stats %q: %v (exit %d); want a usage error saying %q", c.args, err, ExitCode(err), c.want)
		}
	}
	var stdout, stderr bytes.Buffer
	err := Main(context.Background(), []string{"stats", "--repo", "a/b"}, func(string) string { return "" }, &stdout, &stderr)
	if ExitCode(err) != 2 || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Errorf("no token: %v; want a usage error naming GITHUB_TOKEN", err)
	}
}

func TestReviewPricingFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := Main(context.Background(), []string{"review", "--diff", "x.patch", "--pricing", "0.4, 1.6"}, func(string) string { return "" }, &stdout, &stderr)
	if ExitCode(err) != 2 || !strings.Contains(err.Error(), `--pricing: line 1: not three prices`) {
		t.Errorf("bad --pricing: %v; want a usage error naming --pricing", err)
	}
}

// TestStatsInfiniteCostWritesJSON: two reports whose costs (1.7e308 US
// dollars each) overflow a sum used to make stats exit 3 with no JSON.
// The second is left out, named, and the figures are written.
func TestStatsInfiniteCostWritesJSON(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	line := strings.ReplaceAll(marker.FormatMeta(marker.Meta{HeadSHA: strings.Repeat("a", 40), Verdict: "ready", Conclusion: "success", Reviews: 1,
		Usage: []marker.Usage{{Name: "correctness", Reviews: 1, Calls: 1, Cost: 0.5}}}), `"cost":0.5`, `"cost":1.7e308`)
	for n := 1; n <= 2; n++ {
		gh.AddPR(githubtest.PR{Number: n, HeadSHA: strings.Repeat("a", 40)})
		gh.AddReport(n, "github-actions[bot]", marker.Report+"\n"+line+"\n")
	}
	env := map[string]string{"GITHUB_TOKEN": "ghs_x", "GITHUB_API_URL": gh.URL}
	jsonPath := filepath.Join(t.TempDir(), "stats.json")
	var stdout, stderr bytes.Buffer
	f := &Factory{Getenv: func(k string) string { return env[k] }, Stdout: &stdout, Stderr: &stderr, HTTPClient: gh.HTTPClient()}
	err := Run(context.Background(), f, []string{"stats", "--repo", "octocat/Hello-World", "--since", "2024-01-01", "--json", jsonPath})
	if err != nil {
		t.Fatalf("stats: %v (exit %d)\n%s", err, ExitCode(err), stderr.String())
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil || !strings.Contains(string(b), "octocat/Hello-World#2: its recorded cost") {
		t.Errorf("JSON %s (%v); want #2 named as left out", b, err)
	}
	if !strings.Contains(stdout.String(), "octocat/Hello-World#\u200b2: its recorded cost") {
		t.Errorf("the Markdown does not name #2:\n%s", stdout.String())
	}
}
