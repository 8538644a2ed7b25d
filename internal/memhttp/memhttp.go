// Package memhttp serves HTTP requests in memory: a client's transport
// hands each request straight to a handler (the fake GitHub's, the fake
// model server's), with the response streamed back through a pipe. No
// socket is opened, so a test can run the real clients inside a
// testing/synctest bubble, where every wait (a five-minute answer, a call
// timeout, a deadline) passes on the bubble's fake clock.
package memhttp

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// Client returns a client whose requests go to the handler of their host
// (the URL's host with its port, as "model.test" or "127.0.0.1:8080"); a
// host with no handler fails the request.
func Client(hosts map[string]http.Handler) *http.Client {
	return &http.Client{Transport: transport(hosts)}
}

type transport map[string]http.Handler

// RoundTrip serves req with its host's handler, in a goroutine of its own:
// the response returns once the handler writes its header (or ends), and
// its body streams what the handler writes after. Closing the body, or
// cancelling req's context, makes the handler's further writes fail and
// its request context done.
func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	h, ok := t[req.URL.Host]
	if !ok {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("memhttp: no handler for host %q", req.URL.Host)
	}
	pr, pw := io.Pipe()
	w := &writer{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	sreq := req.Clone(req.Context())
	sreq.RequestURI = req.URL.RequestURI()
	sreq.RemoteAddr = "192.0.2.1:1234"
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}
	go func() {
		defer func() {
			w.writeHeader(http.StatusOK)
			// A handler that returned because the request was cancelled
			// wrote a partial answer: the reader gets the error, not EOF.
			pw.CloseWithError(sreq.Context().Err())
		}()
		h.ServeHTTP(w, sreq)
	}()
	select {
	case <-w.ready:
	case <-req.Context().Done():
		pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          &body{pr: pr, done: req.Context().Done()},
		ContentLength: -1,
		Request:       req,
	}, nil
}

// writer is the handler's http.ResponseWriter.
type writer struct {
	header, sent http.Header
	status       int
	once         sync.Once
	ready        chan struct{}
	pw           *io.PipeWriter
}

func (w *writer) Header() http.Header { return w.header }

func (w *writer) WriteHeader(code int) { w.writeHeader(code) }

func (w *writer) writeHeader(code int) {
	w.once.Do(func() {
		w.status, w.sent = code, w.header.Clone()
		close(w.ready)
	})
}

func (w *writer) Write(b []byte) (int, error) {
	w.writeHeader(http.StatusOK)
	return w.pw.Write(b)
}

// Flush is a no-op: every write already waits for its reader.
func (w *writer) Flush() {}

// body is the response body; a read after the request's context is done
// fails as a real connection's would.
type body struct {
	pr   *io.PipeReader
	done <-chan struct{}
}

func (b *body) Read(p []byte) (int, error) {
	select {
	case <-b.done:
		b.pr.CloseWithError(errRequestDone)
		return 0, errRequestDone
	default:
	}
	return b.pr.Read(p)
}

func (b *body) Close() error { return b.pr.CloseWithError(errRequestDone) }

var errRequestDone = errors.New("memhttp: request done")
