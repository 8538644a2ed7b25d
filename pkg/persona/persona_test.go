package persona

import (
	"errors"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/anchor-review/anchor-review/prompts"
)

func TestLoadEveryPersona(t *testing.T) {
	all, err := Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var got []string
	for _, p := range all {
		got = append(got, p.Name)
	}
	if !slices.Equal(got, Names()) {
		t.Fatalf("Load names = %v; want %v", got, Names())
	}
	strong := []string{"correctness", "security", "adversarial"}
	always := []string{"correctness"} // testing and maintainability are conditional (team.go)
	for _, p := range all {
		t.Run(p.Name, func(t *testing.T) {
			if want := slices.Contains(strong, p.Name); (p.Tier == TierStrong) != want {
				t.Errorf("tier = %q; want strong = %v", p.Tier, want)
			}
			if want := slices.Contains(always, p.Name); p.AlwaysOn != want {
				t.Errorf("AlwaysOn = %v; want %v", p.AlwaysOn, want)
			}
			if p.Rule == "" || strings.Contains(p.Rule, "\n") {
				t.Errorf("rule = %q; want one non-empty line", p.Rule)
			}
			secs := sections(p.Instructions)
			for _, s := range []string{"What you hunt for", "How your domain maps onto the anchors", "What you do not flag"} {
				if strings.TrimSpace(secs[s]) == "" {
					t.Errorf("section %q missing or empty", s)
				}
			}
			for _, a := range []string{"**50**", "**75**", "**100**"} {
				if !strings.Contains(secs["How your domain maps onto the anchors"], a) {
					t.Errorf("anchor section does not name %s", a)
				}
			}
		})
	}
}

// sections splits Markdown at "## " headings.
func sections(md string) map[string]string {
	out := map[string]string{}
	cur := ""
	for _, line := range strings.Split(md, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			cur = strings.TrimSpace(h)
			out[cur] = ""
			continue
		}
		if cur != "" {
			out[cur] += line + "\n"
		}
	}
	return out
}

func TestRubricNamesEveryAnchor(t *testing.T) {
	b, err := fs.ReadFile(prompts.FS, "rubric.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"0", "25", "50", "75", "100"} {
		if !strings.Contains(string(b), "### Anchor "+a+":") {
			t.Errorf("rubric.md has no heading for anchor %s", a)
		}
	}
	for _, want := range []string{"P0", "P1", "P2", "P3", "never emit anchor 0", "never", "independent"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("rubric.md does not say %q", want)
		}
	}
}

func TestNoFloatConfidenceLanguage(t *testing.T) {
	bad := regexp.MustCompile(`(?i)0\.\d|\d+%|probabilit`)
	paths, err := fs.Glob(prompts.FS, "*.md")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := fs.Glob(prompts.FS, "personas/*.md")
	paths = append(paths, more...)
	if len(paths) < 4+len(Names()) {
		t.Fatalf("found %d prompt files; want at least %d", len(paths), 4+len(Names()))
	}
	for _, p := range paths {
		b, err := fs.ReadFile(prompts.FS, p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := bad.FindString(line); m != "" {
				t.Errorf("%s:%d: float confidence language %q in %q", p, i+1, m, line)
			}
		}
	}
}

const goodHeader = "---\nname: testing\nactivation: always\nrule: always on\ntier: standard\n---\n# Body\n"

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"no front matter", "# Body\n", "must start"},
		{"unclosed", "---\nname: testing\n", "not closed"},
		{"missing key", "---\nname: testing\nactivation: always\nrule: r\n---\nbody", `misses key "tier"`},
		{"unknown key", "---\nname: testing\nactivation: always\nrule: r\ntier: strong\nmodel: x\n---\nbody", `unknown key "model"`},
		{"duplicate key", "---\nname: testing\nname: testing\nactivation: always\nrule: r\ntier: strong\n---\nbody", `duplicate key "name"`},
		{"empty value", "---\nname: testing\nactivation: always\nrule:\ntier: strong\n---\nbody", `empty value for "rule"`},
		{"bad activation", "---\nname: testing\nactivation: sometimes\nrule: r\ntier: strong\n---\nbody", `activation "sometimes"`},
		{"bad tier", "---\nname: testing\nactivation: always\nrule: r\ntier: premium\n---\nbody", `tier "premium"`},
		{"not key value", "---\nname testing\nactivation: always\nrule: r\ntier: strong\n---\nbody", "want \"key: value\""},
		{"empty body", "---\nname: testing\nactivation: always\nrule: r\ntier: strong\n---\n  \n", "no instructions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("personas/testing.md", []byte(tt.text))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v; want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), "personas/testing.md") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q; want it to name the file and say %q", err, tt.want)
			}
		})
	}
}

func TestParseGood(t *testing.T) {
	p, err := parse("x.md", []byte(strings.ReplaceAll(goodHeader, "\n", "\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	want := Persona{Name: "testing", AlwaysOn: true, Rule: "always on", Tier: TierStandard, Instructions: "# Body"}
	if p != want {
		t.Errorf("parse = %+v; want %+v", p, want)
	}
}

func TestLoadSetMismatch(t *testing.T) {
	full := fstest.MapFS{}
	for _, n := range Names() {
		full["personas/"+n+".md"] = &fstest.MapFile{Data: []byte(strings.Replace(goodHeader, "name: testing", "name: "+n, 1))}
	}
	if _, err := load(full, "personas"); err != nil {
		t.Fatalf("load of a complete set: %v", err)
	}
	tests := []struct {
		name   string
		change func(fstest.MapFS)
		want   string
	}{
		{"missing file", func(m fstest.MapFS) { delete(m, "personas/security.md") }, "personas/security.md is missing"},
		{"extra file", func(m fstest.MapFS) {
			m["personas/style.md"] = &fstest.MapFile{Data: []byte(strings.Replace(goodHeader, "name: testing", "name: style", 1))}
		}, `"style" is not a known persona`},
		{"name differs from file", func(m fstest.MapFS) {
			m["personas/security.md"] = &fstest.MapFile{Data: []byte(goodHeader)}
		}, `does not match the file name "security"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fstest.MapFS{}
			for k, v := range full {
				m[k] = v
			}
			tt.change(m)
			_, err := load(m, "personas")
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v; want ErrInvalid saying %q", err, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(goodHeader))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("---\nname: a: b\n---"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parse("fuzz.md", b)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v; want ErrInvalid", err)
			}
			return
		}
		if p.Name == "" || p.Rule == "" || p.Instructions == "" || (p.Tier != TierStrong && p.Tier != TierStandard) {
			t.Fatalf("parse accepted an incomplete persona: %+v", p)
		}
	})
}
