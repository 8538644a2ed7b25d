package review

import (
	"fmt"
	"time"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/pricing"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// Verdict is the overall judgement of a review, decided by code.
type Verdict string

// Verdicts, as SPEC section 3 names them.
const (
	Ready          Verdict = "ready"
	ReadyWithFixes Verdict = "ready-with-fixes"
	NotReady       Verdict = "not-ready"
	Degraded       Verdict = "degraded"
)

// Result is everything one review produced: what the report stage renders,
// what the check run concludes from, and what report-path serializes.
type Result struct {
	Repo    string `json:"repo"`               // "owner/name"
	PR      int    `json:"pr"`                 // 0 for a local diff
	HeadSHA string `json:"head_sha"`           // full 40-char SHA ("" for a local diff)
	BaseRef string `json:"base_ref,omitempty"` // the PR's base branch ("" for a local diff)
	// ScopeKey fingerprints what decided the review's coverage (ScopeKey).
	ScopeKey string `json:"scope_key,omitempty"`
	Title    string `json:"title"`     // PR title (untrusted; sanitize before rendering)
	Mode     string `json:"mode"`      // "comment" or "report-only"
	Skipped  bool   `json:"skipped"`   // Stage 1 ended the run
	SkipRule int    `json:"skip_rule"` // 1..4 when Skipped
	// SkipReason is a human sentence, e.g. "pull request is a draft".
	SkipReason string `json:"skip_reason,omitempty"`
	// Cost is this run's estimated cost (report.EstimateCost), set by the
	// Action and the command line before the result is written.
	Cost *pricing.Estimate `json:"cost,omitempty"`
	// Carried is the earlier report's metadata when rule 4 fired, or when
	// on-new-commits is skip and the new commits were skipped.
	Carried *marker.Meta `json:"carried,omitempty"`
	// CarriedFrom is the id of the report comment rule 4 carried.
	CarriedFrom int64 `json:"carried_from,omitempty"`
	// Unreviewed is set when on-new-commits skip left new commits
	// unreviewed: the check on the new head must not be green.
	Unreviewed *Unreviewed `json:"unreviewed,omitempty"`
	// Rereview is set when the PR had a report for an older head: the
	// reviewed range, carried findings, and the history of heads.
	Rereview *Rereview `json:"rereview,omitempty"`
	// Submodules are the submodule pointers the change moves: the code
	// they point at is another repository's, so no persona saw it. The
	// report names them; they do not change the conclusion (like a
	// dependency bump).
	Submodules []scope.Submodule `json:"submodules,omitempty"`

	// Findings are the validated findings at anchor >= 75, sorted and
	// numbered 1..N: exactly what the comment lists.
	Findings []finding.Finding `json:"findings"`
	// BelowBar are P0 findings at anchor 50 kept by the gate's escape hatch:
	// shown in the check run and job summary, never in the comment.
	BelowBar []finding.Finding `json:"below_bar"`
	// Dismissed are posted findings a person dismissed and whose
	// dismissal still applies (ApplyDismissals): listed apart, never
	// blocking, still recorded in the metadata so later runs carry them.
	Dismissed []finding.Finding `json:"dismissed,omitempty"`
	// Dismissals are the pull request's dismissals, read from our report's
	// metadata: the report, the check and the metadata list each.
	Dismissals []marker.Dismissal `json:"dismissals,omitempty"`
	// PreExisting findings never leave the review; kept for report-path.
	PreExisting []finding.Finding `json:"pre_existing"`
	// Demoted holds, in report-only mode, the findings mode-aware demotion
	// moved to testing gaps / residual risks.
	Demoted []finding.Finding `json:"demoted"`
	// TestingGaps and ResidualRisks are collected from persona answers.
	TestingGaps   []string `json:"testing_gaps"`
	ResidualRisks []string `json:"residual_risks"`

	Coverage Coverage `json:"coverage"`
	Verdict  Verdict  `json:"verdict"`
	// Partial is true when the review is not COMPLETE (SPEC 7.1): see
	// Incomplete for what was not done. Set only through incomplete().
	Partial bool `json:"partial"`
	// Incomplete says, one line each, what this review did not do: a
	// persona or chunk that failed, files left by the budget, a head file
	// that could not be read, a finding the validator could not confirm.
	Incomplete []string `json:"incomplete,omitempty"`
	// IncompleteConclusion is the check conclusion of an incomplete review
	// with nothing blocking: the `incomplete` input, "failure" or "neutral".
	IncompleteConclusion string `json:"incomplete_conclusion,omitempty"`
	// AllFailed is true when every persona failed: no report may claim a
	// clean PR, the check fails, the exit code is 3.
	AllFailed bool `json:"all_failed"`
	// Failure says why the review could not run (AllFailed), for the
	// report and the check run. It may quote untrusted text: sanitize it.
	Failure string `json:"failure,omitempty"`

	// Files are the files of the PR's diff (after scope for a whole-PR
	// review; the whole PR diff, not the delta, for an incremental one):
	// the inline stage checks comment lines and suggestions against them.
	// Not serialized: report-path carries findings, not the diff.
	Files []*diff.File `json:"-"`
}

// Unreviewed says which commits on-new-commits skip left unreviewed.
type Unreviewed struct {
	Since   string `json:"since"`   // the reviewed head
	Commits int    `json:"commits"` // how many commits since (0 = unknown)
}

// PersonaRun says why a persona ran and how it went.
type PersonaRun struct {
	Name   string `json:"name"`
	Reason string `json:"reason"` // "always on" or the selection reason
	Model  string `json:"model"`
	Calls  int    `json:"calls"`
	// Usage is the persona's own token use over its calls.
	Usage Usage `json:"usage"`
	// Failed is non-empty when the persona produced no usable answer.
	Failed string `json:"failed,omitempty"`
	// ChunksFailed counts chunks that failed while others answered: the
	// persona ran, the review is partial.
	ChunksFailed int `json:"chunks_failed,omitempty"`
	Findings     int `json:"findings"` // findings it reported (before synthesis)
}

// Excluded is a file left out of review, with the reason.
type Excluded = scope.Excluded

// Rejection is a finding the validator (or its budget) dropped.
type Rejection struct {
	Title  string `json:"title"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
	// Reviewers are the personas behind the finding (for eval's yield).
	Reviewers []string `json:"reviewers,omitempty"`
}

// Usage is token and call accounting.
type Usage struct {
	Calls            int           `json:"calls"`
	PromptTokens     int           `json:"prompt_tokens"`
	CachedTokens     int           `json:"cached_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	Wall             time.Duration `json:"wall_ns"`
}

// Coverage is what the collapsed Coverage section reports.
type Coverage struct {
	Personas []PersonaRun `json:"personas"`
	// DroppedByAnchor counts findings the gate dropped, keyed by anchor.
	DroppedByAnchor map[int]int `json:"dropped_by_anchor"`
	// DroppedByReason counts every synthesis drop by reason
	// (e.g. "invalid", "file not in PR", "duplicate", "lint-ignore",
	// "demoted", "below gate", "pre-existing").
	DroppedByReason map[string]int `json:"dropped_by_reason"`
	Demotions       int            `json:"demotions"`
	// ValidatorRan is false in report-only mode (the report says so).
	ValidatorRan bool `json:"validator_ran"`
	// ValidatorModel is the model the validator's calls went to: Usage
	// less the personas' own is the validator's, priced at this model.
	ValidatorModel string      `json:"validator_model,omitempty"`
	Validated      int         `json:"validated"`
	Rejections     []Rejection `json:"rejections"` // validator said false, or failed
	OverBudget     []Rejection `json:"over_budget"`
	NotReviewed    []Excluded  `json:"not_reviewed"`
	Usage          Usage       `json:"usage"`
	// TestingGapsDropped and ResidualRisksDropped count the notes
	// collectNotes dropped: repeats and those past MaxNotes.
	TestingGapsDropped   int `json:"testing_gaps_dropped,omitempty"`
	ResidualRisksDropped int `json:"residual_risks_dropped,omitempty"`
	// Config says which repository configuration file the review used;
	// nil when none was looked for (a local diff without one).
	Config *ConfigUse `json:"config,omitempty"`
	// Settings says where each effective setting came from (an input, the
	// configuration file, or the default); the action fills it in.
	Settings []Setting `json:"settings,omitempty"`
	// Notices are sentences of the Action's own about how the run went
	// that Coverage states once each: a comment ignored as no report of
	// ours, a thread that could not be resolved, and why.
	Notices []string `json:"notices,omitempty"`
}

// ConfigUse records the repository configuration of a review.
type ConfigUse struct {
	Path string `json:"path"`
	// Found is false when the file does not exist where it was read.
	Found bool `json:"found"`
	// Where it was read: "base commit" for a pull request, "working tree"
	// for a local diff.
	Where string `json:"where"`
	// EditedByPR is true when the pull request changes the file: it was
	// reviewed with the base version all the same.
	EditedByPR bool `json:"edited_by_pr,omitempty"`
	// CustomPersonas names the personas the file defines.
	CustomPersonas []string `json:"custom_personas,omitempty"`
}

// Sources of an effective setting.
const (
	SourceInput  = "input"
	SourceConfig = "config file"
	// SourceOrg is the Action's `config` input: organization-wide defaults
	// set in a central reusable workflow, under the repository's file.
	SourceOrg     = "config input"
	SourceDefault = "default"
)

// Setting is one effective setting and where its value came from.
type Setting struct {
	Name   string `json:"name"`   // the input name ("fail-on")
	Value  string `json:"value"`  // as the input would spell it
	Source string `json:"source"` // SourceInput, SourceConfig or SourceDefault
}

// incomplete records one thing the review did not do. An incomplete review
// is never green unless the team opted into "neutral".
func (r *Result) incomplete(format string, args ...any) {
	r.Partial = true
	r.Incomplete = append(r.Incomplete, fmt.Sprintf(format, args...))
}

// MarkIncomplete records, from outside the orchestrator (the Action when a
// review could not run), one thing the review did not do.
func (r *Result) MarkIncomplete(reason string) { r.incomplete("%s", reason) }

// Complete reports whether the review was COMPLETE (SPEC 7.1): nothing left
// undone, and it ran. Only a complete review may resolve what an earlier
// one found (inline comments, code-scanning alerts).
func (r Result) Complete() bool { return !r.Partial && !r.AllFailed && r.Verdict != Degraded }
