package scope

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// added is a diff of one new file with n lines.
func addedFile(path string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, n)
	for i := range n {
		fmt.Fprintf(&b, "+line %d\n", i)
	}
	return b.String()
}

// changed is a diff of one modified file replacing n lines.
func changed(path string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,%d +1,%d @@\n", path, path, path, path, n, n)
	for i := range n {
		fmt.Fprintf(&b, "-old %d\n", i)
	}
	for i := range n {
		fmt.Fprintf(&b, "+new %d\n", i)
	}
	return b.String()
}

// respaced is a diff of a modified file whose change only moves
// whitespace: a line re-indented, a blank line added.
func respaced(path string) string {
	return fmt.Sprintf("diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,2 +1,3 @@\n-\texport const a = 1\n+  export  const a = 1\n+\n export const b = 2\n", path, path, path, path)
}

// swapped is a diff of a modified file whose change swaps two lines: the
// same lines, in another order.
func swapped(path string) string {
	return fmt.Sprintf("diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,2 +1,2 @@\n-export const a = init()\n-export const b = use(a)\n+export const b = use(a)\n+export const a = init()\n", path, path, path, path)
}

// TestBaseDecides (issue 24, attacks 4 to 6): the path heuristics exclude
// only what the base already shows to be vendored, generated or build
// output, and a small edit of a generated file is reviewed.
func TestBaseDecides(t *testing.T) {
	base := NewBase(
		"go.mod", "main.go",
		"dist/index.js", "dist/licenses.txt",
		"third_party/zlib/zlib.c",
		"api/v1/user.pb.go", "api/v1/user.proto", "src/main.ts", "packages/app/src/app.ts", "web/package.json",
		"packages/app/package.json", "packages/app/dist/app.js",
		"packages/lib/dist/lib.js", // no manifest beside it
		"internal/dist/doc.go",
		"web/node_modules/left-pad/index.js",
		"deps/tool.lock",
	)
	big := HandEditLines/2 + 1 // replaced lines: twice that changed
	// explain is what a rebuild of each kind changes besides the rebuilt
	// file: its source of truth.
	explain := map[string]string{
		"third_party/zlib/inflate.c":         changed("go.mod", 1),
		"web/node_modules/left-pad/index.js": changed("web/package.json", 1),
		"dist/index.js":                      changed("src/main.ts", 1),
		"dist/other.js":                      changed("src/main.ts", 1),
		"packages/app/dist/app.js":           changed("packages/app/src/app.ts", 1),
		"api/v1/order.pb.go":                 addedFile("api/v1/order.proto", 3),
		"api/v1/user.pb.go":                  changed("api/v1/user.proto", 1),
	}
	tests := []struct {
		name, diff, want string
	}{
		// Attack 6: vendor/ where the base has none.
		{"new vendor/ where the base has none", addedFile("vendor/github.com/acme/evil/evil.go", 3), ""},
		{"new file in a vendored dir the base has", addedFile("third_party/zlib/inflate.c", 3), ReasonVendored},
		{"vendored node_modules the base has", changed("web/node_modules/left-pad/index.js", 1), ReasonVendored},
		{"node_modules elsewhere", addedFile("app/node_modules/x/index.js", 3), ""},
		// Attack 4: dist as any path segment.
		{"internal/dist is a package", addedFile("internal/dist/deploy.go", 3), ""},
		{"internal/dist even where the base has it", changed("internal/dist/doc.go", big), ""},
		{"root dist the base has, regenerated", changed("dist/index.js", big), ReasonGenerated},
		{"root dist, new file", addedFile("dist/other.js", HandEditLines+1), ReasonGenerated},
		{"package root dist the base has", changed("packages/app/dist/app.js", big), ReasonGenerated},
		{"dist beside no manifest", changed("packages/lib/dist/lib.js", big), ""},
		{"dist the base does not have", addedFile("packages/app2/dist/x.js", HandEditLines+1), ""},
		// Attack 5: a small hand edit of the bundle.
		{"hand edit of dist/index.js", changed("dist/index.js", 1), ""},
		{"edit at the bound", changed("dist/index.js", HandEditLines/2), ""},
		{"edit past the bound", changed("dist/index.js", HandEditLines/2+1), ReasonGenerated},
		{"small edit of a data file in dist", changed("dist/licenses.txt", 1), ReasonGenerated},
		// Issue 30: unexplained rebuilds and hand edits are reviewed.
		{"hand edit in a vendored dir, nothing explains it", changed("third_party/zlib/zlib.c", 1) + "#unexplained", ""},
		{"regenerated dist, no source change", changed("dist/index.js", big) + "#unexplained", ""},
		{"regenerated .pb.go, no .proto change", changed("api/v1/user.pb.go", big) + "#unexplained", ""},
		{"regenerated .pb.go, the .proto only re-indented", changed("api/v1/user.pb.go", big) + respaced("api/v1/user.proto") + "#unexplained", ""},
		{"regenerated dist, two source lines swapped", changed("dist/index.js", big) + swapped("src/main.ts") + "#unexplained", ReasonGenerated},
		{"regenerated dist, the source only re-indented", changed("dist/index.js", big) + respaced("src/main.ts") + "#unexplained", ""},
		{"regenerated dist, the source changed beside a re-indent", changed("dist/index.js", big) + respaced("src/main.ts") + changed("src/other.ts", 1) + "#unexplained", ReasonGenerated},
		// Generated by name.
		{"new .pb.go beside one the base has", addedFile("api/v1/order.pb.go", HandEditLines+1), ReasonGenerated},
		{"new .pb.go where the base has none", addedFile("api/v2/order.pb.go", HandEditLines+1), ""},
		{"regenerated .pb.go", changed("api/v1/user.pb.go", big), ReasonGenerated},
		{"hand edit of a .pb.go", changed("api/v1/user.pb.go", 2), ""},
		{"new .min.js anywhere", addedFile("static/evil.min.js", 40), ""},
		// Lock files: a package manager's by name; any other *.lock only
		// where the base has it.
		{"known lock file, new", addedFile("web/yarn.lock", 3), ReasonLock},
		{"a new run.lock is the PR's own", addedFile("lib/run.lock", 3), ""},
		{"a *.lock the base has: no check reads it", changed("deps/tool.lock", 1), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, unexplained := strings.CutSuffix(tt.diff, "#unexplained")
			d := mustParse(t, text)
			if e := explain[d.Files[0].Path()]; e != "" && !unexplained {
				d = mustParse(t, text+e)
			}
			s, err := ApplyRules(d, Rules{Base: base})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, e := range s.Excluded {
				if e.Path == d.Files[0].Path() {
					got = e.Reason
				}
			}
			if got != tt.want {
				t.Errorf("%s: got reason %q (reviewed %d); want %q", d.Files[0].Path(), got, len(s.Files), tt.want)
			}
		})
	}
}

// TestBaseAdd: a directory holds what lies under it at any depth.
func TestBaseAdd(t *testing.T) {
	b := NewBase("a/b/c/d.go", "/x.go", "")
	b.Add("a/e.go")
	for dir, want := range map[string]bool{"a": true, "a/b": true, "a/b/c": true, "a/b/c/d.go": false, "b": false, ".": true} {
		if got := b.hasDir(dir); got != want {
			t.Errorf("hasDir(%q) = %v; want %v", dir, got, want)
		}
	}
	if !b.hasFile("x.go") || b.hasFile("a/b") {
		t.Errorf("hasFile: got x.go %v, a/b %v; want true, false", b.hasFile("x.go"), b.hasFile("a/b"))
	}
	if got := strings.Join(b.inDir("a"), ","); got != "e.go" {
		t.Errorf("inDir(a) = %q; want e.go", got)
	}
}

// TestSubmodules: a moved pointer is named with both commits.
func TestSubmodules(t *testing.T) {
	d := mustParse(t, "diff --git a/libs/sub b/libs/sub\nindex 1234567..89abcde 160000\n--- a/libs/sub\n+++ b/libs/sub\n@@ -1 +1 @@\n"+
		"-Subproject commit 1234567890abcdef1234567890abcdef12345678\n+Subproject commit 89abcdef1234567890abcdef1234567890abcdef\n")
	s, err := ApplyRules(d, Rules{Base: NewBase()})
	if err != nil {
		t.Fatal(err)
	}
	want := Submodule{Path: "libs/sub", From: "1234567890abcdef1234567890abcdef12345678", To: "89abcdef1234567890abcdef1234567890abcdef"}
	if len(s.Submodules) != 1 || s.Submodules[0] != want {
		t.Errorf("got %+v; want [%+v]", s.Submodules, want)
	}
}

// FuzzPathReason holds the path classifier to its promises for any path
// and any base: an empty base excludes nothing by a vendored, generated
// or build-output name; a base holding the path's own directory never
// makes a name outside those heuristics excluded; and dist/ that is
// neither at the root nor beside a manifest is never build output.
func FuzzPathReason(f *testing.F) {
	for _, p := range []string{
		"vendor/github.com/acme/evil/evil.go", "internal/dist/deploy.go", "dist/index.js",
		"packages/app/dist/app.js", "api/v1/user.pb.go", "requests/packages/urllib3/x.py",
		"web/node_modules/a/b.js", "a//b", "/", "", "dist", ".nyc_output/x.json", "zz_generated.deepcopy.go",
	} {
		f.Add(p, p)
	}
	f.Fuzz(func(t *testing.T, p, other string) {
		empty := NewBase()
		switch got := pathReason(p, false, nil, Rules{Base: empty}, newChange(nil, empty)); got {
		case "", ReasonLock:
		default:
			t.Fatalf("pathReason(%q) on an empty base = %q; want nothing but a lock file", p, got)
		}
		base := NewBase(p, other)
		got := pathReason(p, false, nil, Rules{Base: base}, newChange(nil, base))
		if got == ReasonVendored && vendoredRoot(p) == "" {
			t.Fatalf("%q vendored with no vendored directory in its path", p)
		}
		if got == ReasonGenerated && generatedKind(p) == "" && !strings.Contains(p, "dist/") && !strings.Contains(p, ".nyc_output/") {
			t.Fatalf("%q generated with neither a generated name nor an output directory", p)
		}
		if got == ReasonGenerated && generatedKind(p) == "" {
			// Build output: some dist-like directory of p is at the root
			// or beside a manifest the base holds.
			ok := false
			segs := strings.Split(p, "/")
			for i := 0; i+1 < len(segs); i++ {
				if (segs[i] == "dist" || segs[i] == ".nyc_output") && base.packageRoot(strings.Join(segs[:i], "/")) {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("%q is build output outside any package root (base %q, %q)", p, p, other)
			}
		}
		// The classifier is a function of its inputs.
		if again := pathReason(p, false, nil, Rules{Base: NewBase(other, p)}, newChange(nil, nil)); again != got {
			t.Fatalf("pathReason(%q) = %q, then %q with the same base", p, got, again)
		}
		_ = Source(p)
		_ = Executable(p)
	})
}

// A diff the parser accepts is classified without panicking, whatever the
// base.
func TestApplyRulesNilDiff(t *testing.T) {
	if s, err := ApplyRules(nil, Rules{Base: NewBase("a")}); err != nil || len(s.Files) != 0 {
		t.Errorf("ApplyRules(nil) = %+v, %v; want an empty scope", s, err)
	}
	if s, err := ApplyRules(&diff.Diff{}, Rules{}); err != nil || len(s.Files) != 0 {
		t.Errorf("ApplyRules(empty) = %+v, %v; want an empty scope", s, err)
	}
}

func TestBinaryJudgement(t *testing.T) {
	for text, want := range map[string]bool{
		"const a = 1; // note\x00\nmodule.exports = a;\n" + strings.Repeat("x", 100): true,
		"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR":                                        false,
		"\xff\xfe bad utf-8":                                                         true, // a few invalid bytes: text
		"# deploy\n" + strings.Repeat("\xff\xc3\x28", 200):                           false,
		"": true,
		"// " + strings.Repeat("\x00", 40) + "\nrequire('child_process').execSync(process.env.INPUT_CMD);\n": true,
	} {
		if got := LooksLikeText(text); got != want {
			t.Errorf("LooksLikeText(%q) = %v; want %v", text, got, want)
		}
	}
}

// TestVendorModulesTxt (issue 30): Go's vendor/ is left out only where
// vendor/modules.txt changes a line naming the file's module.
func TestVendorModulesTxt(t *testing.T) {
	base := NewBase("go.mod", "vendor/modules.txt", "vendor/github.com/acme/lib/lib.go", "vendor/example.com/acme/lib/lib.go",
		"vendor/go.uber.org/zap/zap.go", "vendor/golang.org/x/net/http2/frame.go",
		"vendor/cloud.google.com/go/civil/civil.go", "vendor/cloud.google.com/go/storage/storage.go")
	// The base's list: which module each vendored package comes from.
	base.AddVendorList("vendor/modules.txt", `# cloud.google.com/go v0.110.0
## explicit; go 1.19
cloud.google.com/go/civil
# cloud.google.com/go/storage v1.30.1
## explicit; go 1.19
cloud.google.com/go/storage
# example.com/acme/lib v1.0.0
example.com/acme/lib
# github.com/acme/lib v1.0.0
## explicit
github.com/acme/lib
# go.uber.org/zap v1.0.0
go.uber.org/zap
# golang.org/x/net v0.12.0
## explicit; go 1.17
golang.org/x/net/http2
`)
	addedLine := func(line string) string {
		return "diff --git a/vendor/modules.txt b/vendor/modules.txt\n--- a/vendor/modules.txt\n+++ b/vendor/modules.txt\n@@ -0,0 +1 @@\n+" + line + "\n"
	}
	modules := func(module string) string {
		return "diff --git a/vendor/modules.txt b/vendor/modules.txt\n--- a/vendor/modules.txt\n+++ b/vendor/modules.txt\n@@ -1 +1 @@\n" +
			"-# " + module + " v1.0.0\n+# " + module + " v1.1.0\n"
	}
	for _, tt := range []struct {
		name, diff, path, want string
	}{
		{"hand edit inside an existing package", changed("vendor/github.com/acme/lib/lib.go", 1), "vendor/github.com/acme/lib/lib.go", ""},
		{"new package beside vendored ones", addedFile("vendor/github.com/evil/x/x.go", 3), "vendor/github.com/evil/x/x.go", ""},
		{"modules.txt names another module", changed("vendor/github.com/acme/lib/lib.go", 1) + modules("github.com/other/mod"), "vendor/github.com/acme/lib/lib.go", ""},
		{"a module bump", changed("vendor/github.com/acme/lib/lib.go", 1) + modules("github.com/acme/lib"), "vendor/github.com/acme/lib/lib.go", ReasonVendored},
		{"a whitespace edit of the module's own line", changed("vendor/github.com/acme/lib/lib.go", 1) +
			"diff --git a/vendor/modules.txt b/vendor/modules.txt\n--- a/vendor/modules.txt\n+++ b/vendor/modules.txt\n@@ -1 +1 @@\n" +
			"-# github.com/acme/lib v1.0.0\n+# github.com/acme/lib  v1.0.0\n", "vendor/github.com/acme/lib/lib.go", ""},
		{"a prefix is not the module", changed("vendor/github.com/acme/libx/x.go", 1) + modules("github.com/acme/lib"), "vendor/github.com/acme/libx/x.go", ""},
		// A line for a path that holds no module claims every module under it.
		{"a bare host added", changed("vendor/github.com/acme/lib/lib.go", 1) + addedLine("# github.com v0.0.0"), "vendor/github.com/acme/lib/lib.go", ""},
		{"a github owner added", changed("vendor/github.com/acme/lib/lib.go", 1) + addedLine("# github.com/acme v0.0.0"), "vendor/github.com/acme/lib/lib.go", ""},
		{"a shorter module beside the file's own", changed("vendor/example.com/acme/lib/lib.go", 1) +
			"diff --git a/vendor/modules.txt b/vendor/modules.txt\n--- a/vendor/modules.txt\n+++ b/vendor/modules.txt\n@@ -1,1 +1,2 @@\n" +
			"+# example.com/acme v0.0.0\n # example.com/acme/lib v1.0.0\n", "vendor/example.com/acme/lib/lib.go", ""},
		{"a bump of a two-element module", changed("vendor/go.uber.org/zap/zap.go", 1) + modules("go.uber.org/zap"), "vendor/go.uber.org/zap/zap.go", ReasonVendored},
		{"a bump beside a shorter module's context line", changed("vendor/example.com/acme/lib/lib.go", 1) +
			"diff --git a/vendor/modules.txt b/vendor/modules.txt\n--- a/vendor/modules.txt\n+++ b/vendor/modules.txt\n@@ -1,2 +1,2 @@\n" +
			" # example.com/acme v0.1.0\n-# example.com/acme/lib v1.0.0\n+# example.com/acme/lib v1.1.0\n", "vendor/example.com/acme/lib/lib.go", ReasonVendored},
		// From a second read: the module holding a file comes from the
		// base's list, not from the lines the diff happens to show.
		{"a two-element prefix added for another host's module", changed("vendor/golang.org/x/net/http2/frame.go", 1) + addedLine("# golang.org/x v0.0.0"),
			"vendor/golang.org/x/net/http2/frame.go", ""},
		{"a bump of the parent of a nested module", changed("vendor/cloud.google.com/go/storage/storage.go", 1) + modules("cloud.google.com/go"),
			"vendor/cloud.google.com/go/storage/storage.go", ""},
		{"a bump of the nested module itself", changed("vendor/cloud.google.com/go/storage/storage.go", 1) + modules("cloud.google.com/go/storage"),
			"vendor/cloud.google.com/go/storage/storage.go", ReasonVendored},
		{"a second line for the file's own module, the first kept", changed("vendor/github.com/acme/lib/lib.go", 1) + addedLine("# github.com/acme/lib v9.9.9"),
			"vendor/github.com/acme/lib/lib.go", ""},
		{"a module the PR adds, with its files", addedFile("vendor/example.org/newmod/new.go", 3) + addedLine("# example.org/newmod v1.0.0"),
			"vendor/example.org/newmod/new.go", ReasonVendored},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ApplyRules(mustParse(t, tt.diff), Rules{Base: base})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, e := range s.Excluded {
				if e.Path == tt.path {
					got = e.Reason
				}
			}
			if got != tt.want {
				t.Errorf("%s: got %q; want %q", tt.path, got, tt.want)
			}
		})
	}
}

// TestMoves (issue 30): a move that changes what a file is is reviewed
// whole; a move within its kind is no content change.
func TestMoves(t *testing.T) {
	rename := func(from, to string) string {
		return fmt.Sprintf("diff --git a/%s b/%s\nsimilarity index 100%%\nrename from %s\nrename to %s\n", from, to, from, to)
	}
	for _, tt := range []struct{ from, to, want string }{
		{"ci/build.yml", ".github/workflows/build.yml", ReasonMoved},
		{"pkg/testdata/payload.go", "pkg/payload.go", ReasonMoved},
		{"docs/example.py", "tools/example.py", ReasonMoved},
		{"scripts/deploy.txt", "scripts/deploy.sh", ReasonMoved},
		{"pkg/a/x.go", "pkg/b/x.go", ReasonNoChange},
		{".github/workflows/a.yml", ".github/workflows/b.yml", ReasonNoChange},
	} {
		s, err := ApplyRules(mustParse(t, rename(tt.from, tt.to)), Rules{Base: NewBase(tt.from)})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Excluded) != 1 || s.Excluded[0].Reason != tt.want {
			t.Errorf("%s -> %s: excluded %+v; want %q", tt.from, tt.to, s.Excluded, tt.want)
		}
	}
}

// TestVendorListUnread: when the base holds vendor/modules.txt but its text
// was not read, nothing says which module a vendored file is in, so no
// bump explains a hand edit: it is reviewed.
func TestVendorListUnread(t *testing.T) {
	base := NewBase("go.mod", "vendor/modules.txt", "vendor/github.com/acme/lib/lib.go")
	d := mustParse(t, changed("vendor/github.com/acme/lib/lib.go", 1)+
		"diff --git a/vendor/modules.txt b/vendor/modules.txt\n--- a/vendor/modules.txt\n+++ b/vendor/modules.txt\n@@ -1 +1 @@\n"+
		"-# github.com/acme/lib v1.0.0\n+# github.com/acme/lib v1.1.0\n")
	s, err := ApplyRules(d, Rules{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range s.Excluded {
		if e.Path == "vendor/github.com/acme/lib/lib.go" {
			t.Errorf("left out as %q with the base's list unread; want it reviewed", e.Reason)
		}
	}
	if got := VendorLists(d); len(got) != 1 || got[0] != "vendor/modules.txt" {
		t.Errorf("VendorLists = %q; want the changed vendor/modules.txt", got)
	}
}
