package report

import (
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/review"
)

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
