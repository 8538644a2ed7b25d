package review

import (
	"context"
	"fmt"
	"slices"

	"github.com/anchor-review/anchor-review/pkg/diff"
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
	// prompt is the PR context every persona and the validator see.
	prompt prompt.Context
	// humanComments counts review comments from people (previous-comments).
	humanComments int
	// notReviewed lists what was lost before scope (GitHub's file cap).
	notReviewed []Excluded
	head        HeadReader
	// tree lists the head tree (for the testing persona's test-file
	// list); nil when there is none (a local diff).
	tree TreeReader
	// carry, for an incremental re-review, holds the earlier findings to
	// carry or check again; nil for a whole-PR review.
	carry *carryPlan
}

// run is everything after the diff is in hand: scope, select, dispatch,
// synthesize, validate, verdict.
func (r *Reviewer) run(ctx context.Context, o Options, res *Result, in runInput) error {
	pc, notReviewed := in.prompt, in.notReviewed
	// One head-file cache for the whole run: new and carried findings in
	// the same file cost one read.
	heads := newFileCache(in.head)
	head := heads.get
	res.IncompleteConclusion = o.Incomplete // after the repository configuration
	sc, err := applyScope(in, o.Exclude)
	if err != nil {
		return err // scope's errors name their stage and the bad pattern
	}
	notReviewed = append(notReviewed, sc.Excluded...)
	res.Files = sc.Files
	o.logf("scope: %d files to review, %d excluded, %d executable changed lines", len(sc.Files), len(sc.Excluded), sc.ExecutableLines)

	// Stage 3: select.
	var stdPaths []string
	for _, s := range pc.Standards {
		stdPaths = append(stdPaths, s.Path)
	}
	all := r.Personas
	if len(o.repo.Personas) > 0 {
		all = append(slices.Clip(all), o.repo.Personas...)
	}
	// The head tree's tests: a selection signal, and the testing
	// persona's context.
	tests := readTests(ctx, o, sc.Files, in.tree)
	team, err := persona.Select(all, persona.Signals{Files: sc.Files, ExecutableLines: sc.ExecutableLines, Standards: stdPaths, HumanReviewComments: in.humanComments, Tests: tests}, o.Personas)
	if err != nil {
		return fmt.Errorf("select: %w", err)
	}
	for _, p := range team {
		o.logf("select: %s (%s)", p.Name, p.Reason)
	}
	if len(team) == 0 && len(sc.Files) > 0 {
		// Only a `personas` restriction can empty the team: nothing looked
		// at the files, so the review must not read as a clean pass.
		o.logf("select: no persona of the team applies to this diff; nothing was reviewed")
		res.incomplete("no persona of the team (input personas) applies to this diff: nothing was reviewed")
	}

	// Context: the head version of each changed file, read once per run
	// (the validator reuses the cache), and the head tree's test files.
	// An incremental re-review sends the personas the new commits and
	// nothing else (its cost grows with the delta): no head context.
	pc.Heads = readContext(ctx, o, sc.Files, heads, in.carry == nil)
	if tests != nil {
		pc.Tests = tests.Of
	}
	pc.Excerpts = prompt.NewExcerptCache()
	pc.Fence = o.Fence

	// Budget: every persona request, fixed parts, context and diff
	// together, fits max-input-tokens; the diff is split into parts of
	// whole files (or whole hunks), and the planned persona calls leave room
	// for the validator under the call cap.
	var members []persona.Persona
	for _, p := range team {
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
	notReviewed = append(notReviewed, left...)
	// Files too large for a call, or over the call budget, were meant to be
	// reviewed: the review is incomplete (deliberate exclusions are not).
	if len(left) > 0 {
		res.incomplete("%s not reviewed: too large for one model call (max-input-tokens %d)", plural(len(left), "file", "files"), o.MaxInputTokens)
	}
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
				notReviewed = append(notReviewed, Excluded{Path: "(persona " + p.Name + ")", Reason: overBudget})
				res.incomplete("persona %s not run: %s", p.Name, overBudget)
			}
			team, keep = team[:max(personaCalls, 0)], 1
		}
		skipped := 0
		for _, part := range parts[keep:] {
			for _, f := range part.Files {
				notReviewed = append(notReviewed, Excluded{Path: f.Path(), Reason: overBudget})
			}
			skipped += len(part.Files)
		}
		if skipped > 0 {
			res.incomplete("%s not reviewed: %s", plural(skipped, "file", "files"), overBudget)
		}
		parts = parts[:keep]
		o.logf("dispatch: the budget allows %d of the diff's parts", keep)
	}
	res.Coverage.NotReviewed = dedupeExcluded(notReviewed)

	// Stage 4: dispatch. A fatal model error (llm.Fatal) halts the budget,
	// which cancels this context: no call is made after it.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	calls := &callBudget{limit: o.MaxLLMCalls, stop: stop}
	results, runs := r.dispatch(ctx, o, team, parts, pc, calls)
	if err := calls.halted(); err != nil {
		return r.refused(o, res, runs, err)
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
		return fmt.Errorf("dispatch: %w", ErrAllPersonasFailed)
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// Stage 5: synthesize. Step 1 anchors findings to their quoted code in
	// the head files they name, read once through the run's cache (the
	// validator reuses the reads).
	out := synth.Synthesize(synth.Input{Results: results, Files: sc.Files, Mode: o.Mode, SuppressionForbidden: forbidsSuppression(pc.Standards),
		Heads: readHeads(ctx, head, synth.NamedFiles(results, sc.Files), o.MaxConcurrency)})
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

	// Stage 5b: validate.
	posted := out.Gated
	if o.Validate {
		// The validator judges each finding against its file's whole
		// change: the scoped diff's files (a file split into groups of
		// hunks across parts is whole here), or in an incremental review
		// the PR's change of the files the new commits touched.
		vc := pc
		vc.WholeFiles = sc.Files
		if in.carry != nil {
			vc.WholeFiles = in.carry.deltaPR
		}
		posted, _ = r.validate(ctx, o, res, out.Gated, parts, vc, head, calls)
	}
	if in.carry != nil {
		c := pc
		c.Fence = o.Fence
		posted = r.carry(ctx, o, res, posted, in.carry, c, head, calls)
	}
	if err := calls.halted(); err != nil {
		// The validator's model refused the run (SPEC 7.1): it stops
		// here, as a refusal of the personas' model does, and posts no
		// finding of a validation it did not finish.
		return r.refused(o, res, res.Coverage.Personas, err)
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
	sc, err := scope.ApplyWith(in.diff, exclude, in.attrs)
	if err != nil || in.carry == nil {
		return sc, err
	}
	prSc, err := scope.ApplyWith(&diff.Diff{Files: in.carry.deltaPR}, exclude, in.attrs)
	if err != nil {
		return sc, err
	}
	ownCode := map[string]bool{}
	for _, f := range prSc.Files {
		ownCode[f.Path()] = true
	}
	back := map[string]bool{} // excluded as generated in the delta alone
	out := scope.Scope{ExecutableLines: sc.ExecutableLines}
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
func (r *Reviewer) refused(o Options, res *Result, runs []PersonaRun, err error) error {
	res.Coverage.Personas = runs
	res.AllFailed, res.Verdict = true, Degraded
	res.Failure = "the model endpoint refused the run: " + err.Error()
	res.incomplete("%s", res.Failure)
	o.logf("dispatch: %s; no further model call was made", res.Failure)
	return fmt.Errorf("dispatch: %w: %w", ErrModelRefused, err)
}
