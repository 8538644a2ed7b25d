package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
)

// Amendment re-publishes an earlier report after a person answered one of
// its findings (dismiss or restore): no review ran, so the metadata keeps
// the earlier heads and running totals, and the body keeps the earlier
// team line and Coverage section as they were rendered.
type Amendment struct {
	// Meta is the earlier report's metadata.
	Meta marker.Meta
	// Team and Coverage are the earlier report's team line and the inside
	// of its Coverage section (EarlierSections); empty ones are said to be
	// in the earlier review's check run.
	Team, Coverage string
}

// EarlierSections reads the team line and the inside of the Coverage
// section out of a report body this package rendered, so an amended report
// shows them as they were. Hidden lines (HTML comments: a marker, a
// metadata line) are dropped from both.
func EarlierSections(body string) (team, coverage string) {
	const open, end = "<details><summary>Coverage</summary>\n\n", "</details>"
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, "**Team:** ") {
			team = strings.TrimSpace(line)
			break
		}
	}
	if i := strings.Index(body, open); i >= 0 {
		rest := body[i+len(open):]
		if j := strings.LastIndex(rest, end); j >= 0 {
			coverage = rest[:j]
		}
	}
	var kept []string
	for line := range strings.Lines(coverage) {
		if !strings.HasPrefix(strings.TrimSpace(line), "<!--") {
			kept = append(kept, line)
		}
	}
	return team, strings.Join(kept, "")
}

// Reason is a person's dismissal reason as the record keeps it: plain
// text on one line, defused like all posted text (no hidden content, live
// mention, image, off-host link, marker copy or secret) and at most
// marker.MaxReason runes; "" when nothing is left, and a dismissal needs
// one.
func Reason(s string, o Options) string {
	s = strings.Join(strings.Fields(sanitizePlain(s, o)), " ")
	return strings.TrimSpace(clipPlain(s, marker.MaxReason))
}

// DismissedBeforeLine is the note a finding carries when a person
// dismissed the same problem at an earlier head and its lines have changed
// since: it was judged afresh. "" when it carries none.
func DismissedBeforeLine(f finding.Finding, o Options) string {
	pd := f.Dismissed
	if pd == nil {
		return ""
	}
	return "_Dismissed at an earlier head (" + shaText(pd.Head, o) + ") by " + Code(pd.By, o) + ": " +
		clip(Sanitize(pd.Reason, o), reasonMax) + ". Its lines changed since, so it was judged afresh._"
}

// dismissals lists every dismissal of the pull request (finding, who,
// when, the reason), outside Coverage so no trimming hides it.
func (d *doc) dismissals(b *strings.Builder) {
	ds := d.r.Dismissals
	if len(ds) == 0 {
		return
	}
	applying := 0
	for _, x := range ds {
		if x.Applies() {
			applying++
		}
	}
	fmt.Fprintf(b, "### Dismissed findings\n\n%s by people with write access, out of the blocking set "+
		"while their lines stay as they were. `/anchor-review restore <id>` undoes one.\n\n",
		plural(applying, "finding dismissed", "findings dismissed"))
	b.WriteString("| Finding | Dismissed by | When | Reason |\n|---|---|---|---|\n")
	for _, x := range ds {
		cell := "`" + x.ID + "` " + Sanitize(x.Severity, d.o) + " **" + clip(Sanitize(x.Title, d.o), titleMax) + "** " +
			Code(fmt.Sprintf("%s:%d", x.File, x.Line), d.o)
		for _, f := range d.r.Dismissed {
			if u := d.inlineLink(f.Number); u != "" && finding.Fingerprint(f) == x.Fingerprint {
				cell += "<br>[On the line](" + u + ")"
				break
			}
		}
		if !x.Applies() {
			cell += "<br>_No longer applies: its lines changed by " + shaText(x.Lapsed, d.o) + ", so it was judged afresh._"
		}
		when := x.At
		if t, err := time.Parse(time.RFC3339, x.At); err == nil {
			when = t.UTC().Format("2006-01-02 15:04 UTC")
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", cell, Code(x.By, d.o), Sanitize(when, d.o), clip(Sanitize(x.Reason, d.o), marker.MaxReason))
	}
	b.WriteString("\n")
}

// earlierCoverage writes an amended report's Coverage: the earlier
// review's, as it was rendered.
func (d *doc) earlierCoverage(b *strings.Builder) {
	a := d.o.Amend
	fmt.Fprintf(b, "Re-published after a person answered a finding; nothing was reviewed again. Coverage of the review of %s:\n\n",
		shaText(a.Meta.HeadSHA, d.o))
	if strings.TrimSpace(a.Coverage) == "" {
		b.WriteString("(not recorded in the earlier report; the check run of that review has it)\n\n")
		return
	}
	b.WriteString(strings.TrimRight(a.Coverage, "\n") + "\n\n")
}
