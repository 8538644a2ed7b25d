package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"
)

// CheckRunRef is a check run as listed on a commit: enough to tell who
// created it and which report comment it goes with.
type CheckRunRef struct {
	ID         int64
	Name       string
	HeadSHA    string
	App        string // the slug of the GitHub App that created it
	ExternalID string
	Status     string
	Conclusion string
}

// CheckRunsOn lists the check runs named name on commit sha, every page,
// newest first as GitHub lists them (filter=all: not only the latest).
func (c *Client) CheckRunsOn(ctx context.Context, owner, repo, sha, name string) ([]CheckRunRef, error) {
	op := fmt.Sprintf("list check runs %q on %s/%s@%s", name, owner, repo, sha)
	var out []CheckRunRef
	err := eachPage(op, func(page int) ([]*gh.CheckRun, *gh.Response, error) {
		res, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, owner, repo, sha, &gh.ListCheckRunsOptions{
			CheckName:   gh.String(name),
			Filter:      gh.String("all"),
			ListOptions: gh.ListOptions{Page: page, PerPage: 100},
		})
		if res == nil {
			return nil, resp, err
		}
		return res.CheckRuns, resp, err
	}, func(r *gh.CheckRun) error {
		out = append(out, CheckRunRef{
			ID: r.GetID(), Name: r.GetName(), HeadSHA: r.GetHeadSHA(), App: r.GetApp().GetSlug(),
			ExternalID: r.GetExternalID(), Status: r.GetStatus(), Conclusion: r.GetConclusion(),
		})
		return nil
	})
	return out, err
}
