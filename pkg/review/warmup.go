package review

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anchor-review/anchor-review/pkg/llm"
)

// DefaultWarmupHold bounds how long a call waits for its round's warm-up
// (Options.WarmupHold): a slow first token (a self-hosted model reading a
// long prompt) delays the others by at most this much.
const DefaultWarmupHold = 30 * time.Second

// coldAfter is how many calls a warm-up released must report no cached
// tokens, with none reporting any, before the run stops warming: one
// could be a provider's cache write not yet visible.
const coldAfter = 2

// warmth is the run's cache warm-up policy (Options.WarmCache). A call
// that follows a warm-up waits for it at most hold; and the first such
// calls decide whether warming pays at all: if the provider reports no
// cached tokens for them, the prompt cache is absent (or the prompts too
// short for it), and the rest of the run sends every call at once.
type warmth struct {
	on   bool
	hold time.Duration
	logf func(string, ...any)
	cold atomic.Bool

	mu            sync.Mutex
	cached, fresh int // released calls that reported cached tokens, and none
}

func newWarmth(o *Options) *warmth {
	hold := o.WarmupHold
	if hold <= 0 {
		hold = DefaultWarmupHold
	}
	return &warmth{on: o.WarmCache, hold: hold, logf: o.logf}
}

// active reports whether the run still warms the cache.
func (w *warmth) active() bool { return w.on && !w.cold.Load() }

// follow waits for r, the warm-up's release, at most w.hold. It reports
// whether the warm-up released the call (its answer then tells whether
// the cache served it); false when warming stopped, the hold ran out or
// ctx is done.
func (w *warmth) follow(ctx context.Context, r *release) bool {
	if !w.active() {
		return false
	}
	t := time.NewTimer(w.hold)
	defer t.Stop()
	select {
	case <-r.ch:
		return true
	case <-t.C:
		w.logf("dispatch: the cache warm-up gave no first token within %v; the calls held for it go on", w.hold)
		return false
	case <-ctx.Done():
		return false
	}
}

// observe takes the usage of a call the warm-up released: once coldAfter
// of them answered with no cached tokens, and none with any, the run stops
// warming.
func (w *warmth) observe(u llm.Usage, err error) {
	if err != nil || u.PromptTokens == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if u.CachedTokens > 0 {
		w.cached++
		return
	}
	w.fresh++
	if w.cached == 0 && w.fresh == coldAfter {
		w.cold.Store(true)
		w.logf("dispatch: the provider reported no cached tokens after the cache warm-up; the rest of the run sends its calls without warming")
	}
}

// release is a one-way gate: closed by the first open, waited on by the
// calls that follow a cache warm-up.
type release struct {
	once sync.Once
	ch   chan struct{}
}

func newRelease() *release { return &release{ch: make(chan struct{})} }

func (r *release) open() { r.once.Do(func() { close(r.ch) }) }

// followerKey marks, in a validator call's context, a call the warm-up
// released: ask reports its usage to the run's warmth.
type followerKey struct{}
