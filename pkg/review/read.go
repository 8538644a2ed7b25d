package review

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// FileReader reads at most limit bytes of one version of a file: its
// content, whether it exists, and whether the file ended within limit
// (whole). A GitHub reader streams, so a large file costs limit bytes.
type FileReader func(ctx context.Context, path string, limit int64) (content string, found, whole bool, err error)

// readerOf bounds a HeadReader (a local diff's working tree): it reads the
// whole file and keeps at most limit bytes of it.
func readerOf(h HeadReader) FileReader {
	if h == nil {
		return nil
	}
	return func(ctx context.Context, path string, limit int64) (string, bool, bool, error) {
		text, found, err := h(ctx, path)
		if err != nil || !found {
			return "", found, false, err
		}
		if int64(len(text)) > limit {
			return text[:limit], true, false, nil
		}
		return text, true, true, nil
	}
}

// The memory a review gives file content, whatever the pull request holds
// (BENCHMARKS.md, "Binary reads"): whether a file GitHub calls binary is
// text is decided from its first SniffBytes; no file is read past
// MaxFileBytes; and all the file content a run keeps (head files for
// context and the validator, both versions of files read as text)
// stays within ContentBudget. A file past either bound is not reviewed,
// and the review is incomplete: never skipped, never held whole.
const (
	SniffBytes    = 8 << 10
	MaxFileBytes  = 8 << 20
	ContentBudget = 48 << 20
)

// errTooLarge says a file could not be read within the bounds above.
var errTooLarge = errors.New("too large to read within the review's memory bounds")

// contentBudget is a run's ContentBudget: what its reads keep, and what
// reads in flight may keep. A read reserves up to MaxFileBytes before it
// starts and waits while reads in flight hold the rest; what it does not
// keep it gives back. So reads in flight and content kept never exceed the
// budget together, however many run at once.
type contentBudget struct {
	mu                    sync.Mutex
	cond                  *sync.Cond
	total, kept, reserved int64
}

func newContentBudget(n int64) *contentBudget {
	b := &contentBudget{total: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// reserve waits for, and takes, one read's grant: MaxFileBytes, or what is
// left of the budget when less. 0 means the budget is spent.
func (b *contentBudget) reserve(ctx context.Context) (int64, error) {
	stop := context.AfterFunc(ctx, func() {
		b.mu.Lock()
		b.cond.Broadcast()
		b.mu.Unlock()
	})
	defer stop()
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		left := b.total - b.kept
		if left <= 0 {
			return 0, nil
		}
		grant := min(int64(MaxFileBytes), left)
		if free := left - b.reserved; free >= grant || b.reserved == 0 {
			grant = min(grant, free)
			b.reserved += grant
			return grant, nil
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		b.cond.Wait()
	}
}

// settle ends a read that reserved grant and keeps kept bytes of it.
func (b *contentBudget) settle(grant, kept int64) {
	b.mu.Lock()
	b.reserved -= grant
	b.kept += kept
	b.cond.Broadcast()
	b.mu.Unlock()
}

// read reads the whole file at path through r within the budget: the
// content is kept by the caller for the rest of the run. A file larger
// than what the budget grants is errTooLarge, and costs nothing.
func (b *contentBudget) read(ctx context.Context, r FileReader, path string) (string, bool, error) {
	if r == nil {
		return "", false, fmt.Errorf("%s: no reader for this version", path)
	}
	grant, err := b.reserve(ctx)
	switch {
	case err != nil:
		return "", false, err
	case grant == 0:
		return "", false, fmt.Errorf("%s: %w: the run's %d MiB of file content is spent", path, errTooLarge, ContentBudget>>20)
	}
	text, found, whole, err := r(ctx, path, grant)
	switch {
	case err != nil || !found:
		b.settle(grant, 0)
		return "", found, err
	case !whole && grant < MaxFileBytes:
		b.settle(grant, 0)
		return "", true, fmt.Errorf("%s: %w: larger than what is left of the run's %d MiB of file content", path, errTooLarge, ContentBudget>>20)
	case !whole:
		b.settle(grant, 0)
		return "", true, fmt.Errorf("%s: %w: larger than %d MiB", path, errTooLarge, MaxFileBytes>>20)
	}
	b.settle(grant, int64(len(text)))
	return text, true, nil
}
