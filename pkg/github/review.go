package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"
)

// ReviewEventComment is the only review event anchor-review sends: it never
// approves and never requests changes (SPEC section 4).
const ReviewEventComment = "COMMENT"

// ReviewComment is one line comment of a review to create. Line is the
// (last) line on Side ("RIGHT": the head version); StartLine, when not 0,
// makes it a multi-line comment starting there on the same side.
type ReviewComment struct {
	Path            string
	Line, StartLine int
	Side            string
	Body            string
}

// Review is a pull-request review to create: always event COMMENT, on
// CommitID (the head SHA the lines refer to).
type Review struct {
	CommitID string
	Body     string
	Comments []ReviewComment
}

// CreateReview posts review r on PR n (event COMMENT) with all its line
// comments at once and returns the review's id. GitHub refuses the whole
// review with 422 when one comment is not on a line of the diff: that is an
// *APIError with Status 422; a token that may not write is a
// *PermissionError.
func (c *Client) CreateReview(ctx context.Context, owner, repo string, n int, r Review) (int64, error) {
	req := &gh.PullRequestReviewRequest{
		CommitID: gh.String(r.CommitID),
		Body:     gh.String(r.Body),
		Event:    gh.String(ReviewEventComment),
	}
	for _, rc := range r.Comments {
		dc := &gh.DraftReviewComment{Path: gh.String(rc.Path), Body: gh.String(rc.Body), Line: gh.Int(rc.Line), Side: optional(rc.Side)}
		if rc.StartLine > 0 && rc.StartLine != rc.Line {
			dc.StartLine = gh.Int(rc.StartLine)
			dc.StartSide = optional(rc.Side)
		}
		req.Comments = append(req.Comments, dc)
	}
	rv, _, err := c.gh.PullRequests.CreateReview(ctx, owner, repo, n, req)
	if err != nil {
		return 0, classify(fmt.Sprintf("create a review on %s/%s#%d", owner, repo, n), PermPullRequestsWrite, err)
	}
	return rv.GetID(), nil
}

// ReviewCommentsOf lists the comments of review id on PR n (to learn their
// URLs after CreateReview).
func (c *Client) ReviewCommentsOf(ctx context.Context, owner, repo string, n int, id int64) ([]Comment, error) {
	return allPages(fmt.Sprintf("list the comments of review %d on %s/%s#%d", id, owner, repo, n), reviewComment,
		func(page int) ([]*gh.PullRequestComment, *gh.Response, error) {
			return c.gh.PullRequests.ListReviewComments(ctx, owner, repo, n, id, &gh.ListOptions{PerPage: perPage, Page: page})
		})
}

// EditReviewComment replaces the body of review (line) comment id. A
// comment already gone is an error matching ErrNotFound.
func (c *Client) EditReviewComment(ctx context.Context, owner, repo string, id int64, body string) (Comment, error) {
	rc, _, err := c.gh.PullRequests.EditComment(ctx, owner, repo, id, &gh.PullRequestComment{Body: &body})
	if err != nil {
		return Comment{}, classifyItem(fmt.Sprintf("edit review comment %d in %s/%s", id, owner, repo), PermPullRequestsWrite, err)
	}
	return reviewComment(rc), nil
}

// ReplyToReviewComment replies in the inline thread that review comment
// id (the thread's first comment) starts on PR n.
func (c *Client) ReplyToReviewComment(ctx context.Context, owner, repo string, n int, id int64, body string) (Comment, error) {
	rc, _, err := c.gh.PullRequests.CreateCommentInReplyTo(ctx, owner, repo, n, body, id)
	if err != nil {
		return Comment{}, classifyItem(fmt.Sprintf("reply to review comment %d in %s/%s#%d", id, owner, repo, n), PermPullRequestsWrite, err)
	}
	return reviewComment(rc), nil
}

// DeleteReviewComment deletes review (line) comment id. A comment already
// gone is an error matching ErrNotFound.
func (c *Client) DeleteReviewComment(ctx context.Context, owner, repo string, id int64) error {
	_, err := c.gh.PullRequests.DeleteComment(ctx, owner, repo, id)
	return classifyItem(fmt.Sprintf("delete review comment %d in %s/%s", id, owner, repo), PermPullRequestsWrite, err)
}

func reviewComment(rc *gh.PullRequestComment) Comment {
	up, down := reactionCounts(rc.Reactions)
	return Comment{
		UpdatedAt:   rc.GetUpdatedAt().Time,
		Issue:       numberFrom(rc.GetPullRequestURL()),
		ThumbsUp:    up,
		ThumbsDown:  down,
		ID:          rc.GetID(),
		Author:      rc.GetUser().GetLogin(),
		Body:        rc.GetBody(),
		HTMLURL:     rc.GetHTMLURL(),
		AuthorIsBot: isBot(rc.GetUser().GetLogin(), rc.GetUser().GetType()),
		CreatedAt:   rc.GetCreatedAt().Time,
		Path:        rc.GetPath(),
		Line:        rc.GetLine(),
		InReplyTo:   rc.GetInReplyTo(),
	}
}
