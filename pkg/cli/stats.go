package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/stats"
)

// statsFlags are the stats command's options.
type statsFlags struct {
	repos                     listFlag
	org, since, jsonFile      string
	days, limit               int
	githubToken, githubAPIURL string
	botLogin                  string
	minFindings               int
	minRate                   float64
	jobSummary                bool
}

// statsSource is the GitHub client stats reads through; tests substitute
// a client wired to the fake.
type statsSource interface {
	stats.Source
	Requests() int
}

// statsOptions is everything `stats` runs with.
type statsOptions struct {
	*Factory
	Flags statsFlags
	// Query is the repository and period, from the flags.
	Query stats.Options
	// Source reads the repository; nil builds the real GitHub client
	// through Factory.HTTPClient.
	Source statsSource
}

// runStats is `stats`: which personas earn their noise, from the
// repository's own reports.
func runStats(ctx context.Context, fac *Factory, args []string) error {
	now := fac.now()
	var f statsFlags
	fl := flag.NewFlagSet("stats", flag.ContinueOnError)
	fl.Var(&f.repos, "repo", "a repository, `OWNER/NAME` (repeatable, or comma-separated)")
	fl.StringVar(&f.org, "org", "", "read the organization's repositories instead of --repo (the most recently pushed, archived ones left out)")
	fl.IntVar(&f.limit, "limit", stats.DefaultLimit, fmt.Sprintf("with --org, read at most this many repositories (1..%d)", stats.MaxLimit))
	fl.IntVar(&f.days, "days", 30, "the period: reports written in the last N days")
	fl.StringVar(&f.since, "since", "", "the period: reports written since `DATE` (YYYY-MM-DD or RFC 3339; instead of --days)")
	fl.StringVar(&f.jsonFile, "json", "", "also write the figures as JSON to `FILE`")
	fl.StringVar(&f.githubToken, "github-token", "", "GitHub token (default $GITHUB_TOKEN)")
	fl.StringVar(&f.githubAPIURL, "github-api-url", "", "GitHub API URL (default $GITHUB_API_URL or https://api.github.com/)")
	fl.StringVar(&f.botLogin, "bot-login", action.DefaultBotLogin, "the identity whose report and inline comments count")
	fl.IntVar(&f.minFindings, "min-findings", stats.DefaultMinFindings, "suggest dropping a persona only over at least this many posted findings")
	fl.Float64Var(&f.minRate, "min-rate", stats.DefaultMinRate, "suggest dropping a persona whose acted-on rate is below this fraction")
	fl.BoolVar(&f.jobSummary, "job-summary", false, "also append the Markdown to $GITHUB_STEP_SUMMARY (for a container step with no shell)")
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), `Usage:
  anchor-review stats --repo OWNER/NAME [--repo OWNER/NAME ...] [--days N | --since DATE] [--json FILE] [flags]
  anchor-review stats --org OWNER [--limit N] [--days N | --since DATE] [--json FILE] [flags]

Reads the repositories' anchor-review reports written in the period (their
metadata) and inline comments (their reactions) through the GitHub API
($GITHUB_TOKEN, read access to pull requests, issues and checks), counting a
report only if an anchor-review check run of ours names it, and prints per
persona over all of them: reviews, calls, tokens, estimated cost, findings
posted, acted on, dismissed and thumbs up, each repository's totals, a Mermaid
chart, the personas that cost money and posted nothing, and which persona to
remove when its findings are rarely acted on. Markdown on stdout, progress on stderr.

Flags:`)
		fl.PrintDefaults()
	}
	if help, err := parseFlags(fl, args, false, fac.Stdout, fac.Stderr); help || err != nil {
		return err
	}
	daysSet := false
	fl.Visit(func(fl *flag.Flag) { daysSet = daysSet || fl.Name == "days" })
	since, err := f.period(now, daysSet)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	limitSet := false
	fl.Visit(func(fl *flag.Flag) { limitSet = limitSet || fl.Name == "limit" })
	repos, err := f.repositories(limitSet)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return statsWith(ctx, statsOptions{Factory: fac, Flags: f, Query: stats.Options{Repos: repos, Org: f.org, Limit: f.limit, Since: since, Until: now}})
}

// repositories checks which repositories the flags name: --repo, each
// OWNER/NAME once, or --org with its --limit.
func (f statsFlags) repositories(limitSet bool) ([]string, error) {
	switch {
	case f.org != "" && len(f.repos) > 0:
		return nil, errors.New("--repo and --org are exclusive")
	case f.org == "" && len(f.repos) == 0:
		return nil, errors.New("name the repositories: --repo OWNER/NAME (repeatable) or --org OWNER")
	case f.limit < 1 || f.limit > stats.MaxLimit:
		return nil, fmt.Errorf("--limit %d is not within 1..%d", f.limit, stats.MaxLimit)
	case f.org != "" && !action.ValidOwner(f.org):
		return nil, errors.New("--org must be an organization's login (letters, digits, '-' and '_', at most 39)")
	case f.org == "" && limitSet:
		return nil, errors.New("--limit goes with --org (with --repo, every repository named is read)")
	case len(f.repos) > stats.MaxLimit:
		return nil, fmt.Errorf("%d repositories; at most %d", len(f.repos), stats.MaxLimit)
	}
	var repos []string
	for _, r := range f.repos {
		owner, name, ok := action.SplitRepository(r)
		if !ok {
			return nil, fmt.Errorf("--repo must be OWNER/NAME, got %q", r)
		}
		if full := owner + "/" + name; !slices.ContainsFunc(repos, func(s string) bool { return strings.EqualFold(s, full) }) {
			repos = append(repos, full)
		}
	}
	return repos, nil
}

// source is the GitHub client the flags name, through the factory's
// HTTP client.
func (o statsOptions) source() (statsSource, error) {
	if o.Source != nil {
		return o.Source, nil
	}
	token := firstNonEmpty(o.Flags.githubToken, o.Getenv("GITHUB_TOKEN"))
	if token == "" {
		return nil, fmt.Errorf("%w: no GitHub token: set GITHUB_TOKEN or --github-token", ErrUsage)
	}
	c, err := newGitHub(o.HTTPClient, firstNonEmpty(o.Flags.githubAPIURL, o.Getenv("GITHUB_API_URL"), action.DefaultAPIURL), token)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return c, nil
}

// period is the start of the period the flags ask for.
func (f statsFlags) period(now time.Time, daysSet bool) (time.Time, error) {
	var problems []string
	if f.since != "" && daysSet {
		problems = append(problems, "--days and --since are exclusive")
	}
	if f.days < 1 || f.days > 3660 {
		problems = append(problems, fmt.Sprintf("--days %d is not within 1..3660", f.days))
	}
	if f.minFindings < 1 {
		problems = append(problems, "--min-findings must be at least 1")
	}
	if f.minRate <= 0 || f.minRate >= 1 {
		problems = append(problems, fmt.Sprintf("--min-rate %g is not a fraction between 0 and 1 (0.1 is 10%%)", f.minRate))
	}
	since := now.AddDate(0, 0, -f.days)
	if f.since != "" {
		t, err := time.Parse(time.DateOnly, f.since)
		if err != nil {
			t, err = time.Parse(time.RFC3339, f.since)
		}
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("--since %q is not a date (YYYY-MM-DD) or an RFC 3339 time", f.since))
		case t.After(now):
			problems = append(problems, fmt.Sprintf("--since %s is in the future", f.since))
		}
		since = t
	}
	if len(problems) > 0 {
		return time.Time{}, errors.New(strings.Join(problems, "; "))
	}
	return since.UTC(), nil
}

// statsWith reads the figures through opts's source and prints them.
func statsWith(ctx context.Context, opts statsOptions) error {
	src, err := opts.source()
	if err != nil {
		return err
	}
	f, o, getenv, stdout, stderr := opts.Flags, opts.Query, opts.Getenv, opts.Stdout, opts.Stderr
	o.BotLogin, o.MinFindings, o.MinRate = f.botLogin, f.minFindings, f.minRate
	o.ServerURL = firstNonEmpty(getenv("GITHUB_SERVER_URL"), "https://github.com")
	start := opts.now()
	o.Progress = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	r, err := stats.Collect(ctx, src, o)
	if err != nil {
		var ae *github.APIError
		if errors.As(err, &ae) && (ae.Status == 403 || ae.Status == 404) {
			return fmt.Errorf("%w: %w (the token needs read access to each repository's pull requests, issues and check runs: `pull-requests: read`, `issues: read` and `checks: read` in a workflow; another repository, or an organization's list, needs a token that can read them, such as a GitHub App's)", action.ErrCannotRun, err)
		}
		return fmt.Errorf("%w: %w", action.ErrCannotRun, err)
	}
	r.Requests = src.Requests()
	fmt.Fprintf(stderr, "stats: done in %s with %d requests\n", opts.now().Sub(start).Round(time.Millisecond), r.Requests)
	md := r.Markdown()
	fmt.Fprint(stdout, md)
	if f.jsonFile != "" {
		b, err := r.JSON()
		if err != nil {
			return fmt.Errorf("encode stats: %w", err)
		}
		if err := os.WriteFile(f.jsonFile, b, 0o644); err != nil {
			return fmt.Errorf("%w: --json: %w", ErrUsage, err)
		}
	}
	if f.jobSummary {
		path := getenv("GITHUB_STEP_SUMMARY")
		if path == "" {
			return fmt.Errorf("%w: --job-summary: GITHUB_STEP_SUMMARY is not set (outside GitHub Actions, the Markdown is on stdout)", ErrUsage)
		}
		file, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("--job-summary: %w", err)
		}
		_, werr := file.WriteString(md)
		if cerr := file.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("--job-summary: %w", werr)
		}
	}
	return nil
}
