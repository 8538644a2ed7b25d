package github_test

import (
	"context"
	"fmt"
	"time"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
)

func Example() {
	srv := githubtest.New()
	defer srv.Close()
	srv.AddPR(githubtest.PR{Number: 42, Title: "Add retries", HeadRepo: "fork/demo", BaseRepo: "octo/demo"})
	srv.AddComment(42, "github-actions[bot]", "<!-- anchor-review:report -->")
	srv.Inject(githubtest.RateLimited("1", 1)) // the first request is refused

	ctx := context.Background()
	c, err := github.New(srv.HTTPClient(), srv.URL, "token",
		github.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() }))
	if err != nil {
		fmt.Println(err)
		return
	}
	pr, err := c.PullRequest(ctx, "octo", "demo", 42)
	if err != nil {
		fmt.Println(err)
		return
	}
	comments, err := c.IssueComments(ctx, "octo", "demo", 42)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s (fork: %v)\n", pr.Title, pr.HeadRepo != pr.BaseRepo)
	fmt.Printf("%d comment by %s (bot: %v)\n", len(comments), comments[0].Author, comments[0].AuthorIsBot)
	fmt.Println("requests:", c.Requests())
	// Output:
	// Add retries (fork: true)
	// 1 comment by github-actions[bot] (bot: true)
	// requests: 3
}
