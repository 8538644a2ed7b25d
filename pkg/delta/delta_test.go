package delta

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// parseOne parses a one-file git diff.
func parseOne(t testing.TB, text string) *diff.File {
	t.Helper()
	d, err := diff.Parse([]byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if len(d.Files) != 1 {
		t.Fatalf("%d files; want 1", len(d.Files))
	}
	return d.Files[0]
}

const head = "diff --git a/f.go b/f.go\n--- a/f.go\n+++ b/f.go\n"

func TestMap(t *testing.T) {
	// Old file: lines 1..40. Hunk 1 inserts two lines after 10; hunk 2
	// replaces old line 30 with three lines.
	two := head +
		"@@ -9,3 +9,5 @@\n l9\n l10\n+new1\n+new2\n l11\n" +
		"@@ -29,3 +31,5 @@\n l29\n-l30\n+x\n+y\n+z\n l31\n"
	pure := head + "@@ -20,0 +21,2 @@\n+a\n+b\n"
	del := head + "@@ -5,3 +5,1 @@\n-l5\n-l6\n l7\n"
	tail := head + "@@ -8,3 +8,2 @@\n l8\n l9\n-l10\n"
	// Old lines 11..13 replaced by two lines.
	block := head + "@@ -10,5 +10,4 @@\n l10\n-l11\n-l12\n-l13\n+n11\n+n12\n l14\n"
	tests := []struct {
		name string
		diff string
		old  int
		want Mapping
	}{
		{"before every hunk, far", two, 2, Mapping{Line: 2}},
		{"before the first hunk, near its insertion", two, 8, Mapping{Line: 8, Touched: true}},
		{"the line the insertion follows", two, 10, Mapping{Line: 10, Touched: true}},
		{"the line after the insertion", two, 11, Mapping{Line: 13, Touched: true}},
		{"between hunks, far from both", two, 20, Mapping{Line: 22}},
		{"just outside the radius of the insertion", two, 15, Mapping{Line: 17}},
		{"within the radius of the replacement", two, 27, Mapping{Line: 29, Touched: true}},
		{"the replaced line maps to its replacement", two, 30, Mapping{Line: 32, Touched: true, Deleted: true}},
		{"after both hunks", two, 40, Mapping{Line: 44}},
		{"pure insertion: before", pure, 10, Mapping{Line: 10}},
		{"pure insertion: the line it follows", pure, 20, Mapping{Line: 20, Touched: true}},
		{"pure insertion: after", pure, 30, Mapping{Line: 32}},
		{"deleted lines map to the next survivor", del, 6, Mapping{Line: 5, Touched: true, Deleted: true}},
		{"after a deletion", del, 12, Mapping{Line: 10}},
		{"deleted last line maps to the hunk's last line", tail, 10, Mapping{Line: 9, Touched: true, Deleted: true}},
		{"a replaced block maps line by line", block, 12, Mapping{Line: 12, Touched: true, Deleted: true}},
		{"a replaced block's extra line maps past the shorter replacement", block, 13, Mapping{Line: 13, Touched: true, Deleted: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Map(parseOne(t, tt.diff), tt.old); got != tt.want {
				t.Fatalf("Map(%d) = %+v; want %+v", tt.old, got, tt.want)
			}
		})
	}
}

func TestMapWholeFileChanges(t *testing.T) {
	tests := []struct {
		name string
		diff string
		want Mapping
	}{
		{"deleted file", "diff --git a/f.go b/f.go\ndeleted file mode 100644\n--- a/f.go\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
			Mapping{Touched: true, Deleted: true, Gone: true}},
		{"binary change", "diff --git a/f.bin b/f.bin\nBinary files a/f.bin and b/f.bin differ\n", Mapping{Line: 7, Touched: true}},
		{"pure rename keeps lines", "diff --git a/a.go b/b.go\nsimilarity index 100%\nrename from a.go\nrename to b.go\n", Mapping{Line: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Map(parseOne(t, tt.diff), 7); got != tt.want {
				t.Fatalf("Map(7) = %+v; want %+v", got, tt.want)
			}
		})
	}
}

// TestMapAgreesWithText checks Map against the file texts themselves: an
// untouched line has the same text at its mapped place, for random edits.
func TestMapAgreesWithText(t *testing.T) {
	for seed := range 200 {
		old, edited := edit(seed)
		f := parseOne(t, unified(old, edited))
		for n := 1; n <= len(old); n++ {
			m := Map(f, n)
			if m.Line < 1 || m.Line > max(len(edited), 1) {
				t.Fatalf("seed %d: Map(%d) = %d, outside the new file of %d lines", seed, n, m.Line, len(edited))
			}
			if !m.Deleted && edited[m.Line-1] != old[n-1] {
				t.Fatalf("seed %d: old line %d %q mapped to %d %q", seed, n, old[n-1], m.Line, edited[m.Line-1])
			}
		}
	}
}

// edit makes a deterministic old file and an edited copy: some lines
// replaced, some deleted, some inserted.
func edit(seed int) (old, edited []string) {
	x := uint32(seed*2654435761 + 1)
	next := func(n int) int { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return int(x % uint32(n)) }
	size := 5 + next(40)
	for i := range size {
		old = append(old, fmt.Sprintf("line %d", i+1))
	}
	for i, l := range old {
		switch next(8) {
		case 0:
			continue // deleted
		case 1:
			edited = append(edited, fmt.Sprintf("changed %d.%d", seed, i))
		case 2:
			edited = append(edited, fmt.Sprintf("inserted %d.%d", seed, i), l)
		default:
			edited = append(edited, l)
		}
	}
	if len(edited) == 0 {
		edited = []string{"all new"}
	}
	return old, edited
}

// unified renders a git diff from old to edited with one hunk per change
// and no context, using a longest-common-subsequence alignment.
func unified(old, edited []string) string {
	n, m := len(old), len(edited)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if old[i] == edited[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var b strings.Builder
	b.WriteString(head)
	i, j := 0, 0
	for i < n || j < m {
		if i < n && j < m && old[i] == edited[j] {
			i, j = i+1, j+1
			continue
		}
		si, sj := i, j
		var lines []string
		for (i < n || j < m) && !(i < n && j < m && old[i] == edited[j]) {
			if j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]) {
				lines = append(lines, "+"+edited[j])
				j++
			} else {
				lines = append(lines, "-"+old[i])
				i++
			}
		}
		os, ns := si+1, sj+1
		if i == si {
			os = si
		}
		if j == sj {
			ns = sj
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n%s\n", os, i-si, ns, j-sj, strings.Join(lines, "\n"))
	}
	return b.String()
}

func ExampleMap() {
	d, _ := diff.Parse([]byte("diff --git a/f.go b/f.go\n--- a/f.go\n+++ b/f.go\n@@ -2,0 +3,2 @@\n+a\n+b\n"))
	fmt.Println(Map(d.Files[0], 1), Map(d.Files[0], 40))
	// Output: {1 true false false} {42 false false false}
}

// FuzzMap: any diff the parser accepts maps every line without panicking,
// inside the new file's plausible range.
func FuzzMap(f *testing.F) {
	f.Add(head+"@@ -9,3 +9,5 @@\n l9\n l10\n+new1\n+new2\n l11\n", 10)
	f.Add(head+"@@ -5,3 +5,1 @@\n-l5\n-l6\n l7\n", 6)
	f.Fuzz(func(t *testing.T, text string, n int) {
		d, err := diff.Parse([]byte(text))
		if err != nil || n < 1 || n > 1<<20 {
			return
		}
		for _, file := range d.Files {
			m := Map(file, n)
			if m.Line < 0 || (m.Gone && m.Line != 0) {
				t.Fatalf("Map(%d) = %+v", n, m)
			}
		}
	})
}
