package scope

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// modified is a diff of one modified file adding the given lines at the
// top and deleting del lines.
func modified(path string, del int, added ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,%d +1,%d @@\n", path, path, path, path, del, len(added))
	for i := 0; i < del; i++ {
		fmt.Fprintf(&b, "-old %d\n", i)
	}
	for _, l := range added {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// kept is a modified file whose hunk starts with context lines (present at
// the base) followed by added lines.
func kept(path string, context []string, added ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,%d +1,%d @@\n", path, path, path, path, len(context), len(context)+len(added))
	for _, l := range context {
		b.WriteString(" " + l + "\n")
	}
	for _, l := range added {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// keptBig is kept with more changed lines than a hand edit.
func keptBig(path string, context []string, added ...string) string {
	for len(added) <= HandEditLines {
		added = append(added, fmt.Sprintf("var v%d = %d", len(added), len(added)))
	}
	return kept(path, context, added...)
}

func mustParse(t testing.TB, text string) *diff.Diff {
	t.Helper()
	d, err := diff.Parse([]byte(text))
	if err != nil {
		t.Fatalf("diff.Parse: %v\n%s", err, text)
	}
	return d
}

func TestApplyReasons(t *testing.T) {
	tests := []struct {
		name    string
		diff    string
		exclude []string
		want    string // "" when reviewed
	}{
		{"plain go file", modified("pkg/api/handler.go", 1, "x := 1"), nil, ""},
		{"binary", "diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n", nil, "binary"},
		{"git binary patch", "diff --git a/a.bin b/a.bin\nnew file mode 100644\nGIT binary patch\nliteral 1\nIcmZo*000310RR91\n\n", nil, "binary"},
		{"deleted", "diff --git a/old.go b/old.go\ndeleted file mode 100644\n--- a/old.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-package old\n", nil, "deleted"},
		{"pure rename", "diff --git a/a.go b/b.go\nsimilarity index 100%\nrename from a.go\nrename to b.go\n", nil, "no content change"},
		{"mode change to executable", "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n", nil, ReasonMoved},
		{"mode change off executable", "diff --git a/run.sh b/run.sh\nold mode 100755\nnew mode 100644\n", nil, "no content change"},
		{"go.sum", modified("go.sum", 1, "x v1.0.0 h1:abc="), nil, "lock file"},
		{"nested package-lock", modified("web/package-lock.json", 1, "{}"), nil, "lock file"},
		{"yarn.lock", modified("yarn.lock", 0, "a@1:"), nil, "lock file"},
		{"pnpm", modified("pnpm-lock.yaml", 0, "x: 1"), nil, "lock file"},
		{"Cargo.lock", modified("Cargo.lock", 0, "x"), nil, ""},
		{"Gemfile.lock", modified("Gemfile.lock", 0, "x"), nil, ""},
		{"poetry.lock", modified("poetry.lock", 0, "x"), nil, ""},
		{"composer.lock", modified("composer.lock", 0, "x"), nil, ""},
		{"Pipfile.lock", modified("Pipfile.lock", 0, "x"), nil, ""},
		{"any .lock", modified("deps/flake.lock", 0, "x"), nil, ""},
		{"vendor", modified("vendor/github.com/x/y/y.go", 0, "package y"), nil, ""},
		{"third_party", modified("third_party/zlib/zlib.c", 0, "int x;"), nil, ""},
		{"node_modules nested", modified("web/node_modules/left-pad/index.js", 0, "x"), nil, ""},
		{"vendor as file name is not vendored", modified("pkg/vendor.go", 0, "package pkg"), nil, ""},
		{"_vendor", modified("src/pip/_vendor/rich/console.py", 0, "x = 1"), nil, ""},
		{"library vendored in a package's packages/", modified("requests/packages/urllib3/connection.py", 0, "x = 1"), nil, ""},
		{"chardet in a nested packages/", modified("src/requests/packages/chardet/__init__.py", 0, "x = 1"), nil, ""},
		{"monorepo packages/ at the root is first-party", modified("packages/urllib3/index.js", 0, "x"), nil, ""},
		{"first-party package under packages/", modified("web/packages/ui/button.tsx", 0, "x"), nil, ""},
		{"submodule pointer", "diff --git a/libs/sub b/libs/sub\nindex 1234567..89abcde 160000\n--- a/libs/sub\n+++ b/libs/sub\n@@ -1 +1 @@\n-Subproject commit 1234567890abcdef1234567890abcdef12345678\n+Subproject commit 89abcdef1234567890abcdef1234567890abcdef\n", nil, "submodule pointer"},
		{"new submodule", "diff --git a/libs/sub b/libs/sub\nnew file mode 160000\nindex 0000000..89abcde\n--- /dev/null\n+++ b/libs/sub\n@@ -0,0 +1 @@\n+Subproject commit 89abcdef1234567890abcdef1234567890abcdef\n", nil, "submodule pointer"},
		{"text that mentions a subproject is code", modified("notes.go", 0, "// Subproject commit history", "package notes"), nil, ""},
		{"source map", modified("static/app.js.map", 0, `{"version":3}`), nil, "generated"},
		{"css source map", modified("web/style.css.map", 0, `{"version":3}`), nil, "generated"},
		{".nyc_output", modified(".nyc_output/processinfo/index.json", 0, "{}"), nil, ""},
		{".nyc_output below the root, no base to ask", modified("web/.nyc_output/processinfo/index.json", 0, "{}"), nil, ""},
		{"SPDX SBOM", modified("sbom/app.spdx.json", 0, "{}"), nil, "generated"},
		{"CycloneDX SBOM", modified("app.cyclonedx.json", 0, "{}"), nil, "generated"},
		{"CycloneDX default name", modified("bom.json", 0, "{}"), nil, "generated"},
		{"pb.go", modified("api/v1/user.pb.go", HandEditLines, "package v1"), nil, ""},
		{"_generated.go", modified("pkg/x_generated.go", HandEditLines, "package x"), nil, ""},
		{".gen.go", modified("pkg/models.gen.go", HandEditLines, "package x"), nil, ""},
		{"zz_generated", modified("apis/zz_generated.deepcopy.go", HandEditLines, "package apis"), nil, ""},
		{"min.js", modified("static/app.min.js", HandEditLines, "x"), nil, ""},
		{"min.css", modified("static/app.min.css", HandEditLines, "x"), nil, ""},
		{"dist", modified("dist/index.js", HandEditLines, "x"), nil, ""},
		{"go marker", keptBig("pkg/enum_string.go", []string{"// Code generated by \"stringer -type=Kind\"; DO NOT EDIT.", ""}, "package pkg"), nil, ""},
		{"marker after license", keptBig("pkg/x.go", []string{"// Copyright 2024 X", "// SPDX-License-Identifier: MIT", "", "// Code generated by protoc-gen-foo. DO NOT EDIT."}, "package x"), nil, ""},
		{"hash marker", keptBig("gen/schema.py", []string{"# Code generated by sqlc. DO NOT EDIT."}, "import x"), nil, ""},
		{"@generated", keptBig("src/Relay.js", []string{"/**", " * @generated SignedSource<<abc>>", " */"}, "x"), nil, ""},
		{"linguist-generated", keptBig("src/api.ts", []string{"// linguist-generated=true"}, "export {}"), nil, ""},
		// Issue 12: a marker the PR itself adds excludes nothing.
		{"marker added by the PR in a new file", modified("auth/login.go", 0, "// Code generated by hand. DO NOT EDIT.", "package auth", "func Backdoor() bool { return true }"), nil, ""},
		{"marker added by the PR above old code", kept("auth/login.go", []string{"package auth"}, "// Code generated by x. DO NOT EDIT."), nil, ""},
		{"@generated added by the PR", modified("src/Relay.js", 0, "/**", " * @generated SignedSource<<abc>>", " */"), nil, ""},
		{"marker in code is not a marker", modified("gen/main.go", 0, "package main", "", "func header(w io.Writer) {", "\tfmt.Fprintf(w, \"// Code generated by gen. DO NOT EDIT.\\n\")", "}"), nil, ""},
		{"gitattributes names linguist-generated", modified(".gitattributes", 0, "*.pb.go linguist-generated=true"), nil, ""},
		{"code generated without DO NOT EDIT", modified("pkg/x.go", 0, "// Code generated by hand, edit freely", "package x"), nil, ""},
		{"pattern docs/**", modified("docs/guide/setup.md", 0, "x"), []string{"docs/**"}, `excluded by pattern "docs/**"`},
		{"pattern *.md at depth", modified("pkg/x/README.md", 0, "x"), []string{"*.md"}, `excluded by pattern "*.md"`},
		{"pattern **/*_test.go", modified("pkg/a/b/x_test.go", 0, "x"), []string{"**/*_test.go"}, `excluded by pattern "**/*_test.go"`},
		{"pattern **/*_test.go at root", modified("x_test.go", 0, "x"), []string{"**/*_test.go"}, `excluded by pattern "**/*_test.go"`},
		{"pattern dir name", modified("a/fixtures/b/c.json", 0, "x"), []string{"fixtures"}, `excluded by pattern "fixtures"`},
		{"pattern anchored dir", modified("api/openapi/spec.yaml", 0, "x"), []string{"api/openapi/"}, `excluded by pattern "api/openapi/"`},
		{"anchored pattern not at depth", modified("x/docs/a.md", 0, "x"), []string{"docs/**"}, ""},
		{"second pattern wins", modified("scripts/a.sh", 0, "x"), []string{"", "# comment", "*.md", "scripts/*.sh"}, `excluded by pattern "scripts/*.sh"`},
		{"star stays in segment", modified("cmd/a/b.go", 0, "x"), []string{"cmd/*.go"}, ""},
		{"class and ?", modified("pkg/v2/x.go", 0, "x"), []string{"pkg/v[0-9]/?.go"}, `excluded by pattern "pkg/v[0-9]/?.go"`},
		{"negated class", modified("pkg/va/x.go", 0, "x"), []string{"pkg/v[!0-9]/*"}, `excluded by pattern "pkg/v[!0-9]/*"`},
		{"builtin reason before pattern", modified("go.sum", 0, "x"), []string{"*"}, "lock file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, tt.diff)
			s, err := Apply(d, tt.exclude)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if tt.want == "" {
				if len(s.Files) != 1 || len(s.Excluded) != 0 {
					t.Fatalf("got reviewed %d, excluded %v; want the file reviewed", len(s.Files), s.Excluded)
				}
				return
			}
			want := []Excluded{{Path: d.Files[0].Path(), Reason: tt.want}}
			if len(s.Files) != 0 || !reflect.DeepEqual(s.Excluded, want) {
				t.Fatalf("got reviewed %d, excluded %v; want excluded %v", len(s.Files), s.Excluded, want)
			}
		})
	}
}

func TestApplyNoPatch(t *testing.T) {
	f, err := diff.ParsePatch("", "huge.sql", diff.Modified, "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Apply(&diff.Diff{Files: []*diff.File{f}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Excluded{{"huge.sql", "no patch"}}; !reflect.DeepEqual(s.Excluded, want) {
		t.Errorf("got %v; want %v", s.Excluded, want)
	}
}

func TestApplyBadPattern(t *testing.T) {
	for _, p := range []string{"[abc", "docs/\\", "!vendor/**", "[z-a]", "/", "a[/]b"} {
		t.Run(p, func(t *testing.T) {
			_, err := Apply(&diff.Diff{}, []string{"*.md", p})
			if !errors.Is(err, ErrBadPattern) {
				t.Fatalf("got %v; want ErrBadPattern", err)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", p)) {
				t.Errorf("got %q; want it to name the pattern %q", err, p)
			}
		})
	}
}

func TestApplyCountsAndOrder(t *testing.T) {
	text := modified("pkg/api/handler.go", 2, "a", "b", "c") + // 5 executable
		modified("pkg/api/handler_test.go", 1, "t") + // test: reviewed, not counted
		modified("README.md", 0, "doc") + // doc: reviewed, not counted
		modified("go.sum", 3, "x") + // excluded
		modified("db/migrations/0001.sql", 0, "CREATE TABLE t (id int);", "DROP TABLE u;") + // 2
		"diff --git a/old.go b/old.go\ndeleted file mode 100644\n--- a/old.go\n+++ /dev/null\n@@ -1,4 +0,0 @@\n-a\n-b\n-c\n-d\n" + // excluded
		modified("docs/guide.md", 0, "x") // excluded by pattern
	s, err := Apply(mustParse(t, text), []string{"docs/**"})
	if err != nil {
		t.Fatal(err)
	}
	var reviewed []string
	for _, f := range s.Files {
		reviewed = append(reviewed, f.Path())
	}
	wantReviewed := []string{"pkg/api/handler.go", "pkg/api/handler_test.go", "README.md", "db/migrations/0001.sql"}
	if !reflect.DeepEqual(reviewed, wantReviewed) {
		t.Errorf("got reviewed %v; want %v", reviewed, wantReviewed)
	}
	wantExcluded := []Excluded{{"go.sum", "lock file"}, {"old.go", "deleted"}, {"docs/guide.md", `excluded by pattern "docs/**"`}}
	if !reflect.DeepEqual(s.Excluded, wantExcluded) {
		t.Errorf("got excluded %v; want %v", s.Excluded, wantExcluded)
	}
	if s.ExecutableLines != 7 {
		t.Errorf("got ExecutableLines %d; want 7", s.ExecutableLines)
	}
}

func TestApplyNil(t *testing.T) {
	s, err := Apply(nil, nil)
	if err != nil || len(s.Files) != 0 || len(s.Excluded) != 0 || s.ExecutableLines != 0 {
		t.Errorf("Apply(nil) = %+v, %v; want an empty scope", s, err)
	}
}

func TestExecutable(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"main.go", true},
		{"pkg/api/handler.go", true},
		{"web/src/app.ts", true},
		{".github/workflows/ci.yml", true},
		{"db/migrations/0001.sql", true},
		{"CMakeLists.txt", true},
		{"pkg/api/handler_test.go", false},
		{"tests/test_api.py", false},
		{"app/test_models.py", false},
		{"app/models_test.py", false},
		{"web/src/app.test.ts", false},
		{"web/src/app.spec.js", false},
		{"web/src/__tests__/app.tsx", false},
		{"pkg/diff/testdata/x.go", false},
		{"spec/models/user_spec.rb", false},
		{"src/test/java/FooTest.java", false},
		{"README.md", false},
		{"docs/api.go", false},
		{"guide.rst", false},
		{"notes.txt", false},
		{"LICENSE", false},
		{"COPYING", false},
		{"CHANGELOG.md", false},
		{"go.sum", false},
		{"yarn.lock", false},
		// Vendored and generated names are for scope to judge with the
		// base: a file it reviews is code.
		{"vendor/x/y.go", true},
		{"api/user.pb.go", true},
		{"static/app.min.js", true},
		{"latest.go", true},
		{"contest/main.go", true},
	}
	for _, tt := range tests {
		if got := Executable(tt.path); got != tt.want {
			t.Errorf("Executable(%q) = %v; want %v", tt.path, got, tt.want)
		}
	}
}

func TestStandardsPaths(t *testing.T) {
	d := mustParse(t, modified("pkg/api/v1/handler.go", 0, "x")+
		modified("pkg/api/routes.go", 0, "x")+
		modified("main.go", 0, "x")+
		"diff --git a/old/dir/a.go b/new/b.go\nsimilarity index 100%\nrename from old/dir/a.go\nrename to new/b.go\n")
	got := StandardsPaths(d.Files)
	want := []string{
		"AGENTS.md", "CLAUDE.md",
		"new/AGENTS.md", "new/CLAUDE.md",
		"old/AGENTS.md", "old/CLAUDE.md",
		"old/dir/AGENTS.md", "old/dir/CLAUDE.md",
		"pkg/AGENTS.md", "pkg/CLAUDE.md",
		"pkg/api/AGENTS.md", "pkg/api/CLAUDE.md",
		"pkg/api/v1/AGENTS.md", "pkg/api/v1/CLAUDE.md",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v; want %v", got, want)
	}
	if got, want := StandardsPaths(nil), []string{"AGENTS.md", "CLAUDE.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("StandardsPaths(nil) = %v; want %v", got, want)
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"*.md", "README.md", true},
		{"*.md", "a/b/c.md", true},
		{"*.md", "a.md.go", false},
		{"docs/**", "docs/a.md", true},
		{"docs/**", "docs/a/b/c.md", true},
		{"docs/**", "docsx/a.md", false},
		{"**/*_test.go", "a_test.go", true},
		{"**/*_test.go", "x/y/a_test.go", true},
		{"a/**/b.go", "a/b.go", true},
		{"a/**/b.go", "a/x/y/b.go", true},
		{"a/**/b.go", "ab.go", false},
		{"/build", "build/x.js", true},
		{"/build", "src/build/x.js", false},
		{"gen", "x/gen/y.go", true},
		{"gen", "x/generated.go", false},
		{"src/*.js", "src/a.js", true},
		{"src/*.js", "src/x/a.js", false},
		{"x?.go", "xy.go", true},
		{"x?.go", "x/.go", false},
		{`a\*b`, "a*b", true},
		{`a\*b`, "axb", false},
		{"[ab].go", "b.go", true},
		{"[!ab].go", "c.go", true},
		{"[!ab].go", "a.go", false},
		{"f(1).go", "f(1).go", true},
		{"café/*.go", "café/x.go", true},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Errorf("compileGlob(%q): %v", tt.pattern, err)
			continue
		}
		if got := g.match(tt.path); got != tt.want {
			t.Errorf("glob %q matching %q = %v; want %v (regexp %s)", tt.pattern, tt.path, got, tt.want, g.re)
		}
	}
}

func TestApplyRulesAttributes(t *testing.T) {
	attrs := ParseAttributes(`# generated code
models/*.go linguist-generated=true
web/out/** linguist-generated
third/** linguist-vendored
docs/gen.md -linguist-generated
bad[ linguist-generated
keep.go linguist-generated=false
`)
	d := &diff.Diff{}
	for _, p := range []string{"models/user.go", "web/out/app.js", "third/lib/x.go", "docs/gen.md", "keep.go", "main.go"} {
		// Larger than a hand edit, which is reviewed whatever the marks say.
		h := diff.Hunk{NewStart: 1, NewLines: HandEditLines + 1, OldStart: 1}
		for i := range HandEditLines + 1 {
			h.Lines = append(h.Lines, diff.Line{Kind: diff.Add, Text: "x", NewNo: i + 1})
		}
		d.Files = append(d.Files, &diff.File{NewPath: p, Status: diff.Modified, Hunks: []diff.Hunk{h}})
	}
	s, err := ApplyRules(d, Rules{Attrs: attrs})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range s.Excluded {
		got[e.Path] = e.Reason
	}
	want := map[string]string{"models/user.go": ReasonGenerated, "web/out/app.js": ReasonGenerated, "third/lib/x.go": ReasonVendored}
	for p, r := range want {
		if got[p] != r {
			t.Errorf("%s: got reason %q; want %q", p, got[p], r)
		}
	}
	var kept []string
	for _, f := range s.Files {
		kept = append(kept, f.Path())
	}
	if strings.Join(kept, ",") != "docs/gen.md,keep.go,main.go" {
		t.Errorf("reviewed %v; want docs/gen.md, keep.go, main.go", kept)
	}
}

// TestSubmoduleFromFilesEndpoint: the files endpoint gives a submodule's
// patch without modes; its "Subproject commit" lines still mark it.
func TestSubmoduleFromFilesEndpoint(t *testing.T) {
	f, err := diff.ParsePatch("libs/sub", "libs/sub", diff.Modified,
		"@@ -1 +1 @@\n-Subproject commit 1234567890abcdef1234567890abcdef12345678\n+Subproject commit 89abcdef1234567890abcdef1234567890abcdef")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Apply(&diff.Diff{Files: []*diff.File{f}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Excluded{{Path: "libs/sub", Reason: ReasonSubmodule}}; len(s.Files) != 0 || !reflect.DeepEqual(s.Excluded, want) {
		t.Errorf("got files %d, excluded %+v; want none, %+v", len(s.Files), s.Excluded, want)
	}
}

// ExcludedByPath decides by the path alone, as scope would for any change
// of the file, and leaves the rest to the lines.
func TestExcludedByPath(t *testing.T) {
	attrs := ParseAttributes("gen/** linguist-generated\n")
	for path, want := range map[string]string{
		"package-lock.json":   ReasonLock,
		"vendor/x/y.go":       "", // nothing in the change explains it
		"gen/api.go":          ReasonGenerated,
		"web/app.min.js":      "",
		"web/app.js.map":      ReasonGenerated,
		"docs/big.csv":        `excluded by pattern "docs/**"`,
		"pkg/handler.go":      "",
		"pkg/handler_test.go": "",
	} {
		got, err := ExcludedByPath(path, nil, Rules{Exclude: []string{"# comment", "docs/**"}, Attrs: attrs})
		if err != nil || got != want {
			t.Errorf("ExcludedByPath(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
	if _, err := ExcludedByPath("a.go", nil, Rules{Exclude: []string{"[bad"}}); err == nil {
		t.Errorf("a bad pattern: want an error")
	}
}
