package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/pricing"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/version"
)

// reviewFlags are the review command's options.
type reviewFlags struct {
	repo, diffFile, base, dir, title, body     string
	pr                                         int
	post, asJSON, validate, quiet, full        bool
	onNewCommits                               string
	githubToken, githubAPIURL, serverURL       string
	apiKey, baseURL                            string
	apiType, apiVersion                        string
	model, strongModel, validatorModel, failOn string
	botLogin, record                           string
	version                                    string       // not a flag: named in the report
	local                                      *localChange // not a flag: the change readLocal read
	exclude, personas, excludePersonas         listFlag
	maxValidations, maxConcurrency, maxCalls   int
	maxInputTokens, deadlineMinutes            int
	modelTimeout                               string
	validatorBatching                          string
	cacheWarmup                                bool
	pricing                                    string
	prices                                     pricing.Table // not a flag: --pricing parsed
	// cfg is not a flag: the settings the flags that mirror an input give,
	// parsed and validated by the Action's own code (action.ReviewConfig).
	cfg action.Config
}

// mirrored are the flags named after the action input they mirror: they go
// through action.ReviewConfig, the Action's parser, with its ranges, and
// the repository configuration may set those left at their defaults.
var mirrored = []string{
	"model", "strong-model", "validator-model", "fail-on", "exclude", "personas", "exclude-personas",
	"max-validations", "max-concurrency", "max-llm-calls", "max-input-tokens",
	"validator-batching", "cache-warmup", "bot-login", "quiet", "on-new-commits",
	"deadline-minutes", "model-timeout",
}

// inputs spells the mirrored flags given on the command line as a
// workflow would spell the inputs (exclude newline-separated, personas
// comma-separated).
func (f *reviewFlags) inputs(fl *flag.FlagSet) map[string]string {
	set := map[string]string{}
	fl.Visit(func(v *flag.Flag) {
		if slices.Contains(mirrored, v.Name) {
			set[v.Name] = v.Value.String()
		}
	})
	if _, ok := set["exclude"]; ok {
		set["exclude"] = strings.Join(f.exclude, "\n")
	}
	return set
}

// reviewOptions is everything `review` runs with.
type reviewOptions struct {
	*Factory
	Flags reviewFlags
	// Team are the personas to select from.
	Team []persona.Persona
	// Model answers the personas and the validator.
	Model llm.Completer
	// GitHub, when not nil, replaces the client the flags name (built
	// through Factory.HTTPClient).
	GitHub action.GitHub
}

// runReview is `review`: a PR through the real API, or a local diff.
func runReview(ctx context.Context, fac *Factory, args []string) error {
	getenv, stdout, stderr := fac.Getenv, fac.Stdout, fac.Stderr
	var f reviewFlags
	fl := flag.NewFlagSet("review", flag.ContinueOnError)
	fl.StringVar(&f.repo, "repo", "", "the repository, OWNER/NAME (with --pr)")
	fl.IntVar(&f.pr, "pr", 0, "the pull request number (with --repo)")
	fl.BoolVar(&f.post, "post", false, "post the report comment and the check run (runs the validator)")
	fl.BoolVar(&f.full, "full", false, "review the whole pull request, even when it was reviewed before (a manual re-review)")
	fl.StringVar(&f.onNewCommits, "on-new-commits", action.DefaultOnNewCommits, "a PR reviewed at an older head: review the new commits only (review) or skip them (skip)")
	fl.StringVar(&f.diffFile, "diff", "", "review a local unified diff file instead of a PR (- for stdin)")
	fl.StringVar(&f.base, "base", "", "review git diff `REF`...HEAD of the local repository instead of a PR")
	fl.StringVar(&f.dir, "dir", ".", "the local repository for --base, and where --diff reads head files")
	fl.StringVar(&f.title, "title", "", "the change's title for a local diff")
	fl.StringVar(&f.body, "body", "", "the change's description for a local diff")
	fl.BoolVar(&f.asJSON, "json", false, "print the machine-readable result (JSON) instead of the report")
	fl.BoolVar(&f.validate, "validate", false, "run the Stage 5b validator even without --post")
	fl.BoolVar(&f.quiet, "quiet", false, "with --post: post a comment only when there are findings")
	fl.StringVar(&f.githubToken, "github-token", "", "GitHub token (default $GITHUB_TOKEN)")
	fl.StringVar(&f.githubAPIURL, "github-api-url", "", "GitHub API URL (default $GITHUB_API_URL or https://api.github.com/)")
	fl.StringVar(&f.serverURL, "server-url", "", "GitHub server URL for links (default $GITHUB_SERVER_URL or https://github.com)")
	fl.StringVar(&f.apiKey, "api-key", "", "model API key (default $OPENAI_API_KEY)")
	fl.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint (default $OPENAI_BASE_URL or "+action.DefaultBaseURL+")")
	fl.StringVar(&f.apiType, "api-type", action.APITypeAuto, "the endpoint's request shape: auto (Azure by host name), openai or azure")
	fl.StringVar(&f.apiVersion, "api-version", llm.DefaultAzureAPIVersion, "Azure OpenAI api-version")
	fl.StringVar(&f.model, "model", action.DefaultModel, "reviewer model")
	fl.StringVar(&f.strongModel, "strong-model", "", "model for correctness, security, adversarial (default --model)")
	fl.StringVar(&f.validatorModel, "validator-model", "", "model for the validator (default --model)")
	fl.StringVar(&f.failOn, "fail-on", action.DefaultFailOn, "exit 1 when a posted finding is at this severity or worse (P0..P3, never)")
	fl.StringVar(&f.botLogin, "bot-login", action.DefaultBotLogin, "the identity whose marker comments count as ours")
	fl.StringVar(&f.record, "record", "", "write every model answer to this cassette `FILE` (JSONL, see fixtures/cassettes/README.md; replaced if it exists)")
	fl.Var(&f.exclude, "exclude", "glob of paths not to review (repeatable, or comma-separated)")
	fl.Var(&f.personas, "personas", "restrict the team to these personas (comma-separated)")
	fl.Var(&f.excludePersonas, "exclude-personas", "leave these personas out of the team (comma-separated; never correctness)")
	fl.IntVar(&f.maxValidations, "max-validations", action.DefaultMaxValidations, "validator budget")
	fl.IntVar(&f.maxConcurrency, "max-concurrency", action.DefaultMaxConcurrency, "parallel model calls")
	fl.IntVar(&f.maxCalls, "max-llm-calls", action.DefaultMaxLLMCalls, "hard cap of model calls")
	fl.IntVar(&f.maxInputTokens, "max-input-tokens", action.DefaultMaxInputTokens, "tokens of one whole model request (fixed parts, context, diff); about 75% of a local model's window")
	fl.IntVar(&f.deadlineMinutes, "deadline-minutes", action.DefaultDeadlineMinutes, "minutes all model work may take (1..360)")
	fl.StringVar(&f.modelTimeout, "model-timeout", "", "how long one model call may take, as 90s or 5m (default: a quarter of the review's time, --deadline-minutes less the publishing reserve, at least 2m; at most --deadline-minutes, and no call outlasts the review's time)")
	fl.StringVar(&f.validatorBatching, "validator-batching", action.DefaultValidatorBatching, "per-finding or per-file validator calls")
	fl.BoolVar(&f.cacheWarmup, "cache-warmup", action.DefaultCacheWarmup, "send one call of each round first, the rest at its first token, so they reuse the provider's prompt cache")
	fl.StringVar(&f.pricing, "pricing", "", "prices per million tokens for the estimated cost: \"INPUT, CACHED, OUTPUT\" for every model, or \"MODEL = INPUT, CACHED, OUTPUT\" lines (default: the built-in list prices)")
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), `Usage:
  anchor-review review --repo OWNER/NAME --pr N [--post] [--json] [flags]
  anchor-review review --diff FILE [--title T] [--json] [flags]
  anchor-review review --base REF [--dir REPO] [--json] [flags]

Reviews a pull request through the GitHub API ($GITHUB_TOKEN) with the model
endpoint ($OPENAI_API_KEY), printing the report; --post posts the comment and
the check run. --diff and --base review a local change with no GitHub at all.
The repository configuration (.github/anchor-review.yml) applies as in the
Action: read at the PR's base commit, at the merge base of --base, or from
--dir for --diff; flags left at their defaults give way to it.

Flags:`)
		fl.PrintDefaults()
	}
	if help, err := parseFlags(fl, args, true, stdout, stderr); help || err != nil {
		return err
	}
	if err := f.check(fl.Args(), f.inputs(fl)); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if f.diffFile != "" || f.base != "" {
		// Read the change before asking for a key: an empty one needs none.
		lc, err := f.readLocal(ctx)
		if err != nil {
			return nothingToReview(err, stderr)
		}
		f.local = lc
	}
	team, err := loadTeam(f.cfg.Personas)
	if err != nil {
		return err
	}
	mc := modelConfig{
		BaseURL: firstNonEmpty(f.baseURL, getenv("OPENAI_BASE_URL"), action.DefaultBaseURL),
		APIKey:  firstNonEmpty(f.apiKey, getenv("OPENAI_API_KEY")),

		HTTPClient: fac.HTTPClient,
	}
	if mc.APIType, mc.APIVersion, err = action.ParseAPI(f.apiType, f.apiVersion); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if err := action.CheckBaseURL(mc.BaseURL); err != nil {
		return fmt.Errorf("%w: --base-url (or $OPENAI_BASE_URL): %w", ErrUsage, err)
	}
	mc.CallTimeout, mc.Budget = f.cfg.ModelTime()
	if note := f.cfg.ModelTimeNote(); note != "" {
		fmt.Fprintln(stderr, note)
	}
	if mc.APIKey == "" && action.NeedsKey(mc.BaseURL) {
		return fmt.Errorf("%w: no model API key: set OPENAI_API_KEY or --api-key", ErrUsage)
	}
	live, err := newModel(mc)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	var model llm.Completer = live
	if f.record != "" {
		file, err := os.Create(f.record)
		if err != nil {
			return fmt.Errorf("%w: --record: %w", ErrUsage, err)
		}
		defer file.Close()
		model = llm.NewRecorder(live, file)
	}
	f.version = version.String()
	return reviewWith(ctx, reviewOptions{Factory: fac, Flags: f, Team: team, Model: model})
}

// check validates the flags, every problem at once: how the change is
// named here, the settings (set, by input name) by the Action's own parser.
func (f *reviewFlags) check(rest []string, set map[string]string) error {
	var problems []string
	if len(rest) > 0 {
		problems = append(problems, fmt.Sprintf("unexpected arguments %q", rest))
	}
	local := f.diffFile != "" || f.base != ""
	remote := f.repo != "" || f.pr != 0
	switch {
	case f.diffFile != "" && f.base != "":
		problems = append(problems, "--diff and --base are exclusive")
	case local && remote:
		problems = append(problems, "--repo/--pr and --diff/--base are exclusive")
	case !local && !remote:
		problems = append(problems, "name a pull request (--repo OWNER/NAME --pr N) or a local diff (--diff FILE or --base REF)")
	case remote && (f.pr <= 0 || strings.Count(f.repo, "/") != 1 || strings.HasPrefix(f.repo, "/") || strings.HasSuffix(f.repo, "/")):
		problems = append(problems, "--repo must be OWNER/NAME and --pr a positive number")
	}
	if f.post && local {
		problems = append(problems, "--post needs a pull request (--repo and --pr)")
	}
	if f.full && local {
		problems = append(problems, "--full needs a pull request (--repo and --pr)")
	}
	// Checked here, before any request, so a typo costs no API call.
	cfg, err := action.ReviewConfig(set)
	problems = append(problems, configProblems(err)...)
	prices, err := pricing.Parse(f.pricing)
	if err != nil {
		problems = append(problems, "--pricing: "+strings.TrimPrefix(err.Error(), pricing.ErrInvalid.Error()+": "))
	}
	f.prices = prices
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	f.cfg = cfg
	return nil
}

// reviewWith runs the review o describes.
func reviewWith(ctx context.Context, o reviewOptions) error {
	f, getenv, stdout, stderr, gh := o.Flags, o.Getenv, o.Stdout, o.Stderr, o.GitHub
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	// The settings as the Action would have them: the flags, then the
	// repository configuration for those left at their defaults (read at
	// the PR's base commit, the merge base of --base, or --dir for --diff),
	// through the Action's own precedence and validation.
	rc := &action.RepoConfig{Config: f.cfg}
	opts := f.cfg.ReviewOptions()
	opts.Mode, opts.Validate = review.ModeReportOnly, false
	if f.post || f.validate {
		opts.Mode, opts.Validate = review.ModeComment, true
	}
	opts.Logf, opts.Rerun = logf, f.full
	opts.Configure = func(o *review.Options, file *repoconfig.File) error {
		// What leaves the machine is the command line's to decide (--post,
		// --validate), not the file's mode.
		mode, validate := o.Mode, o.Validate
		if err := rc.Configure(o, file); err != nil {
			return err
		}
		o.Mode, o.Validate = mode, validate
		return nil
	}
	serverURL := firstNonEmpty(f.serverURL, getenv("GITHUB_SERVER_URL"), action.DefaultServerURL)
	token := firstNonEmpty(f.githubToken, getenv("GITHUB_TOKEN"))
	rv := review.Reviewer{Model: o.Model, Personas: o.Team}

	var res review.Result
	var err error
	var out *action.StepOutputs
	if f.repo != "" {
		opts.Owner, opts.Repo, _ = strings.Cut(f.repo, "/")
		opts.PR = f.pr
		if gh == nil {
			if token == "" {
				return fmt.Errorf("%w: no GitHub token: set GITHUB_TOKEN or --github-token", ErrUsage)
			}
			c, cerr := newGitHub(o.HTTPClient, firstNonEmpty(f.githubAPIURL, getenv("GITHUB_API_URL"), action.DefaultAPIURL), token)
			if cerr != nil {
				return fmt.Errorf("%w: %w", ErrUsage, cerr)
			}
			gh = c
		}
		rv.GitHub = gh
		var pr *review.PR
		res, pr, err = rv.ReviewPR(ctx, opts)
		if rerr := reviewError(res, err); rerr != nil {
			return rerr
		}
		if f.post {
			c := rc.Config
			ro := report.Options{ServerURL: serverURL, Repo: f.repo, HeadSHA: res.HeadSHA, FailOn: c.FailOn, Quiet: c.Quiet, Secrets: secrets(getenv, token, f.apiKey), Version: f.version, Pricing: f.prices}
			posted := action.Publish(ctx, action.PublishOptions{
				GitHub: gh, Notifier: &textNotifier{w: stderr}, Logf: logf,
				Owner: opts.Owner, Repo: opts.Repo, PR: f.pr, BotLogin: c.BotLogin, Mode: review.ModeComment, FailOn: c.FailOn, Quiet: c.Quiet,
			}, res, pr, ro)
			out = &posted
		}
	} else {
		lc := f.local
		if lc == nil {
			if lc, err = f.readLocal(ctx); err != nil {
				return nothingToReview(err, stderr)
			}
		}
		opts.LocalConfig = lc.config
		res, err = rv.ReviewDiff(ctx, opts, lc.diff, lc.title, lc.body, lc.head)
		if rerr := reviewError(res, err); rerr != nil {
			return rerr
		}
		res.HeadSHA = firstNonEmpty(res.HeadSHA, lc.headSHA)
		if missed := lc.unread.list(); len(missed) > 0 {
			fmt.Fprintf(stderr, "warning: the head version of %d changed file(s) could not be read from %s, so the validator saw none: %s. %s\n",
				len(missed), lc.where, strings.Join(missed, ", "), lc.fix)
		}
	}

	failOn := rc.Config.FailOn
	// A local change (--diff, --base) is on no server: its report links
	// no file (a permalink would name a commit GitHub never saw).
	ro := report.Options{ServerURL: serverURL, Repo: f.repo, Local: f.pr == 0, HeadSHA: res.HeadSHA, FailOn: failOn, Secrets: secrets(getenv, token, f.apiKey), Version: f.version, Pricing: f.prices}
	cost := report.EstimateCost(res, f.prices)
	res.Cost = &cost
	if f.asJSON {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return fmt.Errorf("encode result: %w", err)
		}
		fmt.Fprintf(stdout, "%s\n", report.RedactJSON(b, ro.Secrets))
	} else {
		// The report as its reader sees it: the hidden lines are for the
		// next run, which reads them from the posted comment.
		fmt.Fprintln(stdout, report.Text(res, ro))
	}
	if out != nil {
		if out.CommentURL != "" {
			fmt.Fprintf(stderr, "%s: %s\n", map[bool]string{true: "report (carried forward)", false: "posted"}[out.Skipped], out.CommentURL)
		}
		// What was posted decides the exit code exactly as in the Action
		// (rule 4's carried failure on a written check run exits 0).
		return action.Outcome(res, *out, failOn, err)
	}
	// Nothing posted: the exit code carries what the printed report says.
	if res.AllFailed {
		return fmt.Errorf("%w: every persona failed", action.ErrCannotRun)
	}
	switch c, n := report.Conclusion(res, failOn); c {
	case report.ConclusionFailure:
		if n == 0 && res.Partial {
			return fmt.Errorf("%w: %s", action.ErrIncomplete, strings.Join(res.Incomplete, "; "))
		}
		return fmt.Errorf("%w: %d finding(s) at %s or worse", action.ErrBlocking, n, failOn)
	case report.ConclusionActionRequired:
		// on-new-commits skip left commits unreviewed; with no check run
		// to say so, the exit code does (as the Action's would).
		return fmt.Errorf("%w: new commits were not reviewed (on-new-commits: skip)", action.ErrBlocking)
	}
	return nil
}

// reviewError classifies what the review returned: nil when a report can
// be printed (every persona failing is such a report); an invalid
// repository configuration is a usage error naming where it was read,
// as in the Action (exit 2, nothing posted); anything else is a review
// that could not run (exit 3).
func reviewError(res review.Result, err error) error {
	switch {
	case err == nil, errors.Is(err, review.ErrAllPersonasFailed):
		return nil
	case errors.Is(err, repoconfig.ErrInvalid):
		where := "repository"
		if u := res.Coverage.Config; u != nil {
			where = u.Where
		}
		return fmt.Errorf("%w: %w (read at the %s; nothing was reviewed)", ErrUsage, err, where)
	}
	return fmt.Errorf("%w: %w", action.ErrCannotRun, err)
}

// secrets are the values the printed and posted report must never show:
// the tokens and keys given by flag (extra) or environment.
func secrets(getenv func(string) string, extra ...string) []string {
	var s []string
	for _, v := range append(extra, getenv("OPENAI_API_KEY"), getenv("GITHUB_TOKEN")) {
		if v != "" {
			s = append(s, v)
		}
	}
	return s
}

// errNothingToReview: the local change is empty. It is not a usage error:
// the command says so and exits 0.
var errNothingToReview = errors.New("nothing to review")

// localChange is a local diff ready for review.
type localChange struct {
	diff        *diff.Diff
	title, body string
	// headSHA is HEAD's commit for --base (the report's meta and links);
	// empty for --diff.
	headSHA string
	// head reads a file's head version for the validator and the
	// standards files; it records the changed files it could not read.
	head   func(context.Context, string) (string, bool, error)
	unread *unreadFiles
	// where says where head reads files, and fix how to make them
	// readable, for the warning about unread ones.
	where, fix string
	// config reads the repository configuration at the merge base of
	// --base; nil for --diff, whose configuration is read with head.
	config *review.ConfigSource
}

// unreadFiles collects the changed files whose head version could not be
// read (the validator then sees none); safe for concurrent use.
type unreadFiles struct {
	mu      sync.Mutex
	changed map[string]bool // the diff's non-deleted files
	missed  []string
}

func (u *unreadFiles) note(p string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.changed[p] && !slices.Contains(u.missed, p) {
		u.missed = append(u.missed, p)
	}
}

func (u *unreadFiles) list() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := slices.Clone(u.missed)
	slices.Sort(out)
	return out
}

// readLocal reads --diff (a file, or - for stdin) or runs git for --base.
// An empty change is errNothingToReview; text that is not a diff is a
// usage error.
func (f reviewFlags) readLocal(ctx context.Context) (*localChange, error) {
	var raw []byte
	var err error
	lc := &localChange{title: f.title, body: f.body}
	switch {
	case f.diffFile == "-":
		raw, err = io.ReadAll(os.Stdin)
	case f.diffFile != "":
		raw, err = os.ReadFile(f.diffFile)
	default:
		raw, err = git(ctx, f.dir, "diff", "--no-color", "--no-ext-diff", f.base+"...HEAD")
	}
	if err != nil {
		return nil, fmt.Errorf("%w: read diff: %w", ErrUsage, err)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		if f.base != "" {
			return nil, fmt.Errorf("%w: HEAD has no changes since its merge base with %s", errNothingToReview, f.base)
		}
		return nil, fmt.Errorf("%w: the diff %s is empty", errNothingToReview, f.diffFile)
	}
	d, err := diff.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if len(d.Files) == 0 {
		return nil, fmt.Errorf("%w: %s holds no unified diff (no \"diff --git\" or \"---\"/\"+++\" file headers)", ErrUsage, firstNonEmpty(f.diffFile, "the git diff"))
	}
	lc.diff = d
	lc.unread = &unreadFiles{changed: map[string]bool{}}
	for _, fd := range d.Files {
		if fd.NewPath != "" && !fd.Binary {
			lc.unread.changed[fd.NewPath] = true
		}
	}
	var read func(ctx context.Context, p string) (string, bool, error)
	if f.base != "" {
		lc.where, lc.fix = "HEAD in "+f.dir, "Check that --dir is the repository whose HEAD holds the change."
		read = func(ctx context.Context, p string) (string, bool, error) {
			b, err := git(ctx, f.dir, "show", "HEAD:"+p)
			if err != nil {
				return "", false, nil
			}
			return string(b), true, nil
		}
		if err := f.describeCommits(ctx, lc); err != nil {
			return nil, err
		}
		if lc.config, err = f.baseConfig(ctx); err != nil {
			return nil, err
		}
	} else {
		lc.where, lc.fix = "--dir "+f.dir, "Run from the repository's root, or pass its path with --dir."
		read = func(_ context.Context, p string) (string, bool, error) {
			b, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(p)))
			if errors.Is(err, os.ErrNotExist) {
				return "", false, nil
			}
			return string(b), err == nil, err
		}
	}
	lc.head = func(ctx context.Context, p string) (string, bool, error) {
		// Paths come from the (untrusted) diff: only files inside --dir.
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			return "", false, nil
		}
		text, found, err := read(ctx, p)
		if !found || err != nil {
			lc.unread.note(p)
		}
		return text, found, err
	}
	return lc, nil
}

// describeCommits fills what --base knows of the change from git: HEAD's
// commit, and, unless --title/--body are given, a title and body from the
// commits REF..HEAD (one commit: its subject and body; several: the first
// subject, and every subject listed).
func (f reviewFlags) describeCommits(ctx context.Context, lc *localChange) error {
	sha, err := git(ctx, f.dir, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	lc.headSHA = strings.TrimSpace(string(sha))
	out, err := git(ctx, f.dir, "log", "--reverse", "--no-color", "--format=%s%x00%b%x1e", f.base+"..HEAD")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	var subjects, bodies []string
	for _, rec := range strings.Split(string(out), "\x1e") {
		subject, body, ok := strings.Cut(strings.TrimLeft(rec, "\n"), "\x00")
		if !ok {
			continue
		}
		subjects, bodies = append(subjects, strings.TrimSpace(subject)), append(bodies, strings.TrimSpace(body))
	}
	title, body := "", ""
	switch len(subjects) {
	case 0:
	case 1:
		title, body = subjects[0], bodies[0]
	default:
		title = subjects[0]
		var b strings.Builder
		fmt.Fprintf(&b, "%d commits:\n", len(subjects))
		for _, s := range subjects {
			b.WriteString("- " + s + "\n")
		}
		body = strings.TrimSuffix(b.String(), "\n")
	}
	lc.title = firstNonEmpty(f.title, title)
	lc.body = firstNonEmpty(f.body, body)
	return nil
}

// baseConfig reads the repository configuration of --base where a pull
// request's is read: at the base of the change, the merge base of REF and
// HEAD (the diff is REF...HEAD), so the change cannot set its own review.
func (f reviewFlags) baseConfig(ctx context.Context) (*review.ConfigSource, error) {
	out, err := git(ctx, f.dir, "merge-base", f.base, "HEAD")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	mb := strings.TrimSpace(string(out))
	return &review.ConfigSource{
		Where: "merge base with " + f.base + " (" + mb[:min(len(mb), 12)] + ")",
		Read: func(ctx context.Context, p string) (string, bool, error) {
			// ls-tree tells a missing file (no output) from a failure.
			listed, err := git(ctx, f.dir, "ls-tree", "--name-only", mb, "--", p)
			if err != nil {
				return "", false, err
			}
			if len(bytes.TrimSpace(listed)) == 0 {
				return "", false, nil
			}
			b, err := git(ctx, f.dir, "show", mb+":"+p)
			if err != nil {
				return "", false, err
			}
			return string(b), true, nil
		},
	}, nil
}

// nothingToReview turns errNothingToReview into a message and a clean
// exit (0); any other error is returned as is.
func nothingToReview(err error, stderr io.Writer) error {
	if errors.Is(err, errNothingToReview) {
		fmt.Fprintf(stderr, "anchor-review: %v\n", err)
		return nil
	}
	return err
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
