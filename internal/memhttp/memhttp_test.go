package memhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anchor-review/anchor-review/internal/memhttp"
)

// TestStreamsOnTheBubbleClock: a handler that writes its header, waits a
// minute and writes again is read as a stream: the header at once, the
// body a minute later on the bubble's clock.
func TestStreamsOnTheBubbleClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Path", r.URL.Path)
			w.WriteHeader(http.StatusAccepted)
			time.Sleep(time.Minute)
			io.WriteString(w, "late")
		})
		c := memhttp.Client(map[string]http.Handler{"a.test": h})
		start := time.Now()
		resp, err := c.Get("http://a.test/p")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted || resp.Header.Get("X-Path") != "/p" || time.Since(start) != 0 {
			t.Errorf("status %d, X-Path %q after %v; want 202, /p at once", resp.StatusCode, resp.Header.Get("X-Path"), time.Since(start))
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil || string(b) != "late" || time.Since(start) != time.Minute {
			t.Errorf("body %q, %v after %v; want \"late\" after a minute", b, err, time.Since(start))
		}
	})
}

// TestCancelledStreamFails: a request cancelled mid-stream ends its body
// with an error, never a clean EOF that would pass a cut answer as whole.
func TestCancelledStreamFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "part")
			select {
			case <-time.After(time.Hour):
				io.WriteString(w, "rest")
			case <-r.Context().Done():
			}
		})
		c := memhttp.Client(map[string]http.Handler{"a.test": h})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://a.test/", nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil || strings.Contains(string(b), "rest") {
			t.Errorf("body %q, err %v; want the part and an error", b, err)
		}
	})
}

// TestUnknownHost: a host without a handler fails the request.
func TestUnknownHost(t *testing.T) {
	c := memhttp.Client(map[string]http.Handler{})
	_, err := c.Get("http://nowhere.test/")
	if err == nil || !strings.Contains(err.Error(), `no handler for host "nowhere.test"`) {
		t.Errorf("got %v; want an error naming the host", err)
	}
	var ue interface{ Unwrap() error }
	if !errors.As(err, &ue) {
		t.Errorf("got %T; want the client's *url.Error", err)
	}
}
