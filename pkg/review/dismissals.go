package review

import (
	"context"
	"slices"
	"strconv"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
)

// ApplyDismissals answers res's findings with the pull request's
// dismissals ds (read from our own report's metadata; SPEC 9.1) and
// records ds on res, so the report, the check and the metadata list them.
//
// A dismissal applies to a finding with its fingerprint whose lines read as
// they did when it was dismissed (marker.LinesKey at res.HeadSHA; the same
// head and line need no read): the finding moves to res.Dismissed, out of
// the tables and the blocking set, and is not re-litigated. A finding with
// the fingerprint whose lines changed is judged afresh: it stays, says it
// was dismissed at an earlier head (finding.Dismissed), and the dismissal
// lapses here. When a file cannot be read the finding stays and the
// dismissal is left as it was: neither kept green nor lost on a read
// error. The verdict follows what is left.
func ApplyDismissals(ctx context.Context, res *Result, ds []marker.Dismissal, read HeadReader) {
	res.Dismissals = slices.Clone(ds)
	if len(ds) == 0 {
		return
	}
	keys := map[string]string{} // "file\x00line" -> LinesKey at this head
	key := func(f finding.Finding) (string, bool) {
		k := f.File + "\x00" + strconv.Itoa(f.Line)
		if v, ok := keys[k]; ok {
			return v, v != ""
		}
		text, found, err := "", false, error(nil)
		if read != nil {
			text, found, err = read(ctx, f.File)
		}
		if err != nil || !found {
			keys[k] = ""
			return "", false
		}
		keys[k] = marker.LinesKey(text, max(f.Line, 1))
		return keys[k], keys[k] != ""
	}
	var kept []finding.Finding
	for _, f := range res.Findings {
		i, dismissed := res.dismissalOf(f, key)
		switch {
		case dismissed:
			res.Dismissed = append(res.Dismissed, f)
			res.Dismissals[i].Line = max(f.Line, 1)
		case i >= 0:
			d := &res.Dismissals[i]
			f.Dismissed = &finding.PastDismissal{Head: d.Head, By: d.By, Reason: d.Reason}
			fallthrough
		default:
			kept = append(kept, f)
		}
	}
	for _, f := range kept {
		if f.Dismissed == nil {
			continue
		}
		for i := range res.Dismissals {
			d := &res.Dismissals[i]
			if d.Applies() && d.Fingerprint == finding.Fingerprint(f) && !slices.ContainsFunc(res.Dismissed, func(g finding.Finding) bool {
				return finding.Fingerprint(g) == d.Fingerprint
			}) {
				d.Lapsed = res.HeadSHA
			}
		}
	}
	res.Findings = kept
	if res.Verdict != "" {
		res.Verdict = DecideVerdict(*res)
	}
}

// dismissalOf finds the dismissal that answers f: its index in
// res.Dismissals and whether it applies to f's lines as they are. -1 when
// no applying dismissal has f's fingerprint; (i, false) when one has it
// but f's lines changed since (a read error is not a change: -1).
func (res *Result) dismissalOf(f finding.Finding, key func(finding.Finding) (string, bool)) (int, bool) {
	fp := finding.Fingerprint(f)
	changed := -1
	for i, d := range res.Dismissals {
		if !d.Applies() || d.Fingerprint != fp {
			continue
		}
		if d.Head == res.HeadSHA {
			// The head it was dismissed at: that line, and no other
			// instance of the problem there.
			if d.Covers(fp, f.Line) {
				return i, true
			}
			continue
		}
		k, ok := key(f)
		switch {
		case !ok:
			continue
		case d.Lines != "" && k == d.Lines:
			return i, true
		default:
			changed = i
		}
	}
	return changed, false
}

// Reissue rebuilds the Result a report's metadata m records, to publish it
// again after a person answered a finding (no review runs, no model is
// called): its findings, dismissed ones included (ApplyDismissals then
// sorts them), numbered in order; its head, base and scope; and whether the
// review was complete. Everything else the review knew is in the earlier
// report's Coverage, which the report keeps.
func Reissue(m marker.Meta, repo string, pr int) Result {
	res := Result{Repo: repo, PR: pr, HeadSHA: m.HeadSHA, BaseRef: m.BaseRef, ScopeKey: m.Scope, Mode: ModeComment,
		Verdict: Verdict(m.Verdict)}
	for i, mf := range m.Findings {
		f := carriedFinding(mf)
		f.Number = i + 1
		res.Findings = append(res.Findings, f)
	}
	if m.Incomplete || m.Truncated {
		res.Partial = true
		res.Incomplete = []string{"the review of " + short(m.HeadSHA) + " was incomplete (its Coverage, kept below, says what was not done)"}
		if m.Truncated {
			res.Incomplete[0] = "the review of " + short(m.HeadSHA) + " posted more findings than its report records"
		}
		res.IncompleteConclusion = IncompleteFailure
		if m.Conclusion == "neutral" {
			res.IncompleteConclusion = IncompleteNeutral
		}
	}
	res.Verdict = DecideVerdict(res)
	return res
}

// answered splits the gated findings of a review into those a person's
// dismissal in the earlier report answers, their lines as they were (SPEC
// 9.1: not re-litigated, so the validator is not asked again: they were
// confirmed when first posted, and publishing moves them out of the
// report's tables), and the rest, to validate.
func (rn *reviewRun) answered(ctx context.Context, gated []finding.Finding) (answered, rest []finding.Finding) {
	rr := rn.res.Rereview
	if rr == nil || rr.Previous == nil || len(rr.Previous.Dismissals) == 0 {
		return nil, gated
	}
	probe := &Result{HeadSHA: rn.res.HeadSHA, Dismissals: rr.Previous.Dismissals}
	key := func(f finding.Finding) (string, bool) {
		text, found, err := rn.head(ctx, f.File)
		if err != nil || !found {
			return "", false
		}
		k := marker.LinesKey(text, max(f.Line, 1))
		return k, k != ""
	}
	for _, f := range gated {
		i, ok := probe.dismissalOf(f, key)
		if !ok {
			rest = append(rest, f)
			continue
		}
		d := probe.Dismissals[i]
		f.Validation = &finding.Validation{Validated: true, Reason: "not validated again: dismissed by " + d.By + " at " + short(d.Head) + ", its lines unchanged"}
		answered = append(answered, f)
	}
	if len(answered) > 0 {
		rn.o.logf("validate: %d finding(s) a person dismissed, their lines unchanged: not validated again", len(answered))
	}
	return answered, rest
}
