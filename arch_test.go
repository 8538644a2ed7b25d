package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
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

// TestFunctionsTakeAtMostSixParameters holds the code's shape (STYLE.md:
// no function past six parameters) across the module's production code. A
// review run is one type carrying its state (reviewRun), so a stage takes
// only what is its own; a command receives an options struct (cli.Factory
// and the command's options); a function that needs more than six
// parameters wants such a struct, or to be a method of one.
func TestFunctionsTakeAtMostSixParameters(t *testing.T) {
	const limit = 6
	fset := token.NewFileSet()
	seen := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "fixtures") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		seen++
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
				t.Errorf("%s: %s takes %d parameters; at most %d (give it an options struct, or make it a method)", fset.Position(n.Pos()), name, got, limit)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 100 {
		t.Fatalf("read %d Go files; want the whole module", seen)
	}
}
