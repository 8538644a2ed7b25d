package main

import (
	"go/ast"
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
	for _, dir := range []string{"pkg/diff", "pkg/llm", "pkg/github", "pkg/marker", "pkg/finding", "pkg/version", "pkg/pricing", "pkg/lockcheck"} {
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

// TestReviewFunctionsTakeAtMostSixParameters holds the orchestrator's
// shape: a review run is one type carrying its state (reviewRun), so a
// stage takes only what is its own. A function that needs more than six
// parameters is a stage that should be a method of the run.
func TestReviewFunctionsTakeAtMostSixParameters(t *testing.T) {
	const limit = 6
	files, err := filepath.Glob(filepath.Join("pkg/review", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("pkg/review: no Go files (%v)", err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			var typ *ast.FuncType
			name := "a function literal"
			switch fn := n.(type) {
			case *ast.FuncDecl:
				typ, name = fn.Type, fn.Name.Name
			case *ast.FuncLit:
				typ = fn.Type
			default:
				return true
			}
			if got := typ.Params.NumFields(); got > limit {
				t.Errorf("%s: %s takes %d parameters; at most %d (make it a method of reviewRun)", fset.Position(n.Pos()), name, got, limit)
			}
			return true
		})
	}
}
