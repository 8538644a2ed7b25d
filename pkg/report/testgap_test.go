package report

import (
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
)

// TestCommentTestGapLine: a finding with a folded test gap is one table row
// carrying one "No test covers this" line, sanitized; the gap's persona is
// not among the row's reviewers (folding is not promotion).
func TestCommentTestGapLine(t *testing.T) {
	r := fullResult()
	r.Findings[1].TestGap = &finding.TestGap{Title: "Cache eviction has no test @octocat", Reviewers: []string{"testing"}}
	c := Comment(r, opts())
	var rows []string
	for _, l := range strings.Split(c, "\n") {
		if strings.Contains(l, "store/cache.go:1") && strings.HasPrefix(l, "| ") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 1 {
		t.Fatalf("got %d rows for the finding; want exactly one:\n%s", len(rows), c)
	}
	if n := strings.Count(c, "No test covers this: "); n != 1 {
		t.Errorf("comment has %d test-gap lines; want 1", n)
	}
	if !strings.Contains(rows[0], "<br>No test covers this: Cache eviction has no test") || strings.Contains(rows[0], "@octocat") {
		t.Errorf("row lacks the sanitized test-gap line:\n%s", rows[0])
	}
	if strings.HasSuffix(rows[0], "| correctness, testing | 75 |") || !strings.HasSuffix(rows[0], "| correctness | 75 |") {
		t.Errorf("row's reviewers changed by the fold:\n%s", rows[0])
	}
	if plain := Comment(fullResult(), opts()); strings.Contains(plain, "No test covers this") {
		t.Errorf("a finding without a folded gap shows a test-gap line")
	}
}

// TestCheckAnnotationTestGap: the finding's one annotation carries the
// folded test gap; no second annotation is made for it.
func TestCheckAnnotationTestGap(t *testing.T) {
	r := fullResult()
	r.Findings[1].TestGap = &finding.TestGap{Title: "Cache eviction has no test", Reviewers: []string{"testing"}}
	c := Check(r, opts())
	if len(c.Annotations) != len(r.Findings) {
		t.Fatalf("got %d annotations; want %d", len(c.Annotations), len(r.Findings))
	}
	n := 0
	for _, a := range c.Annotations {
		n += strings.Count(a.Message, "No test covers this: Cache eviction has no test")
	}
	if n != 1 || !strings.Contains(c.Annotations[1].Message, "No test covers this") {
		t.Errorf("the test-gap line appears %d times; want once, on finding 2", n)
	}
}
