package report

import (
	"fmt"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

// skippedCheck is the check run for a Stage 1 skip. Rule 4 carries the
// earlier verdict; without readable metadata it fails rather than let a
// required check turn green unreviewed.
func skippedCheck(r review.Result, o Options, limit int) CheckOutput {
	conclusion, blocking := Conclusion(r, o.FailOn)
	out := CheckOutput{Conclusion: conclusion}
	if r.SkipRule != skip.RuleReviewed {
		out.Title = "Review skipped: " + skipRuleName(r.SkipRule)
		out.Summary = TruncateBytes(skippedLine(r, o)+"\n", limit)
		return out
	}
	howTo := "To review the new commits, run the workflow by hand: in the repository's Actions tab choose " +
		"the anchor-review workflow and **Run workflow** (a `workflow_dispatch` run"
	if r.PR > 0 {
		howTo += fmt.Sprintf(" with `pr-number: %d`", r.PR)
	}
	howTo += "), or comment `/anchor-review` on the pull request (anyone with write access); either always reviews."
	var b strings.Builder
	c := r.Carried
	if c == nil {
		out.Title = "Earlier verdict unreadable: re-run the review"
		b.WriteString("## anchor-review: earlier verdict unreadable\n\n")
		b.WriteString("This commit was not reviewed: the pull request already has an anchor-review report, " +
			"but its metadata line is missing or unreadable, so its verdict cannot be carried forward. " +
			"The check fails rather than pass a commit nobody reviewed.\n\n")
		b.WriteString(howTo + "\n")
		out.Summary = TruncateBytes(b.String(), limit)
		return out
	}
	if r.Unreviewed != nil {
		return unreviewedCheck(r, o, limit)
	}
	label := carriedLabel(c.Verdict)
	short := strings.Trim(shaText(c.HeadSHA, o), "`")
	out.Title = clipPlain(sanitizePlain(fmt.Sprintf("Verdict carried from the review of %s: %s", short, label), o), annotationTitleMax)
	b.WriteString("## anchor-review: verdict carried forward\n\n")
	fmt.Fprintf(&b, "This commit was not reviewed: the pull request already has an anchor-review report, "+
		"from the review of %s. Its verdict is carried forward so a required check cannot turn green by "+
		"skipping a review.\n\n", shaText(c.HeadSHA, o))
	fmt.Fprintf(&b, "- Verdict: **%s**\n- Conclusion: %s\n- Blocking findings: %s\n\n",
		label, conclusion, fmtInt(blocking))
	b.WriteString(howTo + "\n")
	out.Summary = TruncateBytes(b.String(), limit)
	return out
}

// unreviewedCheck is the new head's check under on-new-commits skip
// (r.Unreviewed and r.Carried set): failure when the earlier verdict was
// blocking, else action_required, titled with the number of unreviewed
// commits and how to review them.
func unreviewedCheck(r review.Result, o Options, limit int) CheckOutput {
	conclusion, blocking := Conclusion(r, o.FailOn)
	out := CheckOutput{Conclusion: conclusion}
	label := carriedLabel(r.Carried.Verdict)
	commits := "New commits"
	if n := r.Unreviewed.Commits; n > 0 {
		commits = plural(n, "commit", "commits")
	}
	out.Title = clipPlain(sanitizePlain(fmt.Sprintf("%s not reviewed (on-new-commits: skip); comment /anchor-review to review them", commits), o), annotationTitleMax)
	var b strings.Builder
	b.WriteString("## anchor-review: new commits not reviewed\n\n")
	fmt.Fprintf(&b, "%s since the review of %s %s not reviewed: this workflow sets `on-new-commits: skip`. "+
		"The earlier review's verdict (**%s**, %s blocking) does not vouch for them, so this check is not green.\n\n",
		commits, shaText(r.Carried.HeadSHA, o), map[bool]string{true: "was", false: "were"}[r.Unreviewed.Commits == 1], label, fmtInt(blocking))
	b.WriteString("To review them, comment `/anchor-review` on the pull request (anyone with write access), " +
		"or run the workflow by hand (`workflow_dispatch`")
	if r.PR > 0 {
		fmt.Fprintf(&b, " with `pr-number: %d`", r.PR)
	}
	b.WriteString(").\n")
	out.Summary = TruncateBytes(b.String(), limit)
	return out
}
