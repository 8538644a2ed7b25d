package githubtest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault makes matching requests fail (or wait) instead of being served.
// Faults are tried in the order injected; the first live match wins.
type Fault struct {
	// Method is "" for any, or a comma-separated list such as "POST,PATCH".
	Method string
	// PathContains matches a substring of the path (after any /api/v3).
	PathContains string
	// Accept, when set, matches only requests whose Accept header contains it.
	Accept string
	// Status is the answer's HTTP status; 0 serves the request normally
	// after Delay.
	Status int
	// Headers are added to the answer.
	Headers map[string]string
	// Body is the answer's body; "" gives GitHub's error shape with the
	// status text as message.
	Body string
	// Times is how many requests the fault hits; 0 means every one.
	Times int
	// Delay is waited (or the request's context ends) before answering.
	Delay time.Duration
	// HoldUntil, when above 1, holds matching requests until that many have
	// arrived, then lets them all go on together (or each goes on after
	// Delay, 10 s when Delay is 0): a barrier that makes concurrent
	// requests really overlap, whatever the machine's speed.
	HoldUntil int

	gate *gate // the barrier's shared state, made by Inject
}

// gate is a barrier that opens when its count is reached.
type gate struct {
	mu      sync.Mutex
	arrived int
	open    chan struct{}
}

// wait counts one arrival and blocks until want have arrived, the timeout
// passes, or done is closed. It reports whether the gate opened.
func (g *gate) wait(want int, timeout time.Duration, done <-chan struct{}) bool {
	g.mu.Lock()
	if g.arrived++; g.arrived == want {
		close(g.open)
	}
	g.mu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-g.open:
		return true
	case <-t.C:
	case <-done:
	}
	return false
}

func (f *Fault) matches(r *http.Request, path string) bool {
	if f.Method == writes && f.PathContains == "" && isGraphQL(path) {
		// Every GraphQL call is a POST, reads too: the GraphQL endpoint
		// refuses what the token may not do itself (FORBIDDEN).
		return false
	}
	if f.Method != "" {
		ok := false
		for _, m := range strings.Split(f.Method, ",") {
			ok = ok || strings.EqualFold(strings.TrimSpace(m), r.Method)
		}
		if !ok {
			return false
		}
	}
	if f.Accept != "" && !strings.Contains(r.Header.Get("Accept"), f.Accept) {
		return false
	}
	return strings.Contains(path, f.PathContains)
}

// writes are the methods GitHub refuses to a read-only token.
const writes = "POST,PATCH,PUT,DELETE"

// DiffTooLarge is GitHub's 406 for a diff over 300 files or 20,000 lines:
// the diff media type is refused and callers must use the files endpoint.
func DiffTooLarge() Fault {
	return Fault{
		Method: http.MethodGet, PathContains: "/pulls/", Accept: "diff", Status: http.StatusNotAcceptable,
		Body: `{"message":"Sorry, the diff exceeded the maximum number of files (300). Consider using 'List pull requests files' API or locally cloning the repository instead.","errors":[{"resource":"PullRequest","field":"diff","code":"too_large"}],"documentation_url":"https://docs.github.com/rest/pulls/pulls#list-pull-requests-files","status":"406"}`,
	}
}

// ReadOnlyToken refuses every write with 403, as GitHub does for a
// workflow token without the needed write permission.
func ReadOnlyToken() Fault {
	return Fault{
		Method: writes, Status: http.StatusForbidden,
		Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest","status":"403"}`,
	}
}

// RateLimited answers the next times requests with 429 and, when retryAfter
// is not "", that Retry-After value (verbatim, so tests can send garbage).
func RateLimited(retryAfter string, times int) Fault {
	return Fault{
		Status: http.StatusTooManyRequests, Headers: retryAfterHeader(retryAfter), Times: times,
		Body: `{"message":"Too many requests","documentation_url":"https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api","status":"429"}`,
	}
}

// SecondaryRateLimit answers the next times requests with GitHub's 403
// secondary rate limit and, when retryAfter is not "", a Retry-After.
func SecondaryRateLimit(retryAfter string, times int) Fault {
	return Fault{
		Status: http.StatusForbidden, Headers: retryAfterHeader(retryAfter), Times: times,
		Body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.","documentation_url":"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits","status":"403"}`,
	}
}

// PrimaryRateLimit answers the next times requests with GitHub's 403 for an
// exhausted hourly quota that resets at reset.
func PrimaryRateLimit(reset time.Time, times int) Fault {
	return Fault{
		Status: http.StatusForbidden, Times: times,
		Headers: map[string]string{
			"X-RateLimit-Limit":     "5000",
			"X-RateLimit-Remaining": "0",
			"X-RateLimit-Used":      "5000",
			"X-RateLimit-Reset":     strconv.FormatInt(reset.Unix(), 10),
			"X-RateLimit-Resource":  "core",
		},
		Body: `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting","status":"403"}`,
	}
}

// ServerError answers the next times requests with 500.
func ServerError(times int) Fault {
	return Fault{Status: http.StatusInternalServerError, Times: times}
}

// Slow delays the next times requests by d, then serves them.
func Slow(d time.Duration, times int) Fault { return Fault{Delay: d, Times: times} }

func retryAfterHeader(v string) map[string]string {
	if v == "" {
		return nil
	}
	return map[string]string{"Retry-After": v}
}

func errorBody(status int, message string) string {
	b, _ := json.Marshal(errorShape(status, message)) // strings only: cannot fail
	return string(b)
}

// errorShape is GitHub's basic-error body.
func errorShape(status int, message string) map[string]any {
	return map[string]any{"message": message, "documentation_url": "https://docs.github.com/rest", "status": strconv.Itoa(status)}
}
