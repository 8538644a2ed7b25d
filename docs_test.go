package main

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/anchor-review/anchor-review/pkg/report"
)

// TestDocsStayInRepository: the repository explains itself. README and
// docs/ never send a reader to a file outside it (the product contract is
// docs/DESIGN.md).
func TestDocsStayInRepository(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(docs, "README.md", "BENCHMARKS.md") {
		text := readRepoFile(t, name)
		for _, bad := range []string{"/work/", "../shared", "SPEC.md", "seeds/"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s mentions %q: a path outside the repository", name, bad)
			}
		}
	}
	if !strings.Contains(readRepoFile(t, "docs/ARCHITECTURE.md"), "(DESIGN.md)") {
		t.Error("docs/ARCHITECTURE.md does not link docs/DESIGN.md")
	}
}

// TestSpecCitationsResolve: code comments cite the product contract as
// "SPEC" ("SPEC 7.1", "SPEC section 3", "SPEC Stage 1") and the docs as
// "DESIGN.md section 7.5"; every section or stage they cite is a heading
// of docs/DESIGN.md, so a reader can open what is cited.
func TestSpecCitationsResolve(t *testing.T) {
	design := readRepoFile(t, "docs/DESIGN.md")
	headings := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^##+ (?:(\d+(?:\.\d+)?)\.? |Stage (\d+b?):)`).FindAllStringSubmatch(design, -1) {
		if m[1] != "" {
			headings[m[1]] = true
		} else {
			headings["Stage "+m[2]] = true
		}
	}
	for _, want := range []string{"1", "3", "7", "7.1", "7.6", "8", "8.3", "8.5", "Stage 0", "Stage 5b"} {
		if !headings[want] {
			t.Fatalf("docs/DESIGN.md has no heading %q (found %v): the pattern or the page is wrong", want, headings)
		}
	}
	section := regexp.MustCompile(`(?:SPEC|DESIGN(?:\.md)?)(?: sections?)? (\d+(?:\.\d+)?)(?: and (\d+(?:\.\d+)?))?(?:, (Stage \d+b?))?`)
	stage := regexp.MustCompile(`(?:SPEC|DESIGN(?:\.md)?) (Stage \d+b?)`)
	check := func(name, text string) {
		for _, m := range section.FindAllStringSubmatch(text, -1) {
			for _, cited := range m[1:] {
				if cited != "" && !headings[cited] {
					t.Errorf("%s cites %q (%q): docs/DESIGN.md has no such heading", name, cited, m[0])
				}
			}
		}
		for _, m := range stage.FindAllStringSubmatch(text, -1) {
			if !headings[m[1]] {
				t.Errorf("%s cites %q: docs/DESIGN.md has no such heading", name, m[0])
			}
		}
	}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata" || d.Name() == "fixtures") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md")) {
			check(path, readRepoFile(t, path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDocsAgreeWithCode: where the docs once contradicted the code or each
// other, they now say what the code does.
func TestDocsAgreeWithCode(t *testing.T) {
	// The conclusion output: every conclusion the code writes, and rule 3
	// writes a skipped check (the dependabot demo shows it).
	var a struct {
		Outputs map[string]struct {
			Description string `yaml:"description"`
		} `yaml:"outputs"`
	}
	if err := yaml.Unmarshal([]byte(readRepoFile(t, "action.yml")), &a); err != nil {
		t.Fatal(err)
	}
	desc := a.Outputs["conclusion"].Description
	for _, c := range []string{report.ConclusionSuccess, report.ConclusionNeutral, report.ConclusionFailure, report.ConclusionSkipped, report.ConclusionActionRequired} {
		if !strings.Contains(desc, c) {
			t.Errorf("action.yml's conclusion output does not list %q: %q", c, desc)
		}
	}
	if strings.Contains(desc, "rules 1-3") {
		t.Errorf("action.yml says rules 1-3 write no check run; rule 3 writes a skipped one: %q", desc)
	}
	arch := readRepoFile(t, "docs/ARCHITECTURE.md")
	if strings.Contains(arch, "Rules 1–3 write no check run") {
		t.Error("docs/ARCHITECTURE.md says rules 1–3 write no check run; rule 3 writes a skipped one")
	}

	// DESIGN.md: an incomplete review takes the incomplete input's
	// conclusion (not neutral), and the validator may batch per file.
	design := readRepoFile(t, "docs/DESIGN.md")
	for _, bad := range []string{"`neutral` when the review was partial", "never batched"} {
		if strings.Contains(design, bad) {
			t.Errorf("docs/DESIGN.md says %q, which the code does not do", bad)
		}
	}
	for _, want := range []string{"the `incomplete` input", "`validator-batching: per-file`"} {
		if !strings.Contains(design, want) {
			t.Errorf("docs/DESIGN.md does not mention %s", want)
		}
	}

	// Pinning: no placeholder version where no release is named, the way
	// to pin before the first release, the release steps.
	readme := readRepoFile(t, "README.md")
	for _, name := range []string{"README.md", ".github/workflows/review.yml"} {
		if text := readRepoFile(t, name); strings.Contains(text, "# vX.Y.Z") {
			t.Errorf("%s pins `# vX.Y.Z`, a placeholder release", name)
		}
	}
	for _, want := range []string{"Before the first release", "RELEASING.md", "every run builds the image", "GitHub Enterprise Server.** The Action", "the intended path is the `/anchor-review`"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
	releasing := readRepoFile(t, "RELEASING.md")
	for _, want := range []string{".github/workflows/release.yml", "ghcr.io", "Change visibility → Public", `tags: ["v*.*.*"]`} {
		if !strings.Contains(releasing, want) {
			t.Errorf("RELEASING.md lacks %q", want)
		}
	}
	if !strings.Contains(readRepoFile(t, ".github/workflows/release.yml"), `tags: ["v*.*.*"]`) {
		t.Error(`release.yml does not release on the v*.*.* tags RELEASING.md describes`)
	}
}
