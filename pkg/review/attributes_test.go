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
