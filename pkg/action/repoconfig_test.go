package action

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/repoconfig"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// TestFileKeysMatchSchema: every key of config.schema.json is either a
// FileKeys row naming a real input, or one of the file's own keys; no row
// lacks a schema property.
func TestFileKeysMatchSchema(t *testing.T) {
	var inputs []string
	for _, in := range Inputs() {
		inputs = append(inputs, in.Name)
	}
	var keys []string
	for _, k := range FileKeys() {
		if !slices.Contains(inputs, k.Input) {
			t.Errorf("row %q mirrors %q, which is not an input", k.Key, k.Input)
		}
		if k.Input == "github-token" || k.Input == "api-key" || k.Input == "base-url" || k.Input == "bot-login" {
			t.Errorf("row %q lets the repository set %s", k.Key, k.Input)
		}
		keys = append(keys, k.Key)
	}
	keys = append(keys, repoconfig.KeyInstructions, repoconfig.KeyPathInstructions, repoconfig.KeyCustomPersonas)
	slices.Sort(keys)
	if got := repoconfig.SchemaKeys(); !slices.Equal(got, keys) {
		t.Errorf("schema keys = %v; want FileKeys plus the file's own keys = %v", got, keys)
	}
}

func parseFile(t *testing.T, doc string) *repoconfig.File {
	t.Helper()
	f, err := repoconfig.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestApplyRepoConfigPrecedence: an input set in the workflow to a
// non-default value wins over the file; the file wins over defaults
// (an input set explicitly to its default counts as the default).
func TestApplyRepoConfigPrecedence(t *testing.T) {
	file := `fail_on: P2
quiet: true
max_llm_calls: 40
exclude: [docs/**, "*.snap"]
personas: [correctness, house-rules]
model: gpt-file
mode: report-only
custom_personas:
  - name: house-rules
    prompt: Follow the house rules.
`
	tests := []struct {
		name   string
		env    map[string]string
		doc    string
		check  func(c Config) string
		source map[string]string
	}{
		{
			name: "file over defaults",
			env:  minimal(),
			doc:  file,
			check: func(c Config) string {
				if c.FailOn != "P2" || !c.Quiet || c.MaxLLMCalls != 40 || !slices.Equal(c.Exclude, []string{"docs/**", "*.snap"}) ||
					!slices.Equal(c.Personas, []string{"correctness", "house-rules"}) || c.Model != "gpt-file" || c.StrongModel != "gpt-file" || c.Mode != ModeReportOnly {
					return "file values not applied"
				}
				return ""
			},
			source: map[string]string{"fail-on": review.SourceConfig, "quiet": review.SourceConfig, "max-validations": review.SourceDefault, "strong-model": review.SourceDefault},
		},
		{
			name: "non-default inputs over the file",
			env:  with(minimal(), "INPUT_FAIL-ON", "P0", "INPUT_QUIET", "false", "INPUT_MODEL", "gpt-input", "INPUT_MAX-LLM-CALLS", "7"),
			doc:  file,
			check: func(c Config) string {
				if c.FailOn != "P2" && c.FailOn != "P0" {
					return "fail-on lost"
				}
				if c.FailOn != "P0" || c.Model != "gpt-input" || c.MaxLLMCalls != 7 {
					return "inputs did not win"
				}
				if !c.Quiet {
					// quiet: false is the default spelling, so the file wins.
					return "an input set to its default beat the file"
				}
				return ""
			},
			source: map[string]string{"fail-on": review.SourceInput, "model": review.SourceInput, "quiet": review.SourceConfig, "max-llm-calls": review.SourceInput},
		},
		{
			name: "absent file: inputs and defaults",
			env:  with(minimal(), "INPUT_FAIL-ON", "P3"),
			doc:  "",
			check: func(c Config) string {
				if c.FailOn != "P3" || c.Quiet || c.MaxLLMCalls != DefaultMaxLLMCalls {
					return "values changed without a file"
				}
				return ""
			},
			source: map[string]string{"fail-on": review.SourceInput, "quiet": review.SourceDefault, "personas": review.SourceDefault},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadConfig(env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			eff, settings, err := ApplyRepoConfig(c, parseFile(t, tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if msg := tt.check(eff); msg != "" {
				t.Errorf("%s: %+v", msg, eff)
			}
			if eff.GitHubToken != c.GitHubToken || eff.APIKey != c.APIKey || eff.BaseURL != c.BaseURL {
				t.Error("credentials changed")
			}
			if len(settings) != len(FileKeys()) {
				t.Fatalf("settings = %+v; want one per FileKeys row", settings)
			}
			for _, s := range settings {
				if want, ok := tt.source[s.Name]; ok && s.Source != want {
					t.Errorf("%s from %q; want %q", s.Name, s.Source, want)
				}
			}
		})
	}
}

// TestApplyRepoConfigErrors: a file value the input's parser refuses is a
// repoconfig.Error naming the file's key; a personas entry naming neither
// a shipped nor a custom persona is one.
func TestApplyRepoConfigErrors(t *testing.T) {
	c, err := LoadConfig(env(minimal()))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = ApplyRepoConfig(c, parseFile(t, "personas: [correctness, house-rules]\n"))
	var ce *repoconfig.Error
	if !errors.As(err, &ce) || !errors.Is(err, repoconfig.ErrInvalid) || len(ce.Problems) != 1 ||
		ce.Problems[0].Key != "personas" || !strings.Contains(ce.Problems[0].Message, `entry 2 is not a known persona`) {
		t.Fatalf("err = %v; want one problem at key personas", err)
	}
	// The same name given as a workflow input is LoadConfig's problem,
	// not the file's.
	if _, err := LoadConfig(env(with(minimal(), "INPUT_PERSONAS", "house-rules"))); !errors.Is(err, ErrConfig) {
		t.Errorf("LoadConfig err = %v; want ErrConfig", err)
	}
}

// TestRepoConfigConfigure: the review options follow the effective
// configuration.
func TestRepoConfigConfigure(t *testing.T) {
	c, err := LoadConfig(env(minimal()))
	if err != nil {
		t.Fatal(err)
	}
	rc := &RepoConfig{Config: c}
	o := c.ReviewOptions()
	if err := rc.Configure(&o, parseFile(t, "mode: report-only\nmax_validations: 3\nvalidator_model: gpt-judge\n")); err != nil {
		t.Fatal(err)
	}
	if o.Mode != ModeReportOnly || o.Validate || o.MaxValidations != 3 || o.ValidatorModel != "gpt-judge" || o.Model != DefaultModel {
		t.Errorf("options = %+v", o)
	}
	if rc.Config.Mode != ModeReportOnly || len(rc.Settings) != len(FileKeys()) {
		t.Errorf("RepoConfig = %+v", rc)
	}
	// Committable suggestions are asked for only when inline posts them.
	for _, tc := range []struct {
		file string
		want bool
	}{{"inline: true\n", true}, {"inline: false\n", false}, {"inline: true\nmode: report-only\n", false}} {
		rc := &RepoConfig{Config: c}
		o := c.ReviewOptions()
		if err := rc.Configure(&o, parseFile(t, tc.file)); err != nil {
			t.Fatal(err)
		}
		if o.Suggestions != tc.want {
			t.Errorf("%q: Suggestions %t; want %t", tc.file, o.Suggestions, tc.want)
		}
	}
}
