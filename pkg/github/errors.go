package github

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// ErrRetryBudget is wrapped by the error returned when the next retry wait
// would exceed what is left of Policy.Budget, or a primary rate limit resets
// later than that.
var ErrRetryBudget = errors.New("github: retry budget exhausted")

// ErrNotFound is matched (errors.Is) by an *APIError for a 404 on a read.
var ErrNotFound = errors.New("github: not found")

// APIError is a GitHub answer the client could not use.
type APIError struct {
	Op      string // what was attempted, e.g. "get pull request octo/repo#7"
	Status  int    // HTTP status
	Message string // GitHub's message
	err     error
}

func (e *APIError) Error() string {
	if e.Status == http.StatusNotFound {
		return fmt.Sprintf("github: %s: not found (HTTP 404): %s", e.Op, e.Message)
	}
	return fmt.Sprintf("github: %s: HTTP %d: %s", e.Op, e.Status, e.Message)
}

// Unwrap returns go-github's error.
func (e *APIError) Unwrap() error { return e.err }

// Is reports whether e is a not-found, so errors.Is(err, ErrNotFound) works.
func (e *APIError) Is(target error) bool {
	return target == ErrNotFound && e.Status == http.StatusNotFound
}

// PermissionError is a 403 (not a rate limit) or 404 on a write: the token
// cannot do what was asked. It is never retried.
type PermissionError struct {
	Op         string // e.g. "create comment on octo/repo#7"
	Status     int    // 403 or 404
	Permission string // the workflow permission needed, e.g. "checks: write"
	err        error
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("github: %s: HTTP %d: the token lacks %q (grant it under `permissions:` in the workflow)",
		e.Op, e.Status, e.Permission)
}

// Unwrap returns go-github's error.
func (e *PermissionError) Unwrap() error { return e.err }

// Permissions the writes need, as named in a workflow's `permissions:` block.
const (
	PermPullRequestsWrite = "pull-requests: write"
	PermChecksWrite       = "checks: write"
)

// classify turns a go-github error into this package's errors. perm is ""
// for reads; on a write, 403 and 404 are a *PermissionError naming perm.
func classify(op, perm string, err error) error { return classifyWrite(op, perm, err, false) }

// classifyItem is classify for a write to one existing item (edit or delete
// a comment): there a 404 means the item is gone, an *APIError matching
// ErrNotFound, not a missing permission; 403 still is one.
func classifyItem(op, perm string, err error) error { return classifyWrite(op, perm, err, true) }

func classifyWrite(op, perm string, err error, item bool) error {
	if err == nil {
		return nil
	}
	var (
		status  int
		message string
		limited bool
	)
	var rl *gh.RateLimitError
	var ab *gh.AbuseRateLimitError
	var er *gh.ErrorResponse
	switch {
	case errors.As(err, &rl):
		status, message, limited = statusOf(rl.Response), rl.Message, true
	case errors.As(err, &ab):
		status, message, limited = statusOf(ab.Response), ab.Message, true
	case errors.As(err, &er):
		status, message = statusOf(er.Response), er.Message
		// A 422 says what was wrong only in its errors list (strings on the
		// reviews endpoint, objects elsewhere): keep it in the message.
		var details []string
		for _, e := range er.Errors {
			if d := strings.TrimSpace(cmp.Or(e.Message, strings.Trim(e.Field+" "+e.Code, " "))); d != "" {
				details = append(details, d)
			}
		}
		if len(details) > 0 {
			message = strings.TrimSpace(message + ": " + strings.Join(details, "; "))
		}
	default:
		return fmt.Errorf("github: %s: %w", op, err)
	}
	if perm != "" && !limited && (status == http.StatusForbidden || (status == http.StatusNotFound && !item)) {
		return &PermissionError{Op: op, Status: status, Permission: perm, err: err}
	}
	if message == "" {
		message = http.StatusText(status)
	}
	return &APIError{Op: op, Status: status, Message: message, err: err}
}

func statusOf(r *http.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}
