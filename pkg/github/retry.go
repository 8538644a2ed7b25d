package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Policy bounds how the client retries. Zero or negative fields take the
// defaults: 5 attempts, 1s base delay, 30s max delay, 60s max Retry-After and
// a 2 minute budget.
type Policy struct {
	// MaxAttempts is the number of tries per request, the first included.
	MaxAttempts int
	// BaseDelay and MaxDelay shape the exponential backoff with full jitter:
	// the wait before retry k is uniform in [0, min(MaxDelay, BaseDelay·2^k)].
	BaseDelay, MaxDelay time.Duration
	// MaxRetryAfter clamps a server's Retry-After.
	MaxRetryAfter time.Duration
	// Budget is the total time the client may spend waiting between retries,
	// over its whole life, so that a run can never hang on GitHub.
	Budget time.Duration
	// AttemptTimeout is the overall deadline of one attempt: connecting,
	// the headers AND reading the body, so a server that stalls after the
	// headers cannot hang a run. Default 2 minutes.
	AttemptTimeout time.Duration
}

const (
	defaultMaxAttempts   = 5
	defaultBaseDelay     = time.Second
	defaultMaxDelay      = 30 * time.Second
	defaultMaxRetryAfter = 60 * time.Second
	defaultBudget        = 2 * time.Minute
	defaultAttempt       = 2 * time.Minute
)

func (p Policy) withDefaults() Policy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = defaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = defaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = defaultMaxDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = defaultMaxRetryAfter
	}
	if p.Budget <= 0 {
		p.Budget = defaultBudget
	}
	if p.AttemptTimeout <= 0 {
		p.AttemptTimeout = defaultAttempt
	}
	return p
}

// secondaryLimitWait is what GitHub asks for after a secondary rate limit
// that carries no Retry-After ("wait at least one minute").
const secondaryLimitWait = time.Minute

// maxErrorBody bounds how much of a 403 body is read to look for the
// secondary-rate-limit message.
const maxErrorBody = 64 << 10

// transport counts every request and retries the ones GitHub asks to be
// retried. It sits under go-github so it sees raw responses: go-github turns
// a 429 into a plain error and would hide its Retry-After.
type transport struct {
	base   http.RoundTripper
	policy Policy
	sleep  func(ctx context.Context, d time.Duration) error
	jitter func(max time.Duration) time.Duration
	now    func() time.Time

	requests atomic.Int64

	mu    sync.Mutex
	spent time.Duration // total waited (reserved) so far
}

func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func fullJitter(max time.Duration) time.Duration {
	if max <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(max) + 1))
}

// reserve takes d from the budget, or reports that it does not fit.
func (t *transport) reserve(d time.Duration) (remaining time.Duration, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	remaining = t.policy.Budget - t.spent
	if d > remaining {
		return remaining, false
	}
	t.spent += d
	return remaining - d, true
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 1; ; attempt++ {
		try := req
		if attempt > 1 {
			var err error
			if try, err = rewind(req); err != nil {
				return nil, err
			}
		}
		t.requests.Add(1)
		actx, cancel := context.WithTimeout(ctx, t.policy.AttemptTimeout)
		resp, err := t.base.RoundTrip(try.WithContext(actx))
		if err != nil {
			cancel()
		} else {
			// The deadline goes on while the caller reads the body, and
			// ends when the body is closed.
			resp.Body = &deadlineBody{ReadCloser: resp.Body, cancel: cancel}
		}
		last := attempt >= t.policy.MaxAttempts
		var wait time.Duration
		var retry bool
		if err != nil {
			// A lost connection may hide a write that happened: only
			// requests without side effects are retried.
			if last || ctx.Err() != nil || !idempotent(req.Method) {
				return nil, err
			}
			wait, retry = t.backoff(attempt), true
		} else {
			wait, retry, err = t.classify(resp, attempt)
			if err != nil {
				drain(resp)
				return nil, err
			}
			if !retry || last {
				return resp, nil
			}
			drain(resp)
		}
		if _, ok := t.reserve(wait); !ok {
			return nil, fmt.Errorf("%w: %s %s: next wait %s exceeds what is left of %s",
				ErrRetryBudget, req.Method, req.URL.Path, wait, t.policy.Budget)
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// classify decides whether resp is retried and after how long. An error
// means the request must fail now (a primary rate limit beyond the budget).
func (t *transport) classify(resp *http.Response, attempt int) (time.Duration, bool, error) {
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		if d, ok := t.retryAfter(resp.Header.Get("Retry-After")); ok {
			return d, true, nil
		}
		return t.backoff(attempt), true, nil
	case resp.StatusCode == http.StatusForbidden:
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			if d, ok := t.retryAfter(ra); ok {
				return d, true, nil
			}
			return t.backoff(attempt), true, nil
		}
		if resp.Header.Get("X-RateLimit-Remaining") == "0" {
			return t.primaryLimit(resp)
		}
		if secondaryLimit(resp) {
			return max(t.backoff(attempt), min(secondaryLimitWait, t.policy.MaxRetryAfter)), true, nil
		}
	}
	return 0, false, nil
}

// primaryLimit waits for the hourly quota to reset, but only when the reset
// fits in the budget that is left.
func (t *transport) primaryLimit(resp *http.Response) (time.Duration, bool, error) {
	reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil || reset <= 0 {
		// No usable reset time: let go-github report the rate limit.
		return 0, false, nil
	}
	wait := time.Unix(reset, 0).Sub(t.now()) + time.Second // reset is whole seconds
	wait = max(wait, 0)
	t.mu.Lock()
	left := t.policy.Budget - t.spent
	t.mu.Unlock()
	if wait > left {
		return 0, false, fmt.Errorf("%w: %s %s: primary rate limit resets in %s, %s of budget left",
			ErrRetryBudget, resp.Request.Method, resp.Request.URL.Path, wait.Round(time.Second), left)
	}
	return wait, true, nil
}

// retryAfter parses Retry-After (delay-seconds or HTTP-date) and clamps it to
// [0, MaxRetryAfter]. Values that are neither, or negative, are ignored
// (ok=false) so the caller falls back to backoff.
func (t *transport) retryAfter(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if isDigits(v) {
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs > int64(t.policy.MaxRetryAfter/time.Second) {
			return t.policy.MaxRetryAfter, true // all digits yet huge: clamp
		}
		return time.Duration(secs) * time.Second, true
	}
	when, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return min(max(when.Sub(t.now()), 0), t.policy.MaxRetryAfter), true
}

func (t *transport) backoff(attempt int) time.Duration {
	ceiling := t.policy.MaxDelay
	if shift := attempt - 1; shift < 32 {
		if d := t.policy.BaseDelay << shift; d > 0 && d < ceiling {
			ceiling = d
		}
	}
	return min(max(t.jitter(ceiling), 0), ceiling)
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return false
}

// secondaryLimit reports whether a 403 body says "secondary rate limit",
// leaving the body readable for go-github.
func secondaryLimit(resp *http.Response) bool {
	if resp.Body == nil {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	rest := resp.Body
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), rest), rest}
	if err != nil {
		return false
	}
	return bytes.Contains(bytes.ToLower(b), []byte("secondary rate limit"))
}

// rewind returns a copy of req with a fresh body for another attempt.
// deadlineBody releases an attempt's deadline when the body is closed.
type deadlineBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *deadlineBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func rewind(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.Body == nil || req.Body == http.NoBody {
		return r, nil
	}
	if req.GetBody == nil {
		return nil, errors.New("github: cannot retry a request whose body cannot be replayed")
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, fmt.Errorf("github: replay request body: %w", err)
	}
	r.Body = body
	return r, nil
}

func drain(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
}
