// Package action adapts anchor-review to GitHub Actions: it reads the
// step's inputs and environment into one typed Config, parses the event
// that started the run, and (in other files) publishes outputs and maps
// results to exit codes.
//
// # Configuration
//
// Inputs are read with go-githubactions from INPUT_<NAME> variables, the
// name upper-cased with its hyphens kept (INPUT_BASE-URL), which is how the
// runner passes them to a container action. The underscore form
// (INPUT_BASE_URL) is accepted as a fallback for people who set inputs by
// hand in a shell. Every input has the default that action.yml declares, so
// a missing variable behaves like an omitted input.
//
// LoadConfig validates everything before any API call and reports every
// problem at once, each naming its input; the error matches ErrConfig.
//
// The api-key input is required only for the default base-url (OpenAI).
// Any other endpoint may need none: a model served beside the job (an
// Ollama service container, reached as http://ollama:11434/v1, since inside
// the action's container localhost is the container itself), a vLLM on the
// network. With no key no Authorization header is sent, and an endpoint
// that answers 401 stops the run with an error naming api-key. The model
// defaults to gpt-4.1-mini: current, cheap and
// offered by OpenAI and Azure OpenAI alike; strong-model and
// validator-model default to model.
package action

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/pricing"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// Defaults for the inputs and the environment.
const (
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultModel          = "gpt-4.1-mini"
	DefaultMode           = ModeComment
	DefaultFailOn         = "P1"
	DefaultMaxValidations = 15
	DefaultMaxConcurrency = 8
	DefaultMaxLLMCalls    = 60
	// DefaultMaxInputTokens bounds one whole model request.
	DefaultMaxInputTokens = review.DefaultMaxInputTokens
	// DefaultValidatorBatching and DefaultCacheWarmup are the cheap
	// settings, each kept by measurement on a real 9-file PR
	// (BENCHMARKS.md): one validator call per file sends each file once
	// (not once per finding), and a warm-up released at the first
	// streamed token halves the billed input for a tenth of a model
	// latency.
	DefaultValidatorBatching = review.ValidatePerFile
	DefaultCacheWarmup       = true
	DefaultBotLogin          = "github-actions[bot]"
	DefaultAPIURL            = "https://api.github.com/"
	DefaultServerURL         = "https://github.com"
)

// DefaultDeadlineMinutes bounds a whole run (input deadline-minutes).
const DefaultDeadlineMinutes = 15

// Bounds of the model-timeout input: a call shorter than 10 s cannot read
// a prompt; none may outlast the longest run.
const (
	MinModelTimeout = 10 * time.Second
	MaxModelTimeout = MaxDeadlineMinutes * time.Minute
)

// Modes of the mode input.
const (
	ModeComment    = "comment"
	ModeReportOnly = "report-only"
)

// Values of the on-new-commits input.
const (
	// OnNewCommitsReview reviews the commits pushed since the last report
	// (an incremental re-review; the default).
	OnNewCommitsReview = review.OnNewCommitsReview
	// OnNewCommitsSkip skips them, and the new head's check is never green.
	OnNewCommitsSkip = review.OnNewCommitsSkip
	// DefaultOnNewCommits is the input's default.
	DefaultOnNewCommits = OnNewCommitsReview
)

// Values of the dismiss-by input: who may dismiss a posted finding with
// /anchor-review dismiss (SPEC 9.1). Everyone it names needs write access
// (admin, maintain or write), read from the API.
const (
	// DismissByOthers: anyone with write access except the pull request's
	// author (a gate the author alone cannot open; the default).
	DismissByOthers = "others"
	// DismissByWrite: anyone with write access, the author included.
	DismissByWrite = "write"
	// DismissByNobody: no dismissals; a finding is answered by a fix or
	// an admin's bypass.
	DismissByNobody = "nobody"
	// DefaultDismissBy is the input's default.
	DefaultDismissBy = DismissByOthers
)

// FailOnNever is the fail-on value that never fails the check.
const FailOnNever = "never"

// Bounds of the numeric inputs, inclusive.
const (
	MinMaxValidations = 0
	MaxMaxValidations = 100
	MinMaxConcurrency = 1
	MaxMaxConcurrency = 64
	MinMaxLLMCalls    = 1
	MaxMaxLLMCalls    = 1000
	// A request below 4,000 tokens cannot hold the fixed parts of a
	// prompt; above 2,000,000 no model accepts it.
	MinMaxInputTokens = 4000
	MaxMaxInputTokens = 2000000
	// A job runs at most 6 hours on GitHub-hosted runners.
	MinDeadlineMinutes = 1
	MaxDeadlineMinutes = 360
)

// Names of the step outputs (SPEC section 3).
const (
	OutputSkipped    = "skipped"
	OutputSkipReason = "skip-reason"
	OutputFindings   = "findings"
	OutputVerdict    = "verdict"
	OutputConclusion = "conclusion"
	OutputCommentURL = "comment-url"
	OutputReportPath = "report-path"
	OutputSARIFPath  = "sarif-path"
	OutputCost       = "cost"
)

// Outputs lists the step outputs in the order action.yml declares them.
func Outputs() []string {
	return []string{
		OutputSkipped, OutputSkipReason, OutputFindings, OutputVerdict,
		OutputConclusion, OutputCommentURL, OutputReportPath, OutputSARIFPath, OutputCost,
	}
}

// Input is one action input as action.yml declares it.
type Input struct {
	Name    string
	Default string // "" when the input has no default
}

// Inputs lists every action input with its action.yml default, in the order
// action.yml declares them. LoadConfig reads exactly these.
func Inputs() []Input {
	return []Input{
		{Name: "github-token", Default: "${{ github.token }}"},
		{Name: "api-key"},
		{Name: "base-url", Default: DefaultBaseURL},
		{Name: "api-type", Default: APITypeAuto},
		{Name: "api-version", Default: llm.DefaultAzureAPIVersion},
		{Name: "model", Default: DefaultModel},
		{Name: "strong-model"},
		{Name: "validator-model"},
		{Name: "pr-number"},
		{Name: "mode", Default: DefaultMode},
		{Name: "fail-on", Default: DefaultFailOn},
		{Name: "exclude"},
		{Name: "personas"},
		{Name: "exclude-personas"},
		{Name: "max-validations", Default: strconv.Itoa(DefaultMaxValidations)},
		{Name: "max-concurrency", Default: strconv.Itoa(DefaultMaxConcurrency)},
		{Name: "max-llm-calls", Default: strconv.Itoa(DefaultMaxLLMCalls)},
		{Name: "max-input-tokens", Default: strconv.Itoa(DefaultMaxInputTokens)},
		{Name: "deadline-minutes", Default: strconv.Itoa(DefaultDeadlineMinutes)},
		{Name: "model-timeout"},
		{Name: "validator-batching", Default: DefaultValidatorBatching},
		{Name: "cache-warmup", Default: strconv.FormatBool(DefaultCacheWarmup)},
		{Name: "bot-login", Default: DefaultBotLogin},
		{Name: "on-new-commits", Default: DefaultOnNewCommits},
		{Name: "dismiss-by", Default: DefaultDismissBy},
		{Name: "quiet", Default: "false"},
		{Name: "incomplete", Default: review.IncompleteFailure},
		{Name: "inline", Default: "false"},
		{Name: "pricing"},
		{Name: "config"},
	}
}

// Config is every input of the action plus the runner environment it needs.
type Config struct {
	// Org is the config input: defaults in the repository-configuration
	// format, set by a central reusable workflow, which the repository's
	// own file overrides key by key (nil when the input is empty).
	Org *repoconfig.File

	GitHubToken    string
	APIKey         string
	BaseURL        string // the LLM endpoint, without a trailing slash
	Model          string
	StrongModel    string // model for correctness, security, adversarial
	ValidatorModel string // model for Stage 5b
	PRNumber       int    // 0 when the input is not given (the event names the PR)
	Mode           string // ModeComment or ModeReportOnly
	FailOn         string // "P0".."P3" (upper case) or FailOnNever
	Exclude        []string
	Personas       []string // lower-cased, in input order, duplicates removed; nil means all that select
	// ExcludePersonas are left out of the team, whatever selects them
	// (never correctness).
	ExcludePersonas []string
	MaxValidations  int
	MaxConcurrency  int
	MaxLLMCalls     int
	// MaxInputTokens bounds one whole model request.
	MaxInputTokens int
	// ValidatorBatching is review.ValidatePerFinding or ValidatePerFile.
	ValidatorBatching string
	// CacheWarmup sends one persona call first so the rest find the shared
	// prefix in the provider's prompt cache.
	CacheWarmup bool
	BotLogin    string
	// OnNewCommits is what a push after a report does: OnNewCommitsReview
	// (review the new commits) or OnNewCommitsSkip.
	OnNewCommits string
	// DismissBy is who may dismiss a posted finding: DismissByOthers,
	// DismissByWrite or DismissByNobody.
	DismissBy string
	Quiet     bool
	// Incomplete is the conclusion of an incomplete review with nothing
	// blocking: review.IncompleteFailure (default) or IncompleteNeutral.
	Incomplete string
	Inline     bool // post the findings on their lines as one review
	// Pricing prices the models for the report's estimated cost: the
	// pricing input over the built-in table.
	Pricing pricing.Table
	// Deadline bounds the whole run, publishing included (input
	// deadline-minutes); tests may set less than a minute.
	Deadline time.Duration
	// ModelTimeout bounds one model call (input model-timeout); 0 derives
	// it from Deadline (ModelTime).
	ModelTimeout time.Duration
	// APIType is the endpoint's request shape: llm.APITypeAuto (Azure
	// when the host is Azure's), llm.APITypeOpenAI or llm.APITypeAzure.
	APIType string
	// APIVersion is Azure's api-version query value.
	APIVersion string

	APIURL     string // GITHUB_API_URL, always with a trailing slash (go-github wants one)
	ServerURL  string // GITHUB_SERVER_URL, without a trailing slash (for links)
	Repository string // GITHUB_REPOSITORY, "owner/name"; "" when unset
	Owner      string // owner part of Repository
	Repo       string // name part of Repository
	EventName  string // GITHUB_EVENT_NAME
	EventPath  string // GITHUB_EVENT_PATH
	// Workspace is GITHUB_WORKSPACE, where files for later steps go
	// (StepFileDir); "" outside Actions means the current directory.
	Workspace string

	// inputs holds every input as read (defaults applied) and explicit the
	// inputs the workflow set to a non-default value: ApplyRepoConfig
	// re-parses the inputs with the repository configuration's values
	// where the workflow left them alone.
	inputs   map[string]string
	explicit map[string]bool
}

// Secrets returns the values that must never be printed: the API key and
// the GitHub token, when set.
func (c Config) Secrets() []string {
	var s []string
	for _, v := range []string{c.APIKey, c.GitHubToken} {
		if v != "" {
			s = append(s, v)
		}
	}
	return s
}

// Mask tells the runner to mask every secret of c in the log. A secret
// spanning several lines is also masked line by line, because the runner
// matches masks within single log lines.
func Mask(a *githubactions.Action, c Config) {
	for _, s := range c.Secrets() {
		a.AddMask(s)
		if !strings.ContainsAny(s, "\r\n") {
			continue
		}
		for line := range strings.Lines(s) {
			if line = strings.TrimSpace(line); line != "" {
				a.AddMask(line)
			}
		}
	}
}

// LoadConfig reads the inputs and the environment through getenv, applies
// the defaults, and validates them. On failure it returns a *ConfigError
// listing every problem; the error matches ErrConfig.
func LoadConfig(getenv func(string) string) (Config, error) {
	gha := githubactions.New(githubactions.WithGetenv(getenv))
	in := make(map[string]string)
	explicit := make(map[string]bool)
	for _, i := range Inputs() {
		v := gha.GetInput(i.Name)
		if v == "" {
			v = strings.TrimSpace(getenv("INPUT_" + strings.ToUpper(strings.ReplaceAll(i.Name, "-", "_"))))
		}
		if v == "" {
			v = i.Default
		}
		in[i.Name] = v
		explicit[i.Name] = v != i.Default
	}
	c, err := configFrom(in, getenv, nil)
	c.explicit = explicit
	return c, err
}

// configFrom parses and validates the inputs in (defaults applied) and the
// environment. extraPersonas are names the personas input may use besides
// the shipped ones (the repository configuration's custom personas).
func configFrom(in map[string]string, getenv func(string) string, extraPersonas []string) (Config, error) {
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }

	c := Config{inputs: in}
	p := &problems{}

	c.GitHubToken = in["github-token"]
	if c.GitHubToken == "" || c.GitHubToken == "${{ github.token }}" {
		// The literal default only appears when someone copies action.yml's
		// default by hand; the runner substitutes it.
		c.GitHubToken = ""
		p.add("github-token", "is required")
	}

	c.BaseURL = strings.TrimRight(in["base-url"], "/")
	_, err := httpURL(c.BaseURL)
	if err != nil {
		p.add("base-url", err.Error())
	}
	c.APIKey = in["api-key"]
	if c.APIKey == "" && (err != nil || NeedsKey(c.BaseURL)) {
		p.add("api-key", "is required for "+DefaultBaseURL+" (another base-url, such as a local model server, may need none)")
	}

	c.APIType, c.APIVersion = apiType(p, in["api-type"]), apiVersion(p, in["api-version"])

	c.Model = in["model"]
	c.StrongModel = orDefault(in["strong-model"], c.Model)
	c.ValidatorModel = orDefault(in["validator-model"], c.Model)

	if v := in["pr-number"]; v != "" {
		n, err := ParsePRNumber(v)
		if err != nil {
			p.add("pr-number", err.Error())
		}
		c.PRNumber = n
	}

	c.Mode = strings.ToLower(in["mode"])
	if c.Mode != ModeComment && c.Mode != ModeReportOnly {
		p.add("mode", fmt.Sprintf("is not one of %s, %s", ModeComment, ModeReportOnly))
	}

	c.FailOn, err = ParseFailOn(in["fail-on"])
	if err != nil {
		p.add("fail-on", err.Error())
	}

	c.Exclude = splitLines(in["exclude"])
	for i, g := range c.Exclude {
		if err := scope.CheckPatterns([]string{g}); err != nil {
			p.add("exclude", fmt.Sprintf("pattern %d is not a valid glob (the syntax of .gitignore, without negation)", i+1))
		}
	}

	c.Personas = splitList(in["personas"])
	known := append(persona.Names(), extraPersonas...)
	if msg := UnknownPersonas(c.Personas, known); msg != "" {
		p.add("personas", msg)
	}
	c.ExcludePersonas = splitList(in["exclude-personas"])
	if msg := UnknownPersonas(c.ExcludePersonas, known); msg != "" {
		p.add("exclude-personas", msg)
	}
	if slices.Contains(c.ExcludePersonas, persona.Correctness) {
		p.add("exclude-personas", persona.Correctness+" always runs: it reviews every change, and no setting removes it")
	}

	c.MaxValidations = p.number("max-validations", in["max-validations"], MinMaxValidations, MaxMaxValidations)
	c.MaxConcurrency = p.number("max-concurrency", in["max-concurrency"], MinMaxConcurrency, MaxMaxConcurrency)
	c.MaxLLMCalls = p.number("max-llm-calls", in["max-llm-calls"], MinMaxLLMCalls, MaxMaxLLMCalls)
	c.MaxInputTokens = p.number("max-input-tokens", in["max-input-tokens"], MinMaxInputTokens, MaxMaxInputTokens)
	c.ValidatorBatching = strings.ToLower(in["validator-batching"])
	if c.ValidatorBatching != review.ValidatePerFinding && c.ValidatorBatching != review.ValidatePerFile {
		p.add("validator-batching", "is not one of per-finding, per-file")
	}
	c.CacheWarmup = p.boolean("cache-warmup", in["cache-warmup"])

	c.BotLogin = in["bot-login"]

	c.OnNewCommits = strings.ToLower(in["on-new-commits"])
	if c.OnNewCommits != OnNewCommitsReview && c.OnNewCommits != OnNewCommitsSkip {
		p.add("on-new-commits", fmt.Sprintf("is not one of %s, %s", OnNewCommitsReview, OnNewCommitsSkip))
	}

	c.Org = parseOrgConfig(in["config"], p)

	c.DismissBy = strings.ToLower(in["dismiss-by"])
	if c.DismissBy != DismissByOthers && c.DismissBy != DismissByWrite && c.DismissBy != DismissByNobody {
		p.add("dismiss-by", fmt.Sprintf("is not one of %s, %s, %s", DismissByOthers, DismissByWrite, DismissByNobody))
	}

	c.Quiet = p.boolean("quiet", in["quiet"])
	c.Inline = p.boolean("inline", in["inline"])

	if c.Pricing, err = pricing.Parse(in["pricing"]); err != nil {
		p.add("pricing", strings.TrimPrefix(err.Error(), pricing.ErrInvalid.Error()+": "))
	}
	c.Deadline = time.Duration(p.number("deadline-minutes", in["deadline-minutes"], MinDeadlineMinutes, MaxDeadlineMinutes)) * time.Minute
	c.ModelTimeout = modelTimeout(p, in["model-timeout"], c.Deadline)

	c.Incomplete = strings.ToLower(strings.TrimSpace(in["incomplete"]))
	if c.Incomplete != review.IncompleteFailure && c.Incomplete != review.IncompleteNeutral {
		p.add("incomplete", fmt.Sprintf("is not one of %s, %s", review.IncompleteFailure, review.IncompleteNeutral))
	}

	c.APIURL = orDefault(env("GITHUB_API_URL"), DefaultAPIURL)
	if _, err := httpURL(c.APIURL); err != nil {
		p.add("GITHUB_API_URL", err.Error())
	}
	c.APIURL = strings.TrimRight(c.APIURL, "/") + "/"

	c.ServerURL = strings.TrimRight(orDefault(env("GITHUB_SERVER_URL"), DefaultServerURL), "/")
	if _, err := httpURL(c.ServerURL); err != nil {
		p.add("GITHUB_SERVER_URL", err.Error())
	}

	if c.Repository = env("GITHUB_REPOSITORY"); c.Repository != "" {
		owner, repo, ok := SplitRepository(c.Repository)
		if !ok {
			p.add("GITHUB_REPOSITORY", fmt.Sprintf("%q is not owner/name", c.Repository))
		}
		c.Owner, c.Repo = owner, repo
	}
	c.EventName = env("GITHUB_EVENT_NAME")
	c.EventPath = env("GITHUB_EVENT_PATH")
	c.Workspace = env("GITHUB_WORKSPACE")

	if len(p.list) > 0 {
		return c, &ConfigError{Problems: p.list}
	}
	return c, nil
}

// APITypeAuto is the api-type input's default: Azure when base-url's host
// is Azure OpenAI's (*.openai.azure.com, *.cognitiveservices.azure.com).
const APITypeAuto = "auto"

// apiType reads the api-type input as an llm.Config APIType.
func apiType(p *problems, s string) string {
	switch t := strings.ToLower(strings.TrimSpace(s)); t {
	case APITypeAuto:
		return llm.APITypeAuto
	case llm.APITypeOpenAI, llm.APITypeAzure:
		return t
	}
	p.add("api-type", fmt.Sprintf("is not one of %s, %s, %s", APITypeAuto, llm.APITypeOpenAI, llm.APITypeAzure))
	return llm.APITypeAuto
}

// azureSchemaVersion is the first Azure api-version with JSON-schema
// answers (structured outputs); the first GA one is 2024-10-21.
const azureSchemaVersion = "2024-08-01-preview"

var apiVersionPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(-preview)?$`)

// apiVersion checks the api-version input: a dated version, not older than
// structured outputs (an older one would answer without the schema).
func apiVersion(p *problems, s string) string {
	s = strings.TrimSpace(s)
	switch {
	case !apiVersionPattern.MatchString(s):
		p.add("api-version", "is not an Azure api-version (YYYY-MM-DD or YYYY-MM-DD-preview)")
	case s[:10] < azureSchemaVersion[:10]:
		p.add("api-version", fmt.Sprintf("predates JSON-schema answers (%s); use %s or later", azureSchemaVersion, llm.DefaultAzureAPIVersion))
	}
	return s
}

// ParseAPI checks an api-type and api-version pair as the inputs are
// checked (the command line's --api-type and --api-version).
func ParseAPI(typ, version string) (string, string, error) {
	p := &problems{}
	t, v := apiType(p, typ), apiVersion(p, version)
	if len(p.list) > 0 {
		return "", "", &ConfigError{Problems: p.list}
	}
	return t, v, nil
}

// SplitRepository splits "owner/name" into its two non-empty parts.
func SplitRepository(s string) (owner, repo string, ok bool) {
	owner, repo, ok = strings.Cut(s, "/")
	if !ok || !ownerName.MatchString(owner) || !repoName.MatchString(repo) || repo == "." || repo == ".." {
		return "", "", false
	}
	return owner, repo, true
}

// ValidOwner reports whether s has the shape of a GitHub owner (a user or
// organization login), as SplitRepository checks it.
func ValidOwner(s string) bool { return ownerName.MatchString(s) }

// GitHub's character sets: an owner is 1-39 letters, digits and hyphens
// (underscores appear in some enterprise logins); a repository 1-100
// letters, digits, '-', '_' and '.'. Anything else ("../x", "r?x=1#")
// would send requests to other paths.
var (
	ownerName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,38})$`)
	repoName  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
)

// ParsePRNumber parses a pull request number: a positive decimal integer
// that fits GitHub's 32-bit issue numbers. Surrounding space and one
// leading '#' are allowed ("#42").
func ParsePRNumber(s string) (int, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "#")
	n, err := strconv.ParseInt(t, 10, 32)
	if err != nil || n < 1 || t[0] == '+' {
		return 0, errors.New("is not a positive integer")
	}
	return int(n), nil
}

// ParseFailOn normalises a fail-on value: P0..P3 upper-cased, or
// FailOnNever; anything else is an error naming the choices (never the
// value: an input's error never echoes it).
func ParseFailOn(s string) (string, error) {
	switch u := strings.ToUpper(s); u {
	case "P0", "P1", "P2", "P3":
		return u, nil
	case "NEVER":
		return FailOnNever, nil
	}
	return "", errors.New("is not one of P0, P1, P2, P3, never")
}

// httpURL parses s as an absolute http or https URL with a host.
func httpURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// Never echo the value: a mistyped URL may carry a password.
		return nil, errors.New("is not an absolute http(s) URL")
	}
	if u.User != nil {
		// Credentials in a URL end up in logs; they belong in api-key.
		return nil, errors.New("has credentials in the URL, which are not allowed (the key belongs in api-key)")
	}
	return u, nil
}

// UnknownPersonas says which of names are not in known, each with the
// known name it is likely a typo of, and then the known names, once: ""
// when every name is known.
func UnknownPersonas(names, known []string) string {
	var bad []string
	for i, n := range names {
		if slices.Contains(known, n) {
			continue
		}
		// The entry is named by its place, never quoted: a key pasted
		// into the wrong input must not reach the log (issue 30). The
		// suggestion is a known name, so it can be shown.
		s := fmt.Sprintf("entry %d is not a known persona", i+1)
		if m := closest(n, known); m != "" {
			s += fmt.Sprintf(" (did you mean %q?)", m)
		}
		bad = append(bad, s)
	}
	if len(bad) == 0 {
		return ""
	}
	return strings.Join(bad, ", ") + "; known: " + strings.Join(known, ", ")
}

// closest is the name in known within two edits of s (the fewest; the
// first of equals), or "".
func closest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (persona names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// CheckBaseURL checks a model endpoint (the base-url input, --base-url):
// an absolute http or https URL without credentials. The error never
// echoes the value, which may carry a password.
func CheckBaseURL(s string) error {
	_, err := httpURL(s)
	return err
}

// modelTimeout reads the model-timeout input: a duration with its unit
// (90s, 5m), within MinModelTimeout..MaxModelTimeout and no longer than
// the run's deadline; "" is 0, derived from the deadline (ModelTime).
func modelTimeout(p *problems, s string, deadline time.Duration) time.Duration {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if _, nerr := strconv.Atoi(s); nerr == nil {
			// Digits alone: safe to repeat, and the fix is in them.
			p.add("model-timeout", fmt.Sprintf("%q has no unit: write %ss or %sm", s, s, s))
		} else {
			p.add("model-timeout", "not a duration such as 90s or 5m")
		}
		return 0
	}
	switch {
	case d < MinModelTimeout || d > MaxModelTimeout:
		p.add("model-timeout", fmt.Sprintf("%v is not within %v..%v", d, MinModelTimeout, MaxModelTimeout))
		return 0
	case deadline > 0 && d > deadline:
		p.add("model-timeout", fmt.Sprintf("%v is longer than the run's deadline (deadline-minutes %d)", d, int(deadline/time.Minute)))
		return 0
	}
	return d
}

// ModelTime is what the model client may spend: call bounds one call
// (model-timeout, or by default a quarter of the review's time, at least
// llm.DefaultCallTimeout), budget all model work: the run's deadline less
// the publishing reserve, so a slow model has the whole review's time and
// the report still gets posted. A call never outlasts the budget.
func (c Config) ModelTime() (call, budget time.Duration) {
	deadline := c.Deadline
	if deadline <= 0 {
		deadline = DefaultDeadlineMinutes * time.Minute
	}
	budget = deadline - publishReserve(deadline)
	call = c.ModelTimeout
	if call <= 0 {
		call = max(budget/4, llm.DefaultCallTimeout)
	}
	return min(call, budget), budget
}

// ModelTimeNote says, when model-timeout is longer than all model work may
// take, that calls are cut to that: "" otherwise.
func (c Config) ModelTimeNote() string {
	call, budget := c.ModelTime()
	if c.ModelTimeout <= call {
		return ""
	}
	return fmt.Sprintf("model-timeout %v is cut to %v: all model work shares the review's time (deadline-minutes less the publishing reserve)", c.ModelTimeout, budget)
}

// NeedsKey reports whether the endpoint base needs an api-key for certain:
// the default one (OpenAI's API) does. Any other may be a model server
// that wants none (Ollama, vLLM); it answers 401 when it does.
func NeedsKey(base string) bool {
	u, err := url.Parse(base)
	return err != nil || strings.EqualFold(strings.TrimSuffix(u.Hostname(), "."), "api.openai.com")
}

// splitLines splits a newline-separated list, dropping blank lines and
// lines starting with '#'.
func splitLines(s string) []string {
	var out []string
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out
}

// splitList splits a comma-separated list, trimming and lower-casing each
// name and dropping empty names and repeats.
func splitList(s string) []string {
	var out []string
	seen := make(map[string]bool)
	for name := range strings.SplitSeq(s, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, name)
	}
	return out
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

type problems struct{ list []Problem }

func (p *problems) add(input, msg string) {
	p.list = append(p.list, Problem{Input: input, Message: msg})
}

// boolean reads a true/false input with the same spellings as the Actions
// toolkit's getBooleanInput (YAML 1.2 core schema).
func (p *problems) boolean(input, s string) bool {
	switch s {
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	}
	p.add(input, "is not a boolean (true or false)")
	return false
}

func (p *problems) number(input, s string, lo, hi int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		p.add(input, "is not an integer")
		return 0
	}
	if n < lo || n > hi {
		p.add(input, fmt.Sprintf("is outside %d..%d", lo, hi))
		return 0
	}
	return n
}

// Problem is one invalid input or environment variable.
type Problem struct {
	Input   string // the input name ("fail-on") or environment variable ("GITHUB_API_URL")
	Message string
}

// String renders the problem as "input NAME: message" (or "VAR: message"
// for an environment variable).
func (p Problem) String() string {
	if strings.ToUpper(p.Input) == p.Input {
		return p.Input + ": " + p.Message
	}
	return "input " + p.Input + ": " + p.Message
}

// ConfigError lists every problem LoadConfig found. It matches ErrConfig.
type ConfigError struct {
	Problems []Problem
}

// Error lists every problem on one line, separated by semicolons.
func (e *ConfigError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return string(ErrConfig) + ": " + strings.Join(parts, "; ")
}

// Only reports whether every problem is about the one input named.
func (e *ConfigError) Only(input string) bool {
	for _, p := range e.Problems {
		if p.Input != input {
			return false
		}
	}
	return len(e.Problems) > 0
}

// Is makes errors.Is(err, ErrConfig) true.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

// sentinel is a constant error, so sentinels cannot be reassigned.
type sentinel string

func (e sentinel) Error() string { return string(e) }

// Sentinel errors; compare with errors.Is.
const (
	// ErrConfig: an input or environment variable is invalid (exit code 2).
	ErrConfig = sentinel("invalid configuration")
	// ErrUnsupportedEvent: the run was not started by a supported event (exit code 2).
	ErrUnsupportedEvent = sentinel("unsupported event")
	// ErrNoPR: the event names no valid pull request number (exit code 2).
	ErrNoPR = sentinel("no pull request number")
	// ErrPayload: the event payload is unreadable or lacks a required field (exit code 2).
	ErrPayload = sentinel("invalid event payload")
)
