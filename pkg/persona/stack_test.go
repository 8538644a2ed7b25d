package persona

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

func changed(path string, lines ...string) *diff.File {
	f := &diff.File{OldPath: path, NewPath: path, Status: diff.Modified}
	h := diff.Hunk{NewStart: 1, NewLines: len(lines)}
	for i, l := range lines {
		h.Lines = append(h.Lines, diff.Line{Kind: diff.Add, NewNo: i + 1, Text: l})
	}
	f.Hunks = []diff.Hunk{h}
	return f
}

func TestSelectStackPersonas(t *testing.T) {
	all, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files []*diff.File
		want  map[string]string // stack persona → reason; absent ones must not run
	}{
		{"go source", []*diff.File{changed("cmd/app/main.go", "x := 1"), changed("pkg/a/b.go", "y")},
			map[string]string{"go": "Go code in cmd/app/main.go (and 1 more file)"}},
		{"go test only", []*diff.File{changed("pkg/a/b_test.go", "y")}, nil},
		// Scope leaves out a generated file the base shows to be one; one
		// it hands on (a hand edit, a new .pb.go nobody generated) is Go.
		{"generated name that scope reviews", []*diff.File{changed("api/v1/api.pb.go", "y")},
			map[string]string{"go": "Go code in api/v1/api.pb.go"}},
		{"python", []*diff.File{changed("app/views.py", "x = 1")}, map[string]string{"python": "Python code in app/views.py"}},
		{"python test only", []*diff.File{changed("tests/test_views.py", "x")}, nil},
		{"typescript and react", []*diff.File{changed("web/src/App.tsx", "x")}, map[string]string{"typescript": "TypeScript code in web/src/App.tsx"}},
		{"plain javascript", []*diff.File{changed("web/server.mjs", "x")}, map[string]string{"typescript": "JavaScript code in web/server.mjs"}},
		{"js spec only", []*diff.File{changed("web/App.spec.js", "x")}, nil},
		{"workflow", []*diff.File{changed(".github/workflows/ci.yml", "on: push")},
			map[string]string{"ci-security": "workflow or action definition in .github/workflows/ci.yml"}},
		{"composite action", []*diff.File{changed("tools/setup/action.yaml", "runs:")},
			map[string]string{"ci-security": "workflow or action definition in tools/setup/action.yaml"}},
		{"other yaml", []*diff.File{changed("deploy/values.yml", "a: b"), changed(".github/dependabot.yml", "x")}, nil},
		{"mixed", []*diff.File{changed(".github/workflows/release.yaml", "x"), changed("svc/handler.go", "x"), changed("ui/a.ts", "x"), changed("jobs/run.py", "x")},
			map[string]string{"ci-security": "workflow or action definition in .github/workflows/release.yaml", "go": "Go code in svc/handler.go",
				"typescript": "TypeScript code in ui/a.ts", "python": "Python code in jobs/run.py"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			team, err := Select(all, Signals{Files: tt.files}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, p := range team {
				if slices.Contains(StackNames(), p.Name) {
					got[p.Name] = p.Reason
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("stack personas = %v; want %v", got, tt.want)
			}
			for n, r := range tt.want {
				if got[n] != r {
					t.Errorf("%s reason = %q; want %q", n, got[n], r)
				}
			}
		})
	}
}

func TestSelectCustomPersonas(t *testing.T) {
	all, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string, w When) Persona {
		p, err := NewCustom(name, "Check the billing rules.", "", w)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	billing := mk("billing-rules", When{Paths: []string{"internal/billing/**"}})
	sql := mk("sql-house-style", When{Languages: []string{"sql"}})
	money := mk("money-words", When{Keywords: []string{"Refund", "invoice"}})
	always := mk("house-style", When{})
	team := append(slices.Clone(all), billing, sql, money, always)

	tests := []struct {
		name  string
		files []*diff.File
		want  map[string]string
	}{
		{"path glob", []*diff.File{changed("internal/billing/tax.go", "x")},
			map[string]string{"billing-rules": "path internal/billing/tax.go matches the configured paths", "house-style": AlwaysOnReason}},
		{"language", []*diff.File{changed("db/q.sql", "select 1")},
			map[string]string{"sql-house-style": "sql file db/q.sql changed", "house-style": AlwaysOnReason}},
		{"keyword, case-insensitive", []*diff.File{changed("svc/a.go", "issueREFUND(x)")},
			map[string]string{"money-words": `keyword "refund" in svc/a.go`, "house-style": AlwaysOnReason}},
		{"nothing fires", []*diff.File{changed("svc/a.go", "x := 1")}, map[string]string{"house-style": AlwaysOnReason}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := Select(team, Signals{Files: tt.files}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, p := range sel {
				if p.Custom {
					got[p.Name] = p.Reason
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("custom personas = %v; want %v", got, tt.want)
			}
			for n, r := range tt.want {
				if got[n] != r {
					t.Errorf("%s reason = %q; want %q", n, got[n], r)
				}
			}
		})
	}

	// The personas input restricts custom personas like shipped ones.
	sel, err := Select(team, Signals{Files: []*diff.File{changed("internal/billing/tax.go", "x")}}, []string{"billing-rules", "correctness"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range sel {
		names = append(names, p.Name)
	}
	if want := []string{"correctness", "billing-rules"}; !slices.Equal(names, want) {
		t.Errorf("restricted team = %v; want %v", names, want)
	}
}

func TestNewCustomRejects(t *testing.T) {
	tests := []struct {
		name, pname, prompt, tier string
		w                         When
		want                      string
	}{
		{"shipped name", "security", "x", "", When{}, "shipped persona"},
		{"stack name", "go", "x", "", When{}, "shipped persona"},
		{"validator", "validator", "x", "", When{}, "reserved for the validator"},
		{"bad name", "Billing Rules", "x", "", When{}, "lower-case words"},
		{"empty prompt", "a", " \n", "", When{}, "prompt is empty"},
		{"bad tier", "a", "x", "huge", When{}, `tier "huge"`},
		{"unknown language", "a", "x", "", When{Languages: []string{"cobol"}}, `unknown language "cobol"`},
		{"bad glob", "a", "x", "", When{Paths: []string{"!src"}}, "negation"},
		{"empty keyword", "a", "x", "", When{Keywords: []string{" "}}, "keyword 1 is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewCustom(tt.pname, tt.prompt, tt.tier, tt.w)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v; want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
}

func TestLanguageOf(t *testing.T) {
	for p, want := range map[string]string{"a/b.go": "go", "x.PY": "python", "c.tsx": "typescript", "d.jsx": "javascript", "README": "", "e.yml": "yaml", "f.hh": "cpp", "g.zsh": "shell", "h.toml": "", "i.mm": ""} {
		if got := LanguageOf(p); got != want {
			t.Errorf("LanguageOf(%q) = %q; want %q", p, got, want)
		}
	}
	if !slices.IsSorted(Languages()) || !slices.Contains(Languages(), "go") {
		t.Errorf("Languages() = %v; want sorted, with go", Languages())
	}
}
