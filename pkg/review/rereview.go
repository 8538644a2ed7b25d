package review

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/delta"
	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/scope"
	"github.com/anchor-review/anchor-review/pkg/skip"
	"github.com/anchor-review/anchor-review/pkg/synth"
)

// Values of Options.OnNewCommits (the on-new-commits input).
const (
	// OnNewCommitsReview reviews the commits since the last report's head
	// (the default).
	OnNewCommitsReview = "review"
	// OnNewCommitsSkip reviews nothing; the new head's check is never green.
	OnNewCommitsSkip = "skip"
)

// Rereview is what a review of a PR that already had a report did with it:
// the reviewed range, the carried findings, and the history of heads.
type Rereview struct {
	// Incremental is true when only the commits since From were reviewed;
	// false when the whole PR was (Reason says why).
	Incremental bool   `json:"incremental"`
	From        string `json:"from,omitempty"` // the earlier report's head
	To          string `json:"to"`             // this run's head
	// Commits is how many commits From..To holds (0 when unknown).
	Commits int `json:"commits,omitempty"`
	// Reason says why the whole PR was reviewed despite an earlier report.
	Reason string `json:"reason,omitempty"`
	// Heads is the history of reviewed heads, oldest first, To last.
	Heads []string `json:"heads"`
	// Carried counts earlier findings carried with their lines untouched;
	// Rechecked those whose region changed and went to the validator.
	Carried   int `json:"carried"`
	Rechecked int `json:"rechecked"`
	// Confirmed counts the rechecked findings the validator confirmed
	// again; the others it refuted (see Coverage.Rejections) or could not
	// judge (Unchecked).
	Confirmed int `json:"confirmed"`
	// Unchecked counts carried findings the validator could not judge
	// (failed, or over budget): they stay, and the review is incomplete.
	Unchecked int `json:"unchecked,omitempty"`
	// Gone lists earlier findings dropped without a model call: their file
	// was deleted or is no longer part of the PR.
	Gone []Rejection `json:"gone,omitempty"`
	// Again counts carried findings the new review reported again (the new
	// report of them is kept).
	Again int `json:"again,omitempty"`
	// OutsidePR lists files the new commits changed that are not part of
	// the PR's diff (a merge of the base branch): not reviewed.
	OutsidePR []string `json:"outside_pr,omitempty"`
	// Previous is the earlier report's metadata: the report carries its
	// running totals (usage, findings acted on) forward.
	Previous *marker.Meta `json:"-"`
}

// carryPlan is what an incremental review hands to run: the delta to
// review, and the earlier findings to carry or check again.
type carryPlan struct {
	delta   *diff.Diff        // the new commits, restricted to the PR's files
	keep    []finding.Finding // carried as they are (lines mapped)
	recheck []finding.Finding // their region changed: validate again
	// prFiles are the PR diff's files of the rechecked findings: the
	// validator judges them against the whole PR's change, not the delta.
	prFiles []*diff.File
	// deltaPR are the PR diff's files of the delta's files: a new finding
	// in the delta is judged "introduced by this diff" against the PR's
	// change of its file (base version and file view), not only against
	// the new commits'.
	deltaPR []*diff.File
}

// history is the list of reviewed heads after this run: the earlier
// report's (or its head alone, for a version 1 report) plus head.
func history(prev *marker.Meta, head string) []string {
	var hs []string
	if prev != nil {
		hs = append(hs, prev.Heads...)
		if len(hs) == 0 || hs[len(hs)-1] != prev.HeadSHA {
			hs = append(hs, prev.HeadSHA)
		}
	}
	hs = slices.DeleteFunc(hs, func(h string) bool { return h == head })
	hs = append(hs, head)
	return hs[max(len(hs)-marker.MaxHeads, 0):]
}

// skipNew is on-new-commits skip: the seed's behaviour (the earlier report
// stands), but the earlier verdict cannot vouch for commits nobody
// reviewed, so the Result records them as unreviewed (the check on the new
// head is never green). n is the number of new commits, or -1 to ask the
// compare API.
func (r *Reviewer) skipNew(ctx context.Context, o Options, res *Result, prev *marker.Meta, head string, n int) {
	if n < 0 {
		n = r.countNew(ctx, o, prev.HeadSHA, head)
	}
	res.Skipped, res.SkipRule, res.Carried = true, skip.RuleReviewed, prev
	res.Unreviewed = &Unreviewed{Since: prev.HeadSHA, Commits: n}
	res.Verdict = Verdict(prev.Verdict)
	res.SkipReason = fmt.Sprintf("on-new-commits is skip: %s since the review of %s %s not reviewed; comment /anchor-review or run the workflow manually to review them",
		commitCount(n), short(prev.HeadSHA), map[bool]string{true: "was", false: "were"}[n == 1])
	o.logf("skip: %s", res.SkipReason)
}

// countNew asks the compare API how many commits from..to holds; 0 when it
// cannot tell.
func (r *Reviewer) countNew(ctx context.Context, o Options, from, to string) int {
	c, err := r.GitHub.Compare(ctx, o.Owner, o.Repo, from, to)
	if err != nil || c.Status != github.CompareAhead {
		return 0
	}
	return c.AheadBy
}

// plan decides between an incremental and a whole-PR review of a PR whose
// newest report is prev (for an older head). A nil plan means the whole PR;
// rr then says why. prDiff is the PR's whole diff.
func (r *Reviewer) plan(ctx context.Context, o Options, prev *marker.Meta, info *github.PR, prDiff *diff.Diff) (*carryPlan, *Rereview) {
	head := info.HeadSHA
	rr := &Rereview{From: prev.HeadSHA, To: head, Heads: history(prev, head), Previous: prev}
	whole := func(format string, args ...any) (*carryPlan, *Rereview) {
		rr.Reason = fmt.Sprintf(format, args...)
		o.logf("rereview: the whole pull request: %s", rr.Reason)
		return nil, rr
	}
	switch {
	case o.Rerun:
		return whole("a manual re-review")
	case prev.HeadSHA == head:
		return whole("a re-review of the reviewed head")
	case prev.Version < 2:
		return whole("the earlier report is from an older release and records no findings")
	case prev.BaseRef == "":
		return whole("the earlier report does not record the base branch it was reviewed against")
	case prev.BaseRef != info.BaseRef:
		return whole("the pull request's base branch changed since the earlier review")
	case prev.Truncated:
		return whole("the earlier report posted more findings than its metadata records")
	case prev.Incomplete:
		return whole("the earlier review was incomplete")
	}
	cmp, err := r.GitHub.Compare(ctx, o.Owner, o.Repo, prev.HeadSHA, head)
	if err != nil {
		return whole("the compare API failed (%v)", err)
	}
	rr.Commits = cmp.AheadBy
	switch {
	case cmp.Status != github.CompareAhead:
		rr.Commits = 0
		return whole("the reviewed head %s is not an ancestor of %s (compare status %q: a force push or a rebase)", short(prev.HeadSHA), short(head), cmp.Status)
	case cmp.Truncated:
		return whole("the new commits change more files than the compare API lists")
	}
	byOld := map[string]*diff.File{} // every changed file, by its path at the reviewed head
	inPR := map[string]*diff.File{}  // the PR diff's files, by new path
	for _, f := range prDiff.Files {
		inPR[f.Path()] = f
	}
	p := &carryPlan{delta: &diff.Diff{}}
	changed, err := filesDiff(cmp.Files)
	if err != nil {
		return whole("the compare API's %v", err)
	}
	for i, f := range changed.Files {
		if cmp.Files[i].Unseen() {
			return whole("the compare API gives no patch for %s (too large to show)", f.Path())
		}
		old := f.OldPath
		if old == "" {
			old = f.NewPath
		}
		byOld[old] = f
		if f.Status == diff.Deleted {
			continue
		}
		if inPR[f.Path()] == nil {
			rr.OutsidePR = append(rr.OutsidePR, f.Path())
			continue
		}
		p.delta.Files = append(p.delta.Files, f)
		p.deltaPR = append(p.deltaPR, inPR[f.Path()])
	}
	rr.Incremental = true
	for _, mf := range prev.Findings {
		f := carriedFinding(mf)
		df := byOld[mf.File]
		if df == nil {
			if inPR[mf.File] == nil {
				rr.Gone = append(rr.Gone, Rejection{Title: f.Title, File: f.File, Line: f.Line, Reason: "its file is no longer changed by the pull request"})
				continue
			}
			p.keep = append(p.keep, f) // untouched file: same line
			continue
		}
		m := delta.Map(df, mf.Line)
		if m.Gone {
			rr.Gone = append(rr.Gone, Rejection{Title: f.Title, File: f.File, Line: f.Line, Reason: "its file was deleted in " + short(head)})
			continue
		}
		f.File, f.Line = df.Path(), m.Line
		prf := inPR[f.File]
		if prf == nil {
			rr.Gone = append(rr.Gone, Rejection{Title: f.Title, File: f.File, Line: f.Line, Reason: "its file is no longer changed by the pull request"})
			continue
		}
		if !m.Touched {
			p.keep = append(p.keep, f)
			continue
		}
		p.recheck = append(p.recheck, f)
		if !slices.Contains(p.prFiles, prf) {
			p.prFiles = append(p.prFiles, prf)
		}
	}
	rr.Carried, rr.Rechecked = len(p.keep), len(p.recheck)
	o.logf("rereview: %s..%s, %s, %d of the PR's files changed; %d findings carried, %d to check again, %d gone",
		short(prev.HeadSHA), short(head), commitCount(rr.Commits), len(p.delta.Files), rr.Carried, rr.Rechecked, len(rr.Gone))
	return p, rr
}

// ScopeKey fingerprints what decides a review's coverage besides the diff:
// the exclude patterns, the forced team (the personas option) and the
// base's .gitattributes marks. A report records it; a later incremental
// review needs the same, or what the earlier review left out would stay
// unreviewed.
func ScopeKey(exclude, personas []string, attrs scope.Attributes) string {
	norm := func(xs []string) string {
		var out []string
		for _, x := range xs {
			if x = strings.TrimSpace(x); x != "" && !strings.HasPrefix(x, "#") {
				out = append(out, x)
			}
		}
		slices.Sort(out)
		return strings.Join(slices.Compact(out), "\x00")
	}
	sum := sha256.Sum256([]byte("exclude:" + norm(exclude) + "\npersonas:" + norm(personas) + "\n" + attrs.Key()))
	return hex.EncodeToString(sum[:8])
}

// TeamKey is what ScopeKey records of the team options: the personas
// restriction, and each excluded persona as "-name" (none: the
// restriction alone, as before exclusions existed).
func TeamKey(personas, excluded []string) []string {
	key := slices.Clone(personas)
	for _, x := range excluded {
		key = append(key, "-"+x)
	}
	return key
}

// wholeInstead turns an incremental re-review into a whole-PR one after
// the plan was made, for reason.
func wholeInstead(rr *Rereview, reason string) *Rereview {
	return &Rereview{From: rr.From, To: rr.To, Heads: rr.Heads, Reason: reason, Previous: rr.Previous}
}

// carriedFinding rebuilds a posted finding from its metadata.
func carriedFinding(mf marker.Finding) finding.Finding {
	f := finding.Finding{
		Title: mf.Title, Severity: finding.Severity(mf.Severity), File: mf.File, Line: mf.Line,
		Confidence: mf.Anchor, FoundOn: mf.Commit,
		// What the report showed when the finding was first posted; empty
		// from a report that did not record it.
		WhyItMatters: mf.Why, SuggestedFix: mf.Fix,
		Validation: &finding.Validation{Validated: true, Reason: "confirmed on " + short(mf.Commit)},
	}
	if mf.Reviewer != "" {
		f.Reviewers = []string{mf.Reviewer}
	}
	if mf.Reviewer == LockCheck {
		f.Check = LockCheck // a fact of the lock-file check: no validator judges it
	}
	return f
}

// carry adds the earlier findings to this run's: the untouched ones as they
// are, the touched ones when the validator confirms them again against the
// new head. One it could not judge stays (it was confirmed before) and
// makes the review incomplete. A carried finding the new review reported
// again (sameProblem) gives way to the new report.
func (rn *reviewRun) carry(ctx context.Context, fresh []finding.Finding) []finding.Finding {
	o, res, p := rn.o, rn.res, rn.in.carry
	rr := res.Rereview
	// A lock file the check read again this run: its facts now stand in
	// for the earlier ones, which no validator judges.
	// A fact whose lines changed is the lock-file check's to find again,
	// never the validator's to judge.
	rechecked := func(f finding.Finding) bool { return rn.lockChecked[f.File] }
	kept := slices.DeleteFunc(slices.Clone(p.keep), rechecked)
	recheck := slices.DeleteFunc(slices.Clone(p.recheck), func(f finding.Finding) bool { return rechecked(f) || f.Check == LockCheck })
	if len(recheck) > 0 {
		if o.Validate {
			limit := max(o.MaxValidations-res.Coverage.Validated-len(res.Coverage.Rejections)-len(res.Coverage.OverBudget), 0)
			ok, unchecked := rn.validate(ctx, &validation{gated: recheck, parts: []prompt.Part{{Files: p.prFiles}}, pc: rn.pc, limit: limit})
			rr.Confirmed = len(ok)
			o.logf("rereview: %d of %d carried findings whose lines changed confirmed again, %d could not be checked", len(ok), len(recheck), len(unchecked))
			kept = append(kept, ok...)
			kept = append(kept, unchecked...)
			rr.Unchecked = len(unchecked)
		} else {
			kept = append(kept, recheck...)
			rr.Unchecked = len(recheck)
			res.incomplete("%d carried findings whose lines changed were not checked again (the validator does not run in this mode)", rr.Unchecked)
		}
		if rr.Unchecked > 0 {
			// validate recorded why; the findings stay (they were confirmed
			// on an earlier head), and the review is incomplete.
			o.logf("rereview: %d carried findings could not be checked again; the review is incomplete", rr.Unchecked)
		}
	}
	out := slices.Clone(fresh)
	for _, c := range kept {
		if slices.ContainsFunc(fresh, func(f finding.Finding) bool { return sameProblem(c, f) }) {
			rr.Again++
			continue
		}
		out = append(out, c)
	}
	synth.Sort(out)
	return out
}

// sameProblem: the same fingerprint (file and title) within delta.Radius
// lines, as synthesis merges findings whose titles normalize alike. Another
// problem near a carried finding is not a new report of it: dropping the
// carried one would drop it from the metadata too, and no later run could
// carry it, though nothing fixed it.
func sameProblem(a, b finding.Finding) bool {
	return finding.Fingerprint(a) == finding.Fingerprint(b) && max(a.Line-b.Line, b.Line-a.Line) <= delta.Radius
}

// short is a SHA's first 7 characters, as GitHub shows them.
func short(sha string) string {
	if len(sha) > 7 && !strings.ContainsAny(sha[:7], " /") {
		return sha[:7]
	}
	return sha
}
