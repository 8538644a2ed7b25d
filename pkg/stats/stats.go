// Package stats answers which reviewer personas earn their noise, from a
// repository's own pull requests: it reads anchor-review's report comments
// (their metadata line) and its inline comments (their reactions) through
// the REST API, and adds up, per persona, the reviews it ran in, its calls,
// tokens and estimated cost, the findings it posted, and what became of
// them.
//
//   - Acted on: a push changed the lines of a posted finding and the
//     re-review no longer found it there (the review recorded it in the
//     report's metadata when it happened).
//   - Dismissed: a thumbs-down on the finding's inline comment, or the
//     finding still posted, unchanged, when the pull request merged (its
//     head at merge is the head the last report reviewed). A finding acted
//     on is never also counted dismissed.
//   - Thumbs up: findings whose inline comment got a +1.
//
// A pull request counts when its report was written in the period; its
// figures are the running totals its report carries over all its reviews.
// Nothing is stored anywhere: every run reads the reports again.
package stats

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/inline"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

// Source is the GitHub API as stats reads it (pkg/github.Client).
type Source interface {
	EachPullUpdatedSince(ctx context.Context, owner, repo string, since time.Time, visit func(github.PullSummary) error) error
	EachRepoIssueComment(ctx context.Context, owner, repo string, since time.Time, visit func(github.Comment) error) error
	EachRepoReviewComment(ctx context.Context, owner, repo string, since time.Time, visit func(github.Comment) error) error
	ReviewComments(ctx context.Context, owner, repo string, n int) ([]github.Comment, error)
	EachOrgRepo(ctx context.Context, org string, visit func(github.RepoSummary) error) error
	CheckRunsOn(ctx context.Context, owner, repo, sha, name string) ([]github.CheckRunRef, error)
}

// Defaults of the suggestion's thresholds and the organization's listing.
const (
	// DefaultMinFindings is the fewest findings a persona needs, posted
	// on pull requests that got an incremental re-review, before stats
	// suggests removing it: below, a low rate is noise.
	DefaultMinFindings = 20
	// DefaultMinRate is the acted-on rate below which a persona is
	// suggested for removal.
	DefaultMinRate = 0.10
	// DefaultLimit and MaxLimit bound the repositories --org reads.
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Options say what to read and how to judge it.
type Options struct {
	// Repos are the repositories to read ("owner/name"), in order; or
	// Org, whose Limit most recently pushed repositories are read (the
	// archived ones left out: nothing reviews them any more).
	Repos []string
	Org   string
	Limit int
	// Since is the start of the period; Until its end, for the record
	// (the API cannot bound a listing above, and reports written after
	// Until are counted too).
	Since, Until time.Time
	// BotLogin is the identity whose report and inline comments count.
	BotLogin string
	// MinFindings and MinRate are the suggestion's thresholds (defaults
	// DefaultMinFindings, DefaultMinRate).
	MinFindings int
	MinRate     float64
	// ServerURL is the GitHub web host (default https://github.com):
	// the only host a link in printed text may keep, as in every report.
	ServerURL string
	// Progress, when set, is told how the reading goes.
	Progress func(format string, args ...any)
}

func (o *Options) defaults() {
	if o.MinFindings <= 0 {
		o.MinFindings = DefaultMinFindings
	}
	if o.MinRate <= 0 {
		o.MinRate = DefaultMinRate
	}
	if o.Limit <= 0 {
		o.Limit = DefaultLimit
	}
	if o.ServerURL == "" {
		o.ServerURL = "https://github.com"
	}
	if o.Progress == nil {
		o.Progress = func(string, ...any) {}
	}
}

// pr is what stats keeps of one pull request while it reads.
type pr struct {
	summary github.PullSummary
	// candidates are the comments with our identity and marker; report
	// is the newest of them that is ours (skip.Ours), once decided.
	candidates []*reportSeen
	report     *reportSeen
	// ignored say why each look-alike written in the period is not ours.
	ignored []string
	inline  []inlineSeen
}

type reportSeen struct {
	comment github.Comment
	meta    marker.Meta
	err     error
}

// counted reports whether the pull request has a readable report of ours
// written in the period: the pull requests whose figures count, and so
// the only ones whose inline comments are worth reading.
func (p *pr) counted(since time.Time) bool {
	return p.report != nil && p.report.err == nil && !p.report.comment.UpdatedAt.Before(since)
}

// inlineSeen is one of our inline comments: its finding and its thumbs.
type inlineSeen struct {
	fingerprint, resolvedIn, reviewer string
	up, down                          int
}

// Collect reads the period's pull requests, reports and inline comments
// of every repository o names from src and adds them up. With Repos, a
// repository that cannot be read is an error naming it; with Org, it is
// listed in the report as not read and the others count.
func Collect(ctx context.Context, src Source, o Options) (*Report, error) {
	o.defaults()
	repos := o.Repos
	t := newTally(o)
	if o.Org != "" {
		var err error
		if repos, err = orgRepos(ctx, src, o, t); err != nil {
			return nil, err
		}
	}
	for _, full := range repos {
		owner, name, _ := strings.Cut(full, "/")
		prs, err := read(ctx, src, owner, name, o)
		var ae *github.APIError
		switch {
		case err != nil && o.Org != "" && errors.As(err, &ae) && (ae.Status == 403 || ae.Status == 404):
			t.notRead(full, err)
			continue
		case err != nil:
			return nil, fmt.Errorf("%s: %w", full, err)
		}
		t.repository(full, prs)
	}
	return t.report(), nil
}

// choose decides each pull request's report: the newest comment with our
// identity and marker that is ours (the ownership test: an anchor-review check run
// that the app behind BotLogin created on the report's head names it, as
// skip.Ours decides for the review itself). Another workflow posting as
// the same bot can write a report-shaped comment with any figures; it is
// not counted, and when no comment is ours the pull request is named.
// A comment whose metadata does not parse cannot be checked (its head is
// unknown): it counts as unreadable only when nothing else does. The
// check runs of a head are listed once.
func choose(ctx context.Context, src Source, owner, name string, prs map[int]*pr, o Options) error {
	app := skip.AppOf(o.BotLogin)
	runs := map[string][]skip.CheckRun{}
	for _, n := range sortedNumbers(prs) {
		p := prs[n]
		slices.SortStableFunc(p.candidates, func(a, b *reportSeen) int { return b.comment.UpdatedAt.Compare(a.comment.UpdatedAt) })
		var unreadable, earlier *reportSeen
		heads := map[string]bool{} // the heads this pull request's comments asked about
		for _, c := range p.candidates {
			switch {
			case c.comment.UpdatedAt.Before(o.Since):
				// Written before the period: the pull request counts as
				// without a report in it, ours or not; no request.
				earlier = cmp.Or(earlier, c)
				continue
			case c.err != nil:
				unreadable = cmp.Or(unreadable, c)
				continue
			}
			head := c.meta.HeadSHA
			if !heads[head] && len(heads) == skip.MaxHeadsAsked {
				// As skip.LastReportComment: look-alikes naming ever new
				// heads cost a listing each, so the search stops.
				p.ignored = append(p.ignored, fmt.Sprintf("comments naming more than %d heads: the older ones not checked", skip.MaxHeadsAsked))
				break
			}
			heads[head] = true
			rs, ok := runs[head]
			if !ok {
				refs, err := src.CheckRunsOn(ctx, owner, name, head, marker.CheckName)
				if err != nil {
					return fmt.Errorf("check that the report on #%d is ours: %w", n, err)
				}
				for _, r := range refs {
					rs = append(rs, skip.CheckRun{HeadSHA: r.HeadSHA, App: r.App, ExternalID: r.ExternalID})
				}
				runs[head] = rs
			}
			if skip.Ours(skip.Comment{ID: c.comment.ID, Author: c.comment.Author}, c.meta, rs, o.BotLogin) {
				p.report = c
				break
			}
			p.ignored = append(p.ignored, fmt.Sprintf("comment %d: no %s check run of %s on %s names it", c.comment.ID, marker.CheckName, cmp.Or(app, "the bot's app"), head[:7]))
		}
		if p.report == nil {
			p.report = cmp.Or(unreadable, earlier)
		}
		p.candidates = nil
	}
	return nil
}

// orgRepos lists the organization's repositories to read: the o.Limit
// most recently pushed that are not archived.
func orgRepos(ctx context.Context, src Source, o Options, t *tally) ([]string, error) {
	var repos []string
	archived := 0
	err := src.EachOrgRepo(ctx, o.Org, func(r github.RepoSummary) error {
		if r.Archived {
			archived++
			return nil
		}
		if len(repos) == o.Limit {
			t.r.Beyond++
			return nil
		}
		repos = append(repos, r.FullName)
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.r.Archived = archived
	o.Progress("stats: %d repositories of %s to read (%d archived left out, %d beyond --limit)", len(repos), o.Org, archived, t.r.Beyond)
	return repos, nil
}

// read gathers one repository's pull requests updated in the period, with
// their reports and inline comments.
func read(ctx context.Context, src Source, owner, name string, o Options) (map[int]*pr, error) {
	prs := map[int]*pr{}
	full := owner + "/" + name
	err := src.EachPullUpdatedSince(ctx, owner, name, o.Since, func(p github.PullSummary) error {
		prs[p.Number] = &pr{summary: p}
		if len(prs)%100 == 0 {
			o.Progress("stats: %s: %d pull requests updated since %s so far", full, len(prs), o.Since.Format(time.DateOnly))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	o.Progress("stats: %s: %d pull requests updated since %s", full, len(prs), o.Since.Format(time.DateOnly))

	seen := 0
	err = src.EachRepoIssueComment(ctx, owner, name, o.Since, func(c github.Comment) error {
		if seen++; seen%1000 == 0 {
			o.Progress("stats: %s: %d comments read", full, seen)
		}
		p := prs[c.Issue]
		if p == nil || !strings.EqualFold(c.Author, o.BotLogin) || !marker.HasReport(c.Body) {
			return nil
		}
		m, err := marker.ParseReport(c.Body)
		c.Body = "" // read; not kept
		p.candidates = append(p.candidates, &reportSeen{comment: c, meta: m, err: err})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := choose(ctx, src, owner, name, prs, o); err != nil {
		return nil, err
	}
	reports := 0
	for _, p := range prs {
		if p.counted(o.Since) {
			reports++
		}
	}
	o.Progress("stats: %s: %d comments read, %d reports of %s", full, seen, reports, o.BotLogin)

	// An inline comment older than the period on a pull request reviewed
	// in it is not in the repository's listing: those pull requests are
	// read whole below, and only the others take their comments from it.
	readWhole := func(p *pr) bool { return p.counted(o.Since) && p.summary.CreatedAt.Before(o.Since) }
	err = src.EachRepoReviewComment(ctx, owner, name, o.Since, func(c github.Comment) error {
		if p := prs[c.Issue]; p != nil && p.counted(o.Since) && !readWhole(p) {
			if ic, ok := ours(c, o.BotLogin); ok {
				p.inline = append(p.inline, ic)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	older := 0
	for _, n := range sortedNumbers(prs) {
		p := prs[n]
		if !readWhole(p) {
			continue
		}
		cs, err := src.ReviewComments(ctx, owner, name, n)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if ic, ok := ours(c, o.BotLogin); ok {
				p.inline = append(p.inline, ic)
			}
		}
		if older++; older%100 == 0 {
			o.Progress("stats: %s: inline comments of %d pull requests opened before the period read", full, older)
		}
	}
	return prs, nil
}

// ours reads one of our inline comments: the marker on its first line,
// the reviewer from its headline.
func ours(c github.Comment, bot string) (inlineSeen, bool) {
	if !strings.EqualFold(c.Author, bot) || c.InReplyTo != 0 {
		return inlineSeen{}, false
	}
	m, ok := inline.ParseMarker(c.Body)
	if !ok {
		return inlineSeen{}, false
	}
	return inlineSeen{fingerprint: m.Fingerprint, resolvedIn: m.ResolvedIn, reviewer: headlineReviewer(c.Body), up: c.ThumbsUp, down: c.ThumbsDown}, true
}

// headlineReviewer reads the first reviewer from an inline comment's
// headline ("**P1 · title** · anchor 75 · correctness, security", struck
// through once resolved): the fallback when the report's metadata does not
// record the comment's fingerprint (a report written before release 3).
func headlineReviewer(body string) string {
	lines := strings.Split(body, "\n")
	for _, l := range lines[1:] {
		l = strings.Trim(strings.TrimSpace(l), "~")
		if l == "" {
			continue
		}
		i := strings.LastIndex(l, " · ")
		if i < 0 {
			return ""
		}
		last := strings.TrimSpace(l[i+len(" · "):])
		if strings.HasPrefix(last, "anchor ") {
			return ""
		}
		first, _, _ := strings.Cut(last, ",")
		return strings.TrimSpace(first)
	}
	return ""
}

func sortedNumbers(prs map[int]*pr) []int {
	ns := make([]int, 0, len(prs))
	for n := range prs {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}
