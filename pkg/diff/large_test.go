package diff

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// largeStats is what the generator of the 3,000-file diff knows it wrote,
// counted independently of the parser.
type largeStats struct {
	status                map[Status]int
	binary, noNewline     int
	hunks, added, deleted int
	paths                 []string
	renamedFrom           map[int]string // file index -> old path
}

// gitQuote is git's C-quoting of a path with bytes outside printable ASCII
// (core.quotePath=true): octal escapes for every such byte.
func gitQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// largePath is the i-th file's path with extension ext, and whether git
// writes it C-quoted: some paths hold spaces, some non-ASCII letters
// (quoted, as git does by default, or raw, as with core.quotePath=false).
func largePath(i int, ext string) (path string, quoted bool) {
	switch {
	case i%7 == 3:
		return fmt.Sprintf("docs/user guide/page %04d%s", i, ext), false
	case i%11 == 5:
		return fmt.Sprintf("intl/café/naïve_%04d%s", i, ext), true
	case i%13 == 6:
		return fmt.Sprintf("i18n/日本語/ファイル_%04d%s", i, ext), false
	default:
		return fmt.Sprintf("pkg/mod%02d/file%04d%s", i%50, i, ext), false
	}
}

// gitName is prefix+path as it appears in headers.
func gitName(prefix, path string, quoted bool) string {
	if quoted {
		return gitQuote(prefix + path)
	}
	return prefix + path
}

// dashLine is a ---/+++ line; git ends unquoted names holding spaces with
// a tab.
func dashLine(marker, name string) string {
	if strings.Contains(name, " ") && !strings.HasPrefix(name, `"`) {
		name += "\t"
	}
	return marker + " " + name + "\n"
}

// largeRealDiff writes a deterministic diff of 3,000 files and about
// 100,000 changed lines, in git's format: modified files with several
// hunks, added and deleted files, renames with and without changes,
// binary files (marker and GIT binary patch), paths with spaces and
// non-ASCII letters, missing final newlines, and changed lines that look
// like ---/+++ headers.
func largeRealDiff() ([]byte, largeStats) {
	st := largeStats{status: map[Status]int{}, renamedFrom: map[int]string{}}
	var b strings.Builder
	b.Grow(6 << 20)
	for i := range 3000 {
		k := i % 20
		ext := ".go"
		if k == 19 {
			ext = ".png"
		}
		p, q := largePath(i, ext)
		a, bn := gitName("a/", p, q), gitName("b/", p, q)
		switch {
		case k < 12: // modified, 1-4 hunks
			st.status[Modified]++
			fmt.Fprintf(&b, "diff --git %s %s\nindex 1a2b3c4..5d6e7f8 100644\n", a, bn)
			b.WriteString(dashLine("---", a) + dashLine("+++", bn))
			shift := 0
			for h := range 1 + i%4 {
				del, add := 2+(i+h)%5, 3+(i*3+h)%7
				old := 10 + h*60
				section := ""
				if (i+h)%3 != 0 {
					section = fmt.Sprintf(" func f%d_%d() {", i, h)
				}
				fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@%s\n", old, del+6, old+shift, add+6, section)
				for c := range 3 {
					fmt.Fprintf(&b, " \tctx%d := load(%d)\n", c, h)
				}
				for d := range del {
					fmt.Fprintf(&b, "-\tv%d := compute(%d, \"état\")\n", d, i)
				}
				for n := range add {
					fmt.Fprintf(&b, "+\tv%d := computeCtx(ctx, %d) // ✓\n", n, i)
				}
				for c := range 3 {
					fmt.Fprintf(&b, " \treturn%d(%d)\n", c, h)
				}
				shift += add - del
				st.hunks++
				st.added += add
				st.deleted += del
			}
			st.paths = append(st.paths, p)
		case k < 15: // added
			st.status[Added]++
			n := 46 + i%80
			fmt.Fprintf(&b, "diff --git %s %s\nnew file mode 100644\nindex 0000000..%07x\n", a, bn, i)
			b.WriteString("--- /dev/null\n" + dashLine("+++", bn))
			fmt.Fprintf(&b, "@@ -0,0 +1,%d @@\n", n)
			for j := range n {
				if j%23 == 7 {
					fmt.Fprintf(&b, "+++ counter %d\n", j) // added line "++ counter"
				} else {
					fmt.Fprintf(&b, "+line %d of file %d\n", j+1, i)
				}
			}
			if i%9 == 0 {
				b.WriteString("\\ No newline at end of file\n")
				st.noNewline++
			}
			st.hunks++
			st.added += n
			st.paths = append(st.paths, p)
		case k < 17: // deleted
			st.status[Deleted]++
			n := 20 + i%60
			fmt.Fprintf(&b, "diff --git %s %s\ndeleted file mode 100644\nindex %07x..0000000\n", a, bn, i)
			b.WriteString(dashLine("---", a) + "+++ /dev/null\n")
			fmt.Fprintf(&b, "@@ -1,%d +0,0 @@\n", n)
			for j := range n {
				if j%17 == 0 {
					fmt.Fprintf(&b, "--- comment %d\n", j) // deleted line "-- comment"
				} else {
					fmt.Fprintf(&b, "-old %d\n", j)
				}
			}
			st.hunks++
			st.deleted += n
			st.paths = append(st.paths, p)
		case k < 19: // renamed: with a change (k 17) or pure (k 18)
			st.status[Renamed]++
			oi := i // pure renames keep the path's kind (both sides spaced, ...)
			if k == 17 {
				oi++ // renames with a change mix kinds
			}
			op, oq := largePath(oi, ".go")
			op = "legacy/" + op
			fmt.Fprintf(&b, "diff --git %s %s\n", gitName("a/", op, oq), bn)
			st.renamedFrom[i] = op
			from, to := op, p
			if oq {
				from = gitQuote(op)
			}
			if q {
				to = gitQuote(p)
			}
			if k == 18 {
				fmt.Fprintf(&b, "similarity index 100%%\nrename from %s\nrename to %s\n", from, to)
			} else {
				fmt.Fprintf(&b, "similarity index 91%%\nrename from %s\nrename to %s\nindex 1111111..2222222 100644\n", from, to)
				b.WriteString(dashLine("---", gitName("a/", op, oq)) + dashLine("+++", bn))
				b.WriteString("@@ -5,7 +5,8 @@ package moved\n import (\n \t\"fmt\"\n \t\"os\"\n-\t\"old/path\"\n+\t\"new/path\"\n+\t\"strings\"\n )\n \n var _ = fmt.Sprint\n")
				st.hunks++
				st.added += 2
				st.deleted++
			}
			st.paths = append(st.paths, p)
		default: // binary: modified (marker) or added (GIT binary patch)
			st.binary++
			if i%40 == 19 {
				st.status[Modified]++
				fmt.Fprintf(&b, "diff --git %s %s\nindex 3333333..4444444 100644\nBinary files %s and %s differ\n", a, bn, a, bn)
			} else {
				st.status[Added]++
				fmt.Fprintf(&b, "diff --git %s %s\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..a6a3e7f3bad02f24f974be4ecd3e7b95afcfa21e\n", a, bn)
				b.WriteString("GIT binary patch\nliteral 11\nScmeAS@N?(olHy`uWC8#WNdc_@\n\nliteral 0\nHcmV?d00001\n\n")
			}
			st.paths = append(st.paths, p)
		}
	}
	return []byte(b.String()), st
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// largeSummary is a compact description of a parse, for the golden file.
func largeSummary(d *Diff) string {
	status := map[Status]int{}
	var binary, noNewline, hunks, added, deleted, spaced, nonASCII int
	for _, f := range d.Files {
		status[f.Status]++
		if f.Binary {
			binary++
		}
		hunks += len(f.Hunks)
		added += f.Added()
		deleted += f.Deleted()
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.NoNewline {
					noNewline++
				}
			}
		}
		if strings.Contains(f.Path(), " ") {
			spaced++
		}
		if needsQuote(f.Path()) {
			nonASCII++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "files: %d\n", len(d.Files))
	for _, s := range []Status{Added, Modified, Deleted, Renamed, Copied} {
		fmt.Fprintf(&b, "  %-8s %d\n", s, status[s])
	}
	fmt.Fprintf(&b, "binary: %d\nno newline at end: %d\nhunks: %d\nadded lines: %d\ndeleted lines: %d\n", binary, noNewline, hunks, added, deleted)
	fmt.Fprintf(&b, "paths with spaces: %d\npaths git quotes: %d\n", spaced, nonASCII)
	n := len(d.Files)
	for i, f := range d.Files {
		if i < 3 || i >= n-3 {
			fmt.Fprintf(&b, "file %d: %s (%s)\n", i+1, show(f.Path()), f.Status)
		}
	}
	r := Render(d.Files)
	fmt.Fprintf(&b, "render: %d bytes, sha256 %s\n", len(r), sha(r))
	return b.String()
}

// TestLargeRealisticDiff parses a 3,000-file, ~100,000-line diff with
// every kind of file change, checks the parse against what the generator
// wrote, goldens a summary and checks Parse(Render(d)) round-trips.
func TestLargeRealisticDiff(t *testing.T) {
	in, want := largeRealDiff()
	d, err := Parse(in)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}

	// Against the generator's own counts.
	if len(d.Files) != len(want.paths) {
		t.Fatalf("got %d files; want %d", len(d.Files), len(want.paths))
	}
	status := map[Status]int{}
	var binary, noNewline, hunks, added, deleted int
	for i, f := range d.Files {
		if f.Path() != want.paths[i] {
			t.Errorf("file %d: path %q; want %q", i+1, f.Path(), want.paths[i])
		}
		if old, ok := want.renamedFrom[i]; ok && (f.OldPath != old || f.Status != Renamed) {
			t.Errorf("file %d: %s from %q; want renamed from %q", i+1, f.Status, f.OldPath, old)
		}
		status[f.Status]++
		if f.Binary {
			binary++
		}
		hunks += len(f.Hunks)
		added += f.Added()
		deleted += f.Deleted()
		for _, h := range f.Hunks {
			noNewline += countNoNewline(h)
		}
	}
	if !reflect.DeepEqual(status, want.status) {
		t.Errorf("statuses = %v; want %v", status, want.status)
	}
	if binary != want.binary || noNewline != want.noNewline || hunks != want.hunks || added != want.added || deleted != want.deleted {
		t.Errorf("binary %d, no-newline %d, hunks %d, added %d, deleted %d; want %d, %d, %d, %d, %d",
			binary, noNewline, hunks, added, deleted, want.binary, want.noNewline, want.hunks, want.added, want.deleted)
	}
	if changed := added + deleted; changed < 95000 || changed > 105000 {
		t.Errorf("%d changed lines; want about 100000", changed)
	}

	got := largeSummary(d)
	golden := filepath.Join("testdata", "large-3000.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantSummary, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(wantSummary) {
		t.Errorf("summary differs from %s\ngot:\n%s\nwant:\n%s", golden, got, wantSummary)
	}

	// Round trip: the rendering parses back to the same files.
	rendered := Render(d.Files)
	again, err := Parse([]byte(rendered))
	if err != nil {
		t.Fatalf("Parse(Render(d)): %v", err)
	}
	if again := largeSummary(again); again != got {
		t.Errorf("summary of Parse(Render(d)):\n%s\nwant:\n%s", again, got)
	}
	if len(again.Files) != len(d.Files) {
		t.Fatalf("Parse(Render(d)) has %d files; want %d", len(again.Files), len(d.Files))
	}
	for i := range d.Files {
		if !reflect.DeepEqual(again.Files[i], d.Files[i]) {
			t.Fatalf("file %d (%s) differs after Parse(Render(d))", i+1, show(d.Files[i].Path()))
		}
	}
	if r2 := Render(again.Files); r2 != rendered {
		t.Errorf("Render(Parse(Render(d))) differs from Render(d); want a stable rendering")
	}
}

func countNoNewline(h Hunk) int {
	n := 0
	for _, l := range h.Lines {
		if l.NoNewline {
			n++
		}
	}
	return n
}
