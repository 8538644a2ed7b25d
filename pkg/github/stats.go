package github

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// The reads `anchor-review stats` makes: every pull request of a
// repository updated in a period, and every issue and review comment of
// the repository updated in it, a page of 100 at a time, each item handed
// to a visitor so a busy repository never sits in memory at once.

// PullSummary is a pull request as the list endpoint gives it.
type PullSummary struct {
	Number               int
	State                string
	Merged               bool // merged_at is set (the list has no "merged")
	HeadSHA              string
	CreatedAt, UpdatedAt time.Time
}

// ErrStop, returned by a visitor, ends the listing without an error.
var ErrStop = errors.New("github: stop listing")

// EachPullUpdatedSince visits the repository's pull requests of every
// state, most recently updated first, down to the first one updated before
// since (where the listing stops: the rest are older).
func (c *Client) EachPullUpdatedSince(ctx context.Context, owner, repo string, since time.Time, visit func(PullSummary) error) error {
	return eachPage(fmt.Sprintf("list pull requests of %s/%s", owner, repo),
		func(page int) ([]*gh.PullRequest, *gh.Response, error) {
			opt := &gh.PullRequestListOptions{State: "all", Sort: "updated", Direction: "desc", ListOptions: gh.ListOptions{PerPage: perPage, Page: page}}
			return c.gh.PullRequests.List(ctx, owner, repo, opt)
		},
		func(p *gh.PullRequest) error {
			s := PullSummary{
				Number: p.GetNumber(), State: p.GetState(), Merged: p.MergedAt != nil, HeadSHA: p.GetHead().GetSHA(),
				CreatedAt: p.GetCreatedAt().Time, UpdatedAt: p.GetUpdatedAt().Time,
			}
			if s.UpdatedAt.Before(since) {
				return ErrStop
			}
			return visit(s)
		})
}

// EachRepoIssueComment visits every conversation comment of the
// repository's issues and pull requests updated at or after since, oldest
// update first. Each carries its PR number (Issue) and reaction counts.
func (c *Client) EachRepoIssueComment(ctx context.Context, owner, repo string, since time.Time, visit func(Comment) error) error {
	return eachPage(fmt.Sprintf("list the issue comments of %s/%s", owner, repo),
		func(page int) ([]*gh.IssueComment, *gh.Response, error) {
			sort, dir := "updated", "asc"
			opt := &gh.IssueListCommentsOptions{Sort: &sort, Direction: &dir, Since: &since, ListOptions: gh.ListOptions{PerPage: perPage, Page: page}}
			return c.gh.Issues.ListComments(ctx, owner, repo, 0, opt)
		},
		func(ic *gh.IssueComment) error { return visit(issueComment(ic)) })
}

// EachRepoReviewComment visits every review (line) comment of the
// repository's pull requests updated at or after since, oldest update
// first, with its PR number (Issue) and reaction counts.
func (c *Client) EachRepoReviewComment(ctx context.Context, owner, repo string, since time.Time, visit func(Comment) error) error {
	return eachPage(fmt.Sprintf("list the review comments of %s/%s", owner, repo),
		func(page int) ([]*gh.PullRequestComment, *gh.Response, error) {
			opt := &gh.PullRequestListCommentsOptions{Sort: "updated", Direction: "asc", Since: since, ListOptions: gh.ListOptions{PerPage: perPage, Page: page}}
			return c.gh.PullRequests.ListComments(ctx, owner, repo, 0, opt)
		},
		func(rc *gh.PullRequestComment) error { return visit(reviewComment(rc)) })
}

// numberFrom reads the issue or pull request number that ends an API URL
// (".../issues/7", ".../pulls/7"); 0 when there is none.
func numberFrom(u string) int {
	i := strings.LastIndexByte(u, '/')
	n, err := strconv.Atoi(u[i+1:])
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// reactionCounts reads the thumbs of a comment's reaction rollup.
func reactionCounts(r *gh.Reactions) (up, down int) {
	if r == nil {
		return 0, 0
	}
	return r.GetPlusOne(), r.GetMinusOne()
}

// RepoSummary is a repository as an organization's listing gives it.
type RepoSummary struct {
	FullName string
	Archived bool
	PushedAt time.Time
}

// EachOrgRepo visits the organization's repositories the token can see,
// most recently pushed first.
func (c *Client) EachOrgRepo(ctx context.Context, org string, visit func(RepoSummary) error) error {
	return eachPage(fmt.Sprintf("list the repositories of %s", org),
		func(page int) ([]*gh.Repository, *gh.Response, error) {
			opt := &gh.RepositoryListByOrgOptions{Type: "all", Sort: "pushed", Direction: "desc", ListOptions: gh.ListOptions{PerPage: perPage, Page: page}}
			return c.gh.Repositories.ListByOrg(ctx, org, opt)
		},
		func(r *gh.Repository) error {
			return visit(RepoSummary{FullName: r.GetFullName(), Archived: r.GetArchived(), PushedAt: r.GetPushedAt().Time})
		})
}
