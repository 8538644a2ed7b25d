package review

import (
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
