package scope

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// largeDiff is a 3,000-file, 100,000-changed-line diff with a realistic
// mix of paths: code, tests, docs, lock, vendored and generated files.
func largeDiff(tb testing.TB) *diff.Diff {
	tb.Helper()
	kinds := []string{"pkg/mod%03d/file%04d.go", "pkg/mod%03d/file%04d_test.go", "docs/mod%03d/page%04d.md",
		"vendor/mod%03d/dep%04d.go", "api/mod%03d/msg%04d.pb.go", "web/mod%03d/app%04d.ts"}
	var b strings.Builder
	const files, lines = 3000, 100000
	for i := 0; i < files; i++ {
		path := fmt.Sprintf(kinds[i%len(kinds)], i%97, i)
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", path, path, path, path)
		start := 1
		for left := lines / files; left > 0; {
			n := min(left, 12)
			del, add := n/2, n-n/2
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", start, del+2, start, add+2)
			b.WriteString(" ctx\n")
			for d := 0; d < del; d++ {
				fmt.Fprintf(&b, "-old %d\n", d)
			}
			for a := 0; a < add; a++ {
				fmt.Fprintf(&b, "+new %d\n", a)
			}
			b.WriteString(" ctx\n")
			left -= n
			start += del + 40
		}
	}
	d, err := diff.Parse([]byte(b.String()))
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// BenchmarkApplyLarge runs Stage 2 on a 3,000-file, 100,000-line diff.
func BenchmarkApplyLarge(b *testing.B) {
	d := largeDiff(b)
	exclude := []string{"docs/**", "**/*.snap", "web/mod01*/**"}
	b.ReportAllocs()
	for b.Loop() {
		s, err := Apply(d, exclude)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Files) == 0 || len(s.Excluded) == 0 {
			b.Fatalf("got %d reviewed, %d excluded; want both", len(s.Files), len(s.Excluded))
		}
	}
}

// BenchmarkStandardsPathsLarge lists standards candidates for 3,000 files.
func BenchmarkStandardsPathsLarge(b *testing.B) {
	d := largeDiff(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = StandardsPaths(d.Files)
	}
}
