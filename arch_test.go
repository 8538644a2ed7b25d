package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLeafPackagesImportNothingOfTheModule holds the layering of STYLE.md:
// the leaves (diff, llm, github, marker, finding) import no other package
// of this module, so each can be read, tested and reused alone.
func TestLeafPackagesImportNothingOfTheModule(t *testing.T) {
	const module = "github.com/anchor-review/anchor-review/"
	for _, dir := range []string{"pkg/diff", "pkg/llm", "pkg/github", "pkg/marker", "pkg/finding", "pkg/version", "pkg/pricing"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				if p := strings.Trim(imp.Path.Value, `"`); strings.HasPrefix(p, module) {
					t.Errorf("%s imports %s; a leaf package imports nothing of the module", f, p)
				}
			}
		}
	}
}
