package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
