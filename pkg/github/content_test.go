package github_test

import (
	"context"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
)

// FileBytes reads a file whole within its limit, a prefix past it, and
// says which.
func TestFileBytes(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	c, err := github.New(srv.HTTPClient(), srv.URL+"/", "t")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("0123456789abcdef", 20_000) // 320,000 bytes
	srv.SetContent("ref1", "dir/a b.txt", big)
	ctx := context.Background()
	for _, tc := range []struct {
		limit     int64
		whole     bool
		prefixLen int
	}{
		{int64(len(big)), true, len(big)},
		{int64(len(big)) + 10, true, len(big)},
		{int64(len(big)) - 1, false, 64 << 10},
		{8 << 10, false, 8 << 10},
	} {
		got, found, whole, err := c.FileBytes(ctx, "o", "r", "dir/a b.txt", "ref1", tc.limit)
		if err != nil || !found || whole != tc.whole || len(got) < min(tc.prefixLen, int(tc.limit)) || !strings.HasPrefix(big, got) {
			t.Errorf("limit %d: len %d, found %t, whole %t, err %v; want whole %t and a prefix of at least %d", tc.limit, len(got), found, whole, err, tc.whole, tc.prefixLen)
		}
	}
	if _, found, _, err := c.FileBytes(ctx, "o", "r", "missing.txt", "ref1", 10); found || err != nil {
		t.Errorf("a missing file: found %t, err %v; want not found, no error", found, err)
	}
}
