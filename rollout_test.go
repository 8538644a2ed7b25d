package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
)

// actionlintPath is the actionlint binary: $ACTIONLINT, else one on PATH.
// .ci/run builds the pinned version and sets ACTIONLINT, so on CI this
// test never skips; a developer without actionlint is told how to get it.
func actionlintPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ACTIONLINT"); p != "" {
		return p
	}
	if p, err := exec.LookPath("actionlint"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("actionlint not found on CI: .ci/run sets ACTIONLINT to the pinned build")
	}
	t.Skip("actionlint not installed: go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12")
	return ""
}

// workflowSnippets are the documents' YAML blocks that are workflows (they
// have both on: and jobs:), with the README's placeholder pin spelled as a
// SHA actionlint accepts.
func workflowSnippets(t *testing.T, doc string) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile("(?s)```ya?ml\n(.*?)```").FindAllStringSubmatch(readRepoFile(t, doc), -1) {
		text := m[1]
		if !regexp.MustCompile(`(?m)^on:`).MatchString(text) || !regexp.MustCompile(`(?m)^jobs:`).MatchString(text) {
			continue
		}
		out = append(out, strings.ReplaceAll(text, "<40-character commit SHA>", strings.Repeat("0", 40)))
	}
	return out
}

// TestWorkflowsInTheDocsPassActionlint: every workflow a user is told to
// copy (the README's, docs/ROLLOUT.md's, the organization examples) and the
// repository's own pass actionlint, with shellcheck on their scripts when
// it is installed.
func TestWorkflowsInTheDocsPassActionlint(t *testing.T) {
	bin := actionlintPath(t)
	dir := filepath.Join(t.TempDir(), ".github", "workflows")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var files []string
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	counts := map[string]int{}
	for _, doc := range []string{"README.md", "docs/ROLLOUT.md"} {
		for i, s := range workflowSnippets(t, doc) {
			write(strings.NewReplacer("/", "-", ".", "-").Replace(doc)+"-"+string(rune('a'+i))+".yml", s)
			counts[doc]++
		}
	}
	if counts["README.md"] < 2 || counts["docs/ROLLOUT.md"] < 1 {
		t.Fatalf("workflow snippets found: %v; want the README's (at least 2) and ROLLOUT.md's", counts)
	}
	examples, err := filepath.Glob("examples/organization/*.yml")
	if err != nil || len(examples) < 2 {
		t.Fatalf("examples/organization: %v, %v; want the central workflow and its caller", examples, err)
	}
	for _, e := range examples {
		write("example-"+filepath.Base(e), readRepoFile(t, e))
	}
	own, _ := filepath.Glob(".github/workflows/*.yml")
	for _, w := range own {
		write("own-"+filepath.Base(w), readRepoFile(t, w))
	}
	cmd := exec.Command(bin, append([]string{"-no-color"}, files...)...)
	cmd.Dir = filepath.Dir(filepath.Dir(dir))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// TestCallerIsEightLines: a repository joins the organization's setup with
// the 8-line caller, which is the same in docs/ROLLOUT.md and examples/.
func TestCallerIsEightLines(t *testing.T) {
	caller := readRepoFile(t, "examples/organization/caller.yml")
	if n := strings.Count(strings.TrimRight(caller, "\n"), "\n") + 1; n != 8 {
		t.Errorf("examples/organization/caller.yml has %d lines; want 8", n)
	}
	if !strings.Contains(readRepoFile(t, "docs/ROLLOUT.md"), caller) {
		t.Error("docs/ROLLOUT.md does not show examples/organization/caller.yml as it is")
	}
	central := readRepoFile(t, "examples/organization/anchor-review.yml")
	for _, want := range []string{"workflow_call:", "config: |", "uses: anchor-review/anchor-review@", "# v"} {
		if !strings.Contains(central, want) {
			t.Errorf("the central workflow lacks %q", want)
		}
	}
}

// TestReadmeCustomPersonaIsTargeted: the README's custom-persona example
// joins the team for billing code, and not for every Go change (it used to
// select on `languages: [go]`, which fires on any Go file).
func TestReadmeCustomPersonaIsTargeted(t *testing.T) {
	var example string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(readRepoFile(t, "README.md"), -1) {
		if strings.Contains(m[1], "custom_personas:") {
			example = m[1]
		}
	}
	if example == "" {
		t.Fatal("README has no custom_personas example")
	}
	f, err := repoconfig.Parse([]byte(example))
	if err != nil || len(f.Personas) == 0 {
		t.Fatalf("README's example: %v, %d personas", err, len(f.Personas))
	}
	name := f.Personas[0].Name
	team := func(path, line string) []string {
		d, err := diff.Parse([]byte("diff --git a/" + path + " b/" + path + "\n--- a/" + path + "\n+++ b/" + path +
			"\n@@ -1,1 +1,2 @@\n package x\n+" + line + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		sel, err := persona.Select(f.Personas, persona.Signals{Files: d.Files, ExecutableLines: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range sel {
			names = append(names, s.Name)
		}
		return names
	}
	if got := team("internal/search/query.go", "func Limit() int { return 10 }"); slices.Contains(got, name) {
		t.Errorf("a Go change outside billing selects %s: %v", name, got)
	}
	if got := team("internal/billing/refund.go", "func Cents() int { return 1 }"); !slices.Contains(got, name) {
		t.Errorf("a change under internal/billing does not select %s: %v", name, got)
	}
}
