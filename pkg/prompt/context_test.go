package prompt

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// oneLineChange is a diff that changes line n of path (old and new side).
func oneLineChange(path string, n int, oldText, newText string) *diff.File {
	return &diff.File{OldPath: path, NewPath: path, Status: diff.Modified, Hunks: []diff.Hunk{{
		OldStart: n, OldLines: 1, NewStart: n, NewLines: 1,
		Lines: []diff.Line{{Kind: diff.Delete, Text: oldText, OldNo: n}, {Kind: diff.Add, Text: newText, NewNo: n}},
	}}}
}

// shownLines lists the line numbers an excerpt shows.
func shownLines(ex string) []int {
	var out []int
	for _, l := range strings.Split(strings.TrimSuffix(ex, "\n"), "\n") {
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(l), "%d", &n); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func span(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

// without is s with n removed: the changed line, which the diff shows.
func without(s []int, n int) []int {
	var out []int
	for _, x := range s {
		if x != n {
			out = append(out, x)
		}
	}
	return out
}

// filler is n lines of a statement in a given language.
func filler(n int, line string) string { return strings.Repeat(line+"\n", n) }

func TestExcerpt(t *testing.T) {
	// A Go file over the whole-file limit: three functions, the middle one
	// short; a brace inside a string must not confuse the heuristic either.
	goSrc := "package p\n\n" + // 1-2
		"func a() {\n" + filler(150, "\tx++") + "}\n\n" + // 3-154, 155
		"// b does things.\nfunc b() string {\n\ts := \"}\"\n\treturn s\n}\n\n" + // 156-160, 161
		"func c() {\n" + filler(150, "\ty++") + "}\n" // 162-313
	// A long Go function: the signature plus a window around the change.
	longGo := "package p\n\nfunc long() {\n" + filler(200, "\tz++") + "}\n" // 3..204
	js := "import x from 'y';\n\n" +                                        // 1-2
		"export class Cart {\n" + // 3
		"  total(items) {\n" + // 4
		"    const open = '{';\n" + // 5
		"    return items.reduce((s, i) => s + i.price, 0);\n" + // 6
		"  }\n" + // 7
		filler(300, "  // padding") + // 8-307
		"}\n" // 308
	py := "import os\n\n" + // 1-2
		"class Client:\n" + // 3
		"    @property\n" + // 4
		"    def url(self):\n" + // 5
		"        return self._url\n" + // 6
		"\n" + // 7
		"    def get(self, path, params=None):\n" + // 8
		"        if params is None:\n" + // 9
		"            params = {}\n" + // 10
		"        return self._send(path, params)\n" + // 11
		filler(100, "    x = 1") + // 12-111, still in the class
		filler(10, "# padding") // 112-121
	tests := []struct {
		name  string
		f     *diff.File
		head  string
		level Level
		want  []int
	}{
		{"small file whole", oneLineChange("a.go", 2, "x", "y"), "package p\n\nvar x = 1\n", LevelWhole, span(1, 3)},
		{"go: the enclosing function with its doc comment", oneLineChange("p.go", 158, "", "\ts := \"}\""), goSrc, LevelWhole, without(span(156, 160), 158)},
		{"go: blocks level on a small file", oneLineChange("s.go", 4, "", "\treturn 2"), "package p\n\nfunc f() int {\n\treturn 2\n}\n\nvar y = 3\n", LevelBlocks, []int{3, 5}},
		{"go: long function keeps its signature and a window", oneLineChange("l.go", 100, "", "\tz++"), longGo, LevelBlocks, without(append([]int{3}, span(90, 110)...), 100)},
		{"js: braces in strings ignored, method inside a long class", oneLineChange("cart.js", 6, "", "x"), js, LevelWhole, []int{3, 4, 5, 7}},
		{"python: method with its decorator", oneLineChange("client.py", 6, "", "x"), py, LevelBlocks, []int{3, 4, 5}},
		{"python: the method holding the change", oneLineChange("client.py", 10, "", "x"), py, LevelBlocks, []int{3, 8, 9, 11}},
		{"none level", oneLineChange("a.go", 2, "x", "y"), "package p\n\nvar x = 1\n", LevelNone, nil},
		{"no head", oneLineChange("a.go", 2, "x", "y"), "", LevelWhole, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := Excerpt(tt.f, tt.head, tt.level)
			if got := shownLines(ex); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("lines shown = %v; want %v\n%s", got, tt.want, ex)
			}
		})
	}
}

func TestExcerptGapsAndDeletion(t *testing.T) {
	src := "package p\n\nfunc a() {\n\tx()\n}\n" + filler(300, "") + "func b() {\n\ty()\n}\n" // a: 3-5, b: 306-308
	f := &diff.File{OldPath: "p.go", NewPath: "p.go", Status: diff.Modified, Hunks: []diff.Hunk{
		{OldStart: 4, OldLines: 2, NewStart: 4, NewLines: 1, Lines: []diff.Line{
			{Kind: diff.Delete, Text: "\tgone()", OldNo: 4}, {Kind: diff.Context, Text: "\tx()", OldNo: 5, NewNo: 4},
		}},
		{OldStart: 307, OldLines: 1, NewStart: 307, NewLines: 1, Lines: []diff.Line{{Kind: diff.Add, Text: "\ty()", NewNo: 307}}},
	}}
	ex := Excerpt(f, src, LevelBlocks)
	// Lines 4 and 307 are in the hunks: the diff shows them.
	want := "     ...\n  3  func a() {\n     ...\n  5  }\n     ...\n306  func b() {\n     ...\n308  }\n"
	if ex != want {
		t.Errorf("Excerpt =\n%q\nwant\n%q", ex, want)
	}
}

func TestBraceBlocksMultiLineSignature(t *testing.T) {
	lines := splitLines("int\nmain(int argc,\n     char **argv)\n{\n  /* { */\n  return 0;\n}\n")
	got := braceBlocks(lines)
	if want := [][2]int{{1, 7}}; !reflect.DeepEqual(got, want) {
		t.Errorf("braceBlocks = %v; want %v", got, want)
	}
}

func TestTestFiles(t *testing.T) {
	tree := []string{
		"api/users.go", "api/users_test.go", "api/server_test.go",
		"web/Button.tsx", "web/__tests__/Button.test.tsx",
		"lib/client.py", "tests/test_client.py",
		"src/main/java/Foo.java", "src/test/java/FooTest.java",
		"lib/orphan.py", "README.md",
	}
	changed := []string{"api/users.go", "web/Button.tsx", "lib/client.py", "src/main/java/Foo.java", "lib/orphan.py", "api/users_test.go", "README.md"}
	got := TestFiles(changed, tree)
	want := map[string][]string{
		"api/users.go":           {"api/server_test.go", "api/users_test.go"},
		"web/Button.tsx":         {"web/__tests__/Button.test.tsx"},
		"lib/client.py":          {"tests/test_client.py"},
		"src/main/java/Foo.java": {"src/test/java/FooTest.java"},
		"lib/orphan.py":          nil,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TestFiles =\n%v\nwant\n%v", got, want)
	}
}

// FuzzExcerpt feeds untrusted file contents to the block finders (Go's
// parser, the brace lexer, the indent walk): no panic, every line shown
// exists with its own text, and a line the hunk shows is never repeated.
func FuzzExcerpt(f *testing.F) {
	f.Add("a.go", "package p\n\nfunc f() {\n\tx := \"}\"\n}\n", 4)
	f.Add("a.js", "class A {\n  m() { return `{${x}` }\n}\n/* { */\n", 2)
	f.Add("a.py", "class A:\n    @d\n    def m(self):\n        return 1\n", 4)
	f.Add("a.c", "int\nmain(void)\n{\n  return '}';\n}\n", 4)
	f.Add("x.txt", "\n\n\t\t\n", 2)
	f.Fuzz(func(t *testing.T, name, src string, line int) {
		lines := splitLines(src)
		if line < 1 || line > len(lines) || len(src) > 1<<16 {
			return
		}
		df := oneLineChange(name, line, "old", lines[line-1])
		for _, level := range []Level{LevelWhole, LevelBlocks} {
			ex := Excerpt(df, src, level)
			for _, l := range strings.Split(strings.TrimSuffix(ex, "\n"), "\n") {
				num, text, ok := strings.Cut(strings.TrimLeft(l, " "), "  ")
				if !ok || num == "..." || strings.TrimSpace(l) == "..." {
					continue
				}
				var n int
				if _, err := fmt.Sscanf(num, "%d", &n); err != nil {
					continue
				}
				if n < 1 || n > len(lines) || lines[n-1] != text {
					t.Fatalf("level %d shows line %d as %q; the file has %d lines", level, n, text, len(lines))
				}
				if level == LevelBlocks && n == line && !IsWhole(src) {
					t.Fatalf("blocks repeat the changed line %d", n)
				}
			}
		}
	})
}
