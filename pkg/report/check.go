package report

import (
	"fmt"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/review"
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
