package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// PermContentsWrite is what GraphQL's resolveReviewThread needs of a
// workflow token (a token with `contents: read` gets FORBIDDEN).
const PermContentsWrite = "contents: write"

// GraphQLError is an error GitHub's GraphQL API answered with (HTTP 200,
// an `errors` list): Type is GitHub's code ("FORBIDDEN", "NOT_FOUND", ...).
type GraphQLError struct {
	Op      string
	Type    string
	Message string
}

func (e *GraphQLError) Error() string {
	if e.Type == "" {
		return fmt.Sprintf("github: %s: GraphQL: %s", e.Op, e.Message)
	}
	return fmt.Sprintf("github: %s: GraphQL %s: %s", e.Op, e.Type, e.Message)
}

// graphqlURL is the GraphQL endpoint of the REST base: <api>/graphql on
// github.com (https://api.github.com/graphql), <host>/api/graphql on
// GitHub Enterprise Server (whose REST base is <host>/api/v3/).
func graphqlURL(base *url.URL) string {
	u := *base
	if p, ok := strings.CutSuffix(u.Path, "/api/v3/"); ok {
		u.Path = p + "/api/graphql"
	} else {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/graphql"
	}
	return u.String()
}

// graphql posts one GraphQL operation and decodes its data into out. The
// request goes through the REST client's transport (token, retries). An
// `errors` list in the answer is a *GraphQLError (the first error): GitHub
// answers most refusals so, with HTTP 200.
func (c *Client) graphql(ctx context.Context, op, query string, vars map[string]any, out any) error {
	req, err := c.gh.NewRequest("POST", graphqlURL(c.gh.BaseURL), map[string]any{"query": query, "variables": vars})
	if err != nil {
		return fmt.Errorf("github: %s: %w", op, err)
	}
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if _, err := c.gh.Do(ctx, req, &resp); err != nil {
		return classify(op, "", err)
	}
	if len(resp.Errors) > 0 {
		return &GraphQLError{Op: op, Type: resp.Errors[0].Type, Message: resp.Errors[0].Message}
	}
	if len(resp.Data) == 0 || string(resp.Data) == "null" {
		return fmt.Errorf("github: %s: GraphQL answered no data", op)
	}
	if err := json.Unmarshal(resp.Data, out); err != nil {
		return fmt.Errorf("github: %s: GraphQL data: %w", op, err)
	}
	return nil
}

// Thread is an inline review thread of a pull request.
type Thread struct {
	ID       string // the node id resolveReviewThread takes
	Resolved bool
	// FirstComment is the REST id (databaseId) of the thread's first
	// comment: the inline comment the thread hangs on.
	FirstComment int64
}

const threadsQuery = `query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        nodes { id isResolved comments(first: 1) { nodes { databaseId } } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}`

// ReviewThreads lists PR n's review threads, every page.
func (c *Client) ReviewThreads(ctx context.Context, owner, repo string, n int) ([]Thread, error) {
	op := fmt.Sprintf("list review threads of %s/%s#%d", owner, repo, n)
	var out []Thread
	var after any
	for {
		var data struct {
			Repository *struct {
				PullRequest *struct {
					ReviewThreads struct {
						Nodes []struct {
							ID         string `json:"id"`
							IsResolved bool   `json:"isResolved"`
							Comments   struct {
								Nodes []struct {
									DatabaseID int64 `json:"databaseId"`
								} `json:"nodes"`
							} `json:"comments"`
						} `json:"nodes"`
						PageInfo struct {
							HasNextPage bool   `json:"hasNextPage"`
							EndCursor   string `json:"endCursor"`
						} `json:"pageInfo"`
					} `json:"reviewThreads"`
				} `json:"pullRequest"`
			} `json:"repository"`
		}
		if err := c.graphql(ctx, op, threadsQuery, map[string]any{"owner": owner, "name": repo, "number": n, "after": after}, &data); err != nil {
			return nil, err
		}
		if data.Repository == nil || data.Repository.PullRequest == nil {
			return nil, &GraphQLError{Op: op, Type: "NOT_FOUND", Message: "no such pull request"}
		}
		rt := data.Repository.PullRequest.ReviewThreads
		for _, t := range rt.Nodes {
			th := Thread{ID: t.ID, Resolved: t.IsResolved}
			if len(t.Comments.Nodes) > 0 {
				th.FirstComment = t.Comments.Nodes[0].DatabaseID
			}
			out = append(out, th)
		}
		if !rt.PageInfo.HasNextPage || rt.PageInfo.EndCursor == "" {
			return out, nil
		}
		after = rt.PageInfo.EndCursor
	}
}

const resolveMutation = `mutation($id: ID!) {
  resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}`

// ResolveReviewThread resolves review thread id. A token that may not
// (GitHub answers FORBIDDEN to a workflow token without `contents: write`)
// gets a *PermissionError naming that permission.
func (c *Client) ResolveReviewThread(ctx context.Context, id string) error {
	op := "resolve review thread " + id
	var data struct {
		ResolveReviewThread *struct {
			Thread struct {
				IsResolved bool `json:"isResolved"`
			} `json:"thread"`
		} `json:"resolveReviewThread"`
	}
	err := c.graphql(ctx, op, resolveMutation, map[string]any{"id": id}, &data)
	var ge *GraphQLError
	if errors.As(err, &ge) && ge.Type == "FORBIDDEN" {
		return &PermissionError{Op: op, Status: 403, Permission: PermContentsWrite, err: err}
	}
	if err != nil {
		return err
	}
	if data.ResolveReviewThread == nil || !data.ResolveReviewThread.Thread.IsResolved {
		return fmt.Errorf("github: %s: GraphQL did not report the thread resolved", op)
	}
	return nil
}

// QueueEntry is one entry of a branch's merge queue.
type QueueEntry struct {
	PR       int    // the pull request's number
	PRHead   string // the pull request's head commit (headRefOid)
	GroupSHA string // the merge group commit the queue tests it in (headCommit.oid)
	State    string // QUEUED, AWAITING_CHECKS, MERGEABLE, UNMERGEABLE, LOCKED
}

const queueQuery = `query($owner: String!, $name: String!, $branch: String!, $after: String) {
  repository(owner: $owner, name: $name) {
    mergeQueue(branch: $branch) {
      entries(first: 100, after: $after) {
        nodes { state headCommit { oid } pullRequest { number headRefOid } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}`

// MergeQueue lists the entries of branch's merge queue, every page; none
// when the branch has no queue.
func (c *Client) MergeQueue(ctx context.Context, owner, repo, branch string) ([]QueueEntry, error) {
	op := fmt.Sprintf("read the merge queue of %s/%s:%s", owner, repo, branch)
	var out []QueueEntry
	var after any
	for {
		var data struct {
			Repository *struct {
				MergeQueue *struct {
					Entries struct {
						Nodes []struct {
							State      string `json:"state"`
							HeadCommit *struct {
								OID string `json:"oid"`
							} `json:"headCommit"`
							PullRequest *struct {
								Number     int    `json:"number"`
								HeadRefOID string `json:"headRefOid"`
							} `json:"pullRequest"`
						} `json:"nodes"`
						PageInfo struct {
							HasNextPage bool   `json:"hasNextPage"`
							EndCursor   string `json:"endCursor"`
						} `json:"pageInfo"`
					} `json:"entries"`
				} `json:"mergeQueue"`
			} `json:"repository"`
		}
		if err := c.graphql(ctx, op, queueQuery, map[string]any{"owner": owner, "name": repo, "branch": branch, "after": after}, &data); err != nil {
			return nil, err
		}
		if data.Repository == nil {
			return nil, &GraphQLError{Op: op, Type: "NOT_FOUND", Message: "no such repository"}
		}
		if data.Repository.MergeQueue == nil {
			return out, nil
		}
		es := data.Repository.MergeQueue.Entries
		for _, e := range es.Nodes {
			q := QueueEntry{State: e.State}
			if e.HeadCommit != nil {
				q.GroupSHA = e.HeadCommit.OID
			}
			if e.PullRequest != nil {
				q.PR, q.PRHead = e.PullRequest.Number, e.PullRequest.HeadRefOID
			}
			out = append(out, q)
		}
		if !es.PageInfo.HasNextPage || es.PageInfo.EndCursor == "" {
			return out, nil
		}
		after = es.PageInfo.EndCursor
	}
}
