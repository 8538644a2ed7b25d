package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/review"
)

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

	if len(c.Notices) > 0 {
		b.WriteString("**Notices:**\n\n")
		var ns []string
		for _, n := range c.Notices {
			ns = append(ns, clip(Sanitize(n, o), reasonMax*2))
		}
		writeList(b, ns)
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
