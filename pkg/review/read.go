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

// contentBudget is a run's ContentBudget: what its reads may still keep.
type contentBudget struct {
	mu   sync.Mutex
	left int64
}

func newContentBudget(n int64) *contentBudget { return &contentBudget{left: n} }

// reserve takes up to MaxFileBytes of what is left, for one read.
func (b *contentBudget) reserve() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := min(int64(MaxFileBytes), b.left)
	b.left -= n
	return n
}

// release gives back what a read did not keep.
func (b *contentBudget) release(n int64) {
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
}

// read reads the whole file at path through r within the budget: the
// content is kept by the caller for the rest of the run. A file larger
// than what the budget grants is errTooLarge (wrapped with its size
// bound), and costs nothing.
func (b *contentBudget) read(ctx context.Context, r FileReader, path string) (string, bool, error) {
	if r == nil {
		return "", false, fmt.Errorf("%s: no reader for this version", path)
	}
	grant := b.reserve()
	if grant == 0 {
		return "", false, fmt.Errorf("%s: %w: the run's %d MiB of file content is spent", path, errTooLarge, ContentBudget>>20)
	}
	text, found, whole, err := r(ctx, path, grant)
	switch {
	case err != nil || !found:
		b.release(grant)
		return "", found, err
	case !whole:
		b.release(grant)
		return "", true, fmt.Errorf("%s: %w: larger than %d MiB", path, errTooLarge, grant>>20)
	}
	b.release(grant - int64(len(text)))
	return text, true, nil
}
