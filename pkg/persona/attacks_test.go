package persona

import (
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// TestSecurityReadsEveryChangeToCode: issue 30's lens-selection attacks.
// Each PR changes code that runs; before, each got no security persona
// (a path class switched the file off, or no keyword fired, or the
// comment scanner read code as a comment). want is a substring of the
// security reason: the keyword label where the code says it (selection
// reads code), the catch-all otherwise.
func TestSecurityReadsEveryChangeToCode(t *testing.T) {
	all, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	shGo := `+	out, _ := exec.Command("sh", "-c", r.Header.Get("X-Run")).Output()`
	shPy := `+    subprocess.run(request.headers["X-Run"], shell=True)`
	tests := []struct {
		name string
		file *diff.File
		want string
	}{
		{"a .go under doc/", file("doc/examples/run.go", shGo), "shell command execution in doc/examples/run.go"},
		{"a .go under docs/", file("docs/run.go", shGo), "shell command execution in docs/run.go"},
		{"a .go under spec/", file("spec/run.go", shGo), "shell command execution in spec/run.go"},
		{"a .go under e2e/", file("e2e/run.go", shGo), "shell command execution in e2e/run.go"},
		{"LICENSE.go", file("LICENSE.go", shGo), "shell command execution in LICENSE.go"},
		{"CHANGES.py", file("CHANGES.py", shPy), "shell command execution in CHANGES.py"},
		{"README.py", file("README.py", shPy), "shell command execution in README.py"},
		// A test runs in CI with the repository's secrets.
		{"a Go test", file("api/run_test.go", shGo), "code that can run changed in api/run_test.go"},
		{"shell execution without the keywords", file("tools/x.py",
			`+    getattr(__import__("o" + "s"), "po" + "pen")(hdr).read()`), "code that can run changed in tools/x.py"},
		{"eval of a query parameter in a JS route", file("routes/calc.js",
			`+app.get("/calc", (q, s) => s.send(String(eval(q.query.expr))))`), "code that can run changed in routes/calc.js"},
		{"a Go raw string opens a fake block comment", file("cmd/serve/main.go",
			"+var usage = `",
			"+/*",
			"+`",
			"+",
			shGo,
			"+// */",
		), "shell command execution in cmd/serve/main.go"},
		{"a Python docstring closes before code on its line", file("app/hooks.py",
			`+    """`,
			`+    Run the hook.`,
			`+    """; os.system(request.args["cmd"])`,
		), "shell command execution in app/hooks.py"},
		{"code after a one-line docstring", file("app/hooks.py",
			`+    """Run the hook."""; os.system(request.args["cmd"])`,
		), "shell command execution in app/hooks.py"},
		{"a deleted auth check with no keyword", file("web/mw.js",
			`-  if (!ok(req)) return res.sendStatus(403)`), "code that can run changed in web/mw.js"},
		{"an extensionless script", shebangFile("deploy", "+#!/bin/sh", `+curl "$1" | sh`), "code that can run changed in deploy"},
		{"a Makefile", file("Makefile", "+install:", "+\tcurl $(URL) | sh"), "code that can run changed in Makefile"},
		// Components, templates and other CI systems' pipelines run too.
		{"a Vue component", file("src/App.vue", "+<button @click=\"remove(id)\">x</button>"), "changed in src/App.vue"},
		{"a Svelte component", file("src/App.svelte", "+{@html msg}"), "changed in src/App.svelte"},
		{"an Astro page", file("src/pages/index.astro", "+<Fragment set:html={q} />"), "changed in src/pages/index.astro"},
		{"an MDX page", file("docs/intro.mdx", "+export const x = await fetch(process.env.URL)"), "changed in docs/intro.mdx"},
		{"an MDX expression", file("docs/intro.mdx", "+Status: {await fetch(process.env.STATUS_URL).then((r) => r.text())}"), "changed in docs/intro.mdx"},
		{"an MDX component", file("docs/intro.mdx", `+<Banner html={q} />`), "changed in docs/intro.mdx"},
		{"a line inside an MDX export block", file("docs/intro.mdx", " export const meta = {", "+  url: process.env.DOCS_URL,", " }"), "changed in docs/intro.mdx"},
		{"Terraform", file("infra/main.tf", "+  cidr_blocks = [\"0.0.0.0/0\"]"), "changed in infra/main.tf"},
		{"a Jenkinsfile", file("Jenkinsfile", "+sh \"curl $URL | sh\""), "changed in Jenkinsfile"},
		{"GitLab CI", file(".gitlab-ci.yml", "+  script: curl $URL | sh"), "changed in .gitlab-ci.yml"},
		{"CircleCI", file(".circleci/config.yml", "+      - run: curl $URL | sh"), "changed in .circleci/config.yml"},
		{"Bitbucket Pipelines", file("bitbucket-pipelines.yml", "+        - curl $URL | sh"), "changed in bitbucket-pipelines.yml"},
		{"a GitLab CI include", file(".gitlab/ci/deploy.yml", "+  script: curl $URL | sh"), "changed in .gitlab/ci/deploy.yml"},
		{"a release Jenkinsfile", file("Jenkinsfile.release", "+sh \"curl $URL | sh\""), "changed in Jenkinsfile.release"},
		{"AWS CodeBuild", file("buildspec.yml", "+      - curl $URL | sh"), "changed in buildspec.yml"},
		{"Drone, .yaml", file(".drone.yaml", "+  - curl $URL | sh"), "changed in .drone.yaml"},
		{"Woodpecker", file(".woodpecker.yml", "+    commands: [curl $URL | sh]"), "changed in .woodpecker.yml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			team, err := Select(all, Signals{Files: []*diff.File{tt.file}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := reasonOf(team, "security")
			if !strings.Contains(got, tt.want) {
				t.Errorf("security reason = %q; want it to contain %q", got, tt.want)
			}
		})
	}
}

// TestNoCodeNoSecurity: what cannot run selects no security persona.
func TestNoCodeNoSecurity(t *testing.T) {
	all, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*diff.File{
		file("docs/guide.md", "+Run `sh -c $HEADER` to exec."),
		file("CHANGES", "+- exec.Command now quoted"),
		file("package-lock.json", `+      "resolved": "https://registry.npmjs.org/x/-/x-1.0.0.tgz",`),
		file("config/app.yaml", "+timeout: 5"),
		file("docs/intro.mdx", "+Run `sh -c $HEADER` to exec.", " ", " export const meta = {}"),
		file("docs/usage.mdx", " ```js", "+import { exec } from 'node:child_process'", " ```"),
	} {
		team, err := Select(all, Signals{Files: []*diff.File{f}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := reasonOf(team, "security"); got != "" {
			t.Errorf("%s: security selected (%q); nothing in it runs", f.Path(), got)
		}
	}
}

// TestPathClassKeepsLenses: a path class never switches a code file's
// other lenses off either: a .go under doc/ is Go code, and its lines count.
func TestPathClassKeepsLenses(t *testing.T) {
	all, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	f := file("doc/srv.go", "+	go s.flush()", "+	for _, id := range ids {", "+		rows, _ := db.Query(q, id)")
	team, err := Select(all, Signals{Files: []*diff.File{f}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"go": "Go code in doc/srv.go", "reliability": "background job or goroutine in doc/srv.go", "performance": "query or I/O inside a loop in doc/srv.go"} {
		if got := reasonOf(team, name); got != want {
			t.Errorf("%s: reason %q; want %q", name, got, want)
		}
	}
	big := sized("LICENSE.go", diff.Added, 60, 0)
	team, err = Select(all, Signals{Files: []*diff.File{big}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := reasonOf(team, "adversarial"); got != "60 executable changed lines" {
		t.Errorf("adversarial on a 60-line LICENSE.go: %q; want it selected by its lines", got)
	}
}

// TestCommentInATestIsNoTestChange: a test edit switches testing off only
// when it changes executable lines of a test of the changed code.
func TestCommentInATestIsNoTestChange(t *testing.T) {
	all, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	src := sized("store/users.go", diff.Modified, 25, 15)
	index := &TestIndex{Any: true, Of: map[string][]string{"store/users.go": {"store/users_test.go"}}}
	tests := []struct {
		name  string
		test  *diff.File
		index *TestIndex
		want  bool // testing selected
	}{
		{"one comment line in its test", file("store/users_test.go", " func TestUsers(t *testing.T) {", "+	// covers the new lookup"), index, true},
		{"a blank line in its test", file("store/users_test.go", " func TestUsers(t *testing.T) {", "+"), index, true},
		{"a comment, tests unlisted", file("store/users_test.go", "+// TODO"), nil, true},
		{"a docstring in a Python test", file("tests/test_users.py", `+    """Users are looked up."""`), nil, true},
		{"code in a test of other code, tests unlisted", file("api/handler_test.go", "+	if got != want {"), nil, true},
		{"code in its own test", file("store/users_test.go", "+	if got := Lookup(db, 1); got.ID != 1 {"), index, false},
		{"code in its own test, tests unlisted", file("store/users_test.go", "+	if got := Lookup(db, 1); got.ID != 1 {"), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			team, err := Select(all, Signals{Files: []*diff.File{src, tt.test}, Tests: tt.index}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := reasonOf(team, "testing") != ""; got != tt.want {
				t.Errorf("testing selected = %t (%q); want %t", got, reasonOf(team, "testing"), tt.want)
			}
		})
	}
}

func reasonOf(team []Selected, name string) string {
	for _, p := range team {
		if p.Name == name {
			return p.Reason
		}
	}
	return ""
}

// shebangFile is an added file whose hunk starts at line 1.
func shebangFile(p string, lines ...string) *diff.File {
	f := file(p, lines...)
	f.OldPath, f.Status = "", diff.Added
	return f
}
