package stats

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/marker"
)

// tally adds up what was read, per repository and over all of them.
type tally struct {
	o   Options
	r   *Report
	all *scope
	// cost is every cost added so far: a report whose cost would make it
	// non-finite is refused, so no sum below can overflow either (costs
	// are never negative, and every other sum is part of this one).
	cost float64
}

// scope is the figures of one pull request, one repository, or all.
type scope struct {
	byName    map[string]*Persona
	validator Persona
	totals    Totals
}

func newScope() *scope {
	return &scope{byName: map[string]*Persona{}, validator: Persona{Name: "validator"}}
}

func (s *scope) persona(name string) *Persona {
	name = cmp.Or(name, Unattributed)
	if s.byName[name] == nil {
		s.byName[name] = &Persona{Name: name}
	}
	return s.byName[name]
}

func newTally(o Options) *tally {
	return &tally{o: o, all: newScope(), r: &Report{
		Org: o.Org, Since: o.Since, Until: o.Until, BotLogin: o.BotLogin,
		MinFindings: o.MinFindings, MinRate: o.MinRate, serverURL: o.ServerURL,
	}}
}

func (t *tally) notRead(full string, err error) {
	t.r.NotRead = append(t.r.NotRead, full+": "+err.Error())
}

// repository adds one repository's pull requests.
func (t *tally) repository(full string, prs map[int]*pr) {
	rs := newScope()
	for _, n := range sortedNumbers(prs) {
		s, cost, problem := pull(full, n, prs[n], t.o)
		if problem == "" && !finite(t.cost+cost) {
			problem = fmt.Sprintf("its recorded cost (%g US dollars) makes the period's total cost not a finite number", cost)
		}
		for _, why := range prs[n].ignored {
			t.r.NotOurs = append(t.r.NotOurs, fmt.Sprintf("%s#%d: %s", full, n, why))
		}
		if problem != "" {
			s = newScope()
			s.totals.PullRequests, s.totals.UnreadableReports = 1, 1
			t.r.Unreadable = append(t.r.Unreadable, fmt.Sprintf("%s#%d: %s", full, n, problem))
		} else {
			t.cost += cost
		}
		s.totals.NotOurs = len(prs[n].ignored) // counted whatever became of the report beside them
		rs.merge(s)
		t.all.merge(s)
	}
	rs.finish()
	t.r.Repositories = append(t.r.Repositories, RepositoryFigures{Name: full, Totals: rs.totals})
}

// report finishes the figures over every repository.
func (t *tally) report() *Report {
	s := t.all
	s.finish()
	r := t.r
	r.Totals = s.totals
	for _, name := range s.names() {
		r.Personas = append(r.Personas, *s.byName[name])
	}
	if s.validator.Calls > 0 || s.validator.Reviews > 0 {
		v := s.validator
		r.Validator = &v
	}
	r.judge()
	return r
}

// pull is one pull request's figures and cost, or why its report is
// left out.
func pull(full string, n int, p *pr, o Options) (s *scope, cost float64, problem string) {
	s = newScope()
	s.totals.PullRequests = 1
	switch {
	case p.report == nil || p.report.comment.UpdatedAt.Before(o.Since):
		s.totals.WithoutReport = 1
		return s, 0, ""
	case p.report.err != nil:
		return s, 0, p.report.err.Error()
	}
	m := p.report.meta
	s.totals.Reviewed = 1
	if m.Reviews == 0 {
		// Written before release 3 (every later report counts its
		// reviews, even one that made no model call and so has no usage
		// entry), or trimmed of its totals to fit: its findings count,
		// its usage and what became of its findings are not recorded.
		s.totals.OlderReports = 1
		s.totals.Reviews = max(len(m.Heads), 1)
		for _, f := range m.Findings {
			s.persona(f.Reviewer).Posted++
		}
	} else {
		s.totals.Reviews = m.Reviews
		for _, u := range m.Usage {
			s.persona(u.Name).addUsage(u)
			cost += u.Cost
		}
		if m.ValidatorUsage != nil {
			s.validator.addUsage(*m.ValidatorUsage)
			cost += m.ValidatorUsage.Cost
		}
		if !finite(cost) {
			return s, 0, fmt.Sprintf("its recorded costs add up to %g, not a finite number", cost)
		}
		incremental(s, m)
	}
	explicit := dismissals(s, full, n, m)
	outcomes(s, p, m, explicit)
	return s, cost, ""
}

// dismissals counts the pull request's explicit dismissals, each credited
// to its finding's first reviewer, and returns their fingerprints. A
// dismissal that lapsed (its lines changed and a review judged the
// finding afresh) was still made, and counts.
func dismissals(s *scope, full string, n int, m marker.Meta) map[string]bool {
	fps := map[string]bool{}
	for _, d := range m.Dismissals {
		if fps[d.Fingerprint] {
			continue
		}
		fps[d.Fingerprint] = true
		p := s.persona(d.Reviewer)
		p.Dismissed++
		p.DismissedExplicitly++
		p.Dismissals = append(p.Dismissals, Dismissal{Repository: full, PullRequest: n, ID: d.ID, Severity: d.Severity,
			Title: d.Title, By: d.By, At: d.At, Reason: d.Reason, Lapsed: !d.Applies()})
	}
	return fps
}

// incremental records whether the pull request got an incremental
// re-review, the only kind that can find a finding acted on: if it did,
// its persona's posted findings count towards the acted-on rate.
// A report written before release 4 does not count them; a finding it
// records as acted on is proof enough of one.
func incremental(s *scope, m marker.Meta) {
	n := m.Incremental
	if n == 0 && (len(m.Resolved) > 0 || slices.ContainsFunc(m.Usage, func(u marker.Usage) bool { return u.ActedOn > 0 })) {
		n = 1
	}
	if n == 0 {
		return
	}
	s.totals.IncrementalPRs, s.totals.IncrementalReviews = 1, n
	for _, u := range m.Usage {
		s.persona(u.Name).Judgeable = add(s.persona(u.Name).Judgeable, u.Posted)
	}
}

// outcomes counts the thumbs on the pull request's inline comments and
// the findings dismissed: by a thumbs-down that outweighs the thumbs-up,
// or still posted, unchanged, when it merged and no one gave it a
// thumbs-up (a finding a person agreed with and merged as it was is a
// finding accepted, not dismissed). A finding dismissed explicitly counts
// once, as that.
func outcomes(s *scope, p *pr, m marker.Meta, explicit map[string]bool) {
	reviewerOf := map[string]string{}
	counted := map[string]bool{} // finding keys an explicit dismissal counted
	for _, f := range m.Findings {
		if f.Inline != "" {
			reviewerOf[f.Inline] = f.Reviewer
		}
		if explicit[f.Fingerprint] {
			counted[cmp.Or(f.Inline, "finding:"+f.Fingerprint)] = true
		}
	}
	for _, f := range m.Resolved {
		if f.Inline != "" {
			reviewerOf[f.Inline] = f.Reviewer
		}
	}
	dismissed := map[string]string{} // finding key → reviewer
	liked := map[string]bool{}       // inline fingerprints with a thumbs-up
	for _, ic := range p.inline {
		who, known := reviewerOf[ic.fingerprint]
		if !known {
			who = ic.reviewer
		}
		if ic.up > 0 {
			s.persona(who).ThumbsUp++
			liked[ic.fingerprint] = true
		}
		if ic.down > 0 {
			s.persona(who).ThumbsDown++
		}
		if ic.down > ic.up && ic.resolvedIn == "" && !counted[ic.fingerprint] {
			dismissed[ic.fingerprint] = who
		}
	}
	if p.summary.Merged && p.summary.HeadSHA == m.HeadSHA {
		for _, f := range m.Findings {
			key := cmp.Or(f.Inline, "finding:"+f.Fingerprint)
			if _, ok := dismissed[key]; !ok && !liked[key] && !counted[key] {
				dismissed[key] = f.Reviewer
			}
		}
	}
	for _, who := range dismissed {
		s.persona(who).Dismissed++
	}
}

// merge adds o's figures to s, saturating.
func (s *scope) merge(o *scope) {
	for name, p := range o.byName {
		s.persona(name).merge(p)
	}
	s.validator.merge(&o.validator)
	t, u := &s.totals, o.totals
	t.PullRequests = add(t.PullRequests, u.PullRequests)
	t.Reviewed = add(t.Reviewed, u.Reviewed)
	t.WithoutReport = add(t.WithoutReport, u.WithoutReport)
	t.OlderReports = add(t.OlderReports, u.OlderReports)
	t.UnreadableReports = add(t.UnreadableReports, u.UnreadableReports)
	t.NotOurs = add(t.NotOurs, u.NotOurs)
	t.Reviews = add(t.Reviews, u.Reviews)
	t.IncrementalPRs = add(t.IncrementalPRs, u.IncrementalPRs)
	t.IncrementalReviews = add(t.IncrementalReviews, u.IncrementalReviews)
}

func (s *scope) names() []string {
	names := make([]string, 0, len(s.byName))
	for n := range s.byName {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		p, q := s.byName[a], s.byName[b]
		return cmp.Or(cmp.Compare(q.Posted, p.Posted), cmp.Compare(q.Calls, p.Calls), strings.Compare(a, b))
	})
	return names
}

// finish computes the rates and the totals.
func (s *scope) finish() {
	all := make([]*Persona, 0, len(s.byName)+1)
	for _, p := range s.byName {
		p.finish()
		all = append(all, p)
	}
	s.validator.finish()
	if s.validator.Calls > 0 || s.validator.Reviews > 0 {
		all = append(all, &s.validator)
	}
	s.totals.total(all)
}
