package report

import (
	"slices"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// meta is the metadata line's content: the verdict, the reviewed heads and
// every posted finding (all of them, whatever trimming leaves in the
// body), so the next run can carry them.
func (d *doc) meta() marker.Meta {
	r := d.r
	if a := d.o.Amend; a != nil {
		return d.amendedMeta(a.Meta)
	}
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
	m.Findings = d.metaFindings()
	m.Dismissals = d.metaDismissals()
	d.statsMeta(&m)
	return m
}

// amendedMeta is the metadata of an earlier report re-published after a
// person answered a finding (no review ran): the verdict, the findings and
// the dismissals as they now stand; the heads and running totals as the
// earlier report recorded them (nothing was reviewed or spent).
func (d *doc) amendedMeta(m marker.Meta) marker.Meta {
	m.Verdict, m.Conclusion, m.Blocking = string(effectiveVerdict(d.r)), d.conclusion, d.blocking
	m.Findings = d.metaFindings()
	m.Dismissals = d.metaDismissals()
	return m
}

// metaDismissals are the dismissals as the hidden line records them:
// their reasons defused as plain text (sanitized again when shown).
func (d *doc) metaDismissals() []marker.Dismissal {
	var out []marker.Dismissal
	for _, ds := range d.r.Dismissals {
		ds.Reason = Reason(ds.Reason, d.o)
		ds.Title, ds.File = Redact(ds.Title, d.o.Secrets), Redact(ds.File, d.o.Secrets)
		out = append(out, ds)
	}
	return out
}

// metaFindings are the posted findings, the dismissed ones included (a
// later run carries them, and keeps them dismissed while their lines
// stand), each with its short id.
func (d *doc) metaFindings() []marker.Finding {
	r := d.r
	var out []marker.Finding
	for _, f := range append(slices.Clip(r.Findings), r.Dismissed...) {
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
			Fingerprint: finding.Fingerprint(f), ID: d.ids[finding.Fingerprint(f)], Title: Redact(f.Title, d.o.Secrets), Reviewer: Redact(reviewer, d.o.Secrets), Commit: commit,
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
		out = append(out, mf)
	}
	return out
}
