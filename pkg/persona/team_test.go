package persona

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// sized is a file of the given status with add added and del deleted
// lines of code.
func sized(p string, status diff.Status, add, del int) *diff.File {
	f := &diff.File{OldPath: p, NewPath: p, Status: status}
	switch status {
	case diff.Added:
		f.OldPath = ""
	case diff.Deleted:
		f.NewPath = ""
	}
	h := diff.Hunk{OldStart: 1, NewStart: 1, OldLines: del, NewLines: add}
	for i := range del {
		h.Lines = append(h.Lines, diff.Line{Kind: diff.Delete, OldNo: i + 1, Text: fmt.Sprintf("old := %d", i)})
	}
	for i := range add {
		h.Lines = append(h.Lines, diff.Line{Kind: diff.Add, NewNo: i + 1, Text: fmt.Sprintf("x := %d", i)})
	}
	f.Hunks = []diff.Hunk{h}
	return f
}

func executableLines(files []*diff.File) int {
	n := 0
	for _, f := range files {
		if scope.Executable(f.Path()) {
			n += f.Added() + f.Deleted()
		}
	}
	return n
}

// TestConditionalTestingAndMaintainability: the selection rules of the
// two formerly always-on personas, with the reason Coverage shows.
func TestConditionalTestingAndMaintainability(t *testing.T) {
	all, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	withTests := &TestIndex{Any: true, Of: map[string][]string{"store/users.go": {"store/users_test.go"}}}
	noTests := &TestIndex{Any: false, Of: map[string][]string{}}
	tests := []struct {
		name        string
		files       []*diff.File
		tests       *TestIndex
		testing     string // a substring of the reason; "" means not selected
		maintenance string
	}{
		{"a small fix runs neither", []*diff.File{sized("store/users.go", diff.Modified, 3, 2)}, withTests, "", ""},
		{"40 source lines, its tests untouched, in a repo with tests",
			[]*diff.File{sized("store/users.go", diff.Modified, 25, 15)}, withTests,
			"40 executable lines changed with no change to their tests in store/users.go in a repository that has tests", ""},
		{"40 source lines and their own test changed",
			[]*diff.File{sized("store/users.go", diff.Modified, 25, 15), sized("store/users_test.go", diff.Modified, 20, 0)}, withTests, "", ""},
		{"an unrelated test edit does not cover a file that has its own tests",
			[]*diff.File{sized("store/users.go", diff.Modified, 25, 15), sized("api/handler_test.go", diff.Modified, 1, 0)}, withTests,
			"40 executable lines changed", ""},
		{"a repository without tests",
			[]*diff.File{sized("store/users.go", diff.Modified, 25, 15)}, noTests, "", ""},
		{"tests unknown (local diff): judged by the lines alone",
			[]*diff.File{sized("store/users.go", diff.Modified, 25, 15)}, nil, "(the repository's tests could not be listed)", ""},
		{"a deleted test file always selects testing",
			[]*diff.File{sized("store/users.go", diff.Modified, 1, 1), sized("store/users_test.go", diff.Deleted, 0, 30)}, noTests,
			"tests removed in store/users_test.go", ""},
		{"a test with more lines removed than added",
			[]*diff.File{sized("store/users_test.go", diff.Modified, 2, 9)}, withTests, "tests removed in store/users_test.go", ""},
		{"tests and docs alone change nothing executable",
			[]*diff.File{sized("store/users_test.go", diff.Modified, 40, 0), sized("README.md", diff.Modified, 200, 0)}, withTests, "", ""},
		{"a large change", []*diff.File{sized("store/users.go", diff.Modified, 100, 60), sized("store/users_test.go", diff.Modified, 30, 0)}, withTests,
			"", "large change: 160 executable changed lines"},
		{"a new module", []*diff.File{sized("billing/invoice.go", diff.Added, 70, 0), sized("billing/invoice_test.go", diff.Added, 40, 0)}, withTests,
			"", "new module: billing/invoice.go (70 lines)"},
		{"a refactor across three files",
			[]*diff.File{sized("a/x.go", diff.Modified, 5, 25), sized("a/y.go", diff.Modified, 5, 25), sized("a/z.go", diff.Modified, 5, 25), sized("a/x_test.go", diff.Modified, 3, 0)}, noTests,
			"", "refactor: 75 executable lines removed across a/x.go, a/y.go and 1 more file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			team, err := Select(all, Signals{Files: tt.files, ExecutableLines: executableLines(tt.files), Tests: tt.tests}, nil)
			if err != nil {
				t.Fatal(err)
			}
			reasons := map[string]string{}
			for _, p := range team {
				reasons[p.Name] = p.Reason
			}
			for name, want := range map[string]string{"testing": tt.testing, "maintainability": tt.maintenance} {
				got, ok := reasons[name]
				switch {
				case want == "" && ok:
					t.Errorf("%s selected (%q); want not", name, got)
				case want != "" && !strings.Contains(got, want):
					t.Errorf("%s reason %q; want it to contain %q", name, got, want)
				}
			}
			if reasons["correctness"] != AlwaysOnReason {
				t.Errorf("correctness: %q; want always on", reasons["correctness"])
			}
		})
	}
}
