package report

import (
	"fmt"
	"strings"
)

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
