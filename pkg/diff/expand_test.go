package diff

import (
	"errors"
	"strings"
	"testing"
)

// Expand joins the hunks into one that holds the whole head version, each
// change in place: rendered, every head line is numbered, deleted lines sit
// where they were, and the base version is the non-added lines.
func TestExpand(t *testing.T) {
	head := []string{"package p", "", "func a() int {", "	return 2", "}", "", "func b() {}", "", "// tail", "var x = 1", "var y = 2"}
	base := []string{"package p", "", "func a() int {", "	return 1", "}", "", "func b() {}", "", "// tail", "var x = 0", "var gone = 3"}
	fs, err := Parse([]byte("diff --git a/p.go b/p.go\n--- a/p.go\n+++ b/p.go\n" +
		"@@ -3,3 +3,3 @@\n func a() int {\n-	return 1\n+	return 2\n }\n" +
		"@@ -9,3 +9,3 @@\n // tail\n-var x = 0\n-var gone = 3\n+var x = 1\n+var y = 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := Expand(fs.Files[0], head)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Hunks) != 1 || len(fs.Files[0].Hunks) != 2 {
		t.Fatalf("expanded to %d hunks (original now %d); want 1 and the original untouched", len(x.Hunks), len(fs.Files[0].Hunks))
	}
	h := x.Hunks[0]
	if h.OldStart != 1 || h.OldLines != len(base) || h.NewStart != 1 || h.NewLines != len(head) {
		t.Errorf("hunk -%d,%d +%d,%d; want -1,%d +1,%d", h.OldStart, h.OldLines, h.NewStart, h.NewLines, len(base), len(head))
	}
	var gotBase, gotHead []string
	for _, l := range h.Lines {
		if l.Kind != Add {
			gotBase = append(gotBase, l.Text)
			if l.OldNo != len(gotBase) {
				t.Errorf("%q: base number %d; want %d", l.Text, l.OldNo, len(gotBase))
			}
		}
		if l.Kind != Delete {
			gotHead = append(gotHead, l.Text)
			if l.NewNo != len(gotHead) {
				t.Errorf("%q: head number %d; want %d", l.Text, l.NewNo, len(gotHead))
			}
		}
	}
	if strings.Join(gotBase, "\n") != strings.Join(base, "\n") || strings.Join(gotHead, "\n") != strings.Join(head, "\n") {
		t.Errorf("base %q, head %q; want %q, %q", gotBase, gotHead, base, head)
	}
	// The index is rebuilt: NewLine answers on the expanded file.
	for n, want := range head {
		if l, ok := x.NewLine(n + 1); !ok || l.Text != want {
			t.Errorf("NewLine(%d) = %q, %t; want %q", n+1, l.Text, ok, want)
		}
	}
	got := RenderNumbered([]*File{x})
	for _, want := range []string{"@@ -1,11 +1,11 @@\n 1  package p\n", " 4 -\treturn 1\n", " 4 +\treturn 2\n", "   -var gone = 3\n", "11 +var y = 2\n"} {
		want = strings.Replace(want, " 4 -", "   -", 1)
		if !strings.Contains(got, want) {
			t.Errorf("rendered lacks %q:\n%s", want, got)
		}
	}
}

// A new file expands to itself; a head that does not fit the hunks is an
// error naming the file, never a made-up view.
func TestExpandEdges(t *testing.T) {
	added, err := Parse([]byte("diff --git a/n.go b/n.go\nnew file mode 100644\n--- /dev/null\n+++ b/n.go\n@@ -0,0 +1,2 @@\n+a\n+b\n"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := Expand(added.Files[0], []string{"a", "b"})
	if err != nil || x.Hunks[0].OldStart != 0 || x.Hunks[0].OldLines != 0 || x.Hunks[0].NewLines != 2 {
		t.Errorf("added file: %+v, %v; want -0,0 +1,2", x.Hunks, err)
	}

	// A new file whose head has more lines than the diff adds.
	if _, err := Expand(added.Files[0], []string{"a", "b", "c"}); !errors.Is(err, ErrHeadMismatch) {
		t.Errorf("added file, longer head: err = %v; want ErrHeadMismatch", err)
	}
	// A pure addition whose base position does not follow from the hunks
	// before it (here one that deleted a line is missing).
	two, err := Parse([]byte("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n a\n-b\n@@ -4,0 +4 @@\n+new\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Expand(two.Files[0], []string{"a", "c", "d", "new", "e"}); err != nil {
		t.Errorf("both hunks: %v", err)
	}
	sub := &File{OldPath: "x", NewPath: "x", Hunks: two.Files[0].Hunks[1:]}
	if _, err := Expand(sub, []string{"a", "c", "d", "new", "e"}); !errors.Is(err, ErrHeadMismatch) {
		t.Errorf("second hunk alone: err = %v; want ErrHeadMismatch", err)
	}

	mod, err := Parse([]byte("diff --git a/p.go b/p.go\n--- a/p.go\n+++ b/p.go\n@@ -2,2 +2,2 @@\n x\n-y\n+z\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, head := range map[string][]string{
		"added line differs":   {"w", "x", "Z"},
		"context line differs": {"w", "X", "z"},
		"head too short":       {"w"},
	} {
		if _, err := Expand(mod.Files[0], head); !errors.Is(err, ErrHeadMismatch) || !strings.Contains(err.Error(), "p.go") {
			t.Errorf("%s: err = %v; want ErrHeadMismatch naming p.go", name, err)
		}
	}
}
