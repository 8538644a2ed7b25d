package review

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/scope"
	"github.com/anchor-review/anchor-review/pkg/synth"
	"golang.org/x/sync/errgroup"
)

// HeadReader returns a file's head version: its text, whether it exists,
// and an error when it could not be read.
type HeadReader func(ctx context.Context, path string) (content string, found bool, err error)

// runInput is what a review has in hand once the diff is read: the same for
// a pull request and a local diff.
type runInput struct {
	diff  *diff.Diff
	attrs scope.Attributes // .gitattributes marks at the base
	// base is what the base commit holds, for scope's path heuristics;
	// nil for a local diff (names decide).
	base *scope.Base
	// prompt is the PR context every persona and the validator see.
	prompt prompt.Context
	// humanComments counts review comments from people (previous-comments).
	humanComments int
	// notReviewed lists what was lost before scope (GitHub's file cap).
	notReviewed []Excluded
	head        HeadReader
	// old reads a file's version on the diff's old side (the base, or the
	// head an earlier review saw); nil when there is none (a local diff).
	old HeadReader
	// headBytes and oldBytes read the same versions a bounded number of
	// bytes at a time (nil: head and old, bounded after the read).
	headBytes, oldBytes FileReader
	// baseBytes reads the pull request's base commit whatever review this
	// is (whole or incremental): the lock-file check compares the base
	// with the head. nil for a local diff.
	baseBytes FileReader
	// tree lists the head tree (for the testing persona's test-file
	// list); nil when there is none (a local diff).
	tree TreeReader
	// carry, for an incremental re-review, holds the earlier findings to
	// carry or check again; nil for a whole-PR review.
	carry *carryPlan
}

// reviewRun is one review's state once the diff is in hand: what the
// stages read and fill in, so each stage is a method that takes only what
// is its own. It lives for one call of run (or of an incremental review
// with nothing new to dispatch).
type reviewRun struct {
	r *Reviewer
	// warm is the run's cache warm-up policy.
	warm *warmth
	o    Options
	res  *Result
	in   runInput
	// heads is the run's one head-file cache: new and carried findings in
	// the same file cost one read, and context, synthesis and the
	// validator share it.
	heads *fileCache
	// budget bounds the file content the run keeps (read.go).
	budget *contentBudget
	// facts are the lock-file check's findings: facts, not model claims,
	// posted without the validator (lockfiles.go).
	facts []finding.Finding
	// lockChecked are the lock files the check read this run: its facts
	// there replace whatever an earlier review found in them.
	lockChecked map[string]bool
	// pc is the PR context every persona and the validator see; the
	// context stage adds the head files and test-file lists.
	pc prompt.Context
	// sc is Stage 2's choice of files; team is Stage 3's personas.
	sc   scope.Scope
	team []persona.Selected
	// tests is what the head tree says of the repository's tests: a
	// selection signal and the testing persona's context (nil without a
	// tree).
	tests *persona.TestIndex
	// parts are the parts of the diff the personas review (each fits one
	// request); a finding's validator sees the diff of its part.
	parts []prompt.Part
	// notReviewed gathers what was meant to be reviewed and was not; it
	// goes into Coverage once the call budget is planned.
	notReviewed []Excluded
	// calls is max-llm-calls and the run's stop switch.
	calls *callBudget
	// usageMu guards res.Coverage.Usage while validator calls run.
	usageMu sync.Mutex
}

// newRun is the state a run starts with: the input's prompt context (with
// the run's data fence), the lists of what was lost before scope, and a
// head-file cache over in.head.
func newRun(r *Reviewer, o Options, res *Result, in runInput) *reviewRun {
	if in.headBytes == nil {
		in.headBytes = readerOf(in.head)
	}
	if in.oldBytes == nil {
		in.oldBytes = readerOf(in.old)
	}
	budget := newContentBudget(ContentBudget)
	heads := newFileCache(func(ctx context.Context, path string) (string, bool, error) {
		return budget.read(ctx, in.headBytes, path)
	})
	rn := &reviewRun{r: r, o: o, res: res, in: in, heads: heads, budget: budget, pc: in.prompt, notReviewed: in.notReviewed}
	rn.pc.Suggestions, rn.pc.Fence = o.Suggestions, o.Fence
	rn.warm = newWarmth(&rn.o)
	return rn
}

// head reads a file's head version through the run's cache.
func (rn *reviewRun) head(ctx context.Context, path string) (string, bool, error) {
	return rn.heads.get(ctx, path)
}

// run is everything after the diff is in hand: scope, select, dispatch,
// synthesize, validate, verdict.
func (r *Reviewer) run(ctx context.Context, o Options, res *Result, in runInput) error {
	rn := newRun(r, o, res, in)
	res.IncompleteConclusion = o.Incomplete // after the repository configuration
	if err := rn.scope(ctx); err != nil {
		return err // scope's errors name their stage and the bad pattern
	}
	rn.readTests(ctx)
	if err := rn.selectTeam(); err != nil {
		return err
	}
	rn.readContext(ctx)
	rn.fit()
	rn.planCalls()

	// A fatal model error (llm.Fatal) halts the budget, which cancels this
	// context: no call is made after it.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	rn.calls = &callBudget{limit: o.MaxLLMCalls, stop: stop}
	results, err := rn.dispatched(ctx)
	if err != nil {
		return err
	}
	posted := rn.synthesize(ctx, results)
	if o.Validate {
		posted = rn.validateNew(ctx, posted)
	}
	if len(rn.facts) > 0 {
		// The lock-file check's facts: posted as found, no validator.
		posted = append(posted, rn.facts...)
		synth.Sort(posted)
	}
	if in.carry != nil {
		posted = rn.carry(ctx, posted)
	}
	return rn.finish(posted)
}

// scope is Stage 2's choice of files.
func (rn *reviewRun) scope(ctx context.Context) error {
	o, res := rn.o, rn.res
	sc, err := applyScope(rn.in, o.Exclude)
	if err != nil {
		return err
	}
	rn.sc = sc
	listed := rn.readUnseen(ctx)
	rn.checkLocks(ctx)
	sc = rn.sc
	res.Submodules = sc.Submodules
	rn.notReviewed = append(rn.notReviewed, sc.Excluded...)
	// The Result's files place inline comments and fingerprints on the
	// lines GitHub's diff shows: a file GitHub calls binary keeps its own
	// entry there, without lines, although its text went to the personas
	// (a comment on a line GitHub does not show fails the whole review).
	res.Files = make([]*diff.File, len(sc.Files))
	for i, f := range sc.Files {
		res.Files[i] = cmp.Or(listed[f], f)
	}
	// The lock files the check read: its findings stand on their lines,
	// and an inline comment can too.
	for _, f := range rn.in.diff.Files {
		if rn.lockChecked[f.Path()] {
			res.Files = append(res.Files, f)
		}
	}
	o.logf("scope: %d files to review, %d excluded, %d executable changed lines", len(sc.Files), len(sc.Excluded), sc.ExecutableLines)
	return nil
}

// selectTeam is Stage 3: the built-in and the repository's personas the
// diff selects, restricted by the personas option.
func (rn *reviewRun) selectTeam() error {
	o, res, sc, pc := rn.o, rn.res, rn.sc, rn.pc
	var stdPaths []string
	for _, s := range pc.Standards {
		stdPaths = append(stdPaths, s.Path)
	}
	all := rn.r.Personas
	if len(o.repo.Personas) > 0 {
		all = append(slices.Clip(all), o.repo.Personas...)
	}
	team, err := persona.Select(all, persona.Signals{Files: sc.Files, ExecutableLines: sc.ExecutableLines, Standards: stdPaths, HumanReviewComments: rn.in.humanComments, Tests: rn.tests}, o.Personas)
	if err != nil {
		return fmt.Errorf("select: %w", err)
	}
	team = slices.DeleteFunc(team, func(p persona.Selected) bool {
		out := slices.Contains(o.ExcludePersonas, p.Name)
		if out {
			o.logf("select: %s left out (input exclude-personas)", p.Name)
		}
		return out
	})
	for _, p := range team {
		o.logf("select: %s (%s)", p.Name, p.Reason)
	}
	if len(team) == 0 && len(sc.Files) > 0 {
		// Only a `personas` restriction or exclusion can empty the team: nothing looked
		// at the files, so the review must not read as a clean pass.
		o.logf("select: no persona of the team applies to this diff; nothing was reviewed")
		res.incomplete("no persona of the team (inputs personas, exclude-personas) applies to this diff: nothing was reviewed")
	}
	rn.team = team
	return nil
}

// fit splits the diff into parts so that every persona request, fixed
// parts, context and diff together, fits max-input-tokens; the parts hold
// whole files (or whole hunks). A file too large for any request is not
// reviewed, and the review is incomplete.
func (rn *reviewRun) fit() {
	o, res, sc, pc := rn.o, rn.res, rn.sc, rn.pc
	var members []persona.Persona
	for _, p := range rn.team {
		members = append(members, p.Persona)
	}
	// When the validator runs, persona requests keep room for its own
	// messages, so a validator request fits with the persona prefix.
	// Path instructions differ per part: the fixed parts count them all.
	withPaths := pc
	withPaths.PathInstructions = pathInstructions(o.repo.PathInstructions, sc.Files)
	fixed := prompt.FixedTokens(withPaths, members, o.Validate)
	fit := pc
	fit.Files = sc.Files
	parts, left := prompt.Fit(fit, o.MaxInputTokens-fixed)
	for i := range left {
		left[i].Reason = fmt.Sprintf("%s (max-input-tokens %d)", left[i].Reason, o.MaxInputTokens)
		if fixed >= o.MaxInputTokens {
			left[i].Reason = fmt.Sprintf("not reviewed: the fixed parts of a request (%d tokens) leave nothing of max-input-tokens %d", fixed, o.MaxInputTokens)
		}
	}
	if fixed >= o.MaxInputTokens && len(sc.Files) > 0 {
		o.logf("dispatch: max-input-tokens %d cannot hold even one file: the fixed parts of a request take %d tokens", o.MaxInputTokens, fixed)
	}
	rn.notReviewed = append(rn.notReviewed, left...)
	// Files too large for a call, or over the call budget, were meant to be
	// reviewed: the review is incomplete (deliberate exclusions are not).
	if len(left) > 0 {
		res.incomplete("%s not reviewed: too large for one model call (max-input-tokens %d)", plural(len(left), "file", "files"), o.MaxInputTokens)
	}
	rn.parts = parts
}

// planCalls keeps the planned persona calls under the call cap, with room
// left for the validator, and records in Coverage everything not reviewed.
func (rn *reviewRun) planCalls() {
	o, res, team, parts := rn.o, rn.res, rn.team, rn.parts
	personaCalls := o.MaxLLMCalls
	if o.Validate {
		personaCalls -= min(o.MaxValidations, o.MaxLLMCalls/2)
	}
	overBudget := fmt.Sprintf("over the budget of %d model calls", o.MaxLLMCalls)
	if len(team) > 0 && len(parts)*len(team) > personaCalls {
		keep := personaCalls / len(team)
		if keep == 0 && len(parts) > 0 {
			// Not even one round of the whole team fits: the first part
			// goes to as many personas as the cap allows (always-on first).
			for _, p := range team[max(personaCalls, 0):] {
				o.logf("dispatch: %s not run: %s", p.Name, overBudget)
				rn.notReviewed = append(rn.notReviewed, Excluded{Path: "(persona " + p.Name + ")", Reason: overBudget})
				res.incomplete("persona %s not run: %s", p.Name, overBudget)
			}
			team, keep = team[:max(personaCalls, 0)], 1
		}
		skipped := 0
		for _, part := range parts[keep:] {
			for _, f := range part.Files {
				rn.notReviewed = append(rn.notReviewed, Excluded{Path: f.Path(), Reason: overBudget})
			}
			skipped += len(part.Files)
		}
		if skipped > 0 {
			res.incomplete("%s not reviewed: %s", plural(skipped, "file", "files"), overBudget)
		}
		parts = parts[:keep]
		o.logf("dispatch: the budget allows %d of the diff's parts", keep)
	}
	rn.team, rn.parts = team, parts
	res.Coverage.NotReviewed = dedupeExcluded(rn.notReviewed)
}

// dispatched is Stage 4: the persona calls, and what their runs say about
// the review. It returns the answers, or the error that ends the run: the
// endpoint refused it, every persona failed, or ctx ended.
func (rn *reviewRun) dispatched(ctx context.Context) ([]synth.PersonaResult, error) {
	res, team := rn.res, rn.team
	results, runs := rn.dispatch(ctx)
	if err := rn.calls.halted(); err != nil {
		return nil, rn.refused(runs, err)
	}
	res.Coverage.Personas = runs
	failed := 0
	for _, pr := range runs {
		res.Coverage.Usage.sum(pr.Usage)
		switch {
		case pr.Failed != "":
			failed++
			res.incomplete("persona %s failed", pr.Name)
		case pr.ChunksFailed > 0:
			res.incomplete("persona %s failed on %d of %d parts of the diff", pr.Name, pr.ChunksFailed, pr.Calls)
		}
	}
	if len(team) > 0 && failed == len(team) {
		res.AllFailed, res.Partial, res.Verdict = true, true, Degraded
		res.Failure = "every persona failed; the first error: " + runs[0].Failed
		return nil, fmt.Errorf("dispatch: %w", ErrAllPersonasFailed)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

// synthesize is Stage 5. Step 1 anchors findings to their quoted code in
// the head files they name, read once through the run's cache (the
// validator reuses the reads). It returns the findings that pass the gate.
func (rn *reviewRun) synthesize(ctx context.Context, results []synth.PersonaResult) []finding.Finding {
	o, res, sc, pc := rn.o, rn.res, rn.sc, rn.pc
	// Lint-ignore suppression judges "added by this PR" on the PR's whole
	// change, not on the new commits of an incremental review.
	var changed []*diff.File
	if rn.in.carry != nil {
		changed = rn.in.carry.deltaPR
	}
	out := synth.Synthesize(synth.Input{Results: results, Files: sc.Files, Changed: changed, Mode: o.Mode, SuppressionForbidden: forbidsSuppression(pc.Standards),
		Heads: readHeads(ctx, rn.head, synth.NamedFiles(results, sc.Files), o.MaxConcurrency)})
	res.Coverage.DroppedByAnchor = out.DroppedByAnchor
	res.Coverage.DroppedByReason = out.DroppedByReason
	// Demotions count in both modes: dropped in comment mode, moved to
	// testing gaps / residual risks in report-only mode.
	res.Coverage.Demotions = out.Demotions + len(out.Demoted)
	res.BelowBar, res.PreExisting, res.Demoted = out.BelowBar, out.PreExisting, out.Demoted
	var gaps, risks [][]string
	for _, pr := range results {
		gaps, risks = append(gaps, pr.Answer.TestingGaps), append(risks, pr.Answer.ResidualRisks)
	}
	res.TestingGaps, res.Coverage.TestingGapsDropped = collectNotes(gaps...)
	res.ResidualRisks, res.Coverage.ResidualRisksDropped = collectNotes(risks...)
	o.logf("synthesize: %d findings at anchor 75 or higher, %d P0 below the bar", len(out.Gated), len(out.BelowBar))
	o.logf("synthesize: %d findings moved to the line their evidence quotes, %d dropped as unanchored", out.Snapped, out.DroppedByReason[synth.ReasonUnanchored])
	return out.Gated
}

// validateNew is Stage 5b for this run's findings. The validator judges
// each finding against its file's whole change: the scoped diff's files (a
// file split into groups of hunks across parts is whole here), or in an
// incremental review the PR's change of the files the new commits touched.
func (rn *reviewRun) validateNew(ctx context.Context, gated []finding.Finding) []finding.Finding {
	vc := rn.pc
	vc.WholeFiles = rn.sc.Files
	if rn.in.carry != nil {
		vc.WholeFiles = rn.in.carry.deltaPR
	}
	answered, gated := rn.answered(ctx, gated)
	pass := &validation{gated: gated, parts: rn.parts, pc: vc, limit: rn.o.MaxValidations}
	kept, _ := rn.validate(ctx, pass)
	kept = rn.unfold(ctx, gated, kept, pass)
	if len(answered) == 0 {
		return kept
	}
	kept = append(kept, answered...)
	synth.Sort(kept)
	return kept
}

// finish numbers the findings to post and decides the verdict, unless the
// validator's model refused the run (SPEC 7.1): it stops here, as a
// refusal of the personas' model does, and posts no finding of a
// validation it did not finish.
func (rn *reviewRun) finish(posted []finding.Finding) error {
	res := rn.res
	if err := rn.calls.halted(); err != nil {
		return rn.refused(res.Coverage.Personas, err)
	}
	synth.Number(posted)
	res.Findings = posted
	res.Verdict = DecideVerdict(*res)
	return nil
}

// applyScope is Stage 2's choice of files. An incremental review scopes
// the new commits' diff, whose context lines hold what the pull request
// itself added before: a generated-code marker there excludes a file only
// when the PR's own change of it (from the base commit) is excluded too,
// since a PR cannot exclude its own code.
func applyScope(in runInput, exclude []string) (scope.Scope, error) {
	rules := scope.Rules{Exclude: exclude, Attrs: in.attrs, Base: in.base}
	sc, err := scope.ApplyRules(in.diff, rules)
	if err != nil || in.carry == nil {
		return sc, err
	}
	prSc, err := scope.ApplyRules(&diff.Diff{Files: in.carry.deltaPR}, rules)
	if err != nil {
		return sc, err
	}
	ownCode := map[string]bool{}
	for _, f := range prSc.Files {
		ownCode[f.Path()] = true
	}
	back := map[string]bool{} // excluded as generated in the delta alone
	out := scope.Scope{ExecutableLines: sc.ExecutableLines, Submodules: sc.Submodules}
	for _, e := range sc.Excluded {
		if e.Reason == scope.ReasonGenerated && ownCode[e.Path] {
			back[e.Path] = true
		} else {
			out.Excluded = append(out.Excluded, e)
		}
	}
	if len(back) == 0 {
		return sc, nil
	}
	for _, f := range in.diff.Files {
		switch {
		case back[f.Path()]:
			if scope.Executable(f.Path()) {
				out.ExecutableLines += f.Added() + f.Deleted()
			}
		case !slices.Contains(sc.Files, f):
			continue
		}
		out.Files = append(out.Files, f)
	}
	return out, nil
}

func dedupeExcluded(in []Excluded) []Excluded {
	seen := map[Excluded]bool{}
	var out []Excluded
	for _, e := range in {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// readHeads reads the head versions of files in parallel. A file that
// cannot be read is left out: synthesis then anchors against the lines the
// diff shows, and the validator reports the failure for its findings.
func readHeads(ctx context.Context, head HeadReader, files []*diff.File, limit int) map[string]string {
	got := make([]*string, len(files))
	var g errgroup.Group
	g.SetLimit(max(limit, 1))
	for i, f := range files {
		g.Go(func() error {
			if content, found, err := head(ctx, f.Path()); err == nil && found {
				got[i] = &content
			}
			return nil
		})
	}
	_ = g.Wait() // the goroutines return no error
	out := make(map[string]string, len(files))
	for i, f := range files {
		if got[i] != nil {
			out[f.Path()] = *got[i]
		}
	}
	return out
}

// plural renders "1 file" / "3 files".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// refused ends a run the model endpoint refused as a whole: one message,
// every persona recorded as not run, nothing posted as a review.
func (rn *reviewRun) refused(runs []PersonaRun, err error) error {
	o, res := rn.o, rn.res
	res.Coverage.Personas = runs
	res.AllFailed, res.Verdict = true, Degraded
	res.Failure = "the model endpoint refused the run: " + err.Error()
	res.incomplete("%s", res.Failure)
	o.logf("dispatch: %s; no further model call was made", res.Failure)
	return fmt.Errorf("dispatch: %w: %w", ErrModelRefused, err)
}
