package review

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/synth"
	"golang.org/x/sync/errgroup"
)

// validation is one pass of the validator: the findings to judge and what
// they are judged against.
type validation struct {
	gated []finding.Finding
	// parts are the parts of the diff the personas reviewed: a finding's
	// validator sees the diff of its part.
	parts []prompt.Part
	pc    prompt.Context
	// limit is how many findings it may send (what max-validations leaves).
	limit int
	// order lists the indexes of gated it judges; verdicts[i] is gated[i]'s
	// outcome (nil: none).
	order    []int
	verdicts []*verdict
}

// validate is Stage 5b: one independent call per finding (or, with
// validator-batching per-file, one per file judging each of its findings
// on its own), most severe first within the budget, each finding's head
// file read once per run through the run's cache, which the context stage
// filled. See prompt.ForValidator for what a request holds. It returns the confirmed
// findings, and apart the findings that got no verdict (over the budget,
// or the validator failed): every finding that is in neither was refuted.
// Both kinds of drop are recorded in Coverage, and a finding without a
// verdict makes the review incomplete.
func (rn *reviewRun) validate(ctx context.Context, pass *validation) (kept, unchecked []finding.Finding) {
	o, res, gated := rn.o, rn.res, pass.gated
	res.Coverage.ValidatorRan = true
	res.Coverage.ValidatorModel = o.ValidatorModel
	budget := min(pass.limit, max(rn.calls.remaining(), 0))
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
		res.incomplete("%s not validated: over the validation budget of %d", plural(len(order)-budget, "finding", "findings"), budget)
		for _, i := range order[budget:] {
			f := gated[i]
			unchecked = append(unchecked, f)
			res.Coverage.OverBudget = append(res.Coverage.OverBudget, Rejection{Title: f.Title, File: f.File, Line: f.Line, Reason: fmt.Sprintf("over the validation budget of %d", budget), Reviewers: f.Reviewers})
		}
		order = order[:budget]
		slices.Sort(order)
	}

	pass.order, pass.verdicts = order, make([]*verdict, len(gated))
	if o.ValidatorBatching == ValidatePerFile {
		rn.validatePerFile(ctx, pass)
	} else {
		rn.validatePerFinding(ctx, pass)
	}
	verdicts := pass.verdicts

	unconfirmed := 0
	for _, i := range order {
		f, v := gated[i], verdicts[i]
		if v != nil && v.Validated {
			f.Validation = &v.Validation
			// The validator may lower the severity, never raise it.
			if v.Severity.Valid() && v.Severity.Rank() > f.Severity.Rank() {
				o.logf("validate: %s:%d lowered from %s to %s", f.File, f.Line, f.Severity, v.Severity)
				f.Severity = v.Severity
			}
			kept = append(kept, f)
			res.Coverage.Validated++
			continue
		}
		reason := "validator failed"
		if v != nil && v.Reason != "" {
			reason = v.Reason
		}
		if v == nil || v.failed {
			// No verdict is not a "no": the finding was neither confirmed
			// nor refuted, so the review did not finish.
			unconfirmed++
			unchecked = append(unchecked, f)
		}
		res.Coverage.Rejections = append(res.Coverage.Rejections, Rejection{Title: f.Title, File: f.File, Line: f.Line, Reason: reason, Reviewers: f.Reviewers})
	}
	if unconfirmed > 0 {
		res.incomplete("%s could not be validated (the validator failed or a head file could not be read)", plural(unconfirmed, "finding", "findings"))
	}
	synth.Sort(kept) // a lowered severity moves a finding down
	o.logf("validate: %d of %d findings confirmed, %d over budget", len(kept), len(gated), len(res.Coverage.OverBudget))
	return kept, unchecked
}

// validatePerFinding makes one validator call per finding of order.
func (rn *reviewRun) validatePerFinding(ctx context.Context, v *validation) {
	o, gated, order, verdicts := rn.o, v.gated, v.order, v.verdicts
	phased(ctx, o.MaxConcurrency, len(order), rn.warm, func(ctx context.Context, k int) {
		i := order[k]
		f := gated[i]
		content, found, err := rn.head(ctx, f.File)
		if err != nil {
			verdicts[i] = failedVerdict("validator failed (head file unavailable)")
			return
		}
		if v := outsideFile(f, content, found); v != nil {
			verdicts[i] = v
			return
		}
		// Context by need: with the head file whole in the request, the
		// finding's own file's diff is what it is judged against; the
		// other files' diff would be resent in every call, sharing no
		// cached prefix with the persona calls (the schema differs from
		// the first token). Without the head file, the part's diff is all
		// the validator has of the code around.
		part := partFor(o, v.pc, v.parts, f)
		if found && !o.WideContext {
			part = ownFile(part, f.File)
		}
		verdicts[i] = rn.validateOne(ctx, f, part, content)
	})
}

// phased runs fn(0..n-1) in parallel under limit. With warm, fn(0) goes
// first and the others follow once its model call's prompt has been read
// (its first streamed token, or its end): a provider's prompt cache then
// holds the prefix they share when they arrive. fn(0)'s context carries
// the release (see warmUp).
func phased(ctx context.Context, limit, n int, w *warmth, fn func(ctx context.Context, k int)) {
	warm := w.active() && n > 1
	ready := newRelease()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	for k := range n {
		g.Go(func() error {
			switch {
			case warm && k == 0:
				defer ready.open()
				fn(context.WithValue(gctx, warmUpKey{}, ready), k)
			case warm && w.follow(gctx, ready):
				fn(context.WithValue(gctx, followerKey{}, true), k)
			default:
				fn(gctx, k)
			}
			return nil
		})
	}
	_ = g.Wait()
}

// warmUpKey carries, in the context of a warm-up's validator work, the
// release its model call opens at its first token (ask reads it): the
// call is made a few functions down, after the head file is read.
type warmUpKey struct{}

// validateOne asks the validator about one finding.
func (rn *reviewRun) validateOne(ctx context.Context, f finding.Finding, c prompt.Context, content string) *verdict {
	o := rn.o
	req, err := prompt.ValidatorRequest([]finding.Finding{f}, c, content, o.ValidatorModel, o.MaxInputTokens, false)
	if err != nil {
		return failedVerdict(fmt.Sprintf("validator failed (too large for max-input-tokens %d)", o.MaxInputTokens))
	}
	resp, err := rn.ask(ctx, req)
	if err != nil {
		return failedVerdict(err.Error())
	}
	var v finding.Validation
	if err := decodeStrict(resp.JSON, &v); err != nil {
		return failedVerdict(validatorFailure(err))
	}
	return &verdict{Validation: v}
}

// ask sends one validator request under the call cap and counts its
// usage; a fatal model error halts the run. The error's text is the
// reason to record.
func (rn *reviewRun) ask(ctx context.Context, req llm.Request) (llm.Response, error) {
	calls := rn.calls
	if !calls.take() {
		return llm.Response{}, errors.New("validator " + calls.refused().Error())
	}
	req.AllowRepair = calls.take
	if ready, ok := ctx.Value(warmUpKey{}).(*release); ok {
		req.OnFirstToken = ready.open
	}
	resp, err := rn.r.Model.Complete(ctx, req)
	if llm.Fatal(err) {
		calls.halt(err)
	}
	if ctx.Value(followerKey{}) != nil {
		rn.warm.observe(resp.Usage, err)
	}
	rn.usageMu.Lock()
	rn.res.Coverage.Usage.add(resp)
	rn.usageMu.Unlock()
	if err != nil {
		return resp, errors.New(validatorFailure(err))
	}
	return resp, nil
}

// failedVerdict is no verdict at all, with the reason.
func failedVerdict(reason string) *verdict {
	return &verdict{failed: true, Validation: finding.Validation{Reason: reason}}
}

// outsideFile settles without a model call a finding whose line is past
// the end of its head file (step 1 of synthesis cannot check that for a
// modified file); nil when the line is inside. A head file that is not
// found (a local review without --dir, an eval case without head/) is
// judged from the diff: the CLI names such files; a PR's head always has
// the files its diff changes.
func outsideFile(f finding.Finding, content string, found bool) *verdict {
	if n := lineCount(content); found && f.Line > n {
		return &verdict{Validation: finding.Validation{Reason: fmt.Sprintf("line outside file: the head version has %d lines", n)}}
	}
	return nil
}

// partFor is the prompt context of the part of the diff that holds f's
// file (for a file split into groups of hunks, the group holding f's line,
// else its first): the diff f's persona saw. A part larger than a quarter
// of max-input-tokens is cut to f's own file: every validation would
// otherwise resend it. (A validation with the head file in hand cuts it to
// f's own file whatever its size.)
func partFor(o Options, pc prompt.Context, parts []prompt.Part, f finding.Finding) prompt.Context {
	c := pc
	c.Fence = o.Fence
	found := false
	for _, p := range parts {
		for _, df := range p.Files {
			if df.Path() != f.File {
				continue
			}
			if !found || holdsLine(df, f.Line) {
				c.Files, c.Levels = p.Files, p.Levels
			}
			found = true
			if holdsLine(df, f.Line) {
				break
			}
		}
		if found && fileHoldsLine(c.Files, f) {
			break
		}
	}
	if prompt.EstimateTokens(diff.RenderNumbered(c.Files)) <= o.MaxInputTokens/4 {
		return c
	}
	return ownFile(c, f.File)
}

// ownFile is c cut to the diff of file path alone (title, body, standards
// and comments kept).
func ownFile(c prompt.Context, path string) prompt.Context {
	own := c
	own.Files, own.Levels = nil, nil
	for i, df := range c.Files {
		if df.Path() == path {
			own.Files = append(own.Files, df)
			if i < len(c.Levels) {
				own.Levels = append(own.Levels, c.Levels[i])
			}
		}
	}
	return own
}

// fileHoldsLine reports whether files hold f's file with a hunk at f's
// line.
func fileHoldsLine(files []*diff.File, f finding.Finding) bool {
	for _, df := range files {
		if df.Path() == f.File && holdsLine(df, f.Line) {
			return true
		}
	}
	return false
}

func holdsLine(df *diff.File, line int) bool {
	for _, h := range df.Hunks {
		if line >= h.NewStart && line < h.NewStart+max(h.NewLines, 1) {
			return true
		}
	}
	return false
}

// verdict is one validator outcome; failed marks no verdict at all (an
// error, a timeout, a head file that could not be read, the call cap).
type verdict struct {
	finding.Validation
	failed bool
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
