package report

import (
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/review"
)

func TestCommentInlineStatus(t *testing.T) {
	f1 := fnd(finding.P1, 100, "api/login.go", 12, "Token compared with ==", "security")
	f1.Number = 1
	f2 := fnd(finding.P2, 75, "api/login.go", 90, "Session never expires", "correctness")
	f2.Number = 2
	r := review.Result{Repo: "octo/demo", HeadSHA: headSHA, Findings: []finding.Finding{f1, f2}, Coverage: baseCoverage(), Verdict: review.NotReady}
	o := opts()
	o.Inline = &InlineStatus{
		Links: map[int]string{
			1: "https://github.com/octo/demo/pull/7#discussion_r11",
			2: "https://evil.example/phish", // not our host: never linked
		},
		NotPosted: []string{"finding 2 (api/login.go:90): its line is outside the diff <img src=x>"},
	}
	body := Comment(r, o)
	if !strings.Contains(body, "[On the line](https://github.com/octo/demo/pull/7#discussion_r11)") {
		t.Errorf("finding 1 does not link its line comment:\n%s", body)
	}
	if strings.Contains(body, "evil.example") || strings.Contains(body, "<img") {
		t.Errorf("a foreign link or raw HTML reached the report:\n%s", body)
	}
	if !strings.Contains(body, "**Inline comments:** 1 of 2 findings on their lines. Not posted on a line (in this report only):") ||
		!strings.Contains(body, "- finding 2 (api/login.go:90): its line is outside the diff") {
		t.Errorf("the report does not say what did not post:\n%s", body)
	}
	// The note sits outside Coverage, so trimming Coverage keeps it.
	cov := strings.Index(body, "<details><summary>Coverage")
	if note := strings.Index(body, "**Inline comments:**"); note < 0 || note > cov {
		t.Errorf("inline note at %d, Coverage at %d; want the note before Coverage", note, cov)
	}
	o.Inline = nil
	if strings.Contains(Comment(r, o), "Inline comments") {
		t.Error("without the inline input the report mentions inline comments")
	}
}

func TestCommentInlineStatusNothingToSay(t *testing.T) {
	r := review.Result{Repo: "octo/demo", HeadSHA: headSHA, Coverage: baseCoverage(), Verdict: review.Ready}
	o := opts()
	o.Inline = &InlineStatus{}
	if body := Comment(r, o); strings.Contains(body, "Inline comments") {
		t.Errorf("a review without findings mentions inline comments:\n%s", body)
	}
}
