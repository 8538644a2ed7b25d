// Package review is the orchestrator: it walks one pull request (or a local
// diff) through the stages of SPEC.md — skip, scope, select, dispatch,
// synthesize, validate — and returns one Result for the report stage.
//
// I/O happens only through the two interfaces declared here, GitHub and the
// model's llm.Completer, so the orchestrator runs the same against the real
// APIs, the in-process fakes of the demo, and recorded answers.
package review

import (
	"context"
	"errors"
	"time"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
)

// GitHub is what the review reads from GitHub. *github.Client implements it.
type GitHub interface {
	PullRequest(ctx context.Context, owner, repo string, n int) (*github.PR, error)
	IssueComments(ctx context.Context, owner, repo string, n int) ([]github.Comment, error)
	ReviewComments(ctx context.Context, owner, repo string, n int) ([]github.Comment, error)
	Diff(ctx context.Context, owner, repo string, n int) (github.DiffSource, error)
	FileContent(ctx context.Context, owner, repo, path, ref string) (string, bool, error)
	// FileBytes reads at most limit bytes of a file, streaming (whole:
	// the file ended within limit).
	FileBytes(ctx context.Context, owner, repo, path, ref string, limit int64) (content string, found, whole bool, err error)
	Tree(ctx context.Context, owner, repo, ref string) (paths []string, truncated bool, err error)
	Compare(ctx context.Context, owner, repo, base, head string) (github.Comparison, error)
	// CheckRunsOn lists a commit's check runs by name: the ownership test
	// of a report (skip.Ours) reads them.
	CheckRunsOn(ctx context.Context, owner, repo, sha, name string) ([]github.CheckRunRef, error)
}

// ErrNeedsModel is returned by a PrecheckOnly review whose pull request
// passed Stage 1: reviewing it needs the model.
var ErrNeedsModel = errors.New("the pull request needs a review and no model is available")

// ErrAllPersonasFailed is returned (wrapped, alongside a usable Result) when
// no persona produced an answer: the review could not run.
var ErrAllPersonasFailed = errors.New("every persona failed")

// Validator batching (the validator-batching input).
const (
	// ValidatePerFinding is one validator call per finding (the seed's).
	ValidatePerFinding = "per-finding"
	// ValidatePerFile is one validator call per file, judging each of the
	// file's findings on its own.
	ValidatePerFile = "per-file"
)

// Modes.
const (
	ModeComment    = "comment"
	ModeReportOnly = "report-only"
)

// Values of the `incomplete` input: the conclusion of an incomplete review
// with nothing blocking. "neutral" passes a required check, so it is opt-in.
const (
	IncompleteFailure = "failure"
	IncompleteNeutral = "neutral"
)

// Defaults for Options fields left zero.
const (
	DefaultMaxConcurrency = 8
	DefaultMaxValidations = 15
	DefaultMaxLLMCalls    = 60
	// DefaultMaxInputTokens bounds one whole model request (fixed parts,
	// context and diff, as prompt.EstimateTokens counts them): it fits the
	// 128k-token context of today's common hosted models with room for the
	// answer. A larger diff is split into parts of whole files.
	DefaultMaxInputTokens = 64_000
	// maxStandardsProbes bounds the AGENTS.md/CLAUDE.md look-ups of one run,
	// so a PR touching hundreds of directories cannot cost hundreds of reads.
	maxStandardsProbes = 24
)

// Options configure one review.
type Options struct {
	Owner, Repo string
	PR          int
	// Rerun is a deliberate manual re-review: it bypasses skip rule 4 only,
	// and reviews the whole PR.
	Rerun bool
	// OnNewCommits is what a PR whose report is for an older head gets:
	// OnNewCommitsReview (default) reviews the commits since, carrying the
	// earlier findings; OnNewCommitsSkip skips them, never green.
	OnNewCommits string
	Mode         string
	// Validate runs Stage 5b (comment mode, and the CLI's --post).
	Validate bool

	Exclude  []string
	Personas []string // restricts the team; empty means all that select
	// ExcludePersonas leaves these out of the team, whatever selects them.
	ExcludePersonas []string

	Model, StrongModel, ValidatorModel string

	MaxValidations int // 0 means none; negative means the default
	MaxConcurrency int
	MaxLLMCalls    int
	// MaxInputTokens bounds one whole model request: fixed parts, context
	// and diff; 0 means DefaultMaxInputTokens.
	MaxInputTokens int
	// ValidatorBatching is ValidatePerFinding (the default, "") or
	// ValidatePerFile.
	ValidatorBatching string
	// WarmCache sends, in each round, one call first (a persona call per
	// part of the diff, then one validator call) and the rest once it
	// answered, so a provider's prompt cache holds their shared prefix.
	WarmCache bool
	// WarmupHold bounds how long a call waits for its round's warm-up; 0
	// means DefaultWarmupHold.
	WarmupHold time.Duration
	// Suggestions asks the personas for committable suggestions (the
	// inline input, which posts them); off, their answer format does not
	// ask for one.
	Suggestions bool
	// WideContext is release 2's context, kept to measure context by need
	// (BENCHMARKS.md): head context for the test files of a PR that also
	// changes source code, and for each per-finding validation the diff of
	// the finding's whole part, not only its file's. Off (the default),
	// those test files are reviewed from their diff, and a validation with
	// its head file in hand gets its own file's diff.
	WideContext bool

	// Incomplete is the check conclusion of an incomplete review with
	// nothing blocking: ConclusionFailure (the default) or "neutral".
	Incomplete string

	BotLogin string

	// PrecheckOnly stops after Stage 1 (a run with no model key: fork and
	// Dependabot PRs get no secrets). A PR that is not skipped returns
	// ErrNeedsModel.
	PrecheckOnly bool

	// Configure, when set, receives the repository configuration
	// (.github/anchor-review.yml at the base commit; an empty File when it
	// is absent) before scope, and may change the options: the action
	// applies its precedence rule here, so inputs set in the workflow win
	// over the file. An error stops the review before any model call. The
	// file's instructions, path_instructions and custom personas are
	// applied by the review itself, Configure or not.
	Configure func(o *Options, f *repoconfig.File) error

	// LocalConfig, for ReviewDiff, is where the repository configuration
	// is read: `review --base` reads it at the merge base, so a change
	// cannot set its own review (as a pull request cannot). nil reads it
	// with ReviewDiff's head reader (the working tree of `review --diff`).
	LocalConfig *ConfigSource

	// repo is the repository configuration in effect (set by configure).
	repo repoconfig.File

	// Fence is the per-run data fence token; empty means a fresh random one.
	Fence string
	// Logf receives progress lines ("stage: detail"); nil discards them.
	Logf func(format string, args ...any)
}

func (o *Options) defaults() {
	if o.Mode == "" {
		o.Mode = ModeComment
	}
	if o.OnNewCommits == "" {
		o.OnNewCommits = OnNewCommitsReview
	}
	if o.MaxConcurrency <= 0 {
		o.MaxConcurrency = DefaultMaxConcurrency
	}
	if o.MaxValidations < 0 {
		o.MaxValidations = DefaultMaxValidations
	}
	if o.MaxLLMCalls <= 0 {
		o.MaxLLMCalls = DefaultMaxLLMCalls
	}
	if o.MaxInputTokens <= 0 {
		o.MaxInputTokens = DefaultMaxInputTokens
	}
	if o.ValidatorBatching == "" {
		o.ValidatorBatching = ValidatePerFinding
	}
	if o.StrongModel == "" {
		o.StrongModel = o.Model
	}
	if o.ValidatorModel == "" {
		o.ValidatorModel = o.Model
	}
	if o.Incomplete == "" {
		o.Incomplete = IncompleteFailure
	}
	if o.BotLogin == "" {
		o.BotLogin = "github-actions[bot]"
	}
	if o.Fence == "" {
		o.Fence = prompt.NewFence()
	}
}

// modelFor is the model a persona runs on: strong-model for the strong
// tier (correctness, security, adversarial), model for the rest.
func (o *Options) modelFor(p persona.Persona) string {
	if p.Tier == persona.TierStrong {
		return o.StrongModel
	}
	return o.Model
}

func (o *Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// Reviewer runs reviews. Its fields are the run's dependencies.
type Reviewer struct {
	GitHub   GitHub        // nil for a local diff
	Model    llm.Completer // personas and validator
	Personas []persona.Persona
}

// PR holds what Stage 1 fetched; the publisher reuses it (no second read).
type PR struct {
	Info     *github.PR
	Comments []github.Comment
}
