package diff

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// dump is a readable description of a parse, for golden files.
func dump(d *Diff) string {
	var b strings.Builder
	fmt.Fprintf(&b, "files: %d\n", len(d.Files))
	for i, f := range d.Files {
		fmt.Fprintf(&b, "\n== file %d: %s\n", i+1, show(f.Path()))
		fmt.Fprintf(&b, "status: %s  old: %s  new: %s\n", f.Status, show(f.OldPath), show(f.NewPath))
		if f.OldMode != "" || f.NewMode != "" {
			fmt.Fprintf(&b, "mode: %q -> %q\n", f.OldMode, f.NewMode)
		}
		if f.Similarity != 0 {
			fmt.Fprintf(&b, "similarity: %d%%\n", f.Similarity)
		}
		if f.Binary {
			b.WriteString("binary\n")
		}
		if f.NoPatch {
			b.WriteString("no patch\n")
		}
		fmt.Fprintf(&b, "added: %d  deleted: %d  last new line: %d\n", f.Added(), f.Deleted(), f.LastNewLine())
		for _, h := range f.Hunks {
			fmt.Fprintf(&b, "hunk -%d,%d +%d,%d section %q\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines, h.Section)
			for _, l := range h.Lines {
				fmt.Fprintf(&b, "  %4s %4s %c %s", num(l.OldNo), num(l.NewNo), l.Kind, show(l.Text))
				if l.NoNewline {
					b.WriteString("  [no newline at end of file]")
				}
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

func num(n int) string {
	if n == 0 {
		return "."
	}
	return strconv.Itoa(n)
}

// show prints s as is when it is plain printable text, else quoted.
func show(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) && r != '\t' {
			return strconv.Quote(s)
		}
	}
	return s
}

// TestGolden parses every testdata/*.diff and compares a dump of the parse
// and its rendering with testdata/*.golden. Files named err_* must fail.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.diff"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 30 {
		t.Fatalf("got %d testdata diffs; want at least 30", len(paths))
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".diff")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			d, err := Parse(in)
			if strings.HasPrefix(name, "err_") {
				if err == nil {
					t.Fatalf("Parse succeeded; want an error")
				}
				var se *SyntaxError
				if !errors.As(err, &se) || !errors.Is(err, ErrMalformed) || se.Line < 1 {
					t.Fatalf("got error %v (%T); want a *SyntaxError with a line, wrapping ErrMalformed", err, err)
				}
				got = "error: " + err.Error() + "\n"
			} else {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				rendered := Render(d.Files)
				got = dump(d) + "\n-- render --\n" + rendered
				checkRoundTrip(t, d)
				checkNewLine(t, d)
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("parse of %s differs from %s\ngot:\n%s\nwant:\n%s", path, golden, got, want)
			}
		})
	}
}

// checkRoundTrip asserts Parse(Render(files)) gives the same files.
func checkRoundTrip(t *testing.T, d *Diff) {
	t.Helper()
	text := Render(d.Files)
	again, err := Parse([]byte(text))
	if err != nil {
		t.Fatalf("Parse(Render(d)): %v\nrendered:\n%s", err, text)
	}
	if !reflect.DeepEqual(again.Files, d.Files) && !(len(again.Files) == 0 && len(d.Files) == 0) {
		t.Fatalf("Parse(Render(d)) differs from d\ngot:\n%s\nwant:\n%s", dump(again), dump(d))
	}
	if text2 := Render(again.Files); text2 != text {
		t.Fatalf("Render is not stable\ngot:\n%s\nwant:\n%s", text2, text)
	}
}

// checkNewLine compares NewLine, with and without the index, against a
// scan of every hunk line, for every line number around the file.
func checkNewLine(t *testing.T, d *Diff) {
	t.Helper()
	for _, f := range d.Files {
		want := map[int]Line{}
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Kind != Delete {
					want[l.NewNo] = l
				}
			}
		}
		bare := *f
		bare.idx, bare.idxOff = nil, nil
		for n := -1; n <= f.LastNewLine()+2; n++ {
			w, wok := want[n]
			for _, g := range []*File{f, &bare} {
				got, ok := g.NewLine(n)
				if ok != wok || got != w {
					t.Errorf("%s: NewLine(%d) (indexed %v) = %+v, %v; want %+v, %v", f.Path(), n, g == f, got, ok, w, wok)
				}
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		path     string
		msg      string
	}{
		{"counts too large", "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n", 5, "x", "end of input"},
		{"extra added line", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n", 6, "x", "outside any hunk"},
		{"extra added line inside", "--- a/x\n+++ b/x\n@@ -1,2 +1,1 @@\n+b\n+c\n", 5, "x", "more added lines"},
		{"extra deleted line", "--- a/x\n+++ b/x\n@@ -1,1 +1,2 @@\n-a\n-b\n", 5, "x", "more deleted lines"},
		{"context beyond counts", "--- a/x\n+++ b/x\n@@ -1,1 +1,2 @@\n-a\n c\n", 5, "x", "context line"},
		{"garbage in hunk", "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n?b\n", 5, "x", "unexpected line"},
		{"no newline first", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n\\ No newline at end of file\n", 4, "x", "no line before it"},
		{"hunk without dashes", "diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n", 2, "x", "without a ---/+++"},
		{"minus without plus", "--- a/x\n@@ -1 +1 @@\n", 2, "", "before any file header"},
		{"bare patch", "@@ -1 +1 @@\n-a\n+b\n", 1, "", "ParsePatch"},
		{"line zero", "--- a/x\n+++ b/x\n@@ -0,1 +1 @@\n-a\n+b\n", 3, "x", "line 0"},
		{"huge number", "--- a/x\n+++ b/x\n@@ -1,99999999999 +1 @@\n", 3, "x", "too large"},
		{"combined diff", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@@ -1 -1 +1 @@@\n", 4, "x", "bad hunk header"},
		{"added and deleted", "diff --git a/x b/x\nnew file mode 100644\ndeleted file mode 100644\n", 1, "x", "both added and deleted"},
		{"rename without to", "diff --git a/x b/y\nrename from x\n", 1, "y", "both from and to"},
		{"bad mode", "diff --git a/x b/x\nold mode 10064z\n", 2, "x", "bad file mode"},
		{"bad similarity", "diff --git a/x b/y\nsimilarity index 140%\n", 2, "y", "bad similarity"},
		{"bad escape", "--- \"a/x\\q\"\n+++ b/x\n", 1, "", "unknown escape"},
		{"header only", "--- a/x\n+++ b/x\n", 2, "x", "without hunks"},
		{"ambiguous names", "diff --git a/x y b/z w b/q\nold mode 100644\nnew mode 100755\n", 1, "a/x y b/z w b/q", "cannot determine"},
		{"stray after file", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\nhello\n", 6, "x", "unexpected line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse([]byte(tt.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse = %v, %v; want a *SyntaxError", d, err)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("got %v; want it to wrap ErrMalformed", err)
			}
			if se.Line != tt.line || se.Path != tt.path || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("got line %d path %q msg %q; want line %d path %q msg containing %q", se.Line, se.Path, se.Msg, tt.line, tt.path, tt.msg)
			}
		})
	}
}

func TestParsePatch(t *testing.T) {
	tests := []struct {
		name             string
		old, new         string
		status           Status
		patch            string
		wantOld, wantNew string
		wantStatus       Status
		noPatch, binary  bool
		added, deleted   int
		lastNew          int
	}{
		{"modified", "", "pkg/a.go", Modified, "@@ -1,2 +1,3 @@ func A() {\n a\n-b\n+c\n+d", "pkg/a.go", "pkg/a.go", Modified, false, false, 2, 1, 3},
		{"added", "", "new.go", Added, "@@ -0,0 +1,2 @@\n+x\n+y\n", "", "new.go", Added, false, false, 2, 0, 2},
		{"deleted", "", "old.go", Deleted, "@@ -1,2 +0,0 @@\n-x\n-y", "old.go", "", Deleted, false, false, 0, 2, 0},
		{"renamed", "a.go", "b.go", Renamed, "@@ -3 +3 @@\n-x\n+y", "a.go", "b.go", Renamed, false, false, 1, 1, 3},
		{"empty patch", "", "huge.sql", Modified, "", "huge.sql", "huge.sql", Modified, true, false, 0, 0, 0},
		{"blank status", "x.go", "", "", "@@ -1 +1 @@\n-a\n+b\n", "x.go", "x.go", Modified, false, false, 1, 1, 1},
		{"binary text", "", "a.png", Added, "Binary files /dev/null and b/a.png differ", "", "a.png", Added, false, true, 0, 0, 0},
		{"crlf", "", "w.txt", Modified, "@@ -1 +1 @@\r\n-a\r\n+b\r\n", "w.txt", "w.txt", Modified, false, false, 1, 1, 1},
		{"github removed", "", "gone.go", "removed", "@@ -1 +0,0 @@\n-x\n", "gone.go", "", Deleted, false, false, 0, 1, 0},
		{"github changed", "", "m.go", "changed", "", "m.go", "m.go", Modified, true, false, 0, 0, 0},
		{"with headers", "", "ignored", Modified, "diff --git a/h.go b/h.go\n--- a/h.go\n+++ b/h.go\n@@ -1 +1 @@\n-a\n+b\n", "h.go", "h.go", Modified, false, false, 1, 1, 1},
		{"no newline", "", "n.txt", Modified, "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n", "n.txt", "n.txt", Modified, false, false, 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParsePatch(tt.old, tt.new, tt.status, tt.patch)
			if err != nil {
				t.Fatalf("ParsePatch: %v", err)
			}
			if f.OldPath != tt.wantOld || f.NewPath != tt.wantNew || f.Status != tt.wantStatus {
				t.Errorf("got %q -> %q (%s); want %q -> %q (%s)", f.OldPath, f.NewPath, f.Status, tt.wantOld, tt.wantNew, tt.wantStatus)
			}
			if f.NoPatch != tt.noPatch || f.Binary != tt.binary {
				t.Errorf("got NoPatch %v Binary %v; want %v %v", f.NoPatch, f.Binary, tt.noPatch, tt.binary)
			}
			if f.Added() != tt.added || f.Deleted() != tt.deleted || f.LastNewLine() != tt.lastNew {
				t.Errorf("got added %d deleted %d last %d; want %d %d %d", f.Added(), f.Deleted(), f.LastNewLine(), tt.added, tt.deleted, tt.lastNew)
			}
			checkNewLine(t, &Diff{Files: []*File{f}})
		})
	}
}

func TestParsePatchErrors(t *testing.T) {
	tests := []struct {
		name, path, patch string
		line              int
		msg               string
	}{
		{"not a hunk", "a.go", "hello\n", 1, "does not start with a hunk"},
		{"short", "a.go", "@@ -1,3 +1,3 @@\n a\n", 2, "end of input"},
		{"trailing garbage", "a.go", "@@ -1 +1 @@\n-a\n+b\n+c\n", 4, "outside any hunk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePatch("", tt.path, Modified, tt.patch)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v; want a *SyntaxError", err)
			}
			if se.Line != tt.line || se.Path != tt.path || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("got line %d path %q msg %q; want line %d path %q msg containing %q", se.Line, se.Path, se.Msg, tt.line, tt.path, tt.msg)
			}
		})
	}
	if _, err := ParsePatch("", "", Modified, "@@ -1 +1 @@\n-a\n+b\n"); !errors.Is(err, ErrMalformed) {
		t.Errorf("ParsePatch without a path = %v; want ErrMalformed", err)
	}
	if _, err := ParsePatch("", "x", Modified, "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n"); !errors.Is(err, ErrMalformed) {
		t.Errorf("ParsePatch of two files = %v; want ErrMalformed", err)
	}
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, quoted string }{
		{"café.go", `"caf\303\251.go"`},
		{"tab\there", `"tab\there"`},
		{`q"b\s`, `"q\"b\\s"`},
		{"bell\a\x7f", `"bell\a\177"`},
		{"nl\nr\rv\vf\fb\b", `"nl\nr\rv\vf\fb\b"`},
	}
	for _, tt := range tests {
		if got := quote(tt.in); got != tt.quoted {
			t.Errorf("quote(%q) = %s; want %s", tt.in, got, tt.quoted)
		}
		got, n, err := unquote(tt.quoted + "rest")
		if err != nil || got != tt.in || n != len(tt.quoted) {
			t.Errorf("unquote(%s) = %q, %d, %v; want %q, %d, nil", tt.quoted, got, n, err, tt.in, len(tt.quoted))
		}
	}
	for _, bad := range []string{`"abc`, `"a\`, `"\9"`, `"\47"`, `x`, `"\x41"`} {
		if _, _, err := unquote(bad); err == nil {
			t.Errorf("unquote(%s) succeeded; want an error", bad)
		}
	}
}

func TestRenderQuotesAmbiguousNames(t *testing.T) {
	files := []*File{
		{OldPath: "a b/c", NewPath: "d", Status: Modified, OldMode: "100644", NewMode: "100755"},
		{OldPath: "x y", NewPath: "x y", Status: Modified, OldMode: "100644", NewMode: "100755"},
		{OldPath: "p", NewPath: "q r b/s", Status: Renamed},
	}
	for _, f := range files {
		f.index()
	}
	text := Render(files)
	want := "diff --git \"a/a b/c\" b/d\nold mode 100644\nnew mode 100755\n" +
		"diff --git a/x y b/x y\nold mode 100644\nnew mode 100755\n" +
		"diff --git a/p \"b/q r b/s\"\nrename from p\nrename to q r b/s\n"
	if text != want {
		t.Fatalf("Render = %q; want %q", text, want)
	}
	checkRoundTrip(t, &Diff{Files: files})
}
