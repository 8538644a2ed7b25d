package main

import (
	"path/filepath"
	"strings"
	"testing"
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
