package review

import (
	"context"
	"slices"
	"sync"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/scope"
	"golang.org/x/sync/errgroup"
)

// maxContextFiles bounds the head files read for context in one run, so a
// PR of thousands of files does not cost thousands of reads; files beyond
// it are reviewed from their diff alone.
const maxContextFiles = 100

// TreeReader lists the paths of the head tree; truncated is true when the
// listing is incomplete.
type TreeReader func(ctx context.Context) (paths []string, truncated bool, err error)

// readContext is the context part of Stage 2 (SPEC 7.3): the head version
// of each reviewed file (at most maxContextFiles, read in parallel under
// the concurrency bound, through the run's file cache so the validator
// never reads one again), and the test files of each changed source file
// that readTests found (nil when there is no tree). A file that cannot be
// read gets no context; context helps the review, its absence does not
// leave code unreviewed. An incremental re-review sends the personas the
// new commits and nothing else (its cost grows with the delta): it reads
// no head file (the test-file list only). The run's prompt context gets
// the result and its excerpt cache.
func (rn *reviewRun) readContext(ctx context.Context) {
	rn.pc.Heads = rn.contextFiles(ctx)
	if rn.tests != nil {
		rn.pc.Tests = rn.tests.Of
	}
	rn.pc.Excerpts = prompt.NewExcerptCache()
}

// readTests lists the head tree once, before selection: the test files of
// each changed source file, and whether the repository has tests at all,
// are a selection signal (the testing persona's) and the testing
// persona's context. Nil when there is no tree (a local diff) or its
// listing failed or was truncated: selection then judges by the diff
// alone, and the testing persona gets no list.
func (rn *reviewRun) readTests(ctx context.Context) {
	o, files, tree := rn.o, rn.sc.Files, rn.in.tree
	if tree == nil {
		return
	}
	listing, truncated, err := tree(ctx)
	if err != nil || truncated {
		o.logf("scope: head tree not listed (error %v, truncated %t); the testing persona gets no test-file list", err, truncated)
		return
	}
	var changed []string
	for _, f := range files {
		changed = append(changed, f.Path())
	}
	rn.tests = &persona.TestIndex{Of: prompt.TestFiles(changed, listing), Any: slices.ContainsFunc(listing, scope.IsTest)}
}

// contextFiles reads the head files for readContext.
func (rn *reviewRun) contextFiles(ctx context.Context) map[string]prompt.Head {
	o, files, cache, withHeads := rn.o, rn.sc.Files, rn.heads, rn.in.carry == nil
	var paths []string
	source := changesSource(files) && !o.WideContext
	for _, f := range files {
		if !withHeads {
			break
		}
		// Added files are in the diff whole; deleted and binary files have
		// no head text to show; only code gets context.
		if f.Binary || f.NoPatch || f.Status == diff.Deleted || f.Status == diff.Added || len(f.Hunks) == 0 || !prompt.WantsContext(f.Path()) {
			continue
		}
		// Context by need: when the PR changes source code, its test
		// files are reviewed from their diff (the assertions a hunk
		// changes are in it), and the context every persona request
		// carries goes to the code under test. A PR of tests alone keeps
		// their context.
		if source && prompt.IsTestFile(f.Path()) {
			continue
		}
		paths = append(paths, f.Path())
	}
	if len(paths) > maxContextFiles {
		o.logf("scope: head context for the first %d of %d changed files", maxContextFiles, len(paths))
		paths = paths[:maxContextFiles]
	}
	heads := make(map[string]prompt.Head, len(paths))
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.MaxConcurrency)
	for _, p := range paths {
		g.Go(func() error {
			content, found, err := cache.get(gctx, p)
			if err != nil {
				o.logf("scope: head version of %s unreadable (%v); reviewed without context", p, err)
				return nil
			}
			mu.Lock()
			heads[p] = prompt.Head{Content: content, Found: found}
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait()

	return heads
}

// changesSource reports whether files change source code that is not a
// test (a file head context is for, when it is not deleted).
func changesSource(files []*diff.File) bool {
	for _, f := range files {
		if f.Status != diff.Deleted && prompt.WantsContext(f.Path()) && !prompt.IsTestFile(f.Path()) {
			return true
		}
	}
	return false
}
