package github_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
)

const (
	shaOld = "1111111111111111111111111111111111111111"
	shaNew = "2222222222222222222222222222222222222222"
	shaMid = "3333333333333333333333333333333333333333"
)

func TestCompare(t *testing.T) {
	patch := "@@ -1,2 +1,3 @@\n a\n+b\n c"
	tests := []struct {
		name string
		set  githubtest.Compare
		want github.Comparison
	}{
		{
			name: "ahead with files",
			set: githubtest.Compare{Commits: []string{shaMid, shaNew}, Files: []githubtest.File{
				{Filename: "a.go", Status: "modified", Patch: patch, Additions: 1},
				{Filename: "new.go", PreviousFilename: "old.go", Status: "renamed"},
			}},
			want: github.Comparison{Status: github.CompareAhead, AheadBy: 2, TotalCommits: 2, BaseSHA: shaOld, MergeBase: shaOld,
				Commits: []string{shaMid, shaNew}, Files: []github.ChangedFile{
					{Path: "a.go", Status: "modified", Patch: patch, Additions: 1},
					{Path: "new.go", PreviousPath: "old.go", Status: "renamed"},
				}},
		},
		{
			name: "diverged after a force push",
			set:  githubtest.Compare{Status: "diverged", AheadBy: 1, BehindBy: 2, MergeBase: shaMid, Commits: []string{shaNew}},
			want: github.Comparison{Status: github.CompareDiverged, AheadBy: 1, BehindBy: 2, TotalCommits: 1, BaseSHA: shaOld, MergeBase: shaMid, Commits: []string{shaNew}},
		},
		{
			name: "behind",
			set:  githubtest.Compare{Status: "behind", BehindBy: 1},
			want: github.Comparison{Status: github.CompareBehind, BehindBy: 1, BaseSHA: shaOld, MergeBase: shaOld},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c, _ := setup(t)
			srv.SetCompare(shaOld, shaNew, tt.set)
			got, err := c.Compare(context.Background(), owner, repo, shaOld, shaNew)
			if err != nil {
				t.Fatalf("Compare: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Path != "/repos/octo/demo/compare/"+shaOld+"..."+shaNew || reqs[0].Query != "" {
				t.Fatalf("requests = %+v; want one unpaged GET of the compare path", reqs)
			}
		})
	}
}

func TestCompareTruncated(t *testing.T) {
	srv, c, _ := setup(t)
	files := make([]githubtest.File, 301)
	for i := range files {
		files[i] = githubtest.File{Filename: strings.Repeat("f", i+1) + ".go", Patch: "@@ -1 +1 @@\n-a\n+b"}
	}
	srv.SetCompare(shaOld, shaNew, githubtest.Compare{Commits: []string{shaNew}, Files: files})
	got, err := c.Compare(context.Background(), owner, repo, shaOld, shaNew)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Files) != github.MaxCompareFiles || !got.Truncated {
		t.Fatalf("files = %d, truncated = %v; want %d, true", len(got.Files), got.Truncated, github.MaxCompareFiles)
	}
}

func TestCompareErrors(t *testing.T) {
	t.Run("unknown commit is not found", func(t *testing.T) {
		_, c, _ := setup(t)
		_, err := c.Compare(context.Background(), owner, repo, shaOld, shaNew)
		if !errors.Is(err, github.ErrNotFound) {
			t.Fatalf("err = %v; want ErrNotFound", err)
		}
	})
	t.Run("server errors are retried then reported", func(t *testing.T) {
		srv, c, rec := setup(t)
		srv.SetCompare(shaOld, shaNew, githubtest.Compare{Commits: []string{shaNew}})
		srv.Inject(githubtest.Fault{PathContains: "/compare/", Status: http.StatusInternalServerError})
		_, err := c.Compare(context.Background(), owner, repo, shaOld, shaNew)
		var api *github.APIError
		if !errors.As(err, &api) || api.Status != http.StatusInternalServerError {
			t.Fatalf("err = %v; want an HTTP 500 APIError", err)
		}
		if len(rec.Waits()) == 0 {
			t.Fatal("a 500 was not retried")
		}
	})
}

func TestReactToComment(t *testing.T) {
	srv, c, _ := setup(t)
	id := srv.AddComment(7, "alice", "/anchor-review")
	ctx := context.Background()
	for range 2 { // the second is GitHub's 200 "reaction exists"
		if err := c.ReactToComment(ctx, owner, repo, id, github.ReactionEyes); err != nil {
			t.Fatalf("ReactToComment: %v", err)
		}
	}
	if got := srv.Reactions(id); !reflect.DeepEqual(got, []string{"eyes"}) {
		t.Fatalf("reactions = %v; want [eyes]", got)
	}
	if err := c.ReactToComment(ctx, owner, repo, id, "thumbs"); err == nil {
		t.Fatal("an invalid reaction was accepted")
	}
	var pe *github.PermissionError
	if err := c.ReactToComment(ctx, owner, repo, 999999, github.ReactionEyes); !errors.As(err, &pe) {
		t.Fatalf("reacting to a missing comment: err = %v; want a PermissionError (a 404 on a write)", err)
	}
	srv.Inject(githubtest.ReadOnlyToken())
	if err := c.ReactToComment(ctx, owner, repo, id, github.ReactionRocket); !errors.As(err, &pe) || pe.Permission != github.PermPullRequestsWrite {
		t.Fatalf("read-only token: err = %v; want a PermissionError naming %q", err, github.PermPullRequestsWrite)
	}
}

func TestRefusedConclusion(t *testing.T) {
	srv, c, _ := setup(t)
	srv.RefuseConclusion("action_required")
	cr := github.CheckRun{Name: "anchor-review", HeadSHA: shaNew, Status: "completed", Conclusion: "action_required", Title: "t", Summary: "s", DetailsURL: "https://github.com/octo/demo/pull/7"}
	_, err := c.CreateCheckRun(context.Background(), owner, repo, cr)
	var api *github.APIError
	if !errors.As(err, &api) || api.Status != http.StatusUnprocessableEntity {
		t.Fatalf("err = %v; want a 422", err)
	}
	cr.Conclusion = "failure"
	if _, err := c.CreateCheckRun(context.Background(), owner, repo, cr); err != nil {
		t.Fatalf("failure refused: %v", err)
	}
	if runs := srv.CheckRuns(); len(runs) != 1 || runs[0].Conclusion != "failure" {
		t.Fatalf("check runs = %+v", runs)
	}
	if !strings.Contains(srv.Requests()[0].Body, `"details_url":"https://github.com/octo/demo/pull/7"`) {
		t.Fatalf("details_url not sent: %s", srv.Requests()[0].Body)
	}
}
