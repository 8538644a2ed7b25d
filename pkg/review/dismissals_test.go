package review_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

const (
	headA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	headB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	fileA = "package x\n\nfunc f(n int) {\n\tfor i := 0; i <= n; i++ {\n\t}\n}\n"
)

func loopFinding(line int) finding.Finding {
	return finding.Finding{Number: 1, Title: "Loop reads past n", Severity: finding.P1, File: "x.go", Line: line, Confidence: 100, Reviewers: []string{"correctness"}}
}

func dismissedAt(head string, line int, content string) marker.Dismissal {
	f := loopFinding(line)
	fp := finding.Fingerprint(f)
	return marker.Dismissal{ID: fp[:6], Fingerprint: fp, File: f.File, Line: line, Lines: marker.LinesKey(content, line), Severity: "P1",
		Title: f.Title, By: "maint", At: "2026-11-28T05:00:00Z", Reason: "intended", Head: head}
}

func reader(content string, err error, reads *int) review.HeadReader {
	return func(context.Context, string) (string, bool, error) {
		*reads++
		return content, err == nil, err
	}
}

// TestApplyDismissals: the same head needs no read; lines that moved keep
// the finding dismissed; lines that changed have it judged afresh (kept,
// blocking, noting the earlier dismissal) and the dismissal lapses; a read
// error neither dismisses nor lapses; another problem is untouched.
func TestApplyDismissals(t *testing.T) {
	t.Parallel()
	moved := "// header\n" + fileA
	changed := strings.Replace(fileA, "i++", "i += 1", 1)
	for _, tc := range []struct {
		name       string
		head       string
		line       int
		content    string
		readErr    error
		dismissed  bool
		lapsed     bool
		wantReads  int
		wantReason bool // the kept finding notes the earlier dismissal
	}{
		{name: "same head and line", head: headA, line: 4, content: fileA, dismissed: true},
		{name: "lines moved", head: headB, line: 5, content: moved, dismissed: true, wantReads: 1},
		{name: "lines changed", head: headB, line: 4, content: changed, lapsed: true, wantReads: 1, wantReason: true},
		{name: "file unreadable", head: headB, line: 4, readErr: errors.New("502"), wantReads: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			other := finding.Finding{Number: 2, Title: "Another problem", Severity: finding.P2, File: "x.go", Line: 4, Confidence: 75}
			res := review.Result{HeadSHA: tc.head, Findings: []finding.Finding{loopFinding(tc.line), other}, Verdict: review.NotReady}
			reads := 0
			review.ApplyDismissals(context.Background(), &res, []marker.Dismissal{dismissedAt(headA, 4, fileA)}, reader(tc.content, tc.readErr, &reads))
			if got := len(res.Dismissed) == 1; got != tc.dismissed {
				t.Fatalf("dismissed %v (%+v); want %v", got, res.Dismissed, tc.dismissed)
			}
			if reads != tc.wantReads {
				t.Errorf("%d reads; want %d", reads, tc.wantReads)
			}
			if len(res.Dismissals) != 1 || res.Dismissals[0].Applies() == tc.lapsed {
				t.Errorf("dismissals %+v; lapsed want %v", res.Dismissals, tc.lapsed)
			}
			if tc.lapsed && res.Dismissals[0].Lapsed != tc.head {
				t.Errorf("lapsed at %q; want %q", res.Dismissals[0].Lapsed, tc.head)
			}
			wantKept, wantVerdict := 2, review.NotReady
			if tc.dismissed {
				wantKept, wantVerdict = 1, review.ReadyWithFixes
			}
			if len(res.Findings) != wantKept || res.Verdict != wantVerdict {
				t.Errorf("findings %d verdict %s; want %d, %s", len(res.Findings), res.Verdict, wantKept, wantVerdict)
			}
			if got := res.Findings[0].Dismissed != nil && res.Findings[0].Title == loopFinding(0).Title; got != tc.wantReason {
				t.Errorf("kept finding notes the earlier dismissal: %v; want %v", got, tc.wantReason)
			}
		})
	}
}

// TestReissue: the report's metadata rebuilds its findings, numbered, with
// the verdict decided again; an incomplete review stays incomplete.
func TestReissue(t *testing.T) {
	t.Parallel()
	fp := finding.Fingerprint(loopFinding(4))
	m := marker.Meta{Version: 2, HeadSHA: headA, Verdict: "not-ready", Conclusion: "failure", Blocking: 1, Incomplete: true,
		Findings: []marker.Finding{{File: "x.go", Line: 4, Severity: "P1", Anchor: 100, Fingerprint: fp, ID: fp[:6], Title: "Loop reads past n", Commit: headA}}}
	res := review.Reissue(m, "o/r", 3)
	if len(res.Findings) != 1 || res.Findings[0].Number != 1 || res.Verdict != review.NotReady || !res.Partial || res.HeadSHA != headA {
		t.Fatalf("Reissue = %+v", res)
	}
}

// TestApplyDismissalsOneInstance: the same problem twice in a file, one
// instance dismissed: the other stays posted, with no note, and the
// dismissal keeps applying.
func TestApplyDismissalsOneInstance(t *testing.T) {
	t.Parallel()
	res := review.Result{HeadSHA: headA, Findings: []finding.Finding{loopFinding(4), loopFinding(40)}, Verdict: review.NotReady}
	reads := 0
	review.ApplyDismissals(context.Background(), &res, []marker.Dismissal{dismissedAt(headA, 4, fileA)}, reader(fileA, nil, &reads))
	if len(res.Dismissed) != 1 || len(res.Findings) != 1 || res.Findings[0].Line != 40 || res.Findings[0].Dismissed != nil || !res.Dismissals[0].Applies() {
		t.Fatalf("dismissed %+v kept %+v dismissals %+v", res.Dismissed, res.Findings, res.Dismissals)
	}
}

// TestIgnoredNoticeTooManyHeads: Coverage says why nothing was trusted
// when look-alikes name too many heads, not that check runs were unread.
func TestIgnoredNoticeTooManyHeads(t *testing.T) {
	t.Parallel()
	got := review.IgnoredNotice(10, fmt.Errorf("%w: more than 10", skip.ErrTooManyHeads))
	if len(got) != 2 || !strings.Contains(got[1], "more than 10 heads") {
		t.Fatalf("IgnoredNotice = %q", got)
	}
}
