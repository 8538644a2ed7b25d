package review_test

import (
	"context"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/scope"
)

// TestGitattributesAtBase: the base commit's .gitattributes marks files
// linguist-generated or linguist-vendored, and they are excluded with that
// reason; a .gitattributes only at the head (the PR's own) changes nothing.
func TestGitattributesAtBase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		ref        string
		wantExcl   bool
		wantReason string
	}{
		{name: "base marks the file generated", ref: baseSHA, wantExcl: true, wantReason: scope.ReasonGenerated},
		{name: "only the PR's head marks it", ref: headSHA},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			// Larger than a hand edit, which is reviewed whatever the marks.
			e.helpersPR(t, scope.HandEditLines+10, "internal/models/user.go", "internal/api/h.go")
			e.gh.SetContent(tc.ref, ".gitattributes", "internal/models/** linguist-generated=true\n")
			o := options()
			o.Validate = false

			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			var reason string
			for _, x := range res.Coverage.NotReviewed {
				if x.Path == "internal/models/user.go" {
					reason = x.Reason
				}
			}
			if got := reason != ""; got != tc.wantExcl || reason != tc.wantReason {
				t.Errorf("internal/models/user.go excluded %v (%q); want %v (%q)", got, reason, tc.wantExcl, tc.wantReason)
			}
		})
	}
}

// TestBaseTreeDecidesVendored: the base commit's tree says whether vendor/
// is vendored, and the change must explain a vendored file: where the base
// has a vendor/ directory but the PR leaves vendor/modules.txt alone, the
// PR's new file in it is the PR's own code (issue 30), reviewed as it is
// where the base has no vendor/ at all.
func TestBaseTreeDecidesVendored(t *testing.T) {
	t.Parallel()
	const path = "vendor/github.com/acme/lib/lib.go"
	for _, tc := range []struct {
		name string
		base map[string]string
		want string
	}{
		{name: "base vendors, modules.txt unchanged", base: map[string]string{"vendor/modules.txt": "# github.com/acme/lib v1.0.0\n"}},
		{name: "base has no vendor/", base: map[string]string{"go.mod": "module x\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.helpersPR(t, 12, path, "internal/api/h.go")
			for p, text := range tc.base {
				e.gh.SetContent(baseSHA, p, text)
			}
			o := options()
			o.Validate = false

			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			var reason string
			for _, x := range res.Coverage.NotReviewed {
				if x.Path == path {
					reason = x.Reason
				}
			}
			if reason != tc.want {
				t.Errorf("%s: not-reviewed reason %q; want %q", path, reason, tc.want)
			}
		})
	}
}
