package report

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

// Rendering limits for model text inside a cell or list item, in runes.
const (
	titleMax  = 200
	whyMax    = 1500
	fixMax    = 300 // a longer suggested fix is left out of the table
	itemMax   = 500
	reasonMax = 300
	listCap   = 50 // items shown per Coverage list before "and N more"
)

// Lines the report uses more than once.
const (
	noFindingsLine = "No findings reached confidence anchor 75."
	couldNotRun    = "**The review could not run, so this pull request was not checked.** " +
		"This is not a clean result; see Coverage for the failures."
	incompleteLine = "**Review incomplete:** this review did not finish, so findings may be missing. Not done:"
	tableHeader    = "| # | File | Issue | Reviewer | Confidence |\n|---|---|---|---|---|\n"
)

// severityHeadings introduce each severity's table (SPEC section 2 meanings).
var severityHeadings = map[finding.Severity]string{
	finding.P0: "P0: breakage, exploitable hole or data loss",
	finding.P1: "P1: defects normal use will hit",
	finding.P2: "P2: edge cases, performance, maintainability traps",
	finding.P3: "P3: low impact",
}

// Comment renders the report comment (SPEC section 3): the marker line, the
// metadata line, a heading, the team, the findings as one table per
// severity, the collapsed Coverage section and the verdict, last.
//
// It returns "" when there is nothing to post: for a skipped Result, and
// with o.Quiet when no finding qualifies and the review did run (a review
// that could not run is always reported). The body never exceeds o.MaxLen
// runes: Coverage is trimmed first, then the lowest findings, and the body
// says what was trimmed.
func Comment(r review.Result, o Options) string {
	if r.Skipped {
		return ""
	}
	o = o.normalize(r)
	if o.Quiet && len(r.Findings) == 0 && !r.AllFailed {
		return ""
	}
	return newDoc(r, o).fit(view{marker: true}, o.MaxLen, inRunes)
}

// Text renders the report for a terminal (the review command's output):
// the comment as its reader sees it, without the hidden marker and
// metadata lines, which only the next run reads. o.Quiet does not apply.
func Text(r review.Result, o Options) string {
	o = o.normalize(r)
	if r.Skipped {
		return skippedLine(r, o) + "\n"
	}
	return newDoc(r, o).fit(view{}, o.MaxLen, inRunes)
}

// JobSummary renders the report for the Actions job summary: the comment
// body (without the hidden lines) plus the P0 findings below the comment
// bar. For a skipped Result it is one line naming the rule. o.Quiet does
// not apply: the job summary always says what happened.
func JobSummary(r review.Result, o Options) string {
	o = o.normalize(r)
	if r.Skipped {
		return skippedLine(r, o) + "\n"
	}
	return newDoc(r, o).fit(view{belowBar: true}, JobSummaryMax, inRunes)
}

// skippedLine is the one-line account of a Stage 1 skip.
func skippedLine(r review.Result, o Options) string {
	line := fmt.Sprintf("anchor-review skipped this pull request (rule %d, %s)", r.SkipRule, skipRuleName(r.SkipRule))
	if reason := Sanitize(r.SkipReason, o); reason != "" {
		line += ": " + clip(reason, reasonMax)
	}
	if r.SkipRule == skip.RuleReviewed && r.Unreviewed != nil {
		return line + "; the check on the new head is not green until they are reviewed."
	}
	if r.SkipRule == skip.RuleReviewed {
		if c := r.Carried; c != nil {
			line += fmt.Sprintf("; the verdict of the review of %s is carried forward (%s, %s)",
				shaText(c.HeadSHA, o), carriedLabel(c.Verdict), Sanitize(c.Conclusion, o))
		}
		line += "; to review the new commits, run the workflow by hand (`workflow_dispatch`)"
	}
	return line + "."
}

// view selects what a rendering contains.
type view struct {
	marker   bool // the marker and metadata lines (the comment)
	belowBar bool // the "P0 below the comment bar" section (check, job summary)
}

// doc is a Result prepared for rendering: everything sanitized once, so
// trimming can re-assemble cheaply.
type doc struct {
	r          review.Result
	o          Options
	conclusion string
	blocking   int
	rows       []row // r.Findings, in order
	below      []row // r.BelowBar
	// ids are the findings' short ids by fingerprint (posted and
	// dismissed findings together, as the inline comments count them).
	ids map[string]string
	// metaLine is the rendered metadata line; fit drops its findings
	// record (Truncated: the next run reviews the whole PR) when even the
	// smallest report would not fit with it.
	metaLine string
}

// row is one rendered table row and the finding's severity and number.
type row struct {
	severity finding.Severity
	number   int
	text     string
}

func newDoc(r review.Result, o Options) *doc {
	d := &doc{r: r, o: o}
	d.conclusion, d.blocking = Conclusion(r, o.FailOn)
	d.ids = finding.IDs(append(slices.Clip(r.Findings), r.Dismissed...))
	for _, f := range r.Findings {
		d.rows = append(d.rows, row{f.Severity, f.Number, d.row(f, strconv.Itoa(f.Number))})
	}
	for _, f := range r.BelowBar {
		d.below = append(d.below, row{f.Severity, f.Number, d.row(f, "–")})
	}
	return d
}

// fit renders the view within max units (runes or bytes): whole if it fits, else with
// Coverage replaced by a note, else keeping as many findings as fit (the
// lowest go first; findings are sorted most severe first), else cut.
func (d *doc) fit(v view, max int, u unit) string {
	if v.marker {
		m := d.meta()
		d.metaLine = marker.FormatMeta(m)
		if len(m.Findings) > 0 && u.size(d.render(v, len(d.rows), false)) > max {
			// The rows shown come before the explanations the hidden
			// line records for later runs.
			m = m.WithoutExplanations()
			d.metaLine = marker.FormatMeta(m)
		}
		if u.size(d.render(v, 0, false)) > max && (m.Reviews != 0 || m.Usage != nil || m.Resolved != nil || m.ValidatorUsage != nil) {
			// The running totals for stats go first: losing them costs a
			// figure, losing the findings costs the next run its carry.
			// The review count goes with them, so the report reads as one
			// whose totals are not recorded (as before release 3), and the
			// next run starts the totals afresh rather than adding to a
			// count its usage does not cover.
			m.Reviews, m.Usage, m.Resolved, m.ValidatorUsage = 0, nil, nil, nil
			d.metaLine = marker.FormatMeta(m)
		}
		if len(m.Findings) > 0 && u.size(d.render(v, 0, false)) > max {
			m.Findings, m.Truncated = nil, true
			d.metaLine = marker.FormatMeta(m)
		}
	}
	all := len(d.rows)
	if s := d.render(v, all, true); u.size(s) <= max {
		return s
	}
	if s := d.render(v, all, false); u.size(s) <= max {
		return s
	}
	// Binary search for the most findings that fit; size grows with keep.
	lo, hi := 0, all-1 // invariant: keep = all does not fit
	if u.size(d.render(v, 0, false)) > max {
		return truncate(d.render(v, 0, false), max, u)
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if u.size(d.render(v, mid, false)) <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return d.render(v, lo, false)
}

// render assembles the document keeping the first keep findings, with the
// full Coverage section or a note in its place.
func (d *doc) render(v view, keep int, fullCoverage bool) string {
	r := d.r
	var b strings.Builder
	if v.marker {
		b.WriteString(marker.Report + "\n")
		b.WriteString(d.metaLine + "\n")
	}
	b.WriteString("## anchor-review: " + d.headline() + "\n\n")
	b.WriteString(d.team() + "\n\n")
	if r.AllFailed {
		b.WriteString(couldNotRun + "\n\n")
		if r.Failure != "" {
			b.WriteString("Reason: " + clip(Sanitize(r.Failure, d.o), 500) + "\n\n")
		}
	}
	switch {
	case len(d.rows) == 0 && !r.AllFailed && len(r.Dismissed) > 0:
		b.WriteString("No open findings: every finding at anchor 75 or higher was dismissed (listed below).\n\n")
	case len(d.rows) == 0 && !r.AllFailed:
		b.WriteString(noFindingsLine + "\n\n")
	}
	writeTables(&b, d.rows[:keep])
	if v.belowBar && len(d.below) > 0 {
		b.WriteString("### P0 below the comment bar\n\n")
		b.WriteString("Reported at anchor 50 and kept only because a P0 must not vanish silently: " +
			"not posted in the comment and not counted toward the conclusion.\n\n")
		b.WriteString(tableHeader)
		for _, rw := range d.below {
			b.WriteString(rw.text)
		}
		b.WriteString("\n")
	}
	d.dismissals(&b)
	d.submodules(&b)
	if note := d.trimNote(keep, fullCoverage); note != "" {
		b.WriteString(note + "\n\n")
	}
	d.inlineNote(&b)
	b.WriteString("<details><summary>Coverage</summary>\n\n")
	switch {
	case fullCoverage && d.o.Amend != nil:
		d.earlierCoverage(&b)
	case fullCoverage:
		d.coverage(&b)
	default:
		b.WriteString("Coverage details were left out to fit GitHub's size limit; the job summary has them.\n\n")
	}
	b.WriteString("</details>\n\n")
	if !r.AllFailed && (r.Partial || effectiveVerdict(r) == review.Degraded) {
		b.WriteString(incompleteLine + "\n\n")
		d.incompleteList(&b)
	}
	b.WriteString("**Verdict: " + verdictLabel(r) + "**\n")
	return b.String()
}

func (d *doc) headline() string {
	switch {
	case d.r.AllFailed:
		return "review could not run"
	case len(d.rows) == 0 && len(d.r.Dismissed) > 0:
		return "no open findings, " + fmtInt(len(d.r.Dismissed)) + " dismissed"
	case len(d.rows) == 0:
		return "no findings"
	case len(d.r.Dismissed) > 0:
		return plural(len(d.rows), "finding", "findings") + ", " + fmtInt(len(d.r.Dismissed)) + " dismissed"
	}
	return plural(len(d.rows), "finding", "findings")
}

// team is the one-line announcement: always-on personas together, then
// each conditional persona with the reason it was selected.
func (d *doc) team() string {
	if a := d.o.Amend; a != nil && a.Team != "" {
		return a.Team // the earlier review's team, as it was rendered
	}
	var always, cond []string
	for _, p := range d.r.Coverage.Personas {
		name := Sanitize(p.Name, d.o)
		reason := Sanitize(p.Reason, d.o)
		if strings.EqualFold(strings.TrimSpace(p.Reason), persona.AlwaysOnReason) {
			always = append(always, name)
			continue
		}
		if reason == "" {
			reason = "selected"
		}
		cond = append(cond, name+" ("+clip(reason, reasonMax)+")")
	}
	if len(always)+len(cond) == 0 {
		return "**Team:** no persona ran."
	}
	var parts []string
	if len(always) > 0 {
		parts = append(parts, strings.Join(always, ", ")+" (always on)")
	}
	parts = append(parts, cond...)
	return "**Team:** " + strings.Join(parts, "; ") + "."
}

// writeTables writes one table per severity, in the findings' order; the
// numbers are the findings' own, so they never restart per table.
func writeTables(b *strings.Builder, rows []row) {
	// Rows arrive sorted by severity; group consecutive runs but also
	// tolerate an unsorted input by grouping on first appearance.
	var order []finding.Severity
	groups := map[finding.Severity][]row{}
	for _, rw := range rows {
		if _, ok := groups[rw.severity]; !ok {
			order = append(order, rw.severity)
		}
		groups[rw.severity] = append(groups[rw.severity], rw)
	}
	slices.SortStableFunc(order, func(a, b finding.Severity) int { return cmp.Compare(a.Rank(), b.Rank()) })
	for _, sev := range order {
		heading, ok := severityHeadings[sev]
		if !ok {
			heading = "Other severity"
		}
		b.WriteString("### " + heading + "\n\n" + tableHeader)
		for _, rw := range groups[sev] {
			b.WriteString(rw.text)
		}
		b.WriteString("\n")
	}
}

// TestGapLine is the one line a finding carries for the test gap folded
// into it ("No test covers this: <the gap's title>"), sanitized; "" when
// none was folded. The report row and the inline comment both show it.
func TestGapLine(f finding.Finding, o Options) string {
	if f.TestGap == nil {
		return ""
	}
	title := clip(Sanitize(f.TestGap.Title, o), titleMax)
	if title == "" {
		return ""
	}
	return "No test covers this: " + title
}

// row renders one finding as a table row.
func (d *doc) row(f finding.Finding, number string) string {
	issue := "**" + clip(Sanitize(f.Title, d.o), titleMax) + "**"
	if id := d.ids[finding.Fingerprint(f)]; id != "" && number != "–" {
		// The id a person answers the finding with (SPEC 9.1).
		issue = "`" + id + "` " + issue
	}
	if why := Sanitize(f.WhyItMatters, d.o); why != "" {
		issue += "<br>" + clip(why, whyMax)
	}
	if fix := Sanitize(f.SuggestedFix, d.o); fix != "" && utf8.RuneCountInString(fix) <= fixMax {
		issue += "<br>Suggested fix: " + fix
	}
	if gap := TestGapLine(f, d.o); gap != "" {
		issue += "<br>" + gap
	}
	if f.FoundOn != "" && f.FoundOn != d.o.HeadSHA {
		issue += "<br>_Carried from the review of " + shaText(f.FoundOn, d.o) + "._"
	}
	if note := DismissedBeforeLine(f, d.o); note != "" {
		issue += "<br>" + note
	}
	if u := d.inlineLink(f.Number); u != "" {
		issue += "<br>[On the line](" + u + ")"
	}
	var reviewers []string
	for _, name := range f.Reviewers {
		reviewers = append(reviewers, Sanitize(name, d.o))
	}
	confidence := strconv.Itoa(f.Confidence)
	if f.Promoted {
		confidence += " (promoted)"
	}
	return "| " + number + " | " + d.fileCell(f.File, f.Line) + " | " + issue + " | " +
		strings.Join(reviewers, ", ") + " | " + confidence + " |\n"
}

// fileCell links path:line to the head commit with one line of context on
// each side. Without a head SHA (a local diff) it is plain text.
func (d *doc) fileCell(path string, line int) string {
	line = max(line, 1)
	text := Code(fmt.Sprintf("%s:%d", path, line), d.o)
	link := d.permalink(path, line)
	if link == "" {
		return text
	}
	return "[" + text + "](" + link + ")"
}

// permalink is {ServerURL}/{Repo}/blob/{HeadSHA}/{path}#L{a}-L{b}, every
// path segment escaped; "" when the repository or head SHA is unknown.
func (d *doc) permalink(path string, line int) string {
	if d.o.Repo == "" || d.o.HeadSHA == "" || d.o.Local {
		return ""
	}
	return d.o.ServerURL + "/" + escapeSegments(d.o.Repo) + "/blob/" + url.PathEscape(d.o.HeadSHA) + "/" +
		escapeSegments(path) + fmt.Sprintf("#L%d-L%d", max(1, line-1), line+1)
}

func escapeSegments(p string) string {
	segs := strings.Split(strings.TrimLeft(p, "/"), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
