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
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/inline"
	"github.com/anchor-review/anchor-review/pkg/marker"
)

// Source is the GitHub API as stats reads it (pkg/github.Client).
type Source interface {
	EachPullUpdatedSince(ctx context.Context, owner, repo string, since time.Time, visit func(github.PullSummary) error) error
	EachRepoIssueComment(ctx context.Context, owner, repo string, since time.Time, visit func(github.Comment) error) error
	EachRepoReviewComment(ctx context.Context, owner, repo string, since time.Time, visit func(github.Comment) error) error
	ReviewComments(ctx context.Context, owner, repo string, n int) ([]github.Comment, error)
}

// Defaults of the suggestion's thresholds.
const (
	// DefaultMinFindings is the fewest posted findings a persona needs
	// before stats suggests dropping it: below, a low rate is noise.
	DefaultMinFindings = 20
	// DefaultMinRate is the acted-on rate below which a persona is
	// suggested for dropping.
	DefaultMinRate = 0.10
)

// Options say what to read and how to judge it.
type Options struct {
	Owner, Repo string
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
	// Known are the persona names a personas configuration may list
	// besides the ones seen (the shipped personas), in their order.
	Known []string
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
	if o.Progress == nil {
		o.Progress = func(string, ...any) {}
	}
}

// pr is what stats keeps of one pull request while it reads.
type pr struct {
	summary github.PullSummary
	report  *reportSeen
	inline  []inlineSeen
}

type reportSeen struct {
	updated time.Time
	meta    marker.Meta
	err     error
}

// inlineSeen is one of our inline comments: its finding and its thumbs.
type inlineSeen struct {
	fingerprint, resolvedIn, reviewer string
	up, down                          int
}

// Collect reads the period's pull requests, reports and inline comments
// from src and adds them up.
func Collect(ctx context.Context, src Source, o Options) (*Report, error) {
	o.defaults()
	prs := map[int]*pr{}
	err := src.EachPullUpdatedSince(ctx, o.Owner, o.Repo, o.Since, func(p github.PullSummary) error {
		prs[p.Number] = &pr{summary: p}
		if len(prs)%100 == 0 {
			o.Progress("stats: %d pull requests updated since %s so far", len(prs), o.Since.Format(time.DateOnly))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	o.Progress("stats: %d pull requests updated since %s", len(prs), o.Since.Format(time.DateOnly))

	seen := 0
	err = src.EachRepoIssueComment(ctx, o.Owner, o.Repo, o.Since, func(c github.Comment) error {
		if seen++; seen%1000 == 0 {
			o.Progress("stats: %d comments read", seen)
		}
		p := prs[c.Issue]
		if p == nil || !strings.EqualFold(c.Author, o.BotLogin) || !marker.HasReport(c.Body) {
			return nil
		}
		if p.report != nil && p.report.updated.After(c.UpdatedAt) {
			return nil // a second report (a race long ago): the newest counts
		}
		m, err := marker.ParseReport(c.Body)
		p.report = &reportSeen{updated: c.UpdatedAt, meta: m, err: err}
		return nil
	})
	if err != nil {
		return nil, err
	}
	reports := 0
	for _, p := range prs {
		if p.report != nil {
			reports++
		}
	}
	o.Progress("stats: %d comments read, %d reports of %s", seen, reports, o.BotLogin)

	// An inline comment older than the period on a pull request reviewed
	// in it is not in the repository's listing: those pull requests are
	// read whole below, and only the others take their comments from it.
	readWhole := func(p *pr) bool { return p.report != nil && p.summary.CreatedAt.Before(o.Since) }
	err = src.EachRepoReviewComment(ctx, o.Owner, o.Repo, o.Since, func(c github.Comment) error {
		if p := prs[c.Issue]; p != nil && p.report != nil && !readWhole(p) {
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
		cs, err := src.ReviewComments(ctx, o.Owner, o.Repo, n)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if ic, ok := ours(c, o.BotLogin); ok {
				p.inline = append(p.inline, ic)
			}
		}
		if older++; older%100 == 0 {
			o.Progress("stats: inline comments of %d pull requests opened before the period read", older)
		}
	}
	return add(prs, o), nil
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

// add turns what was read into the report.
func add(prs map[int]*pr, o Options) *Report {
	r := &Report{
		Repository: o.Owner + "/" + o.Repo, Since: o.Since, Until: o.Until, BotLogin: o.BotLogin,
		MinFindings: o.MinFindings, MinRate: o.MinRate,
	}
	byName := map[string]*Persona{}
	persona := func(name string) *Persona {
		name = cmp.Or(name, Unattributed)
		if byName[name] == nil {
			byName[name] = &Persona{Name: name}
		}
		return byName[name]
	}
	validator := &Persona{Name: "validator"}
	for _, n := range sortedNumbers(prs) {
		p := prs[n]
		r.Totals.PullRequests++
		switch {
		case p.report == nil || p.report.updated.Before(o.Since):
			r.Totals.WithoutReport++
			continue
		case p.report.err != nil:
			r.Totals.UnreadableReports++
			r.Unreadable = append(r.Unreadable, fmt.Sprintf("#%d: %v", n, p.report.err))
			continue
		}
		m := p.report.meta
		r.Totals.Reviewed++
		if m.Reviews == 0 {
			// Written before release 3 (every later report counts its
			// reviews, even one that made no model call and so has no
			// usage entry), or trimmed of its totals to fit: its findings
			// count, its usage and what became of its findings are not
			// recorded.
			r.Totals.OlderReports++
			r.Totals.Reviews += max(len(m.Heads), 1)
			for _, f := range m.Findings {
				persona(f.Reviewer).Posted++
			}
		} else {
			r.Totals.Reviews += m.Reviews
			for _, u := range m.Usage {
				persona(u.Name).addUsage(u)
			}
			if m.ValidatorUsage != nil {
				validator.addUsage(*m.ValidatorUsage)
			}
		}
		reviewerOf := map[string]string{}
		for _, f := range m.Findings {
			if f.Inline != "" {
				reviewerOf[f.Inline] = f.Reviewer
			}
		}
		for _, f := range m.Resolved {
			if f.Inline != "" {
				reviewerOf[f.Inline] = f.Reviewer
			}
		}
		dismissed := map[string]string{} // finding key → reviewer
		for _, ic := range p.inline {
			who, known := reviewerOf[ic.fingerprint]
			if !known {
				who = ic.reviewer
			}
			if ic.up > 0 {
				persona(who).ThumbsUp++
			}
			if ic.down > 0 {
				persona(who).ThumbsDown++
				if ic.resolvedIn == "" {
					dismissed[ic.fingerprint] = who
				}
			}
		}
		if p.summary.Merged && p.summary.HeadSHA == m.HeadSHA {
			for _, f := range m.Findings {
				key := cmp.Or(f.Inline, "finding:"+f.Fingerprint)
				if _, ok := dismissed[key]; !ok {
					dismissed[key] = f.Reviewer
				}
			}
		}
		for _, who := range dismissed {
			persona(who).Dismissed++
		}
	}
	for _, p := range byName {
		p.finish()
		r.Personas = append(r.Personas, *p)
	}
	slices.SortFunc(r.Personas, func(a, b Persona) int {
		return cmp.Or(cmp.Compare(b.Posted, a.Posted), cmp.Compare(b.Calls, a.Calls), strings.Compare(a.Name, b.Name))
	})
	if validator.Calls > 0 || validator.Reviews > 0 {
		validator.finish()
		r.Validator = validator
	}
	r.total()
	r.suggest(o.Known)
	return r
}
