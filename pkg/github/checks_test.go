package github_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
)

// TestCheckRunsOn: a check run created with an external_id is listed on
// its commit with that id and the creating app (the token's, or another
// app's), across pages, and only under the name asked for.
func TestCheckRunsOn(t *testing.T) {
	srv, c, _ := setup(t)
	ctx := context.Background()
	head := strings.Repeat("a", 40)
	id, err := c.CreateCheckRun(ctx, "octocat", "Hello-World", github.CheckRun{
		Name: "anchor-review", HeadSHA: head, Status: "completed", Conclusion: "success",
		Title: "ok", Summary: "ok", ExternalID: "anchor-review:report:42",
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.AddCheckRun(githubtest.CheckRun{Name: "anchor-review", HeadSHA: head, Conclusion: "success", App: "evil-app", ExternalID: "anchor-review:report:43"})
	for i := range 120 {
		srv.AddCheckRun(githubtest.CheckRun{Name: "anchor-review", HeadSHA: head, Conclusion: "failure", ExternalID: fmt.Sprint(i)})
	}
	srv.AddCheckRun(githubtest.CheckRun{Name: "lint", HeadSHA: head, Conclusion: "success"})
	srv.AddCheckRun(githubtest.CheckRun{Name: "anchor-review", HeadSHA: strings.Repeat("b", 40), Conclusion: "success"})

	runs, err := c.CheckRunsOn(ctx, "octocat", "Hello-World", head, "anchor-review")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 122 {
		t.Fatalf("CheckRunsOn() listed %d runs; want 122 (every page, this name, this head)", len(runs))
	}
	last, evil := runs[len(runs)-1], runs[len(runs)-2]
	if last.ID != id || last.App != "github-actions" || last.ExternalID != "anchor-review:report:42" || last.HeadSHA != head || last.Conclusion != "success" {
		t.Errorf("our run = %+v; want id %d by github-actions naming comment 42", last, id)
	}
	if evil.App != "evil-app" {
		t.Errorf("planted run's app = %q; want evil-app", evil.App)
	}
}
