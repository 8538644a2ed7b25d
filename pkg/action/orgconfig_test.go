package action

import (
	"errors"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/repoconfig"
	"github.com/anchor-review/anchor-review/pkg/review"
)

const orgDefaults = `fail_on: P2
quiet: true
dismiss_by: write
exclude: ["**/*.pb.go"]
instructions: Every service logs through pkg/log.
custom_personas:
  - name: org-rules
    prompt: The organization's rules.
`

// TestOrgConfigSitsUnderTheRepositoryFile: the config input's settings fill
// what the repository's file leaves out, the file wins where it speaks, a
// workflow input set explicitly wins over both, and Coverage's settings
// name each value's source.
func TestOrgConfigSitsUnderTheRepositoryFile(t *testing.T) {
	t.Parallel()
	c, err := LoadConfig(env(with(minimal(), "INPUT_CONFIG", orgDefaults, "INPUT_MAX-LLM-CALLS", "30")))
	if err != nil {
		t.Fatal(err)
	}
	repo := parseFile(t, "fail_on: P1\ninstructions: This repository's API is public.\n")
	rc := &RepoConfig{Config: c}
	o := review.Options{}
	if err := rc.Configure(&o, repo); err != nil {
		t.Fatal(err)
	}
	eff := rc.Config
	if eff.FailOn != "P1" || !eff.Quiet || eff.DismissBy != DismissByWrite || eff.MaxLLMCalls != 30 {
		t.Errorf("fail-on %s, quiet %t, dismiss-by %s, max-llm-calls %d; want P1 (file), true and write (config input), 30 (workflow)",
			eff.FailOn, eff.Quiet, eff.DismissBy, eff.MaxLLMCalls)
	}
	want := map[string]string{"fail-on": review.SourceConfig, "quiet": review.SourceOrg, "dismiss-by": review.SourceOrg,
		"exclude": review.SourceOrg, "max-llm-calls": review.SourceInput, "mode": review.SourceDefault}
	for _, s := range rc.Settings {
		if w, ok := want[s.Name]; ok && s.Source != w {
			t.Errorf("setting %s comes from %q; want %q", s.Name, s.Source, w)
		}
	}
	// The review reads the merged file: both instructions, the
	// organization's first, and its custom persona.
	if !strings.HasPrefix(repo.Instructions, "Every service logs") || !strings.Contains(repo.Instructions, "API is public") {
		t.Errorf("instructions the review reads = %q; want the organization's, then the repository's", repo.Instructions)
	}
	if len(repo.Personas) != 1 || repo.Personas[0].Name != "org-rules" {
		t.Errorf("custom personas = %v; want org-rules from the config input", repo.Personas)
	}
}

// TestOrgConfigWithoutRepositoryFile: a repository with no file of its own
// takes the organization's settings.
func TestOrgConfigWithoutRepositoryFile(t *testing.T) {
	t.Parallel()
	c, err := LoadConfig(env(with(minimal(), "INPUT_CONFIG", orgDefaults)))
	if err != nil {
		t.Fatal(err)
	}
	rc := &RepoConfig{Config: c}
	if err := rc.Configure(&review.Options{}, &repoconfig.File{Settings: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if rc.Config.FailOn != "P2" || len(rc.Config.Exclude) != 1 {
		t.Errorf("fail-on %s, exclude %v; want the config input's P2 and its one pattern", rc.Config.FailOn, rc.Config.Exclude)
	}
}

// TestOrgConfigChecked: the config input goes through the repository
// file's schema and limits and the inputs' own parsers; its problems name
// the input and the key, never the value.
func TestOrgConfigChecked(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"unknown key":      "fail_onn: P1\n",
		"wrong type":       "quiet: [sk-proj-Qz81mXv]\n",
		"not YAML":         "fail_on: [\n",
		"two documents":    "quiet: true\n---\nquiet: false\n",
		"too large":        "instructions: " + strings.Repeat("x", repoconfig.MaxBytes) + "\n",
		"bad persona name": "personas: [sk-proj-Qz81mXv]\n",
		"unknown persona":  "personas: [correctness, nosuch-persona]\n",
	} {
		_, err := LoadConfig(env(with(minimal(), "INPUT_CONFIG", doc)))
		if name == "unknown persona" {
			// The schema accepts any name; the personas parser refuses it
			// when the review applies the configuration.
			c, lerr := LoadConfig(env(with(minimal(), "INPUT_CONFIG", doc)))
			if lerr != nil {
				t.Fatalf("%s: %v", name, lerr)
			}
			err = (&RepoConfig{Config: c}).Configure(&review.Options{}, &repoconfig.File{Settings: map[string]any{}})
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), "config") {
			t.Errorf("%s: error %q does not name the config input", name, err)
		}
		if strings.Contains(err.Error(), "Qz81mXv") {
			t.Errorf("%s: error %q echoes the value", name, err)
		}
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: error %T; want a *ConfigError", name, err)
		}
	}
}
