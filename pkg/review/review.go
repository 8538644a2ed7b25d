// Package review is the orchestrator: it walks one pull request (or a local
// diff) through the stages of SPEC.md — skip, scope, select, dispatch,
// synthesize, validate — and returns one Result for the report stage.
//
// I/O happens only through the two interfaces declared here, GitHub and the
// model's llm.Completer, so the orchestrator runs the same against the real
// APIs, the in-process fakes of the demo, and recorded answers.
package review

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/scope"
	"github.com/anchor-review/anchor-review/pkg/skip"
	"github.com/anchor-review/anchor-review/pkg/synth"
)

// GitHub is what the review reads from GitHub. *github.Client implements it.
type GitHub interface {
	PullRequest(ctx context.Context, owner, repo string, n int) (*github.PR, error)
	IssueComments(ctx context.Context, owner, repo string, n int) ([]github.Comment, error)
	ReviewComments(ctx context.Context, owner, repo string, n int) ([]github.Comment, error)
	Diff(ctx context.Context, owner, repo string, n int) (github.DiffSource, error)
	FileContent(ctx context.Context, owner, repo, path, ref string) (string, bool, error)
	Tree(ctx context.Context, owner, repo, ref string) (paths []string, truncated bool, err error)
}

// ErrNeedsModel is returned by a PrecheckOnly review whose pull request
// passed Stage 1: reviewing it needs the model.
var ErrNeedsModel = errors.New("the pull request needs a review and no model is available")

// ErrAllPersonasFailed is returned (wrapped, alongside a usable Result) when
// no persona produced an answer: the review could not run.
var ErrAllPersonasFailed = errors.New("every persona failed")

// Modes.
const (
	ModeComment    = "comment"
	ModeReportOnly = "report-only"
)

// Defaults for Options fields left zero.
const (
	DefaultMaxConcurrency = 8
	DefaultMaxValidations = 15
	DefaultMaxLLMCalls    = 60
	// DefaultInputBudget is the per-call token budget for the diff part of a
	// persona prompt; a larger diff is split into chunks of whole files.
	DefaultInputBudget = 60_000
	// maxStandardsProbes bounds the AGENTS.md/CLAUDE.md look-ups of one run,
	// so a PR touching hundreds of directories cannot cost hundreds of reads.
	maxStandardsProbes = 24
)

// Options configure one review.
type Options struct {
	Owner, Repo string
	PR          int
	// Rerun is a deliberate manual re-review: it bypasses skip rule 4 only.
	Rerun bool
	Mode  string
	// Validate runs Stage 5b (comment mode, and the CLI's --post).
	Validate bool

	Exclude  []string
	Personas []string // restricts the team; empty means all that select

	Model, StrongModel, ValidatorModel string

	MaxValidations int // 0 means none; negative means the default
	MaxConcurrency int
	MaxLLMCalls    int
	InputBudget    int // tokens per persona call for the diff; 0 = default

	BotLogin string

	// PrecheckOnly stops after Stage 1 (a run with no model key: fork and
	// Dependabot PRs get no secrets). A PR that is not skipped returns
	// ErrNeedsModel.
	PrecheckOnly bool

	// Fence is the per-run data fence token; empty means a fresh random one.
	Fence string
	// Logf receives progress lines ("stage: detail"); nil discards them.
	Logf func(format string, args ...any)
}

func (o *Options) defaults() {
	if o.Mode == "" {
		o.Mode = ModeComment
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
	if o.InputBudget <= 0 {
		o.InputBudget = DefaultInputBudget
	}
	if o.StrongModel == "" {
		o.StrongModel = o.Model
	}
	if o.ValidatorModel == "" {
		o.ValidatorModel = o.Model
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

// ReviewPR reviews one pull request end to end. The returned PR is what the
// skip check read (nil if reading failed). An error means the review could
// not run; when every persona failed the Result is still filled in and the
// error wraps ErrAllPersonasFailed.
func (r *Reviewer) ReviewPR(ctx context.Context, o Options) (Result, *PR, error) {
	o.defaults()
	start := time.Now()
	res := Result{Repo: o.Owner + "/" + o.Repo, PR: o.PR, Mode: o.Mode}

	// Stage 1: at most two reads, no model call.
	info, err := r.GitHub.PullRequest(ctx, o.Owner, o.Repo, o.PR)
	if err != nil {
		return res, nil, fmt.Errorf("skip: read pull request #%d: %w", o.PR, err)
	}
	comments, err := r.GitHub.IssueComments(ctx, o.Owner, o.Repo, o.PR)
	if err != nil {
		return res, &PR{Info: info}, fmt.Errorf("skip: list comments of #%d: %w", o.PR, err)
	}
	pr := &PR{Info: info, Comments: comments}
	res.HeadSHA, res.Title = info.HeadSHA, info.Title

	dec := skip.Decide(skipPR(info), skipComments(comments), o.BotLogin, o.Rerun)
	if dec.Skip {
		res.Skipped, res.SkipRule, res.SkipReason, res.Carried = true, dec.Rule, dec.Reason, dec.Carried
		// A skipped PR has no verdict of its own; under rule 4 the earlier
		// report's is carried forward.
		if dec.Carried != nil {
			res.Verdict = Verdict(dec.Carried.Verdict)
		}
		o.logf("skip: rule %d: %s", dec.Rule, dec.Reason)
		return res, pr, nil
	}
	o.logf("skip: none of the four rules fired")
	if o.PrecheckOnly {
		return res, pr, ErrNeedsModel
	}

	// Stage 2: scope.
	src, err := r.GitHub.Diff(ctx, o.Owner, o.Repo, o.PR)
	if err != nil {
		return res, pr, fmt.Errorf("scope: read diff of #%d: %w", o.PR, err)
	}
	d, err := parseSource(src)
	if err != nil {
		return res, pr, fmt.Errorf("scope: %w", err)
	}
	var truncated []Excluded
	if src.Truncated {
		truncated = append(truncated, Excluded{Path: "(files beyond the first 3,000)", Reason: "GitHub lists at most 3,000 files"})
		res.Partial = true
	}
	standards, attrs := r.readBase(ctx, o, d, info.BaseSHA)
	// previous-comments selects on review comments from people (SPEC's
	// table), and those are what it reads; conversation comments are not
	// review comments.
	humans := 0
	var previous []string
	if rc, err := r.GitHub.ReviewComments(ctx, o.Owner, o.Repo, o.PR); err != nil {
		o.logf("scope: review comments unavailable (%v); previous-comments persona may not select", err)
	} else {
		for _, c := range rc {
			if !c.AuthorIsBot && !strings.EqualFold(c.Author, o.BotLogin) {
				humans++
				previous = append(previous, c.Author+": "+c.Body)
			}
		}
	}

	pc := prompt.Context{Repo: res.Repo, PR: o.PR, Title: info.Title, Body: info.Body, Standards: standards, PreviousComments: previous}
	heads := func(ctx context.Context, path string) (string, bool, error) {
		return r.GitHub.FileContent(ctx, o.Owner, o.Repo, path, info.HeadSHA)
	}
	err = r.run(ctx, o, &res, d, attrs, pc, humans, truncated, heads)
	res.Coverage.Usage.Wall = time.Since(start)
	return res, pr, err
}

// ReviewDiff reviews a local diff with no GitHub at all. head, when not nil,
// returns a file's new version for the validator.
func (r *Reviewer) ReviewDiff(ctx context.Context, o Options, d *diff.Diff, title, body string, head func(ctx context.Context, path string) (string, bool, error)) (Result, error) {
	o.defaults()
	start := time.Now()
	res := Result{Repo: o.Owner + "/" + o.Repo, Title: title, Mode: o.Mode}
	if o.Owner == "" {
		res.Repo = "local"
	}
	pc := prompt.Context{Repo: res.Repo, Title: title, Body: body}
	if head == nil {
		head = func(context.Context, string) (string, bool, error) { return "", false, nil }
	}
	// A local change is the user's own: its standards files and
	// .gitattributes are read where head reads files (the working tree or
	// HEAD), since there is no base commit to read them from.
	var attrs scope.Attributes
	if text, found, err := head(ctx, ".gitattributes"); err == nil && found {
		attrs = scope.ParseAttributes(text)
	}
	for _, p := range scope.StandardsPaths(d.Files) {
		if content, found, err := head(ctx, p); err == nil && found {
			pc.Standards = append(pc.Standards, prompt.Standards{Path: p, Content: content})
		}
	}
	err := r.run(ctx, o, &res, d, attrs, pc, 0, nil, head)
	res.Coverage.Usage.Wall = time.Since(start)
	return res, err
}

// run is everything after the diff is in hand: scope, select, dispatch,
// synthesize, validate, verdict.
func (r *Reviewer) run(ctx context.Context, o Options, res *Result, d *diff.Diff, attrs scope.Attributes, pc prompt.Context, humans int, notReviewed []Excluded, head func(context.Context, string) (string, bool, error)) error {
	sc, err := scope.ApplyWith(d, o.Exclude, attrs)
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
	team, err := persona.Select(r.Personas, persona.Signals{Files: sc.Files, ExecutableLines: sc.ExecutableLines, Standards: stdPaths, HumanReviewComments: humans}, o.Personas)
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
		res.Partial = true
	}

	// Budget: the diff is split into chunks of whole files within the
	// per-call budget (what the shared PR context leaves of it), and the
	// planned persona calls leave room for the validator under the cap.
	shared := prompt.EstimateTokens(pc.Title + pc.Body + strings.Join(pc.PreviousComments, "\n"))
	for _, s := range pc.Standards {
		shared += prompt.EstimateTokens(s.Content)
	}
	chunks, left := prompt.Chunk(sc.Files, max(o.InputBudget-shared, o.InputBudget/4))
	notReviewed = append(notReviewed, left...)
	// Files too large for a call, or over the call budget, were meant to be
	// reviewed: the review is partial (deliberate exclusions are not).
	res.Partial = res.Partial || len(left) > 0
	personaCalls := o.MaxLLMCalls
	if o.Validate {
		personaCalls -= min(o.MaxValidations, o.MaxLLMCalls/2)
	}
	overBudget := fmt.Sprintf("over the budget of %d model calls", o.MaxLLMCalls)
	if len(team) > 0 && len(chunks)*len(team) > personaCalls {
		keep := personaCalls / len(team)
		if keep == 0 && len(chunks) > 0 {
			// Not even one round of the whole team fits: the first chunk
			// goes to as many personas as the cap allows (always-on first).
			for _, p := range team[max(personaCalls, 0):] {
				o.logf("dispatch: %s not run: %s", p.Name, overBudget)
				notReviewed = append(notReviewed, Excluded{Path: "(persona " + p.Name + ")", Reason: overBudget})
			}
			team, keep = team[:max(personaCalls, 0)], 1
		}
		for _, ch := range chunks[keep:] {
			for _, f := range ch {
				notReviewed = append(notReviewed, Excluded{Path: f.Path(), Reason: overBudget})
			}
		}
		chunks = chunks[:keep]
		res.Partial = true
		o.logf("dispatch: the budget allows %d of the diff's chunks", keep)
	}
	res.Coverage.NotReviewed = dedupeExcluded(notReviewed)

	// Stage 4: dispatch.
	calls := &callBudget{limit: o.MaxLLMCalls}
	results, runs := r.dispatch(ctx, o, team, chunks, pc, calls)
	res.Coverage.Personas = runs
	failed, partial := 0, false
	for _, pr := range runs {
		res.Coverage.Usage.sum(pr.Usage)
		if pr.Failed != "" {
			failed++
		}
		partial = partial || pr.ChunksFailed > 0
	}
	res.Partial = res.Partial || failed > 0 || partial
	if len(team) > 0 && failed == len(team) {
		res.AllFailed, res.Partial, res.Verdict = true, true, Degraded
		res.Failure = "every persona failed; the first error: " + runs[0].Failed
		return fmt.Errorf("dispatch: %w", ErrAllPersonasFailed)
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// Stage 5: synthesize.
	out := synth.Synthesize(synth.Input{Results: results, Files: sc.Files, Mode: o.Mode, SuppressionForbidden: forbidsSuppression(pc.Standards)})
	res.Coverage.DroppedByAnchor = out.DroppedByAnchor
	res.Coverage.DroppedByReason = out.DroppedByReason
	// Demotions count in both modes: dropped in comment mode, moved to
	// testing gaps / residual risks in report-only mode.
	res.Coverage.Demotions = out.Demotions + len(out.Demoted)
	res.BelowBar, res.PreExisting, res.Demoted = out.BelowBar, out.PreExisting, out.Demoted
	for _, pr := range results {
		res.TestingGaps = append(res.TestingGaps, pr.Answer.TestingGaps...)
		res.ResidualRisks = append(res.ResidualRisks, pr.Answer.ResidualRisks...)
	}
	o.logf("synthesize: %d findings at anchor 75 or higher, %d P0 below the bar", len(out.Gated), len(out.BelowBar))

	// Stage 5b: validate.
	posted := out.Gated
	if o.Validate {
		posted = r.validate(ctx, o, res, out.Gated, sc.Files, pc, head, calls)
	}
	synth.Number(posted)
	res.Findings = posted
	res.Verdict = DecideVerdict(*res)
	return nil
}

// callBudget enforces max-llm-calls over the chat-completion requests that
// reach the model: each persona or validator call, and a repair request,
// takes one before it is sent (the llm client asks through
// Request.AllowRepair), so parallel calls can never overshoot the cap; a
// call that cannot take one is not made, a repair that cannot is skipped.
// Retries of refused requests (429, 5xx, a server rejecting JSON-schema
// mode) are not calls: no answer came back.
type callBudget struct {
	mu          sync.Mutex
	limit, used int
}

func (b *callBudget) take() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used >= b.limit {
		return false
	}
	b.used++
	return true
}

func (b *callBudget) remaining() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limit - b.used
}

// errOverCalls marks a call the max-llm-calls cap did not allow.
var errOverCalls = errors.New("not run: over the max-llm-calls cap")

// dispatch runs every (persona, chunk) call in parallel under the bound.
// Each goroutine writes its own slot, so the output order is fixed.
func (r *Reviewer) dispatch(ctx context.Context, o Options, team []persona.Selected, chunks [][]*diff.File, pc prompt.Context, calls *callBudget) ([]synth.PersonaResult, []PersonaRun) {
	type slot struct {
		answer finding.Answer
		resp   llm.Response
		err    error
	}
	slots := make([][]slot, len(team))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.MaxConcurrency)
	for i, p := range team {
		slots[i] = make([]slot, len(chunks))
		model := o.modelFor(p.Persona)
		for j, files := range chunks {
			c := pc
			c.Files, c.Fence = files, o.Fence
			req := prompt.ForPersona(c, p.Persona, model)
			req.AllowRepair = calls.take
			g.Go(func() error {
				s := &slots[i][j]
				if !calls.take() {
					s.err = errOverCalls
					return nil
				}
				resp, err := r.Model.Complete(gctx, req)
				s.resp, s.err = resp, err
				if err == nil {
					s.err = decodeStrict(resp.JSON, &s.answer)
				}
				return nil // one persona's failure never stops the others
			})
		}
	}
	_ = g.Wait()

	var results []synth.PersonaResult
	runs := make([]PersonaRun, len(team))
	for i, p := range team {
		run := PersonaRun{Name: p.Name, Reason: p.Reason, Model: o.modelFor(p.Persona)}
		merged := finding.Answer{Reviewer: p.Name}
		var errs []string
		for _, s := range slots[i] {
			if !errors.Is(s.err, errOverCalls) {
				run.Calls++
				run.Usage.add(s.resp)
			}
			if s.err != nil {
				errs = append(errs, s.err.Error())
				continue
			}
			merged.Findings = append(merged.Findings, s.answer.Findings...)
			merged.TestingGaps = append(merged.TestingGaps, s.answer.TestingGaps...)
			merged.ResidualRisks = append(merged.ResidualRisks, s.answer.ResidualRisks...)
		}
		switch {
		case len(slots[i]) == 0:
		case len(errs) == len(slots[i]):
			run.Failed = errs[0]
			o.logf("dispatch: %s failed: %s", p.Name, errs[0])
		default:
			if len(errs) > 0 {
				// Some chunks answered: the persona counts as run, the
				// review as partial.
				run.ChunksFailed = len(errs)
				o.logf("dispatch: %s: %d of %d chunks failed: %s", p.Name, len(errs), len(slots[i]), errs[0])
			}
			// The persona's own name wins over whatever the model wrote.
			for k := range merged.Findings {
				merged.Findings[k].Reviewers = []string{p.Name}
			}
			results = append(results, synth.PersonaResult{Persona: p.Name, Answer: merged})
			run.Findings = len(merged.Findings)
			o.logf("dispatch: %s answered with %d findings", p.Name, run.Findings)
		}
		runs[i] = run
	}
	return results, runs
}

// validate is Stage 5b: one independent call per finding, most severe first
// within the budget, each finding's head file fetched once per run.
func (r *Reviewer) validate(ctx context.Context, o Options, res *Result, gated []finding.Finding, files []*diff.File, pc prompt.Context, head func(context.Context, string) (string, bool, error), calls *callBudget) []finding.Finding {
	res.Coverage.ValidatorRan = true
	budget := min(o.MaxValidations, max(calls.remaining(), 0))
	order := make([]int, len(gated))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		fa, fb := gated[a], gated[b]
		if c := fa.Severity.Rank() - fb.Severity.Rank(); c != 0 {
			return c
		}
		return fb.Confidence - fa.Confidence
	})
	if len(order) > budget {
		for _, i := range order[budget:] {
			f := gated[i]
			res.Coverage.OverBudget = append(res.Coverage.OverBudget, Rejection{Title: f.Title, File: f.File, Line: f.Line, Reason: fmt.Sprintf("over the validation budget of %d", budget)})
		}
		order = order[:budget]
		slices.Sort(order)
	}

	// The validator sees the whole diff when it fits one call's budget (it
	// must judge "handled elsewhere"), else the finding's own file.
	byPath := map[string]*diff.File{}
	for _, f := range files {
		byPath[f.Path()] = f
	}
	whole := prompt.EstimateTokens(diff.Render(files)) <= o.InputBudget
	contents := newFileCache(head)
	var usageMu sync.Mutex
	verdicts := make([]*finding.Validation, len(gated))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.MaxConcurrency)
	for _, i := range order {
		f := gated[i]
		g.Go(func() error {
			content, found, err := contents.get(gctx, f.File)
			if err != nil {
				verdicts[i] = &finding.Validation{Reason: "validator failed (head file unavailable)"}
				return nil
			}
			if n := lineCount(content); found && f.Line > n {
				// Step 1 could not check this for a modified file; the head
				// version settles it without a model call.
				verdicts[i] = &finding.Validation{Reason: fmt.Sprintf("line outside file: the head version has %d lines", n)}
				return nil
			}
			c := pc
			c.Fence = o.Fence
			if df := byPath[f.File]; df != nil && !whole {
				c.Files = []*diff.File{df}
			} else {
				c.Files = files
			}
			if !calls.take() {
				verdicts[i] = &finding.Validation{Reason: "validator not run: over the max-llm-calls cap"}
				return nil
			}
			req := prompt.ForValidator(f, c, content, o.ValidatorModel)
			req.AllowRepair = calls.take
			resp, err := r.Model.Complete(gctx, req)
			usageMu.Lock()
			res.Coverage.Usage.add(resp)
			usageMu.Unlock()
			var v finding.Validation
			if err == nil {
				err = decodeStrict(resp.JSON, &v)
			}
			if err != nil {
				verdicts[i] = &finding.Validation{Reason: validatorFailure(err)}
				return nil
			}
			verdicts[i] = &v
			return nil
		})
	}
	_ = g.Wait()

	var kept []finding.Finding
	for _, i := range order {
		f, v := gated[i], verdicts[i]
		if v != nil && v.Validated {
			f.Validation = v
			kept = append(kept, f)
			res.Coverage.Validated++
			continue
		}
		reason := "validator failed"
		if v != nil && v.Reason != "" {
			reason = v.Reason
		}
		res.Coverage.Rejections = append(res.Coverage.Rejections, Rejection{Title: f.Title, File: f.File, Line: f.Line, Reason: reason})
	}
	o.logf("validate: %d of %d findings confirmed, %d over budget", len(kept), len(gated), len(res.Coverage.OverBudget))
	return kept
}

// validatorFailure names why a validator call gave no verdict, briefly:
// the raw error (schema paths, server text) is for the log, not the report.
func validatorFailure(err error) string {
	switch {
	case errors.Is(err, llm.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return "validator failed (timed out)"
	case errors.Is(err, llm.ErrMalformed):
		return "validator failed (malformed answer)"
	case errors.Is(err, llm.ErrQuota):
		return "validator failed (quota exhausted)"
	case errors.Is(err, llm.ErrBudget):
		return "validator failed (time budget spent)"
	}
	var api *llm.APIError
	if errors.As(err, &api) {
		return fmt.Sprintf("validator failed (HTTP %d)", api.Status)
	}
	return "validator failed (" + err.Error() + ")"
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// forbidsSuppression reports whether a standards file states a rule
// against lint-disable comments (SPEC step 6's exception): a line that
// names a suppression form and says it is not allowed.
func forbidsSuppression(std []prompt.Standards) bool {
	forms := []string{"nolint", "lint-disable", "eslint-disable", "noqa", "lint suppression", "suppress lint",
		"suppression comment", "lint ignore", "lint-ignore", "rubocop:disable", "@suppresswarnings", "type: ignore", "linter directive"}
	bans := []string{"never", "must not", "do not", "don't", "forbidden", "not allowed", "prohibited", "no "}
	for _, s := range std {
		for line := range strings.Lines(strings.ToLower(s.Content)) {
			if containsAny(line, forms) && containsAny(line, bans) {
				return true
			}
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// DecideVerdict is the one place the verdict is decided (by code, never by
// the model): not-ready when a posted finding is P0 or P1; else degraded
// when the review was partial or could not run; else ready-with-fixes when
// anything is posted; else ready.
func DecideVerdict(r Result) Verdict {
	blocking, posted := false, len(r.Findings) > 0
	for _, f := range r.Findings {
		if f.Severity.Rank() <= finding.P1.Rank() {
			blocking = true
		}
	}
	switch {
	case blocking:
		return NotReady
	case r.Partial || r.AllFailed:
		return Degraded
	case posted:
		return ReadyWithFixes
	}
	return Ready
}

// add counts one model call and its tokens (all its attempts).
func (u *Usage) add(resp llm.Response) {
	u.Calls++
	u.PromptTokens += resp.Usage.PromptTokens
	u.CachedTokens += resp.Usage.CachedTokens
	u.CompletionTokens += resp.Usage.CompletionTokens
}

// sum adds v's calls and tokens to u.
func (u *Usage) sum(v Usage) {
	u.Calls += v.Calls
	u.PromptTokens += v.PromptTokens
	u.CachedTokens += v.CachedTokens
	u.CompletionTokens += v.CompletionTokens
}

// fileCache fetches each head file at most once per run, however many
// findings point into it and however they race.
type fileCache struct {
	fetch func(context.Context, string) (string, bool, error)
	mu    sync.Mutex
	files map[string]*fileEntry
}

type fileEntry struct {
	once    sync.Once
	content string
	found   bool
	err     error
}

func newFileCache(fetch func(context.Context, string) (string, bool, error)) *fileCache {
	return &fileCache{fetch: fetch, files: map[string]*fileEntry{}}
}

func (c *fileCache) get(ctx context.Context, path string) (string, bool, error) {
	c.mu.Lock()
	e := c.files[path]
	if e == nil {
		e = &fileEntry{}
		c.files[path] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.content, e.found, e.err = c.fetch(ctx, path) })
	return e.content, e.found, e.err
}

// readBase reads what the review takes from the BASE commit — the PR
// cannot rewrite its own rules: the AGENTS.md / CLAUDE.md files that apply
// to changed files, and the .gitattributes linguist marks. One tree listing
// says which exist, so the cost is one request plus one per file present;
// when the listing fails or is truncated, the standards candidates are
// probed one by one, nearest the root first, at most maxStandardsProbes.
func (r *Reviewer) readBase(ctx context.Context, o Options, d *diff.Diff, baseSHA string) ([]prompt.Standards, scope.Attributes) {
	paths := scope.StandardsPaths(d.Files)
	var attrs scope.Attributes
	tree, truncated, err := r.GitHub.Tree(ctx, o.Owner, o.Repo, baseSHA)
	if err == nil && !truncated {
		present := map[string]bool{}
		for _, p := range tree {
			present[p] = true
		}
		paths = slices.DeleteFunc(paths, func(p string) bool { return !present[p] })
		if present[".gitattributes"] {
			if text, found, err := r.GitHub.FileContent(ctx, o.Owner, o.Repo, ".gitattributes", baseSHA); err == nil && found {
				attrs = scope.ParseAttributes(text)
			}
		}
	} else {
		if err != nil {
			o.logf("scope: cannot list the base tree (%v); probing standards files one by one", err)
		}
		if len(paths) > maxStandardsProbes {
			o.logf("scope: %d standards-file locations; reading the %d nearest the root", len(paths), maxStandardsProbes)
			slices.SortStableFunc(paths, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
			paths = paths[:maxStandardsProbes]
			slices.Sort(paths)
		}
	}
	var out []prompt.Standards
	for _, p := range paths {
		content, found, err := r.GitHub.FileContent(ctx, o.Owner, o.Repo, p, baseSHA)
		if err != nil {
			o.logf("scope: standards file %s unreadable: %v", p, err)
			continue
		}
		if found {
			out = append(out, prompt.Standards{Path: p, Content: content})
		}
	}
	return out, attrs
}

// parseSource turns what GitHub returned into one parsed diff.
func parseSource(src github.DiffSource) (*diff.Diff, error) {
	if !src.FromFilesEndpoint {
		d, err := diff.Parse([]byte(src.Unified))
		if err != nil {
			return nil, fmt.Errorf("parse diff: %w", err)
		}
		return d, nil
	}
	d := &diff.Diff{}
	for _, cf := range src.Files {
		// ParsePatch maps the files endpoint's status words and paths.
		f, err := diff.ParsePatch(cf.PreviousPath, cf.Path, diff.Status(cf.Status), cf.Patch)
		if err != nil {
			return nil, fmt.Errorf("parse patch of %s: %w", cf.Path, err)
		}
		d.Files = append(d.Files, f)
	}
	return d, nil
}

func skipPR(p *github.PR) skip.PR {
	return skip.PR{State: p.State, Merged: p.Merged, Draft: p.Draft, Title: p.Title, Body: p.Body}
}

func skipComments(cs []github.Comment) []skip.Comment {
	out := make([]skip.Comment, len(cs))
	for i, c := range cs {
		out[i] = skip.Comment{Author: c.Author, Body: c.Body}
	}
	return out
}

// decodeStrict decodes schema-checked JSON, refusing unknown fields a second
// time so nothing the model invents can reach the pipeline.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
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
