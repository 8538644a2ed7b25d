package github_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
)

const reviewHead = "1111111111111111111111111111111111111111"

// reviewDiff has one hunk on new lines 10-15 of app.go (11 and 12 added).
const reviewDiff = `diff --git a/app.go b/app.go
--- a/app.go
+++ b/app.go
@@ -10,4 +10,6 @@ func main() {
 	a := 1
+	b := 2
+	c := 3
 	d := 4
 	e := 5
 	f := 6
`

func reviewSetup(t *testing.T) (*githubtest.Server, *github.Client) {
	t.Helper()
	srv, c, _ := setup(t)
	srv.AddPR(githubtest.PR{Number: 5, HeadSHA: reviewHead, BaseSHA: "2222222222222222222222222222222222222222"})
	srv.SetDiff(5, reviewDiff)
	return srv, c
}

func TestCreateReview(t *testing.T) {
	srv, c := reviewSetup(t)
	ctx := context.Background()
	id, err := c.CreateReview(ctx, owner, repo, 5, github.Review{
		CommitID: reviewHead, Body: "anchor-review: 2 findings",
		Comments: []github.ReviewComment{
			{Path: "app.go", Line: 11, Side: "RIGHT", Body: "one line"},
			{Path: "app.go", StartLine: 11, Line: 12, Side: "RIGHT", Body: "a range"},
		},
	})
	if err != nil || id == 0 {
		t.Fatalf("CreateReview: %d, %v", id, err)
	}
	rvs := srv.Reviews(5)
	if len(rvs) != 1 || rvs[0].Event != github.ReviewEventComment || rvs[0].CommitID != reviewHead || len(rvs[0].Comments) != 2 {
		t.Fatalf("reviews %+v; want one COMMENT review with 2 comments", rvs)
	}
	// The wire format: event COMMENT, line/side, start_line/start_side only
	// for the range, no position.
	var sent struct {
		Event    string           `json:"event"`
		CommitID string           `json:"commit_id"`
		Comments []map[string]any `json:"comments"`
	}
	reqs := srv.Requests()
	if err := json.Unmarshal([]byte(reqs[len(reqs)-1].Body), &sent); err != nil {
		t.Fatal(err)
	}
	if sent.Event != "COMMENT" || sent.CommitID != reviewHead {
		t.Errorf("sent event %q commit %q", sent.Event, sent.CommitID)
	}
	if _, ok := sent.Comments[0]["start_line"]; ok || sent.Comments[0]["side"] != "RIGHT" {
		t.Errorf("one-line comment sent as %v", sent.Comments[0])
	}
	if sent.Comments[1]["start_line"] != float64(11) || sent.Comments[1]["start_side"] != "RIGHT" || sent.Comments[1]["line"] != float64(12) {
		t.Errorf("range comment sent as %v", sent.Comments[1])
	}
	for _, cm := range sent.Comments {
		if _, ok := cm["position"]; ok {
			t.Errorf("position sent: %v", cm)
		}
	}

	got, err := c.ReviewCommentsOf(ctx, owner, repo, 5, id)
	if err != nil || len(got) != 2 {
		t.Fatalf("ReviewCommentsOf: %+v, %v", got, err)
	}
	if got[0].Path != "app.go" || got[0].Line != 11 || got[0].Author != "github-actions[bot]" || !strings.Contains(got[0].HTMLURL, "#discussion_r") {
		t.Errorf("listed comment %+v", got[0])
	}
	all, err := c.ReviewComments(ctx, owner, repo, 5)
	if err != nil || len(all) != 2 {
		t.Fatalf("ReviewComments: %d, %v", len(all), err)
	}

	edited, err := c.EditReviewComment(ctx, owner, repo, got[1].ID, "resolved")
	if err != nil || edited.Body != "resolved" || edited.ID != got[1].ID {
		t.Fatalf("EditReviewComment: %+v, %v", edited, err)
	}
	if rc := srv.ReviewComments(5); rc[1].Body != "resolved" || rc[1].Edits != 1 || rc[0].Edits != 0 {
		t.Errorf("fake holds %+v", rc)
	}
	if _, err := c.EditReviewComment(ctx, owner, repo, 999999, "x"); !errors.Is(err, github.ErrNotFound) {
		t.Errorf("editing a comment that is gone: %v; want ErrNotFound", err)
	}
	if err := c.DeleteReviewComment(ctx, owner, repo, got[0].ID); err != nil {
		t.Fatalf("DeleteReviewComment: %v", err)
	}
	if rc := srv.ReviewComments(5); len(rc) != 1 || rc[0].ID != got[1].ID {
		t.Errorf("after the delete the fake holds %+v", rc)
	}
	if err := c.DeleteReviewComment(ctx, owner, repo, got[0].ID); !errors.Is(err, github.ErrNotFound) {
		t.Errorf("deleting a comment that is gone: %v; want ErrNotFound", err)
	}
}

// TestCreateReviewRefused holds the fake to GitHub's 422 rules: the whole
// review is refused and nothing is created.
func TestCreateReviewRefused(t *testing.T) {
	tests := []struct {
		name string
		r    github.Review
		msg  string
	}{
		{"line outside the diff", github.Review{CommitID: reviewHead, Body: "b", Comments: []github.ReviewComment{
			{Path: "app.go", Line: 11, Side: "RIGHT", Body: "fine"},
			{Path: "app.go", Line: 40, Side: "RIGHT", Body: "outside"},
		}}, "Line could not be resolved"},
		{"file not in the PR", github.Review{CommitID: reviewHead, Body: "b", Comments: []github.ReviewComment{
			{Path: "other.go", Line: 11, Side: "RIGHT", Body: "x"},
		}}, "Path could not be resolved"},
		{"start_line after line", github.Review{CommitID: reviewHead, Body: "b", Comments: []github.ReviewComment{
			{Path: "app.go", StartLine: 13, Line: 12, Side: "RIGHT", Body: "x"},
		}}, "start_line must precede line"},
		{"commit_id not the head", github.Review{CommitID: "3333333333333333333333333333333333333333", Body: "b", Comments: []github.ReviewComment{
			{Path: "app.go", Line: 11, Side: "RIGHT", Body: "x"},
		}}, "commit_id"},
		{"no body for COMMENT", github.Review{CommitID: reviewHead}, "Body is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, c := reviewSetup(t)
			_, err := c.CreateReview(context.Background(), owner, repo, 5, tc.r)
			var ae *github.APIError
			if !errors.As(err, &ae) || ae.Status != http.StatusUnprocessableEntity {
				t.Fatalf("err %v; want a 422 *APIError", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err %q; want it to carry %q", err, tc.msg)
			}
			if len(srv.Reviews(5)) != 0 || len(srv.ReviewComments(5)) != 0 {
				t.Errorf("a refused review created something")
			}
		})
	}
}

func TestCreateReviewReadOnly(t *testing.T) {
	srv, c := reviewSetup(t)
	srv.Inject(githubtest.ReadOnlyToken())
	_, err := c.CreateReview(context.Background(), owner, repo, 5, github.Review{CommitID: reviewHead, Body: "b"})
	var pe *github.PermissionError
	if !errors.As(err, &pe) || pe.Permission != github.PermPullRequestsWrite {
		t.Fatalf("err %v; want a PermissionError naming %q", err, github.PermPullRequestsWrite)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; a read-only refusal is never retried", n)
	}
}
