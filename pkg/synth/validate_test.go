package synth

import (
	"maps"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

func TestValidate(t *testing.T) {
	files := []*diff.File{
		modified("pkg/a.go", 10, "x", "y"),
		added("web/new.ts", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"),
		deleted("old.py"),
		{NewPath: "huge.sql", Status: diff.Added, NoPatch: true},
		modified("a/dir.go", 1, "x"), // a real top-level "a/" directory
		modified("dir.go", 1, "x"),
	}
	ok := fnd("Nil deref", "pkg/a.go", 11, finding.P1, 75)
	with := func(m func(*finding.Finding)) finding.Finding {
		f := ok
		f.Evidence = []string{"pkg/a.go:11"}
		m(&f)
		return f
	}
	tests := []struct {
		name     string
		f        finding.Finding
		reason   string // "" = kept
		wantFile string
	}{
		{"valid", ok, "", "pkg/a.go"},
		{"anchor 0 is an anchor", with(func(f *finding.Finding) { f.Confidence = 0 }), "", "pkg/a.go"},
		{"anchor 25 is an anchor", with(func(f *finding.Finding) { f.Confidence = 25 }), "", "pkg/a.go"},
		{"severity P4", with(func(f *finding.Finding) { f.Severity = "P4" }), ReasonInvalid, ""},
		{"severity lower-case", with(func(f *finding.Finding) { f.Severity = "p1" }), ReasonInvalid, ""},
		{"severity empty", with(func(f *finding.Finding) { f.Severity = "" }), ReasonInvalid, ""},
		{"confidence 72", with(func(f *finding.Finding) { f.Confidence = 72 }), ReasonInvalid, ""},
		{"confidence 85", with(func(f *finding.Finding) { f.Confidence = 85 }), ReasonInvalid, ""},
		{"confidence negative", with(func(f *finding.Finding) { f.Confidence = -25 }), ReasonInvalid, ""},
		{"confidence 101", with(func(f *finding.Finding) { f.Confidence = 101 }), ReasonInvalid, ""},
		{"empty title", with(func(f *finding.Finding) { f.Title = "" }), ReasonInvalid, ""},
		{"blank title", with(func(f *finding.Finding) { f.Title = " \t" }), ReasonInvalid, ""},
		{"title 101 chars", with(func(f *finding.Finding) { f.Title = strings.Repeat("x", 101) }), ReasonInvalid, ""},
		{"title 100 runes", with(func(f *finding.Finding) { f.Title = strings.Repeat("é", 100) }), "", "pkg/a.go"},
		{"empty file", with(func(f *finding.Finding) { f.File = "" }), ReasonInvalid, ""},
		{"no evidence", with(func(f *finding.Finding) { f.Evidence = nil }), ReasonInvalid, ""},
		{"blank evidence", with(func(f *finding.Finding) { f.Evidence = []string{" ", ""} }), ReasonInvalid, ""},
		{"line 0", with(func(f *finding.Finding) { f.Line = 0 }), ReasonInvalid, ""},
		{"line negative", with(func(f *finding.Finding) { f.Line = -4 }), ReasonInvalid, ""},
		{"bad autofix_class", with(func(f *finding.Finding) { f.AutofixClass = "auto" }), ReasonInvalid, ""},
		{"bad owner", with(func(f *finding.Finding) { f.Owner = "bot" }), ReasonInvalid, ""},
		{"file not in PR", with(func(f *finding.Finding) { f.File = "pkg/b.go" }), ReasonNotInPR, ""},
		{"./ prefix", with(func(f *finding.Finding) { f.File = "./pkg/a.go" }), "", "pkg/a.go"},
		{"/ prefix", with(func(f *finding.Finding) { f.File = "/pkg/a.go" }), "", "pkg/a.go"},
		{"a/ prefix", with(func(f *finding.Finding) { f.File = "a/pkg/a.go" }), "", "pkg/a.go"},
		{"b/ prefix", with(func(f *finding.Finding) { f.File = "b/pkg/a.go" }), "", "pkg/a.go"},
		{"surrounding space", with(func(f *finding.Finding) { f.File = " pkg/a.go " }), "", "pkg/a.go"},
		{"real a/ dir wins exactly", with(func(f *finding.Finding) { f.File = "a/dir.go" }), "", "a/dir.go"},
		{"plain name wins exactly", with(func(f *finding.Finding) { f.File = "./dir.go" }), "", "dir.go"},
		{"ambiguous normalized", with(func(f *finding.Finding) { f.File = "b/dir.go" }), ReasonNotInPR, ""},
		{"added: last line", with(func(f *finding.Finding) { f.File, f.Line = "web/new.ts", 10 }), "", "web/new.ts"},
		{"added: past last line", with(func(f *finding.Finding) { f.File, f.Line = "web/new.ts", 11 }), ReasonLineOutside, ""},
		{"modified: any line", with(func(f *finding.Finding) { f.Line = 5000 }), "", "pkg/a.go"},
		{"deleted file", with(func(f *finding.Finding) { f.File, f.Line = "old.py", 1 }), ReasonLineOutside, ""},
		{"added without patch", with(func(f *finding.Finding) { f.File, f.Line = "huge.sql", 90000 }), "", "huge.sql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dropped := map[string]int{}
			got := validate([]finding.Finding{tt.f}, newFileIndex(files), dropped)
			if tt.reason == "" {
				if len(got) != 1 {
					t.Fatalf("got %d kept (dropped %v); want 1", len(got), dropped)
				}
				if got[0].File != tt.wantFile {
					t.Errorf("got file %q; want %q", got[0].File, tt.wantFile)
				}
				return
			}
			want := map[string]int{tt.reason: 1}
			if len(got) != 0 || !maps.Equal(dropped, want) {
				t.Errorf("got %d kept, dropped %v; want 0 kept, dropped %v", len(got), dropped, want)
			}
		})
	}
}

func TestNormalizePath(t *testing.T) {
	for in, want := range map[string]string{
		"pkg/a.go":     "pkg/a.go",
		"./pkg/a.go":   "pkg/a.go",
		"/pkg/a.go":    "pkg/a.go",
		"a/pkg/a.go":   "pkg/a.go",
		"b/pkg/a.go":   "pkg/a.go",
		"/a/./pkg.go":  "pkg.go",
		"././x":        "x",
		"c/pkg/a.go":   "c/pkg/a.go",
		"ab/x.go":      "ab/x.go",
		"a/b/x.go":     "b/x.go", // only one diff prefix is stripped
		"  ./x.go\n":   "x.go",
		"":             "",
		"a.go":         "a.go",
		"b.go":         "b.go",
		"//double.go":  "double.go",
		"a//double.go": "double.go",
	} {
		if got := normalizePath(in); got != want {
			t.Errorf("normalizePath(%q): got %q; want %q", in, got, want)
		}
	}
}

func TestCollectResetsPipelineFields(t *testing.T) {
	f := fnd("t", "a.go", 1, finding.P1, 75, func(f *finding.Finding) {
		f.Reviewers = []string{"security", "correctness"}
		f.Number = 7
		f.Promoted = true
		f.Validation = &finding.Validation{Validated: true}
	})
	for _, tt := range []struct {
		r    PersonaResult
		want string
	}{
		{PersonaResult{Persona: "testing", Answer: finding.Answer{Reviewer: "security", Findings: []finding.Finding{f}}}, "testing"},
		{PersonaResult{Persona: " ", Answer: finding.Answer{Reviewer: "security", Findings: []finding.Finding{f}}}, "security"},
		{PersonaResult{Answer: finding.Answer{Findings: []finding.Finding{f}}}, "unknown"},
	} {
		got := collect([]PersonaResult{tt.r})
		if len(got) != 1 {
			t.Fatalf("got %d findings; want 1", len(got))
		}
		g := got[0]
		if len(g.Reviewers) != 1 || g.Reviewers[0] != tt.want || g.Number != 0 || g.Promoted || g.Validation != nil {
			t.Errorf("got reviewers %v number %d promoted %v validation %v; want [%s] 0 false nil",
				g.Reviewers, g.Number, g.Promoted, g.Validation, tt.want)
		}
	}
}

// TestLookupEverySpelling (issue 12): a file with a non-ASCII or
// zero-width name is shown to the model in git's quoted form, or with the
// prompt's <U+XXXX> escapes; a finding that copies either is not dropped
// as "file not in PR", and resolves to the real path.
func TestLookupEverySpelling(t *testing.T) {
	ete := added("docs/été.go", "package docs")
	zw := added("auth/log\u200bin.go", "package auth")
	ix := newFileIndex([]*diff.File{ete, zw})
	tests := []struct {
		name string
		want *diff.File
	}{
		{"docs/été.go", ete},
		{`"docs/\303\251t\303\251.go"`, ete},
		{`"b/docs/\303\251t\303\251.go"`, ete},
		{`docs/\303\251t\303\251.go`, ete},
		{`b/docs/\303\251t\303\251.go`, ete},
		{"auth/log\u200bin.go", zw},
		{"auth/log<U+200B>in.go", zw},
		{`"auth/log\342\200\213in.go"`, zw},
		{"auth/login.go", nil},
		{`"docs/\303.go"`, nil},
	}
	for _, tt := range tests {
		got, ok := ix.lookup(tt.name)
		if got != tt.want || ok != (tt.want != nil) {
			t.Errorf("lookup(%q) = %v, %v; want %v", tt.name, got, ok, tt.want)
		}
	}
}
