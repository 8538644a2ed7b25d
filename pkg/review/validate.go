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
	"golang.org/x/sync/errgroup"
)

// validate is Stage 5b: one independent call per finding, most severe first
// within the budget, each finding's head file fetched once per run. It
// returns the confirmed findings, and apart the findings that got no
// verdict (over the budget, or the validator failed): every finding that
// is in neither was refuted. Both kinds of drop are recorded in Coverage,
// and a finding without a verdict makes the review incomplete.
func (r *Reviewer) validate(ctx context.Context, o Options, res *Result, gated []finding.Finding, files []*diff.File, pc prompt.Context, head HeadReader, calls *callBudget) (kept, unchecked []finding.Finding) {
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
		res.incomplete("%s not validated: over the validation budget of %d", plural(len(order)-budget, "finding", "findings"), budget)
		for _, i := range order[budget:] {
			f := gated[i]
			unchecked = append(unchecked, f)
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
	verdicts := make([]*verdict, len(gated))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.MaxConcurrency)
	for _, i := range order {
		f := gated[i]
		g.Go(func() error {
			content, found, err := contents.get(gctx, f.File)
			if err != nil {
				verdicts[i] = &verdict{failed: true, Validation: finding.Validation{Reason: "validator failed (head file unavailable)"}}
				return nil
			}
			if n := lineCount(content); found && f.Line > n {
				// Step 1 could not check this for a modified file; the head
				// version settles it without a model call.
				verdicts[i] = &verdict{Validation: finding.Validation{Reason: fmt.Sprintf("line outside file: the head version has %d lines", n)}}
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
				verdicts[i] = &verdict{failed: true, Validation: finding.Validation{Reason: "validator " + calls.refused().Error()}}
				return nil
			}
			req := prompt.ForValidator(f, c, content, o.ValidatorModel)
			req.AllowRepair = calls.take
			resp, err := r.Model.Complete(gctx, req)
			if llm.Fatal(err) {
				calls.halt(err)
			}
			usageMu.Lock()
			res.Coverage.Usage.add(resp)
			usageMu.Unlock()
			var v finding.Validation
			if err == nil {
				err = decodeStrict(resp.JSON, &v)
			}
			if err != nil {
				verdicts[i] = &verdict{failed: true, Validation: finding.Validation{Reason: validatorFailure(err)}}
				return nil
			}
			verdicts[i] = &verdict{Validation: v}
			return nil
		})
	}
	_ = g.Wait()

	unconfirmed := 0
	for _, i := range order {
		f, v := gated[i], verdicts[i]
		if v != nil && v.Validated {
			f.Validation = &v.Validation
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
		res.Coverage.Rejections = append(res.Coverage.Rejections, Rejection{Title: f.Title, File: f.File, Line: f.Line, Reason: reason})
	}
	if unconfirmed > 0 {
		res.incomplete("%s could not be validated (the validator failed or a head file could not be read)", plural(unconfirmed, "finding", "findings"))
	}
	o.logf("validate: %d of %d findings confirmed, %d over budget", len(kept), len(gated), len(res.Coverage.OverBudget))
	return kept, unchecked
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
