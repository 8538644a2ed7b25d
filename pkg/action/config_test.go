package action

import (
	"bytes"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/anchor-review/anchor-review/pkg/repoconfig"
)

// env builds a getenv over a map, so tests never touch the process
// environment and can run in parallel.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// minimal is the smallest valid environment: the two secrets.
func minimal() map[string]string {
	return map[string]string{
		"INPUT_GITHUB-TOKEN": "ghs_token",
		"INPUT_API-KEY":      "sk-key",
	}
}

func with(m map[string]string, kv ...string) map[string]string {
	out := maps.Clone(m)
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func TestLoadConfigDefaults(t *testing.T) {
	t.Parallel()
	got, err := LoadConfig(env(minimal()))
	if err != nil {
		t.Fatalf("LoadConfig() error = %v; want nil", err)
	}
	want := Config{
		GitHubToken:       "ghs_token",
		APIKey:            "sk-key",
		BaseURL:           "https://api.openai.com/v1",
		APIVersion:        "2024-10-21",
		Model:             "gpt-4.1-mini",
		StrongModel:       "gpt-4.1-mini",
		ValidatorModel:    "gpt-4.1-mini",
		Mode:              "comment",
		FailOn:            "P1",
		MaxValidations:    15,
		MaxConcurrency:    8,
		MaxLLMCalls:       60,
		MaxInputTokens:    64000,
		ValidatorBatching: "per-file",
		CacheWarmup:       true,
		BotLogin:          "github-actions[bot]",
		OnNewCommits:      "review",
		DismissBy:         "others",
		Incomplete:        "failure",
		Deadline:          15 * time.Minute,
		APIURL:            "https://api.github.com/",
		ServerURL:         "https://github.com",
	}
	got.inputs, got.explicit = nil, nil // the raw inputs ApplyRepoConfig re-parses
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LoadConfig() =\n%+v\nwant\n%+v", got, want)
	}
}

func TestLoadConfigInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		env   map[string]string
		check func(c Config) (got, want any)
	}{
		{"github-token", with(minimal(), "INPUT_GITHUB-TOKEN", " ghp_x \n"),
			func(c Config) (any, any) { return c.GitHubToken, "ghp_x" }},
		{"api-key", with(minimal(), "INPUT_API-KEY", "sk-other"),
			func(c Config) (any, any) { return c.APIKey, "sk-other" }},
		{"base-url trailing slash dropped", with(minimal(), "INPUT_BASE-URL", "https://gw.example.com/openai/v1/"),
			func(c Config) (any, any) { return c.BaseURL, "https://gw.example.com/openai/v1" }},
		{"base-url underscore fallback", with(minimal(), "INPUT_BASE_URL", "https://my.openai.azure.com"),
			func(c Config) (any, any) { return c.BaseURL, "https://my.openai.azure.com" }},
		{"hyphen form wins over underscore form", with(minimal(), "INPUT_BASE-URL", "https://a.example", "INPUT_BASE_URL", "https://b.example"),
			func(c Config) (any, any) { return c.BaseURL, "https://a.example" }},
		{"model sets all three", with(minimal(), "INPUT_MODEL", "gpt-4o"),
			func(c Config) (any, any) {
				return []string{c.Model, c.StrongModel, c.ValidatorModel}, []string{"gpt-4o", "gpt-4o", "gpt-4o"}
			}},
		{"strong-model and validator-model", with(minimal(), "INPUT_MODEL", "m", "INPUT_STRONG-MODEL", "s", "INPUT_VALIDATOR-MODEL", "v"),
			func(c Config) (any, any) {
				return []string{c.Model, c.StrongModel, c.ValidatorModel}, []string{"m", "s", "v"}
			}},
		{"pr-number", with(minimal(), "INPUT_PR-NUMBER", "42"),
			func(c Config) (any, any) { return c.PRNumber, 42 }},
		{"pr-number with hash", with(minimal(), "INPUT_PR_NUMBER", "#7"),
			func(c Config) (any, any) { return c.PRNumber, 7 }},
		{"mode report-only", with(minimal(), "INPUT_MODE", "report-only"),
			func(c Config) (any, any) { return c.Mode, "report-only" }},
		{"mode case-insensitive", with(minimal(), "INPUT_MODE", "Comment"),
			func(c Config) (any, any) { return c.Mode, "comment" }},
		{"fail-on lower case", with(minimal(), "INPUT_FAIL-ON", "p0"),
			func(c Config) (any, any) { return c.FailOn, "P0" }},
		{"fail-on P3", with(minimal(), "INPUT_FAIL-ON", "P3"),
			func(c Config) (any, any) { return c.FailOn, "P3" }},
		{"fail-on never", with(minimal(), "INPUT_FAIL-ON", "NEVER"),
			func(c Config) (any, any) { return c.FailOn, "never" }},
		{"exclude", with(minimal(), "INPUT_EXCLUDE", "# generated code\n**/*.pb.go\n\n  docs/**  \r\n#vendor/**\nthird_party/*"),
			func(c Config) (any, any) { return c.Exclude, []string{"**/*.pb.go", "docs/**", "third_party/*"} }},
		{"personas", with(minimal(), "INPUT_PERSONAS", " Security, correctness,,security ,testing"),
			func(c Config) (any, any) { return c.Personas, []string{"security", "correctness", "testing"} }},
		{"max-validations zero", with(minimal(), "INPUT_MAX-VALIDATIONS", "0"),
			func(c Config) (any, any) { return c.MaxValidations, 0 }},
		{"max-validations 100", with(minimal(), "INPUT_MAX-VALIDATIONS", "100"),
			func(c Config) (any, any) { return c.MaxValidations, 100 }},
		{"max-concurrency bounds", with(minimal(), "INPUT_MAX-CONCURRENCY", "64"),
			func(c Config) (any, any) { return c.MaxConcurrency, 64 }},
		{"max-concurrency one", with(minimal(), "INPUT_MAX-CONCURRENCY", "1"),
			func(c Config) (any, any) { return c.MaxConcurrency, 1 }},
		{"max-llm-calls", with(minimal(), "INPUT_MAX-LLM-CALLS", "1000"),
			func(c Config) (any, any) { return c.MaxLLMCalls, 1000 }},
		{"max-input-tokens for an 8k local model", with(minimal(), "INPUT_MAX-INPUT-TOKENS", "6000"),
			func(c Config) (any, any) { return c.MaxInputTokens, 6000 }},
		{"validator-batching per-finding", with(minimal(), "INPUT_VALIDATOR-BATCHING", "Per-Finding"),
			func(c Config) (any, any) { return c.ValidatorBatching, "per-finding" }},
		{"cache-warmup true", with(minimal(), "INPUT_CACHE-WARMUP", "true"),
			func(c Config) (any, any) { return c.CacheWarmup, true }},
		{"cache-warmup off", with(minimal(), "INPUT_CACHE-WARMUP", "false"),
			func(c Config) (any, any) { return c.CacheWarmup, false }},
		{"bot-login", with(minimal(), "INPUT_BOT-LOGIN", "review-app[bot]"),
			func(c Config) (any, any) { return c.BotLogin, "review-app[bot]" }},
		{"on-new-commits skip", with(minimal(), "INPUT_ON-NEW-COMMITS", "Skip"),
			func(c Config) (any, any) { return c.OnNewCommits, "skip" }},
		{"pricing overrides the built-in table", with(minimal(), "INPUT_PRICING", "gpt-4.1-mini = 0.50, 0.25, 2"),
			func(c Config) (any, any) { p, _, _ := c.Pricing.Lookup("gpt-4.1-mini"); return p.Output, 2.0 }},
		{"on-new-commits review", with(minimal(), "INPUT_ON-NEW-COMMITS", "review"),
			func(c Config) (any, any) { return c.OnNewCommits, "review" }},
		{"quiet true", with(minimal(), "INPUT_QUIET", "true"),
			func(c Config) (any, any) { return c.Quiet, true }},
		{"quiet TRUE", with(minimal(), "INPUT_QUIET", "TRUE"),
			func(c Config) (any, any) { return c.Quiet, true }},
		{"quiet False", with(minimal(), "INPUT_QUIET", "False"),
			func(c Config) (any, any) { return c.Quiet, false }},
		{"inline default off", minimal(),
			func(c Config) (any, any) { return c.Inline, false }},
		{"inline true", with(minimal(), "INPUT_INLINE", "true"),
			func(c Config) (any, any) { return c.Inline, true }},
		{"no api-key for localhost", with(minimal(), "INPUT_API-KEY", "", "INPUT_BASE-URL", "http://localhost:11434/v1"),
			func(c Config) (any, any) { return c.APIKey + "|" + c.BaseURL, "|http://localhost:11434/v1" }},
		{"no api-key for 127.0.0.1", with(minimal(), "INPUT_API-KEY", "", "INPUT_BASE-URL", "http://127.0.0.1:8000/v1"),
			func(c Config) (any, any) { return c.BaseURL, "http://127.0.0.1:8000/v1" }},
		{"no api-key for [::1]", with(minimal(), "INPUT_API-KEY", "", "INPUT_BASE-URL", "http://[::1]:8000/v1"),
			func(c Config) (any, any) { return c.BaseURL, "http://[::1]:8000/v1" }},
		{"api-type azure", with(minimal(), "INPUT_API-TYPE", "Azure", "INPUT_API-VERSION", "2025-04-01-preview"),
			func(c Config) (any, any) { return c.APIType + " " + c.APIVersion, "azure 2025-04-01-preview" }},
		{"api-type openai", with(minimal(), "INPUT_API-TYPE", "openai"),
			func(c Config) (any, any) { return c.APIType, "openai" }},
		{"no api-key for a service container", with(minimal(), "INPUT_API-KEY", "", "INPUT_BASE-URL", "http://ollama:11434/v1"),
			func(c Config) (any, any) { return c.APIKey + "|" + c.BaseURL, "|http://ollama:11434/v1" }},
		{"no api-key for a remote http endpoint", with(minimal(), "INPUT_API-KEY", "", "INPUT_BASE-URL", "http://10.0.0.5:8000/v1"),
			func(c Config) (any, any) { return c.BaseURL, "http://10.0.0.5:8000/v1" }},
		{"no api-key for ollama.localhost", with(minimal(), "INPUT_API-KEY", "", "INPUT_BASE-URL", "https://ollama.localhost/v1"),
			func(c Config) (any, any) { return c.BaseURL, "https://ollama.localhost/v1" }},
		{"GHES API URL", with(minimal(), "GITHUB_API_URL", "https://ghe.example.com/api/v3", "GITHUB_SERVER_URL", "https://ghe.example.com/"),
			func(c Config) (any, any) {
				return []string{c.APIURL, c.ServerURL}, []string{"https://ghe.example.com/api/v3/", "https://ghe.example.com"}
			}},
		{"fake server API URL", with(minimal(), "GITHUB_API_URL", "http://127.0.0.1:41234/"),
			func(c Config) (any, any) { return c.APIURL, "http://127.0.0.1:41234/" }},
		{"environment", with(minimal(), "GITHUB_REPOSITORY", "octo-org/octo-repo", "GITHUB_EVENT_NAME", "pull_request",
			"GITHUB_EVENT_PATH", "/github/workflow/event.json", "GITHUB_WORKSPACE", "/github/workspace"),
			func(c Config) (any, any) {
				return []string{c.Repository, c.Owner, c.Repo, c.EventName, c.EventPath, c.Workspace},
					[]string{"octo-org/octo-repo", "octo-org", "octo-repo", "pull_request", "/github/workflow/event.json", "/github/workspace"}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := LoadConfig(env(tt.env))
			if err != nil {
				t.Fatalf("LoadConfig() error = %v; want nil", err)
			}
			if got, want := tt.check(c); !reflect.DeepEqual(got, want) {
				t.Errorf("got %#v; want %#v", got, want)
			}
		})
	}
}

func TestLoadConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want []string // the inputs named, in order
	}{
		{"no github-token", with(minimal(), "INPUT_GITHUB-TOKEN", ""), []string{"github-token"}},
		{"literal token default", with(minimal(), "INPUT_GITHUB-TOKEN", "${{ github.token }}"), []string{"github-token"}},
		{"no api-key", with(minimal(), "INPUT_API-KEY", "  "), []string{"api-key"}},
		{"no api-key for the default endpoint spelled out", with(minimal(), "INPUT_API-KEY", "", "INPUT_BASE-URL", "https://API.openai.com/v1/"), []string{"api-key"}},
		{"base-url not a URL", with(minimal(), "INPUT_BASE-URL", "api.openai.com/v1"), []string{"base-url"}},
		{"base-url bad scheme", with(minimal(), "INPUT_BASE-URL", "ftp://example.com"), []string{"base-url"}},
		{"base-url with credentials", with(minimal(), "INPUT_BASE-URL", "https://user:secret@example.com/v1"), []string{"base-url"}},
		{"bad base-url and no key names both", with(minimal(), "INPUT_API-KEY", "", "INPUT_BASE-URL", "localhost:11434"), []string{"base-url", "api-key"}},
		{"pr-number not a number", with(minimal(), "INPUT_PR-NUMBER", "abc"), []string{"pr-number"}},
		{"pr-number zero", with(minimal(), "INPUT_PR-NUMBER", "0"), []string{"pr-number"}},
		{"pr-number negative", with(minimal(), "INPUT_PR-NUMBER", "-3"), []string{"pr-number"}},
		{"pr-number plus sign", with(minimal(), "INPUT_PR-NUMBER", "+3"), []string{"pr-number"}},
		{"pr-number too big", with(minimal(), "INPUT_PR-NUMBER", "99999999999"), []string{"pr-number"}},
		{"pr-number float", with(minimal(), "INPUT_PR-NUMBER", "4.0"), []string{"pr-number"}},
		{"mode", with(minimal(), "INPUT_MODE", "approve"), []string{"mode"}},
		{"api-type unknown", with(minimal(), "INPUT_API-TYPE", "bedrock"), []string{"api-type"}},
		{"api-version not a date", with(minimal(), "INPUT_API-VERSION", "latest"), []string{"api-version"}},
		{"api-version before JSON schema", with(minimal(), "INPUT_API-VERSION", "2024-06-01"), []string{"api-version"}},
		{"deadline-minutes zero", with(minimal(), "INPUT_DEADLINE-MINUTES", "0"), []string{"deadline-minutes"}},
		{"deadline-minutes past a job's 6 hours", with(minimal(), "INPUT_DEADLINE-MINUTES", "361"), []string{"deadline-minutes"}},
		{"deadline-minutes not a number", with(minimal(), "INPUT_DEADLINE-MINUTES", "1.5"), []string{"deadline-minutes"}},
		{"model-timeout without a unit", with(minimal(), "INPUT_MODEL-TIMEOUT", "300"), []string{"model-timeout"}},
		{"model-timeout not a duration", with(minimal(), "INPUT_MODEL-TIMEOUT", "five minutes"), []string{"model-timeout"}},
		{"model-timeout below 10s", with(minimal(), "INPUT_MODEL-TIMEOUT", "5s"), []string{"model-timeout"}},
		{"model-timeout past the deadline", with(minimal(), "INPUT_MODEL-TIMEOUT", "16m"), []string{"model-timeout"}},
		{"fail-on P4", with(minimal(), "INPUT_FAIL-ON", "P4"), []string{"fail-on"}},
		{"fail-on high", with(minimal(), "INPUT_FAIL-ON", "high"), []string{"fail-on"}},
		{"exclude bad glob", with(minimal(), "INPUT_EXCLUDE", "ok/**\nsrc/[abc"), []string{"exclude"}},
		{"max-validations negative", with(minimal(), "INPUT_MAX-VALIDATIONS", "-1"), []string{"max-validations"}},
		{"max-validations 101", with(minimal(), "INPUT_MAX-VALIDATIONS", "101"), []string{"max-validations"}},
		{"max-concurrency zero", with(minimal(), "INPUT_MAX-CONCURRENCY", "0"), []string{"max-concurrency"}},
		{"max-concurrency 65", with(minimal(), "INPUT_MAX-CONCURRENCY", "65"), []string{"max-concurrency"}},
		{"max-llm-calls zero", with(minimal(), "INPUT_MAX-LLM-CALLS", "0"), []string{"max-llm-calls"}},
		{"max-llm-calls 1001", with(minimal(), "INPUT_MAX-LLM-CALLS", "1001"), []string{"max-llm-calls"}},
		{"max-llm-calls words", with(minimal(), "INPUT_MAX-LLM-CALLS", "sixty"), []string{"max-llm-calls"}},
		{"max-input-tokens 3999", with(minimal(), "INPUT_MAX-INPUT-TOKENS", "3999"), []string{"max-input-tokens"}},
		{"max-input-tokens words", with(minimal(), "INPUT_MAX-INPUT-TOKENS", "32k"), []string{"max-input-tokens"}},
		{"validator-batching batched", with(minimal(), "INPUT_VALIDATOR-BATCHING", "batched"), []string{"validator-batching"}},
		{"cache-warmup on", with(minimal(), "INPUT_CACHE-WARMUP", "on"), []string{"cache-warmup"}},
		{"quiet yes", with(minimal(), "INPUT_QUIET", "yes"), []string{"quiet"}},
		{"on-new-commits ignore", with(minimal(), "INPUT_ON-NEW-COMMITS", "ignore"), []string{"on-new-commits"}},
		{"quiet 1", with(minimal(), "INPUT_QUIET", "1"), []string{"quiet"}},
		{"inline yes", with(minimal(), "INPUT_INLINE", "yes"), []string{"inline"}},
		{"pricing two prices", with(minimal(), "INPUT_PRICING", "0.40, 1.60"), []string{"pricing"}},
		{"pricing cached above input", with(minimal(), "INPUT_PRICING", "gpt-x = 0.10, 0.40, 1.60"), []string{"pricing"}},
		{"GITHUB_API_URL", with(minimal(), "GITHUB_API_URL", "not a url"), []string{"GITHUB_API_URL"}},
		{"GITHUB_SERVER_URL", with(minimal(), "GITHUB_SERVER_URL", "github.com"), []string{"GITHUB_SERVER_URL"}},
		{"GITHUB_REPOSITORY", with(minimal(), "GITHUB_REPOSITORY", "just-a-name"), []string{"GITHUB_REPOSITORY"}},
		{"GITHUB_REPOSITORY three parts", with(minimal(), "GITHUB_REPOSITORY", "a/b/c"), []string{"GITHUB_REPOSITORY"}},
		{"incomplete cannot be success", with(minimal(), "INPUT_INCOMPLETE", "success"), []string{"incomplete"}},
		{"every problem at once", map[string]string{
			"INPUT_BASE-URL":        "ftp://x",
			"INPUT_PR-NUMBER":       "x",
			"INPUT_MODE":            "loud",
			"INPUT_FAIL-ON":         "P9",
			"INPUT_EXCLUDE":         "[",
			"INPUT_MAX-VALIDATIONS": "1e3",
			"INPUT_MAX-CONCURRENCY": "100",
			"INPUT_MAX-LLM-CALLS":   "-1",
			"INPUT_QUIET":           "maybe",
			"INPUT_INCOMPLETE":      "success",
			"GITHUB_API_URL":        "::",
			"GITHUB_SERVER_URL":     "::",
			"GITHUB_REPOSITORY":     "/",
		}, []string{"github-token", "base-url", "api-key", "pr-number", "mode", "fail-on", "exclude",
			"max-validations", "max-concurrency", "max-llm-calls", "quiet", "incomplete",
			"GITHUB_API_URL", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadConfig(env(tt.env))
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("LoadConfig() error = %v; want ErrConfig", err)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("LoadConfig() error %T; want *ConfigError", err)
			}
			var got []string
			for _, p := range ce.Problems {
				got = append(got, p.Input)
				if !strings.Contains(err.Error(), p.String()) {
					t.Errorf("error %q does not contain problem %q", err, p)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems name %q; want %q (error: %v)", got, tt.want, err)
			}
		})
	}
}

func TestConfigErrorMessage(t *testing.T) {
	t.Parallel()
	_, err := LoadConfig(env(with(minimal(), "INPUT_FAIL-ON", "P5", "GITHUB_API_URL", "nope")))
	want := `invalid configuration: input fail-on: is not one of P0, P1, P2, P3, never; GITHUB_API_URL: is not an absolute http(s) URL`
	if err == nil || err.Error() != want {
		t.Errorf("LoadConfig() error = %v; want %s", err, want)
	}
}

func TestLoadConfigCredentialsNotEchoed(t *testing.T) {
	t.Parallel()
	_, err := LoadConfig(env(with(minimal(), "INPUT_BASE-URL", "https://user:hunter2@example.com/v1")))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("LoadConfig() error = %v; want an error that does not echo the password", err)
	}
}

func TestSecrets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    Config
		want []string
	}{
		{Config{APIKey: "sk-1", GitHubToken: "ghs_2"}, []string{"sk-1", "ghs_2"}},
		{Config{GitHubToken: "ghs_2"}, []string{"ghs_2"}},
		{Config{}, nil},
	}
	for _, tt := range tests {
		if got := tt.c.Secrets(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Secrets() = %q; want %q", got, tt.want)
		}
	}
}

func TestMask(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	a := githubactions.New(githubactions.WithWriter(&buf), githubactions.WithGetenv(env(nil)))
	Mask(a, Config{APIKey: "sk-1", GitHubToken: "line1\nline2"})
	got := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{"::add-mask::sk-1", "::add-mask::line1%0Aline2", "::add-mask::line1", "::add-mask::line2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Mask() wrote %q; want %q", got, want)
	}
}

func TestParsePRNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"1", 1, true}, {" 42 ", 42, true}, {"#42", 42, true}, {"2147483647", 2147483647, true},
		{"", 0, false}, {"#", 0, false}, {"0", 0, false}, {"-1", 0, false}, {"+1", 0, false},
		{"2147483648", 0, false}, {"1_000", 0, false}, {"0x10", 0, false}, {"12abc", 0, false}, {"##1", 0, false},
	}
	for _, tt := range tests {
		got, err := ParsePRNumber(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParsePRNumber(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// Every default action.yml declares loads without error: the defaults of
// Inputs() are themselves valid.
func TestInputDefaultsLoad(t *testing.T) {
	t.Parallel()
	m := map[string]string{}
	for _, in := range Inputs() {
		m["INPUT_"+strings.ToUpper(in.Name)] = in.Default
	}
	maps.Copy(m, minimal())
	got, err := LoadConfig(env(m))
	if err != nil {
		t.Fatalf("LoadConfig(defaults) error = %v", err)
	}
	want, _ := LoadConfig(env(minimal()))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LoadConfig(explicit defaults) = %+v; want %+v (same as omitted inputs)", got, want)
	}
}

// TestConfigNeverEchoesURLCredentials: a mistyped base-url carrying a
// password must not print it (it is read before masking).
func TestConfigNeverEchoesURLCredentials(t *testing.T) {
	for _, u := range []string{"ftp://user:hunter2secret@example.com", "https//user:hunter2secret@example.com", "https://user:hunter2secret@example.com/v1"} {
		env := map[string]string{"INPUT_GITHUB-TOKEN": "t", "INPUT_API-KEY": "k", "INPUT_BASE-URL": u}
		_, err := LoadConfig(func(k string) string { return env[k] })
		if err == nil {
			t.Fatalf("LoadConfig accepted base-url %q", u)
		}
		if strings.Contains(err.Error(), "hunter2secret") {
			t.Errorf("error echoes the URL's password: %v", err)
		}
	}
}

// TestConfigExcludeUsesScopeRules: exclude globs are checked with the
// rules the scope stage applies, so a pattern scope refuses (negation) is
// a configuration error before any API call, not a failed review.
func TestConfigExcludeUsesScopeRules(t *testing.T) {
	env := map[string]string{"INPUT_GITHUB-TOKEN": "t", "INPUT_API-KEY": "k", "INPUT_EXCLUDE": "docs/**\n!vendor"}
	_, err := LoadConfig(func(k string) string { return env[k] })
	if err == nil || !strings.Contains(err.Error(), "input exclude: pattern 2 is not a valid glob") {
		t.Fatalf("LoadConfig error = %v; want one naming input exclude and which pattern", err)
	}
}

// TestConfigPersonasReportedWithOthers: an unknown persona name is one of
// the problems LoadConfig reports together, naming the input.
func TestConfigPersonasReportedWithOthers(t *testing.T) {
	env := map[string]string{"INPUT_GITHUB-TOKEN": "t", "INPUT_API-KEY": "k", "INPUT_PERSONAS": "security, sekurity", "INPUT_FAIL-ON": "P9"}
	_, err := LoadConfig(func(k string) string { return env[k] })
	var ce *ConfigError
	if !errors.As(err, &ce) || len(ce.Problems) != 2 {
		t.Fatalf("LoadConfig error = %v; want two problems (fail-on, personas)", err)
	}
	if !strings.Contains(err.Error(), `input personas: entry 2 is not a known persona`) {
		t.Errorf("error %q does not name the unknown persona", err)
	}
}

func TestSplitRepository(t *testing.T) {
	t.Parallel()
	for s, ok := range map[string]bool{
		"octo/hello-world": true, "Octo-Org/repo.name_2": true, "a/b": true, "o/.github": true,
		"../x": false, "o/r?x=1#": false, "o/..": false, "o/.": false, "o/r/x": false, "/r": false, "o/": false,
		"o r/x": false, "-o/x": false, "o/x%2F..": false, "o/" + strings.Repeat("r", 101): false, strings.Repeat("o", 40) + "/r": false,
	} {
		if _, _, got := SplitRepository(s); got != ok {
			t.Errorf("SplitRepository(%q) ok = %v; want %v", s, got, ok)
		}
	}
}

func TestNeedsKey(t *testing.T) {
	for u, want := range map[string]bool{
		DefaultBaseURL: true, "https://api.openai.com/v1/": true, "https://API.OpenAI.com./v1": true,
		"http://ollama:11434/v1": false, "http://localhost:11434/v1": false, "http://127.0.0.1:8000": false,
		"https://gateway.example.com/v1": false, "https://api.openai.com.evil.example/v1": false,
	} {
		if got := NeedsKey(u); got != want {
			t.Errorf("NeedsKey(%q) = %v; want %v", u, got, want)
		}
	}
}

// TestModelTime: the model-time budget follows deadline-minutes (less the
// publishing reserve), and the per-call timeout is model-timeout or, by
// default, a quarter of that, at least llm.DefaultCallTimeout, never more
// than the budget.
func TestModelTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		deadline, timeout string
		call, budget      time.Duration
		cut               bool // the model-timeout given is cut to the budget, and the note says so
	}{
		{"15", "", 195 * time.Second, 13 * time.Minute, false},
		{"60", "", 870 * time.Second, 58 * time.Minute, false},
		{"60", "5m", 5 * time.Minute, 58 * time.Minute, false},
		{"5", "", 2 * time.Minute, 4 * time.Minute, false},
		{"1", "", 48 * time.Second, 48 * time.Second, false},
		{"1", "55s", 48 * time.Second, 48 * time.Second, true},
	}
	for _, tt := range tests {
		c, err := LoadConfig(env(with(minimal(), "INPUT_DEADLINE-MINUTES", tt.deadline, "INPUT_MODEL-TIMEOUT", tt.timeout)))
		if err != nil {
			t.Fatalf("deadline %s, model-timeout %q: %v", tt.deadline, tt.timeout, err)
		}
		call, budget := c.ModelTime()
		if call != tt.call || budget != tt.budget {
			t.Errorf("deadline %s, model-timeout %q: call %v, budget %v; want %v, %v", tt.deadline, tt.timeout, call, budget, tt.call, tt.budget)
		}
		// A model-timeout cut to the review's time is said, never silently.
		note := c.ModelTimeNote()
		if tt.cut != (note != "") || tt.cut && !strings.Contains(note, "is cut to "+budget.String()) {
			t.Errorf("deadline %s, model-timeout %q: note %q; want one only when the timeout is cut", tt.deadline, tt.timeout, note)
		}
	}
}

// TestUnknownPersonas: a typo is named once with the persona it is likely
// meant to be, and the known names are listed once, however many names are
// unknown.
func TestUnknownPersonas(t *testing.T) {
	t.Parallel()
	_, err := LoadConfig(env(with(minimal(), "INPUT_PERSONAS", "secrity, corectness, zzzzzz")))
	if err == nil {
		t.Fatal("LoadConfig accepted unknown personas")
	}
	msg := err.Error()
	for _, want := range []string{`entry 1 is not a known persona (did you mean "security"?)`, `entry 2 is not a known persona (did you mean "correctness"?)`, `entry 3 is not a known persona; known: `} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if n := strings.Count(msg, "maintainability"); n != 1 {
		t.Errorf("the known names are listed %d times; want once:\n%s", n, msg)
	}
}

// TestInputErrorsNeverEchoTheValue: a key pasted into the wrong input is
// printed by no error (issue 30): each names the input and the problem,
// never the value, even before the log's masking knows the string.
func TestInputErrorsNeverEchoTheValue(t *testing.T) {
	t.Parallel()
	const key = "sk-proj-Qz81mXv"
	inputs := []string{"mode", "fail-on", "personas", "validator-batching", "on-new-commits", "incomplete", "api-type",
		"api-version", "pr-number", "cache-warmup", "quiet", "inline", "max-validations", "max-concurrency", "max-llm-calls",
		"max-input-tokens", "deadline-minutes", "pricing", "base-url", "exclude", "model-timeout", "exclude-personas",
		"dismiss-by", "bot-login", "config", "model", "strong-model", "validator-model"}
	for _, in := range inputs {
		for _, v := range []string{key, "!" + key, key + ":x", "https://u:" + key + "@h.example", "-" + key + ",1,1", "1, " + key + ", 1"} {
			_, err := LoadConfig(env(with(minimal(), "INPUT_"+strings.ToUpper(in), v)))
			if err == nil {
				continue // some values are valid for some inputs (base-url without credentials)
			}
			if strings.Contains(err.Error(), key[3:]) {
				t.Errorf("input %s = %q: error %q echoes the value", in, v, err)
			}
			if !strings.Contains(err.Error(), "input "+in+":") {
				t.Errorf("input %s = %q: error %q does not name the input", in, v, err)
			}
		}
	}
}

// TestConfigExcludePersonas: exclude-personas takes known names (a typo
// gets a did-you-mean) and never correctness, from the input or the
// repository's file alike.
func TestConfigExcludePersonas(t *testing.T) {
	get := func(env map[string]string) func(string) string { return func(k string) string { return env[k] } }
	c, err := LoadConfig(get(map[string]string{"INPUT_GITHUB-TOKEN": "t", "INPUT_API-KEY": "k", "INPUT_EXCLUDE-PERSONAS": "Maintainability, testing"}))
	if err != nil || !slices.Equal(c.ExcludePersonas, []string{"maintainability", "testing"}) || !slices.Equal(c.ReviewOptions().ExcludePersonas, c.ExcludePersonas) {
		t.Fatalf("exclude-personas %v (%v); want maintainability, testing", c.ExcludePersonas, err)
	}
	for in, want := range map[string]string{
		"correctness":    "input exclude-personas: correctness always runs",
		"maintainabilty": `input exclude-personas: entry 1 is not a known persona (did you mean "maintainability"?)`,
	} {
		_, err := LoadConfig(get(map[string]string{"INPUT_GITHUB-TOKEN": "t", "INPUT_API-KEY": "k", "INPUT_EXCLUDE-PERSONAS": in}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("exclude-personas %q: %v; want %q", in, err, want)
		}
	}
	base, err := LoadConfig(get(map[string]string{"INPUT_GITHUB-TOKEN": "t", "INPUT_API-KEY": "k"}))
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"exclude_personas: [maintainability]\n": "",
		"exclude_personas: [correctness]\n":     "exclude_personas: correctness always runs",
	} {
		f, err := repoconfig.Parse([]byte(file))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		eff, _, err := ApplyRepoConfig(base, f)
		switch {
		case want == "" && (err != nil || !slices.Equal(eff.ExcludePersonas, []string{"maintainability"})):
			t.Errorf("%s: %v, %v; want maintainability excluded", file, eff.ExcludePersonas, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v; want %q", file, err, want)
		}
	}
}
