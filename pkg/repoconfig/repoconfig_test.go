package repoconfig

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/persona"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

const full = `# every key
personas: [correctness, security, billing-rules]
exclude:
  - docs/**
  - "*.snap"
fail_on: P2
mode: comment
model: gpt-4.1
strong_model: o3
validator_model: gpt-4.1-mini
max_validations: 10
max_concurrency: 4
max_llm_calls: 40
quiet: true
instructions: |
  Money is integer cents.
path_instructions:
  "internal/billing/**": Amounts are int64 cents; never float64.
  "*.sql": Migrations must be reversible.
custom_personas:
  - name: billing-rules
    tier: strong
    when:
      paths: ["internal/billing/**"]
      languages: [go, sql]
      keywords: [refund, Invoice]
    prompt: |
      You check the billing rules.
`

func TestParseFull(t *testing.T) {
	f, err := Parse([]byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.SettingKeys(), []string{"exclude", "fail_on", "max_concurrency", "max_llm_calls", "max_validations", "mode", "model", "personas", "quiet", "strong_model", "validator_model"}; !slices.Equal(got, want) {
		t.Errorf("setting keys = %v; want %v", got, want)
	}
	if got := f.Settings["max_llm_calls"]; got != 40 {
		t.Errorf("max_llm_calls = %#v; want 40", got)
	}
	if got := f.Settings["quiet"]; got != true {
		t.Errorf("quiet = %#v; want true", got)
	}
	if got := f.Settings["exclude"]; !slices.Equal(got.([]string), []string{"docs/**", "*.snap"}) {
		t.Errorf("exclude = %#v", got)
	}
	if f.Instructions != "Money is integer cents.\n" {
		t.Errorf("instructions = %q", f.Instructions)
	}
	if len(f.PathInstructions) != 2 || f.PathInstructions[0].Glob != "internal/billing/**" || f.PathInstructions[1].Glob != "*.sql" {
		t.Fatalf("path instructions = %+v; want the file's order", f.PathInstructions)
	}
	if !f.PathInstructions[0].Match("internal/billing/tax.go") || f.PathInstructions[0].Match("internal/api/x.go") || !f.PathInstructions[1].Match("db/m/1.sql") {
		t.Error("path instruction globs match wrongly")
	}
	if len(f.Personas) != 1 {
		t.Fatalf("personas = %+v", f.Personas)
	}
	p := f.Personas[0]
	if p.Name != "billing-rules" || !p.Custom || p.Tier != persona.TierStrong || p.Instructions != "You check the billing rules." || p.AlwaysOn {
		t.Errorf("custom persona = %+v", p)
	}
	if !slices.Equal(p.When.Keywords, []string{"refund", "invoice"}) {
		t.Errorf("keywords = %v; want lower-cased", p.When.Keywords)
	}
}

func TestParseEmpty(t *testing.T) {
	for _, doc := range []string{"", "\n", "# only a comment\n", "---\n", "~\n"} {
		f, err := Parse([]byte(doc))
		if err != nil || f == nil || len(f.Settings) != 0 || f.Instructions != "" {
			t.Errorf("Parse(%q) = %+v, %v; want an empty configuration", doc, f, err)
		}
	}
}

// TestParseErrorsGolden pins the messages a person sees for an invalid
// file: every problem, with its key path.
func TestParseErrorsGolden(t *testing.T) {
	cases := []struct{ name, doc string }{
		{"many problems", `fail_on: P5
max_llm_calls: 1.5
max_concurrency: 0
quiet: "yes"
mode: review
model: ""
colour: blue
personas: [Security, correctness, correctness]
exclude: ["!docs"]
instructions: 42
path_instructions:
  "[a": bad glob
  "src/**": ""
custom_personas:
  - name: security
    prompt: x
  - name: Bad Name
    prompt: ""
    extra: 1
    when: {languages: [cobol], paths: ["a/**"], typo: 1}
  - name: dup
    prompt: a
  - name: dup
    prompt: b
  - prompt: no name
`},
		{"not yaml", "fail_on: [P1\n"},
		{"not a mapping", "- a\n- b\n"},
		{"duplicate key", "quiet: true\nquiet: false\n"},
		{"two documents", "quiet: true\n---\nquiet: false\n"},
		{"merge key", "base: &b {quiet: true}\n<<: *b\n"},
		{"wrong types", "personas: correctness\nexclude: docs/**\ncustom_personas: {name: a}\npath_instructions: [a]\n"},
		{"too large", "instructions: " + strings.Repeat("a", MaxBytes) + "\n"},
	}
	var b strings.Builder
	for _, c := range cases {
		_, err := Parse([]byte(c.doc))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) {
			t.Fatalf("%s: err = %v; want *Error matching ErrInvalid", c.name, err)
		}
		b.WriteString("== " + c.name + "\n" + e.Lines() + "\n")
	}
	golden(t, "errors.golden", b.String())
}

// billionLaughs is a YAML document of 10^9 values built from aliases.
const billionLaughs = `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h,*h]
instructions: *i
`

// TestParseBoundsAliases: a billion-laughs document must fail fast with a
// clear error, not expand. Without the node budget the conversion below
// would build 10^9 values and never return.
func TestParseBoundsAliases(t *testing.T) {
	doc := billionLaughs
	_, err := Parse([]byte(doc))
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "expands to more than") {
		t.Fatalf("err = %v; want the expansion bound", err)
	}

	// Deep nesting is bounded too.
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	if _, err := Parse([]byte("instructions: " + deep)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("deep nesting: err = %v; want ErrInvalid", err)
	}

	// A modest use of anchors is fine.
	ok := "x: &ex [docs/**]\n"
	if _, err := Parse([]byte(ok)); err == nil || !strings.Contains(err.Error(), "x: unknown key") {
		t.Fatalf("err = %v; want only the unknown key", err)
	}
	f, err := Parse([]byte("exclude: &ex [docs/**, \"*.md\"]\n"))
	if err != nil || len(f.Settings["exclude"].([]string)) != 2 {
		t.Fatalf("anchored exclude: %v, %v", f, err)
	}
}

// TestSchemaDefinesEveryLanguage keeps the schema's language enum and
// persona.Languages in step.
func TestSchemaDefinesEveryLanguage(t *testing.T) {
	var doc struct {
		Properties struct {
			Custom struct {
				Items struct {
					Properties struct {
						When struct {
							Properties struct {
								Languages struct {
									Items struct {
										Enum []string `json:"enum"`
									} `json:"items"`
								} `json:"languages"`
							} `json:"properties"`
						} `json:"when"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"custom_personas"`
		} `json:"properties"`
	}
	b, err := os.ReadFile("../../prompts/config.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Properties.Custom.Items.Properties.When.Properties.Languages.Items.Enum
	if !slices.Equal(got, persona.Languages()) {
		t.Errorf("schema languages = %v; want persona.Languages() = %v", got, persona.Languages())
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(full))
	f.Add([]byte("a: &a [x]\nb: [*a, *a]\n"))
	f.Add([]byte("custom_personas: [{name: a, prompt: b, when: {paths: ['[']}}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not match ErrInvalid", err)
			}
			var e *Error
			if !errors.As(err, &e) || len(e.Problems) == 0 {
				t.Fatalf("error %v lists no problem", err)
			}
			return
		}
		if file == nil || file.Settings == nil {
			t.Fatal("nil file without an error")
		}
	})
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to accept):\ngot:\n%s\nwant:\n%s", p, got, want)
	}
}

// BenchmarkParseBillionLaughs measures how fast the expansion bound stops
// a document that would expand to 10^9 values.
func BenchmarkParseBillionLaughs(b *testing.B) {
	doc := []byte(billionLaughs)
	for b.Loop() {
		if _, err := Parse(doc); err == nil {
			b.Fatal("parsed")
		}
	}
}

// BenchmarkParseFull measures a valid file using every key.
func BenchmarkParseFull(b *testing.B) {
	for b.Loop() {
		if _, err := Parse([]byte(full)); err != nil {
			b.Fatal(err)
		}
	}
}
