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
	if len(d.rows) == 0 && !r.AllFailed {
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
	d.submodules(&b)
	if note := d.trimNote(keep, fullCoverage); note != "" {
		b.WriteString(note + "\n\n")
	}
	d.inlineNote(&b)
	b.WriteString("<details><summary>Coverage</summary>\n\n")
	if fullCoverage {
		d.coverage(&b)
	} else {
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

// maxSubmodules is how many moved submodule pointers the report names one
// by one.
const maxSubmodules = 20

// submodules names the moved submodule pointers, outside Coverage so no
// trimming hides them: the code they point at is another repository's, so
// nobody here reviewed it; like a dependency bump, they do not change the
// conclusion.
func (d *doc) submodules(b *strings.Builder) {
	sm := d.r.Submodules
	if len(sm) == 0 {
		return
	}
	fmt.Fprintf(b, "**Submodule pointers moved:** %s, not reviewed: the code they point at is another repository's. "+
		"Like a dependency bump, this does not change the conclusion; review the new commits there.\n\n",
		plural(len(sm), "pointer", "pointers"))
	var items []string
	for _, m := range sm[:min(len(sm), maxSubmodules)] {
		from, to := "(new)", "(removed)"
		if m.From != "" {
			from = shaText(m.From, d.o)
		}
		if m.To != "" {
			to = shaText(m.To, d.o)
		}
		items = append(items, clip(Sanitize(m.Path, d.o), itemMax)+": "+from+" → "+to)
	}
	if n := len(sm) - maxSubmodules; n > 0 {
		items = append(items, fmt.Sprintf("and %d more (Coverage lists them)", n))
	}
	writeList(b, items)
}

// meta is the metadata line's content: the verdict, the reviewed heads and
// every posted finding (all of them, whatever trimming leaves in the
// body), so the next run can carry them.
func (d *doc) meta() marker.Meta {
	r := d.r
	m := marker.Meta{
		Version:    marker.Version,
		HeadSHA:    d.o.HeadSHA,
		BaseRef:    r.BaseRef,
		Scope:      r.ScopeKey,
		Verdict:    string(effectiveVerdict(r)),
		Conclusion: d.conclusion,
		Blocking:   d.blocking,
		Heads:      []string{d.o.HeadSHA},
		Incomplete: r.Partial || r.AllFailed || effectiveVerdict(r) == review.Degraded,
	}
	if r.Rereview != nil && len(r.Rereview.Heads) > 0 {
		m.Heads = r.Rereview.Heads
	}
	for _, f := range r.Findings {
		commit := f.FoundOn
		if commit == "" {
			commit = d.o.HeadSHA
		}
		reviewer := ""
		if len(f.Reviewers) > 0 {
			reviewer = f.Reviewers[0]
		}
		// Model text (the title) and PR text (the path) are redacted like
		// everything else the comment holds: the hidden line is public too.
		mf := marker.Finding{
			File: Redact(f.File, d.o.Secrets), Line: max(f.Line, 1), Severity: string(f.Severity), Anchor: f.Confidence,
			Fingerprint: finding.Fingerprint(f), Title: Redact(f.Title, d.o.Secrets), Reviewer: Redact(reviewer, d.o.Secrets), Commit: commit,
			// What the row shows besides the title, so a carried finding
			// still explains itself (FormatMeta bounds the line). Defused
			// as plain text (no images, no off-host links, no live
			// mentions, no marker copies, no secrets) but not escaped: the
			// run that carries it renders it with Sanitize like any text.
			Why: sanitizePlain(f.WhyItMatters, d.o), Fix: sanitizePlain(f.SuggestedFix, d.o),
		}
		if d.o.Inline != nil {
			mf.Inline = d.o.Inline.Fingerprints[f.Number]
		}
		m.Findings = append(m.Findings, mf)
	}
	d.statsMeta(&m)
	return m
}

// inlineLink is finding n's line comment URL when it points at the
// server's own host and cannot break the Markdown link; else "".
func (d *doc) inlineLink(n int) string {
	if d.o.Inline == nil || n < 1 {
		return ""
	}
	u := d.o.Inline.Links[n]
	if u == "" || !sameHost(u, d.o.host()) || strings.ContainsAny(u, " ()<>|[]\"\n") {
		return ""
	}
	return u
}

// inlineNote says how many findings went on their lines and which did not,
// outside Coverage so trimming never hides a partial failure.
func (d *doc) inlineNote(b *strings.Builder) {
	in := d.o.Inline
	if in == nil || (len(d.r.Findings) == 0 && len(in.NotPosted) == 0) {
		return
	}
	linked := 0
	for _, f := range d.r.Findings {
		if d.inlineLink(f.Number) != "" {
			linked++
		}
	}
	fmt.Fprintf(b, "**Inline comments:** %s of %s on their lines.", fmtInt(linked), plural(len(d.r.Findings), "finding", "findings"))
	if len(in.NotPosted) == 0 {
		b.WriteString("\n\n")
		return
	}
	b.WriteString(" Not posted on a line (in this report only):\n\n")
	var items []string
	for _, n := range in.NotPosted {
		items = append(items, clip(Sanitize(n, d.o), itemMax))
	}
	writeList(b, items)
}

// trimNote says what structural trimming left out.
func (d *doc) trimNote(keep int, fullCoverage bool) string {
	if keep == len(d.rows) && fullCoverage {
		return ""
	}
	var parts []string
	if !fullCoverage {
		parts = append(parts, "the Coverage details")
	}
	if dropped := d.rows[keep:]; len(dropped) > 0 {
		first, last := dropped[0].number, dropped[len(dropped)-1].number
		span := fmt.Sprintf("#%d", first)
		if len(dropped) > 1 {
			span = fmt.Sprintf("#%d–#%d", first, last)
		}
		parts = append(parts, fmt.Sprintf("the %s with the lowest severity (%s)", plural(len(dropped), "finding", "findings"), span))
	}
	return "_Trimmed to fit GitHub's size limit: " + strings.Join(parts, " and ") +
		" left out; the job summary and the check run list every finding._"
}

func (d *doc) headline() string {
	switch {
	case d.r.AllFailed:
		return "review could not run"
	case len(d.rows) == 0:
		return "no findings"
	}
	return plural(len(d.rows), "finding", "findings")
}

// team is the one-line announcement: always-on personas together, then
// each conditional persona with the reason it was selected.
func (d *doc) team() string {
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

// shaText renders a SHA read from metadata: short and in code when it
// looks like one, sanitized otherwise.
func shaText(sha string, o Options) string {
	if isHex(sha) && len(sha) >= 7 {
		return "`" + sha[:7] + "`"
	}
	if sha == "" {
		return "an earlier commit"
	}
	return clip(Sanitize(sha, o), 64)
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return s != ""
}

// coverage writes the body of the Coverage section.
func (d *doc) coverage(b *strings.Builder) {
	c := d.r.Coverage
	o := d.o

	failed := 0
	for _, p := range c.Personas {
		if p.Failed != "" {
			failed++
		}
	}
	fmt.Fprintf(b, "**Personas:** %s ran", plural(len(c.Personas), "persona", "personas"))
	if failed > 0 {
		fmt.Fprintf(b, ", %s failed", fmtInt(failed))
	}
	b.WriteString(".\n\n")
	var items []string
	for _, p := range c.Personas {
		item := Sanitize(p.Name, o) + ": " + clip(orDefault(Sanitize(p.Reason, o), "selected"), reasonMax)
		if p.Model != "" {
			item += " · model " + clip(Sanitize(p.Model, o), 80)
		}
		item += " · " + plural(p.Calls, "call", "calls") + " · " + plural(p.Findings, "finding", "findings")
		if p.Failed != "" {
			item += " · **failed:** " + clip(Sanitize(p.Failed, o), reasonMax)
		}
		items = append(items, item)
	}
	writeList(b, items)

	fmt.Fprintf(b, "**Gate (anchor %d):** ", finding.GateAnchor)
	anchors := sortedKeys(c.DroppedByAnchor)
	slices.Reverse(anchors)
	var gate []string
	for _, a := range anchors {
		if n := c.DroppedByAnchor[a]; n > 0 {
			gate = append(gate, fmt.Sprintf("%s at anchor %d", fmtInt(n), a))
		}
	}
	b.WriteString(joinOrNone(gate, "dropped ") + "\n\n")

	b.WriteString("**Synthesis drops:** ")
	var reasons []string
	for _, k := range sortedKeys(c.DroppedByReason) {
		if n := c.DroppedByReason[k]; n > 0 {
			reasons = append(reasons, clip(Sanitize(k, o), 80)+" "+fmtInt(n))
		}
	}
	b.WriteString(joinOrNone(reasons, "") + "\n\n")

	b.WriteString("**Demotions:** ")
	switch {
	case c.Demotions == 0:
		b.WriteString("none.")
	case d.r.Mode == review.ModeReportOnly:
		b.WriteString(plural(c.Demotions, "P2/P3 finding", "P2/P3 findings") +
			" from testing/maintainability only moved to testing gaps and residual risks.")
	default:
		b.WriteString(plural(c.Demotions, "P2/P3 finding", "P2/P3 findings") +
			" from testing/maintainability only dropped in comment mode.")
	}
	b.WriteString("\n\n")

	b.WriteString("**Validator:** ")
	switch {
	case c.ValidatorRan:
		fmt.Fprintf(b, "ran; %s validated, %s rejected or failed.", fmtInt(c.Validated), fmtInt(len(c.Rejections)))
	case d.r.Mode == review.ModeReportOnly:
		b.WriteString("skipped in report-only mode (nothing is posted).")
	default:
		b.WriteString("did not run.")
	}
	b.WriteString("\n\n")
	writeList(b, rejectionItems(c.Rejections, o, "no reason given"))

	if len(c.OverBudget) > 0 {
		fmt.Fprintf(b, "**Over the validator budget:** %s dropped without validation.\n\n",
			plural(len(c.OverBudget), "finding", "findings"))
		writeList(b, rejectionItems(c.OverBudget, o, "not validated"))
	}

	if len(c.NotReviewed) > 0 {
		fmt.Fprintf(b, "**Not reviewed:** %s.\n\n", plural(len(c.NotReviewed), "file", "files"))
		var files []string
		for _, e := range c.NotReviewed {
			files = append(files, clip(pathText(e.Path, o), itemMax)+": "+clip(orDefault(Sanitize(e.Reason, o), "excluded"), reasonMax))
		}
		writeList(b, files)
	} else {
		b.WriteString("**Not reviewed:** none.\n\n")
	}

	if len(d.r.Demoted) > 0 {
		b.WriteString("**Demoted findings:**\n\n")
		var dem []string
		for _, f := range d.r.Demoted {
			dem = append(dem, fmt.Sprintf("%s (%s, %s)", clip(Sanitize(f.Title, o), titleMax), Sanitize(string(f.Severity), o), Code(fmt.Sprintf("%s:%d", f.File, f.Line), o)))
		}
		writeList(b, dem)
	}
	writeNotes(b, "Testing gaps", d.r.TestingGaps, c.TestingGapsDropped, o)
	writeNotes(b, "Residual risks", d.r.ResidualRisks, c.ResidualRisksDropped, o)

	writeConfiguration(b, c, o)

	d.rereview(b)

	u := c.Usage
	fmt.Fprintf(b, "**Tokens:** %s prompt (%s cached), %s completion, %s.\n\n",
		fmtInt(u.PromptTokens), fmtInt(u.CachedTokens), fmtInt(u.CompletionTokens), plural(u.Calls, "call", "calls"))
	writeCost(b, d.r, o)
	if o.Version != "" {
		fmt.Fprintf(b, "**Reviewed by:** anchor-review %s.\n\n", clip(Sanitize(o.Version, o), 64))
	}
}

// writeNotes writes a list of the personas' notes, saying how many the
// review dropped as repeats or over its cap.
func writeNotes(b *strings.Builder, title string, notes []string, dropped int, o Options) {
	if len(notes) == 0 {
		return
	}
	fmt.Fprintf(b, "**%s:**\n\n", title)
	writeList(b, sanitizeAll(notes, o))
	if dropped > 0 {
		fmt.Fprintf(b, "(%s repeated or over the cap of %d not shown.)\n\n", fmtInt(dropped), review.MaxNotes)
	}
}

// rereview writes what a re-review of an already reviewed PR did: the
// reviewed range, the carried findings and the history of heads.
func (d *doc) rereview(b *strings.Builder) {
	rr := d.r.Rereview
	if rr == nil {
		return
	}
	o := d.o
	if rr.Incremental {
		fmt.Fprintf(b, "**Reviewed range:** the new commits only, %s..%s", shaText(rr.From, o), shaText(rr.To, o))
		if rr.Commits > 0 {
			fmt.Fprintf(b, " (%s)", plural(rr.Commits, "commit", "commits"))
		}
		b.WriteString(".\n\n")
		fmt.Fprintf(b, "**Carried findings:** %s carried with their lines untouched; %s whose lines changed checked again by the validator",
			fmtInt(rr.Carried), fmtInt(rr.Rechecked))
		if refuted := rr.Rechecked - rr.Confirmed - rr.Unchecked; rr.Rechecked > 0 {
			fmt.Fprintf(b, ": %s confirmed, %s no longer confirmed (gone; the validator's reasons are above)", fmtInt(rr.Confirmed), fmtInt(max(refuted, 0)))
		}
		if rr.Unchecked > 0 {
			fmt.Fprintf(b, " (%s could not be checked again and %s kept: **the review is incomplete**)",
				fmtInt(rr.Unchecked), map[bool]string{true: "is", false: "are"}[rr.Unchecked == 1])
		}
		if rr.Again > 0 {
			fmt.Fprintf(b, ", %s found again by this review", fmtInt(rr.Again))
		}
		b.WriteString(".\n\n")
		if len(rr.Gone) > 0 {
			fmt.Fprintf(b, "**Gone since the last review:** %s.\n\n", plural(len(rr.Gone), "finding", "findings"))
			writeList(b, rejectionItems(rr.Gone, o, "gone"))
		}
		if len(rr.OutsidePR) > 0 {
			fmt.Fprintf(b, "**Changed by the new commits but not by the pull request** (e.g. a merge of the base branch; not reviewed): %s.\n\n",
				plural(len(rr.OutsidePR), "file", "files"))
			var files []string
			for _, p := range rr.OutsidePR {
				files = append(files, clip(Sanitize(p, o), itemMax))
			}
			writeList(b, files)
		}
	} else {
		fmt.Fprintf(b, "**Reviewed range:** the whole pull request at %s (earlier report: %s; %s).\n\n",
			shaText(rr.To, o), shaText(rr.From, o), clip(orDefault(Sanitize(rr.Reason, o), "a full review"), reasonMax))
	}
	var heads []string
	for _, h := range rr.Heads {
		heads = append(heads, shaText(h, o))
	}
	fmt.Fprintf(b, "**Reviewed heads:** %s.\n\n", strings.Join(heads, " → "))
}

// pathText renders a not-reviewed entry's path: a file's as code (shown as
// written), a description in parentheses ("(persona security)") as text.
func pathText(p string, o Options) string {
	if strings.HasPrefix(p, "(") {
		return Sanitize(p, o)
	}
	return Code(p, o)
}

func rejectionItems(rs []review.Rejection, o Options, noReason string) []string {
	var items []string
	for _, r := range rs {
		items = append(items, fmt.Sprintf("%s (%s): %s",
			clip(Sanitize(r.Title, o), titleMax),
			clip(Code(fmt.Sprintf("%s:%d", r.File, r.Line), o), itemMax),
			clip(orDefault(Sanitize(r.Reason, o), noReason), reasonMax)))
	}
	return items
}

func sanitizeAll(in []string, o Options) []string {
	var out []string
	for _, s := range in {
		if s := clip(Sanitize(s, o), itemMax); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// writeList writes a bullet list, at most listCap items.
func writeList(b *strings.Builder, items []string) {
	if len(items) == 0 {
		return
	}
	for i, it := range items {
		if i == listCap {
			fmt.Fprintf(b, "- … and %s more\n", fmtInt(len(items)-listCap))
			break
		}
		b.WriteString("- " + it + "\n")
	}
	b.WriteString("\n")
}

func joinOrNone(parts []string, prefix string) string {
	if len(parts) == 0 {
		return "none dropped."
	}
	return prefix + strings.Join(parts, ", ") + "."
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// incompleteList says exactly what the review did not do, one bullet each.
func (d *doc) incompleteList(b *strings.Builder) {
	reasons := d.r.Incomplete
	if len(reasons) == 0 {
		reasons = []string{"the review was marked partial without a recorded reason"}
	}
	for i, why := range reasons {
		if i == listCap {
			fmt.Fprintf(b, "- and %s more\n", fmtInt(len(reasons)-listCap))
			break
		}
		b.WriteString("- " + sanitizePlain(why, d.o) + "\n")
	}
	b.WriteString("\n")
}
