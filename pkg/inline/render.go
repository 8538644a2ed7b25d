package inline

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/report"
)

// Rendering limits for model text in an inline comment, in runes.
const (
	titleMax = 200
	whyMax   = 4000
	fixMax   = 1500
)

// RenderComment renders one inline comment: the marker line with the
// fingerprint, the finding's severity, title, anchor and reviewers, why it
// matters, the suggested fix, and, when replacement is not nil (already
// checked by CheckSuggestion), a committable suggestion block whose fence
// the code cannot close. All model prose goes through report.Sanitize.
func RenderComment(f finding.Finding, fp string, replacement *string, o report.Options) string {
	var b strings.Builder
	b.WriteString(FormatMarker(Marker{Fingerprint: fp}) + "\n")
	b.WriteString(headline(f, o) + "\n\n")
	if why := clip(report.Sanitize(f.WhyItMatters, o), whyMax); why != "" {
		b.WriteString(why + "\n\n")
	}
	if fix := clip(report.Sanitize(f.SuggestedFix, o), fixMax); fix != "" {
		b.WriteString("**Suggested fix:** " + fix + "\n\n")
	}
	if gap := report.TestGapLine(f, o); gap != "" {
		b.WriteString(gap + "\n\n")
	}
	if replacement != nil {
		fn := fence(*replacement)
		b.WriteString(fn + "suggestion\n")
		if *replacement != "" {
			b.WriteString(*replacement + "\n")
		}
		b.WriteString(fn + "\n\n")
	}
	if f.Dismissed != nil {
		b.WriteString(report.DismissedBeforeLine(f, o) + "\n\n")
	}
	foot := "anchor-review"
	if f.Number > 0 {
		foot += fmt.Sprintf(" · finding %d of the report comment", f.Number)
	}
	if f.ID != "" {
		// The id a person answers the finding with; in this thread the
		// command needs no id.
		foot += " · id `" + f.ID + "` · to dismiss it with a reason, reply `" + "/anchor-review dismiss <reason>`"
	}
	b.WriteString("<sub>" + foot + "</sub>\n")
	return b.String()
}

// headline is the comment's second line, also kept (struck through) when
// the comment is resolved.
func headline(f finding.Finding, o report.Options) string {
	var reviewers []string
	for _, r := range f.Reviewers {
		reviewers = append(reviewers, report.Sanitize(r, o))
	}
	h := "**" + report.Sanitize(string(f.Severity), o) + " · " + clip(report.Sanitize(f.Title, o), titleMax) + "**" +
		" · anchor " + strconv.Itoa(f.Confidence)
	if len(reviewers) > 0 {
		h += " · " + strings.Join(reviewers, ", ")
	}
	return h
}

// RenderResolved rewrites our earlier comment body as resolved in headSHA:
// the marker records it (so later runs leave the comment alone), the old
// headline stays struck through, and the rest (a suggestion that no longer
// applies included) goes.
func RenderResolved(old, fp, headSHA string) string {
	_, rest, _ := strings.Cut(old, "\n")
	head, _, _ := strings.Cut(strings.TrimLeft(rest, "\n"), "\n")
	head = strings.TrimSpace(head)
	var b strings.Builder
	b.WriteString(FormatMarker(Marker{Fingerprint: fp, ResolvedIn: headSHA}) + "\n")
	if head != "" && !strings.Contains(head, "~~") {
		b.WriteString("~~" + head + "~~\n\n")
	}
	b.WriteString("Resolved in " + headSHA + ": anchor-review no longer reports this finding.\n")
	return b.String()
}

// RenderReviewBody is the body of the review itself (GitHub requires one
// for event COMMENT).
func RenderReviewBody(n int) string {
	noun := "findings"
	if n == 1 {
		noun = "finding"
	}
	return ReviewMarker + "\n" + fmt.Sprintf("anchor-review: %d %s on the lines below. The report comment in the conversation has every finding, the coverage and the verdict.", n, noun)
}

// clip shortens sanitized Markdown to at most n runes, marking the cut,
// never inside an escape, an entity or a code span (report.Clip).
func clip(s string, n int) string { return report.Clip(s, n) }
