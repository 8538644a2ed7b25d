package diff

import (
	"fmt"
	"strings"
	"testing"
)

// largeDiff builds a diff of files files, each with hunks of modifications
// and added lines, about lines changed lines in total.
func largeDiff(files, lines int) []byte {
	var b strings.Builder
	perFile := lines / files
	for i := 0; i < files; i++ {
		path := fmt.Sprintf("pkg/mod%03d/file%04d.go", i%97, i)
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1234567..89abcde 100644\n--- a/%s\n+++ b/%s\n", path, path, path, path)
		start := 10
		for left := perFile; left > 0; {
			n := min(left, 12) // changed lines in this hunk: n/2 deleted, n-n/2 added
			del, add := n/2, n-n/2
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@ func f%d() {\n", start, del+6, start, add+6, start)
			for c := 0; c < 3; c++ {
				fmt.Fprintf(&b, " \tctx := %d\n", c)
			}
			for d := 0; d < del; d++ {
				fmt.Fprintf(&b, "-\told := compute(%d, %d)\n", i, d)
			}
			for a := 0; a < add; a++ {
				fmt.Fprintf(&b, "+\tnew := compute(%d, %d) // changed\n", i, a)
			}
			for c := 0; c < 3; c++ {
				fmt.Fprintf(&b, " \ttail := %d\n", c)
			}
			left -= n
			start += del + 40
		}
	}
	return []byte(b.String())
}

// BenchmarkParseLarge parses a 3,000-file, 100,000-changed-line diff.
func BenchmarkParseLarge(b *testing.B) {
	in := largeDiff(3000, 100000)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := Parse(in)
		if err != nil {
			b.Fatal(err)
		}
		if len(d.Files) != 3000 {
			b.Fatalf("got %d files; want 3000", len(d.Files))
		}
	}
}

// BenchmarkNewLine asks every new line of the large diff.
func BenchmarkNewLine(b *testing.B) {
	d, err := Parse(largeDiff(3000, 100000))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range d.Files {
			for n := 1; n <= f.LastNewLine(); n++ {
				f.NewLine(n)
			}
		}
	}
}

// BenchmarkRenderLarge renders the large diff.
func BenchmarkRenderLarge(b *testing.B) {
	d, err := Parse(largeDiff(3000, 100000))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Render(d.Files)
	}
}

func TestLargeDiffShape(t *testing.T) {
	d, err := Parse(largeDiff(3000, 100000))
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, f := range d.Files {
		changed += f.Added() + f.Deleted()
	}
	if len(d.Files) != 3000 || changed < 99000 || changed > 100000 {
		t.Errorf("got %d files, %d changed lines; want 3000 files, about 100000 lines", len(d.Files), changed)
	}
}
