package github

import (
	"net/http"
	"testing"
	"time"
)

func testTransport() *transport {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	return &transport{policy: Policy{}.withDefaults(), now: func() time.Time { return now }}
}

func TestRetryAfter(t *testing.T) {
	tr := testTransport()
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"12", 12 * time.Second, true},
		{" 5 ", 5 * time.Second, true},
		{"60", 60 * time.Second, true},
		{"61", 60 * time.Second, true},
		{"99999999999999999999", 60 * time.Second, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{tr.now().Add(9 * time.Second).Format(http.TimeFormat), 9 * time.Second, true},
		{tr.now().Add(time.Hour).Format(http.TimeFormat), 60 * time.Second, true},
		{tr.now().Add(-time.Hour).Format(http.TimeFormat), 0, true},
	}
	for _, tt := range tests {
		got, ok := tr.retryAfter(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("retryAfter(%q): got %s, %v; want %s, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestBackoff(t *testing.T) {
	tr := testTransport()
	tr.jitter = func(d time.Duration) time.Duration { return d }
	want := []time.Duration{1, 2, 4, 8, 16, 30, 30}
	for i, w := range want {
		if got := tr.backoff(i + 1); got != w*time.Second {
			t.Errorf("backoff(%d): got %s; want %s", i+1, got, w*time.Second)
		}
	}
	if got := tr.backoff(200); got != 30*time.Second {
		t.Errorf("backoff(200): got %s; want the 30s ceiling", got)
	}
	tr.jitter = func(d time.Duration) time.Duration { return -d } // a broken source stays in range
	if got := tr.backoff(1); got != 0 {
		t.Errorf("got %s; want 0", got)
	}
	tr.jitter = fullJitter
	for i := range 1000 {
		if got := tr.backoff(i%8 + 1); got < 0 || got > 30*time.Second {
			t.Fatalf("fullJitter backoff: got %s; want within [0, 30s]", got)
		}
	}
}

// FuzzRetryAfter: whatever a server sends, the wait stays in [0, MaxRetryAfter].
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"1", "-1", "soon", "99999999", "Wed, 21 Oct 2015 07:28:00 GMT", "", "1e9", "０"} {
		f.Add(s)
	}
	tr := testTransport()
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := tr.retryAfter(v)
		if d < 0 || d > tr.policy.MaxRetryAfter || (!ok && d != 0) {
			t.Fatalf("retryAfter(%q): got %s, %v; want within [0, %s]", v, d, ok, tr.policy.MaxRetryAfter)
		}
	})
}
