package report

import (
	"fmt"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

// Annotation is one check-run annotation on a line of the head commit. The
// action maps it onto the GitHub client's type.
type Annotation struct {
	Path      string
	StartLine int
	EndLine   int
	// Level is LevelFailure for findings that meet fail-on, else LevelWarning.
	Level   string
	Title   string
	Message string
}

// CheckOutput is the check run's conclusion and output.
type CheckOutput struct {
	Conclusion string
	Title      string
	// Summary is Markdown, at most CheckSummaryMax BYTES (GitHub's unit).
	Summary     string
	Annotations []Annotation
}

// Check renders the check run for r: the conclusion (see Conclusion), a
// title, a summary holding the whole report plus the P0 findings below the
// comment bar, and one annotation per posted finding. For a rule-4 skip it
// carries the earlier verdict forward and says how to re-review.
func Check(r review.Result, o Options) CheckOutput {
	o = o.normalize(r)
	limit := min(o.MaxLen, CheckSummaryMax)
	if r.Skipped {
		return skippedCheck(r, o, limit)
	}
	conclusion, blocking := Conclusion(r, o.FailOn)
	out := CheckOutput{Conclusion: conclusion}
	switch {
	case r.AllFailed && r.Failure != "":
		out.Title = "Review could not run: " + clip(sanitizePlain(r.Failure, o), 160)
	case r.AllFailed:
		out.Title = "Review could not run: every persona failed"
	case blocking > 0:
		out.Title = plural(blocking, "blocking finding", "blocking findings")
	case r.Partial || effectiveVerdict(r) == review.Degraded:
		out.Title = incompleteTitle(r, o)
	default:
		out.Title = "No blocking findings"
	}
	out.Summary = newDoc(r, o).fit(view{belowBar: true}, limit, inBytes)

	rank := failRank(o.FailOn)
	for _, f := range r.Findings {
		level := LevelWarning
		if f.Severity.Rank() <= rank {
			level = LevelFailure
		}
		title := sanitizePlain(fmt.Sprintf("#%d %s: %s", f.Number, f.Severity, f.Title), o)
		msg := f.WhyItMatters
		if f.SuggestedFix != "" {
			msg += "\n\nSuggested fix: " + f.SuggestedFix
		}
		if f.TestGap != nil {
			msg += "\n\nNo test covers this: " + f.TestGap.Title
		}
		confidence := fmt.Sprintf("confidence %d", f.Confidence)
		if f.Promoted {
			confidence += " (promoted)"
		}
		msg += "\n\nReviewers: " + strings.Join(f.Reviewers, ", ") + " · " + confidence
		line := max(f.Line, 1)
		out.Annotations = append(out.Annotations, Annotation{
			Path:      f.File,
			StartLine: line,
			EndLine:   line,
			Level:     level,
			Title:     clipPlain(title, annotationTitleMax),
			Message:   clipPlain(sanitizePlain(msg, o), annotationMessageMax),
		})
	}
	return out
}

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
	howTo += "), or comment `/anchor-review` on the pull request (owners, members and collaborators); either always reviews."
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
	label := carriedLabel(c.Verdict)
	short := strings.Trim(shaText(c.HeadSHA, o), "`")
	if r.Unreviewed != nil {
		return unreviewedCheck(r, o, limit, out)
	}
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

// unreviewedCheck is the new head's check under on-new-commits skip:
// failure when the earlier verdict was blocking, else action_required,
// titled with the number of unreviewed commits and how to review them.
func unreviewedCheck(r review.Result, o Options, limit int, out CheckOutput) CheckOutput {
	_, blocking := Conclusion(r, o.FailOn)
	label, short := carriedLabel(r.Carried.Verdict), strings.Trim(shaText(r.Carried.HeadSHA, o), "`")
	commits := "New commits"
	if n := r.Unreviewed.Commits; n > 0 {
		commits = plural(n, "commit", "commits")
	}
	out.Title = clipPlain(sanitizePlain(fmt.Sprintf("%s not reviewed (on-new-commits: skip); comment /anchor-review to review them", commits), o), annotationTitleMax)
	var b strings.Builder
	b.WriteString("## anchor-review: new commits not reviewed\n\n")
	fmt.Fprintf(&b, "%s since the review of %s %s not reviewed: this workflow sets `on-new-commits: skip`. "+
		"The earlier review's verdict (**%s**, %s blocking) does not vouch for them, so this check is not green.\n\n",
		commits, shaText(short, o), map[bool]string{true: "was", false: "were"}[r.Unreviewed.Commits == 1], label, fmtInt(blocking))
	b.WriteString("To review them, comment `/anchor-review` on the pull request (owners, members and collaborators), " +
		"or run the workflow by hand (`workflow_dispatch`")
	if r.PR > 0 {
		fmt.Fprintf(&b, " with `pr-number: %d`", r.PR)
	}
	b.WriteString(").\n")
	out.Summary = TruncateBytes(b.String(), limit)
	return out
}

// clipPlain shortens plain text to n runes.
func clipPlain(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return strings.TrimSpace(s[:runeOffset(s, n-1)]) + "…"
}

// incompleteTitle names what an incomplete review did not do.
func incompleteTitle(r review.Result, o Options) string {
	if len(r.Incomplete) == 0 {
		return "Review incomplete"
	}
	t := "Review incomplete: " + sanitizePlain(r.Incomplete[0], o)
	if n := len(r.Incomplete) - 1; n > 0 {
		t += fmt.Sprintf(" (and %d more)", n)
	}
	return clipPlain(t, annotationTitleMax)
}
