package github_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
)

// TestResolveReviewThread: the threads of a PR are listed through GraphQL
// with their first comment's REST id; resolving one under the default
// `contents: read` is GitHub's FORBIDDEN, a *PermissionError naming
// `contents: write`, and nothing is resolved; with `contents: write` the
// thread is resolved. On GitHub Enterprise Server the endpoint is
// <host>/api/graphql, not <api>/graphql.
func TestResolveReviewThread(t *testing.T) {
	for _, base := range []string{"", "/api/v3/"} {
		t.Run("base "+base, func(t *testing.T) {
			srv := githubtest.New()
			t.Cleanup(srv.Close)
			c, err := github.New(srv.HTTPClient(), srv.URL+base, token)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			srv.AddPR(githubtest.PR{Number: 3, HeadSHA: strings.Repeat("a", 40)})
			first := srv.AddReviewComment(3, "github-actions[bot]", "finding")
			threads, err := c.ReviewThreads(ctx, "octocat", "Hello-World", 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(threads) != 1 || threads[0].FirstComment != first || threads[0].Resolved || threads[0].ID == "" {
				t.Fatalf("ReviewThreads() = %+v; want one open thread on comment %d", threads, first)
			}
			err = c.ResolveReviewThread(ctx, threads[0].ID)
			var pe *github.PermissionError
			if !errors.As(err, &pe) || pe.Permission != github.PermContentsWrite {
				t.Fatalf("ResolveReviewThread under contents: read = %v; want a PermissionError naming %q", err, github.PermContentsWrite)
			}
			if srv.Resolved(first) {
				t.Fatal("a FORBIDDEN answer resolved the thread")
			}
			srv.SetContents("write")
			if err := c.ResolveReviewThread(ctx, threads[0].ID); err != nil {
				t.Fatal(err)
			}
			if !srv.Resolved(first) {
				t.Error("thread not resolved")
			}
			var ge *github.GraphQLError
			if err := c.ResolveReviewThread(ctx, "PRRT_nope"); !errors.As(err, &ge) || ge.Type != "NOT_FOUND" {
				t.Errorf("unknown thread: %v; want GraphQL NOT_FOUND", err)
			}
			want := "/graphql"
			if base != "" {
				want = "/api/graphql"
			}
			for _, r := range srv.Requests() {
				if r.Method == "POST" && r.Path != want {
					t.Errorf("GraphQL sent to %s; want %s", r.Path, want)
				}
			}
		})
	}
}

// The fake is no kinder than GitHub: <host>/api/v3/graphql does not exist.
func TestGraphQLNotUnderRESTPrefix(t *testing.T) {
	srv := githubtest.New()
	t.Cleanup(srv.Close)
	c, err := github.New(srv.HTTPClient(), srv.URL+"/api/v3/api/v3/", token)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReviewThreads(context.Background(), "o", "r", 1); err == nil {
		t.Error("GraphQL under the REST prefix answered")
	}
}

// TestMergeQueue: a branch's queue entries with each PR's head and the
// merge group commit it is tested in; a branch without a queue has none.
func TestMergeQueue(t *testing.T) {
	srv, c, _ := setup(t)
	ctx := context.Background()
	head := strings.Repeat("a", 40)
	group := strings.Repeat("9", 40)
	srv.AddPR(githubtest.PR{Number: 104, HeadSHA: head})
	srv.SetMergeQueue("main", []githubtest.QueueEntry{{PR: 104, GroupSHA: group}})
	es, err := c.MergeQueue(ctx, "octo-org", "octo-repo", "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].PR != 104 || es[0].PRHead != head || es[0].GroupSHA != group || es[0].State != "AWAITING_CHECKS" {
		t.Errorf("MergeQueue() = %+v", es)
	}
	if es, err := c.MergeQueue(ctx, "octo-org", "octo-repo", "dev"); err != nil || len(es) != 0 {
		t.Errorf("MergeQueue(dev) = %+v, %v; want none", es, err)
	}
}
