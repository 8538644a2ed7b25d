package action

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/repoconfig"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// FileKey is one key of the repository configuration file
// (.github/anchor-review.yml) that mirrors a workflow input. Its value is
// spelled the way the input would be (a list joined with List) and goes
// through the input's own parser and validator in configFrom, so the file
// and the workflow can never disagree on what a value means.
type FileKey struct {
	Key   string // key in the file (snake_case, like path_instructions)
	Input string // the action input it mirrors
	List  string // separator joining a list value ("," or "\n"); "" for a scalar
}

// FileKeys is the table of file keys that mirror inputs. Letting the file
// set another input is one row here plus one property in
// prompts/config.schema.json (TestFileKeysMatchSchema keeps them in step).
//
// Left out on purpose: github-token, api-key, base-url and bot-login. The
// file lives in the repository, and a commit to the base branch must not be
// able to send the API key to another endpoint, swap the credentials the
// workflow chose, or change whose report comments count as ours (skip rule
// 4). pr-number belongs to the event.
func FileKeys() []FileKey {
	return []FileKey{
		{Key: "personas", Input: "personas", List: ","},
		{Key: "exclude_personas", Input: "exclude-personas", List: ","},
		{Key: "exclude", Input: "exclude", List: "\n"},
		{Key: "fail_on", Input: "fail-on"},
		{Key: "mode", Input: "mode"},
		{Key: "model", Input: "model"},
		{Key: "strong_model", Input: "strong-model"},
		{Key: "validator_model", Input: "validator-model"},
		{Key: "max_validations", Input: "max-validations"},
		{Key: "max_concurrency", Input: "max-concurrency"},
		{Key: "max_llm_calls", Input: "max-llm-calls"},
		{Key: "quiet", Input: "quiet"},
		{Key: "incomplete", Input: "incomplete"},
		{Key: "on_new_commits", Input: "on-new-commits"},
		{Key: "dismiss_by", Input: "dismiss-by"},
		{Key: "inline", Input: "inline"},
		{Key: "max_input_tokens", Input: "max-input-tokens"},
		{Key: "validator_batching", Input: "validator-batching"},
		{Key: "cache_warmup", Input: "cache-warmup"},
	}
}

// ApplyRepoConfig returns the effective configuration: c with every input
// the workflow left at its default replaced by the file's value, where the
// file sets one (SPEC section 7.5: a workflow input set to a non-default
// value wins over the file; the file wins over defaults). Settings says
// where each FileKeys input's value came from, in table order. A value the
// input's parser refuses is a *repoconfig.Error naming the file's key.
//
// c.Org, the config input's organization defaults, sits under the file:
// a key the file leaves out takes the organization's value, and its
// source says so. f is the repository's own file (Configure merges the
// two for the instructions and custom personas).
func ApplyRepoConfig(c Config, f *repoconfig.File) (Config, []review.Setting, error) {
	in := make(map[string]string, len(c.inputs))
	for k, v := range c.inputs {
		in[k] = v
	}
	source := map[string]string{}
	for _, k := range FileKeys() {
		v, inFile := f.Settings[k.Key]
		var orgV any
		inOrg := false
		if c.Org != nil {
			orgV, inOrg = c.Org.Settings[k.Key]
		}
		switch {
		case c.explicit[k.Input]:
			source[k.Input] = review.SourceInput
		case inFile:
			in[k.Input] = spell(v, k.List)
			source[k.Input] = review.SourceConfig
		case inOrg:
			in[k.Input] = spell(orgV, k.List)
			source[k.Input] = review.SourceOrg
		default:
			source[k.Input] = review.SourceDefault
		}
	}
	var custom []string
	for _, p := range repoconfig.Merge(c.Org, f).Personas {
		custom = append(custom, p.Name)
	}
	// The environment LoadConfig already checked.
	env := map[string]string{
		"GITHUB_API_URL": c.APIURL, "GITHUB_SERVER_URL": c.ServerURL, "GITHUB_REPOSITORY": c.Repository,
		"GITHUB_EVENT_NAME": c.EventName, "GITHUB_EVENT_PATH": c.EventPath, "GITHUB_WORKSPACE": c.Workspace,
	}
	eff, err := configFrom(in, func(k string) string { return env[k] }, custom)
	eff.explicit = c.explicit
	eff.Org = c.Org
	eff.APIURL, eff.ServerURL, eff.Repository, eff.Owner, eff.Repo = c.APIURL, c.ServerURL, c.Repository, c.Owner, c.Repo
	eff.EventName, eff.EventPath, eff.Workspace = c.EventName, c.EventPath, c.Workspace
	var ce *ConfigError
	if errors.As(err, &ce) {
		var fileProblems []repoconfig.Problem
		var orgProblems []Problem
		for _, p := range ce.Problems {
			key, fromFile := fileKeyOf(p.Input)
			if fromFile && source[p.Input] == review.SourceConfig {
				fileProblems = append(fileProblems, repoconfig.Problem{Key: key, Message: p.Message})
			}
			if fromFile && source[p.Input] == review.SourceOrg {
				orgProblems = append(orgProblems, Problem{Input: "config", Message: key + ": " + p.Message})
			}
			// Problems of inputs and the environment were LoadConfig's to
			// report; c passed it, so there are none here.
		}
		if len(fileProblems) > 0 {
			return c, nil, &repoconfig.Error{Path: repoconfig.Path, Problems: fileProblems}
		}
		if len(orgProblems) > 0 {
			return c, nil, &ConfigError{Problems: orgProblems}
		}
	}

	settings := make([]review.Setting, 0, len(FileKeys()))
	for _, k := range FileKeys() {
		v := strings.ReplaceAll(strings.TrimSpace(in[k.Input]), "\n", ", ")
		if v == "" && (k.Input == "strong-model" || k.Input == "validator-model") {
			v = eff.Model + " (model)"
		}
		settings = append(settings, review.Setting{Name: k.Input, Value: v, Source: source[k.Input]})
	}
	return eff, settings, nil
}

func fileKeyOf(input string) (string, bool) {
	for _, k := range FileKeys() {
		if k.Input == input {
			return k.Key, true
		}
	}
	return "", false
}

// spell writes a schema-checked file value the way the input spells it.
func spell(v any, sep string) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case []string:
		return strings.Join(x, sep)
	}
	return fmt.Sprint(v)
}

// ReviewOptions are the review options c sets; Run adds the event's and
// the run's own.
func (c Config) ReviewOptions() review.Options {
	return review.Options{
		Mode: c.Mode, Validate: c.Mode == ModeComment,
		Exclude: c.Exclude, Personas: c.Personas, ExcludePersonas: c.ExcludePersonas,
		Model: c.Model, StrongModel: c.StrongModel, ValidatorModel: c.ValidatorModel,
		MaxValidations: c.MaxValidations, MaxConcurrency: c.MaxConcurrency, MaxLLMCalls: c.MaxLLMCalls,
		MaxInputTokens: c.MaxInputTokens, ValidatorBatching: c.ValidatorBatching, WarmCache: c.CacheWarmup,
		BotLogin: c.BotLogin, Incomplete: c.Incomplete, OnNewCommits: c.OnNewCommits,
		Suggestions: c.Inline && c.Mode == ModeComment,
	}
}

// RepoConfig applies the repository configuration during a review: pass
// its Configure as review.Options.Configure; after the review, Config is
// the effective configuration and Settings where each setting came from.
type RepoConfig struct {
	Config   Config
	Settings []review.Setting
}

// Configure implements review.Options.Configure.
//
// With organization defaults (the config input), the file the review
// reads is replaced in place by the merge of the two, so its instructions
// and custom personas reach the prompts as the settings reach the options.
func (rc *RepoConfig) Configure(o *review.Options, f *repoconfig.File) error {
	eff, settings, err := ApplyRepoConfig(rc.Config, f)
	if err != nil {
		return err
	}
	if rc.Config.Org != nil {
		*f = *repoconfig.Merge(rc.Config.Org, f)
	}
	rc.Config, rc.Settings = eff, settings
	// Every setting comes from the effective configuration, through the
	// one mapping ReviewOptions; the run's own fields stay as they are.
	ro := eff.ReviewOptions()
	ro.Owner, ro.Repo, ro.PR, ro.Rerun = o.Owner, o.Repo, o.PR, o.Rerun
	ro.Fence, ro.Logf, ro.PrecheckOnly, ro.Configure = o.Fence, o.Logf, o.PrecheckOnly, o.Configure
	ro.LocalConfig = o.LocalConfig
	*o = ro
	return nil
}

// cliInputs are the inputs outside the repository configuration that the
// command line also mirrors, checked as the Action checks them.
var cliInputs = []string{"bot-login", "deadline-minutes", "model-timeout"}

// ReviewConfig is the configuration of a review outside Actions (the
// review command): set holds the inputs given, by input name and spelled as
// a workflow would spell them; the others take their action.yml defaults.
// They go through the Action's own parser and validator, with its ranges,
// and, as in the Action, an input spelled with its default counts as the
// default, which the repository configuration may then change (pass
// RepoConfig.Configure to the review). Credentials, the event and the
// runner environment are the caller's: only problems of the inputs that
// shape a review (FileKeys, and cliInputs) are reported, as a *ConfigError.
func ReviewConfig(set map[string]string) (Config, error) {
	in := make(map[string]string)
	explicit := make(map[string]bool)
	for _, i := range Inputs() {
		v := strings.TrimSpace(set[i.Name])
		if v == "" {
			v = i.Default
		}
		in[i.Name] = v
		explicit[i.Name] = v != i.Default
	}
	c, err := configFrom(in, func(string) string { return "" }, nil)
	c.explicit = explicit
	var ce *ConfigError
	if !errors.As(err, &ce) {
		return c, err
	}
	var kept []Problem
	for _, p := range ce.Problems {
		if _, shapes := fileKeyOf(p.Input); shapes || slices.Contains(cliInputs, p.Input) {
			kept = append(kept, p)
		}
	}
	if len(kept) > 0 {
		return c, &ConfigError{Problems: kept}
	}
	return c, nil
}

// parseOrgConfig reads the config input: YAML in the repository
// configuration's format, checked with the same schema and limits. Its
// problems are the config input's, named by key, never by value.
func parseOrgConfig(text string, p *problems) *repoconfig.File {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	f, err := repoconfig.Parse([]byte(text))
	var re *repoconfig.Error
	switch {
	case errors.As(err, &re):
		for _, q := range re.Problems {
			p.add("config", q.String())
		}
		return nil
	case err != nil:
		p.add("config", "is not a valid configuration")
		return nil
	}
	return f
}
