package report

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// TestMetaFitsTheCommentLimit: the most a report records (MaxFindings
// findings, MaxDismissals dismissals, every free-text field at its bound,
// in characters JSON escapes six-fold: PR paths may hold '&', model titles
// '<') still leaves a report whose metadata parses, within GitHub's
// 65,536-character comment limit. Before, the hidden line alone was over
// the limit, Truncate kept the marker alone, and the report, its findings
// and every dismissal were gone: the next dismissal could not even read
// the report it had just edited.
func TestMetaFitsTheCommentLimit(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("c", 40)
	var r review.Result
	r.HeadSHA, r.Repo, r.Verdict = head, "o/r", review.Ready
	for i := range marker.MaxDismissals {
		file := fmt.Sprintf("d%02d/", i) + strings.Repeat("&", 500) + ".go"
		title := fmt.Sprintf("%02d ", i) + strings.Repeat("<", 200)
		f := finding.Finding{Number: i + 1, Title: title, Severity: finding.P1, File: file, Line: 9, Confidence: 100, Reviewers: []string{strings.Repeat(">", 60)}}
		fp := finding.Fingerprint(f)
		r.Dismissed = append(r.Dismissed, f)
		r.Dismissals = append(r.Dismissals, marker.Dismissal{ID: fp[:6], Fingerprint: fp, File: file, Line: 9, Severity: "P1", Title: title,
			Reviewer: f.Reviewers[0], By: strings.Repeat("m", 60), At: "2026-11-28T05:40:00Z", Reason: strings.Repeat("why ", 100), Head: head, Lines: strings.Repeat("a", 16)})
	}
	body := Comment(r, Options{})
	if n := utf8.RuneCountInString(body); n > DefaultMaxLen {
		t.Fatalf("report is %d characters; GitHub takes %d", n, DefaultMaxLen)
	}
	m, err := marker.ParseReport(body)
	if err != nil {
		t.Fatalf("the report lost its metadata (%d characters): %v", utf8.RuneCountInString(body), err)
	}
	if len(m.Dismissals) != marker.MaxDismissals {
		t.Errorf("%d dismissals recorded; want %d", len(m.Dismissals), marker.MaxDismissals)
	}
}
