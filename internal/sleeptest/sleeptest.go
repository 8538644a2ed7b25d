// Package sleeptest is a test helper: a stand-in for the clients' sleep
// functions that records every wait and returns at once, so retry and
// backoff tests run instantly and can assert the waits exactly.
package sleeptest

import (
	"context"
	"sync"
	"time"
)

// Recorder records waits; its zero value is ready. Safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Sleep records d and returns at once: ctx's error when it has ended, as a
// real sleep would.
func (r *Recorder) Sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, d)
	return ctx.Err()
}

// Waits returns a copy of every wait recorded so far, in order.
func (r *Recorder) Waits() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.waits...)
}
