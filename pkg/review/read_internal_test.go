package review

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Concurrent reads share the budget: each waits for room instead of
// failing, none fails while what is kept fits, and once the kept content
// fills the budget every further read is errTooLarge.
func TestContentBudgetConcurrentReads(t *testing.T) {
	b := newContentBudget(100)
	var inFlight, most atomic.Int64
	reader := func(_ context.Context, _ string, limit int64) (string, bool, bool, error) {
		n := inFlight.Add(limit)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		defer inFlight.Add(-limit)
		text := strings.Repeat("x", 10)
		return text[:min(int64(len(text)), limit)], true, limit >= 10, nil
	}
	var ok, tooLarge atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			_, _, err := b.read(context.Background(), reader, "f")
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, errTooLarge):
				tooLarge.Add(1)
			default:
				t.Errorf("read: %v", err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 10 || tooLarge.Load() != 10 {
		t.Errorf("%d reads kept, %d too large; want 10 and 10 (10 bytes each in 100)", ok.Load(), tooLarge.Load())
	}
	if most.Load()+0 > 100 {
		t.Errorf("reads in flight reserved %d bytes at once; want at most the budget, 100", most.Load())
	}
}

// A read waiting for room gives up when its context ends.
func TestContentBudgetWaitEndsWithContext(t *testing.T) {
	b := newContentBudget(100)
	if g, err := b.reserve(context.Background()); err != nil || g != 100 {
		t.Fatalf("reserve: %d, %v; want the whole budget", g, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := b.reserve(ctx)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("reserve after cancel: %v; want context.Canceled", err)
	}
}
