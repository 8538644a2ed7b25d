package bench

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// firstRequest is a reverse proxy in front of a fake server that records
// when the first request arrives.
type firstRequest struct {
	URL string

	srv   *httptest.Server
	once  sync.Once
	first chan time.Time
}

// newFirstRequest proxies to target; close it with Close.
func newFirstRequest(tb testing.TB, target string) *firstRequest {
	tb.Helper()
	u, err := url.Parse(target)
	if err != nil {
		tb.Fatal(err)
	}
	f := &firstRequest{first: make(chan time.Time, 1)}
	proxy := httputil.NewSingleHostReverseProxy(u)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		f.once.Do(func() { f.first <- now })
		proxy.ServeHTTP(w, r)
	}))
	f.URL = f.srv.URL
	return f
}

// Wait returns the time the first request arrived; ok is false if none
// arrived before done was closed.
func (f *firstRequest) Wait(done <-chan struct{}) (t time.Time, ok bool) {
	select {
	case t := <-f.first:
		return t, true
	case <-done:
		select {
		case t := <-f.first:
			return t, true
		default:
			return time.Time{}, false
		}
	}
}

// Close stops the proxy.
func (f *firstRequest) Close() { f.srv.Close() }

// buildBinary builds the Action's binary the way the Dockerfile does and
// returns its path.
func buildBinary(tb testing.TB) string {
	tb.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("no go tool on PATH")
	}
	out := filepath.Join(tb.TempDir(), "anchor-review")
	cmd := exec.Command(goTool, "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
	cmd.Dir = ".." // the module root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

// envList turns an environment map into exec's form, sorted.
func envList(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// BenchmarkBinary builds the binary as the Dockerfile does
// (CGO_ENABLED=0 go build -trimpath -ldflags="-s -w") and reports its size
// (binary-MB), then starts it b.N times as the Action on a draft PR
// against the fake GitHub and reports the mean time from exec until the
// fake receives the first request (ms-to-first-request). ns/op is the
// whole process run (start, two requests, skip, exit).
func BenchmarkBinary(b *testing.B) {
	bin := buildBinary(b)
	st, err := os.Stat(bin)
	if err != nil {
		b.Fatal(err)
	}
	r := newActionRig(b, loadTeamPR(b), 0)
	defer r.close()
	r.setDraft()
	proxy := r.gh.URL
	env := r.env(b, "pull_request", "opened", true)

	var total time.Duration
	n := 0
	for b.Loop() {
		fr := newFirstRequest(b, proxy)
		env["GITHUB_API_URL"] = fr.URL
		cmd := exec.Command(bin)
		cmd.Env = envList(env)
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = nil, &stderr
		done := make(chan struct{})
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		var runErr error
		go func() {
			runErr = cmd.Wait()
			close(done)
		}()
		first, ok := fr.Wait(done)
		<-done
		fr.Close()
		if runErr != nil || !ok {
			b.Fatalf("binary: %v (first request seen: %v)\n%s", runErr, ok, stderr.String())
		}
		total += first.Sub(start)
		n++
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "binary-MB")
	b.ReportMetric(float64(total.Microseconds())/float64(n)/1000, "ms-to-first-request")
}
