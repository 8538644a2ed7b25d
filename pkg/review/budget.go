package review

import (
	"context"
	"errors"
	"sync"
)

// callBudget enforces max-llm-calls over the chat-completion requests that
// reach the model: each persona or validator call, and a repair request,
// takes one before it is sent (the llm client asks through
// Request.AllowRepair), so parallel calls can never overshoot the cap; a
// call that cannot take one is not made, a repair that cannot is skipped.
// Retries of refused requests (429, 5xx, a server rejecting JSON-schema
// mode) are not calls: no answer came back.
//
// It is also the run's stop switch: after a fatal model error (a bad key,
// an unknown model, no quota: llm.Fatal) halt refuses every later call and
// cancels the ones in flight, so the run stops at once with one message.
type callBudget struct {
	mu          sync.Mutex
	limit, used int
	fatal       error
	stop        context.CancelCauseFunc // nil: nothing to cancel
}

func (b *callBudget) take() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fatal != nil || b.used >= b.limit {
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

// halt records the first fatal error and stops the run's model calls.
func (b *callBudget) halt(err error) {
	b.mu.Lock()
	first := b.fatal == nil
	if first {
		b.fatal = err
	}
	b.mu.Unlock()
	if first && b.stop != nil {
		b.stop(err)
	}
}

// halted returns the fatal error that stopped the run, or nil.
func (b *callBudget) halted() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fatal
}

// refused is why a call that could not take from the budget was not made.
func (b *callBudget) refused() error {
	if b.halted() != nil {
		return errHalted
	}
	return errOverCalls
}

var (
	// errOverCalls marks a call the max-llm-calls cap did not allow.
	errOverCalls = errors.New("not run: over the max-llm-calls cap")
	// errHalted marks a call not made (or cancelled) after a fatal error.
	errHalted = errors.New("not run: the model endpoint refused the run")
)

// ErrModelRefused is returned (wrapped, alongside a usable Result) when the
// endpoint refused the run as a whole: a bad key (401), an unknown model
// (404) or no quota. No call is made after it.
var ErrModelRefused = errors.New("the model endpoint refused the run")
