// Package github is anchor-review's GitHub client: the few REST calls a
// review needs, over go-github, with retries that honour GitHub's rate
// limits and errors that name the missing workflow permission.
//
// Every request goes through one retrying transport: 5xx and 429 are retried
// with exponential backoff and full jitter, honouring Retry-After (clamped);
// secondary rate limits (403 with Retry-After, or "secondary rate limit" in
// the body) likewise; a primary rate limit (403, X-RateLimit-Remaining: 0) is
// waited out only when its reset fits in the retry budget. A 403 or 404 on a
// write is a *PermissionError and is never retried.
//
// The API URL may be https://api.github.com/ or a GitHub Enterprise Server
// URL ending in /api/v3/. The token travels only in the Authorization
// header, so no error ever contains it.
package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// DefaultUserAgent is the User-Agent when WithUserAgent is not given.
const DefaultUserAgent = "anchor-review"

// Limits of the REST API the client works within.
const (
	// MaxFiles is the most files the files endpoint returns for a PR.
	MaxFiles = 3000
	// MaxAnnotations is the most annotations one check-run request may carry.
	MaxAnnotations = 50
	perPage        = 100
)

// diffMediaType asks the pulls endpoint for the unified diff.
const diffMediaType = "application/vnd.github.diff"

// Option configures a Client.
type Option func(*options)

type options struct {
	userAgent string
	policy    Policy
	sleep     func(ctx context.Context, d time.Duration) error
	jitter    func(max time.Duration) time.Duration
	now       func() time.Time
}

// WithUserAgent sets the User-Agent of every request (the command line
// passes "anchor-review/VERSION").
func WithUserAgent(ua string) Option { return func(o *options) { o.userAgent = ua } }

// WithRetry sets the retry policy; zero fields keep their defaults.
func WithRetry(p Policy) Option { return func(o *options) { o.policy = p } }

// WithSleep replaces the wait between retries (tests record instead of
// sleeping). The function must return ctx.Err() when ctx ends first.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(o *options) { o.sleep = sleep }
}

// WithJitter replaces the full-jitter draw: given the backoff ceiling it
// returns the wait, in [0, ceiling]. Tests pass a deterministic function.
func WithJitter(jitter func(ceiling time.Duration) time.Duration) Option {
	return func(o *options) { o.jitter = jitter }
}

// WithClock replaces time.Now, used to turn Retry-After HTTP-dates and
// X-RateLimit-Reset into waits.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// Client talks to one GitHub (or GitHub Enterprise Server) API. It is safe
// for concurrent use.
type Client struct {
	gh *gh.Client
	tr *transport
}

// New returns a Client for apiURL (e.g. "https://api.github.com/" or
// "https://ghe.example.com/api/v3/") authenticating with token. httpClient
// may be nil; it is copied, never modified.
func New(httpClient *http.Client, apiURL, token string, opts ...Option) (*Client, error) {
	o := options{userAgent: DefaultUserAgent, sleep: sleepContext, jitter: fullJitter, now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	base := httpClient.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	tr := &transport{base: base, policy: o.policy.withDefaults(), sleep: o.sleep, jitter: o.jitter, now: o.now}
	hc := *httpClient
	hc.Transport = tr

	u, err := url.Parse(apiURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("github: api url %q is not an absolute URL", apiURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	c := gh.NewClient(&hc)
	if strings.HasSuffix(u.Path, "/api/v3/") {
		if c, err = c.WithEnterpriseURLs(u.String(), strings.TrimSuffix(u.String(), "v3/")+"uploads/"); err != nil {
			return nil, fmt.Errorf("github: api url %q: %w", apiURL, err)
		}
	} else {
		c.BaseURL = u
	}
	c.UserAgent = o.userAgent
	if token != "" {
		c = c.WithAuthToken(token)
	}
	return &Client{gh: c, tr: tr}, nil
}

// Requests reports how many HTTP requests the client has sent, retries
// included.
func (c *Client) Requests() int { return int(c.tr.requests.Load()) }

// PR is the part of a pull request a review needs.
type PR struct {
	Number                     int
	Title, Body, State, Author string
	AuthorIsBot                bool // user.type is "Bot"
	HTMLURL                    string
	Merged, Draft              bool
	HeadSHA, BaseSHA           string
	HeadRef, BaseRef           string
	HeadRepo, BaseRepo         string // owner/name; they differ for a fork
	ChangedFiles               int    // as GitHub counts them
}

// PullRequest fetches PR n.
func (c *Client) PullRequest(ctx context.Context, owner, repo string, n int) (*PR, error) {
	p, _, err := c.gh.PullRequests.Get(ctx, owner, repo, n)
	if err != nil {
		return nil, classify(fmt.Sprintf("get pull request %s/%s#%d", owner, repo, n), "", err)
	}
	return &PR{
		Number:       p.GetNumber(),
		Title:        p.GetTitle(),
		Body:         p.GetBody(),
		State:        p.GetState(),
		Author:       p.GetUser().GetLogin(),
		AuthorIsBot:  p.GetUser().GetType() == "Bot",
		HTMLURL:      p.GetHTMLURL(),
		Merged:       p.GetMerged(),
		Draft:        p.GetDraft(),
		HeadSHA:      p.GetHead().GetSHA(),
		BaseSHA:      p.GetBase().GetSHA(),
		HeadRef:      p.GetHead().GetRef(),
		BaseRef:      p.GetBase().GetRef(),
		HeadRepo:     p.GetHead().GetRepo().GetFullName(),
		BaseRepo:     p.GetBase().GetRepo().GetFullName(),
		ChangedFiles: p.GetChangedFiles(),
	}, nil
}

// ChangedFile is one entry of the PR files endpoint. Patch is "" for binary
// or huge files.
type ChangedFile struct {
	Path, PreviousPath, Status, Patch string
	Additions, Deletions              int
}

// changedFile is one entry of the files endpoint or of a comparison.
func changedFile(f *gh.CommitFile) ChangedFile {
	return ChangedFile{
		Path:         f.GetFilename(),
		PreviousPath: f.GetPreviousFilename(),
		Status:       f.GetStatus(),
		Patch:        f.GetPatch(),
		Additions:    f.GetAdditions(),
		Deletions:    f.GetDeletions(),
	}
}

// Unseen reports whether the file's change holds text lines GitHub gives
// no patch for (a diff too large to show): it counts additions or
// deletions but has no patch. Binary files count none; a removed file's
// lines are deleted, not changed code.
func (f ChangedFile) Unseen() bool {
	return f.Patch == "" && f.Status != "removed" && f.Additions+f.Deletions > 0
}

// DiffSource is a PR's changes: the unified diff, or, when GitHub refuses
// the diff (HTTP 406: too many files or lines), the files endpoint's list.
type DiffSource struct {
	Unified           string
	Files             []ChangedFile
	FromFilesEndpoint bool
	// Truncated: the PR has more files than the files endpoint returns.
	Truncated bool
}

// Diff fetches PR n's diff, falling back to the files endpoint on 406.
func (c *Client) Diff(ctx context.Context, owner, repo string, n int) (DiffSource, error) {
	op := fmt.Sprintf("get diff of %s/%s#%d", owner, repo, n)
	req, err := c.gh.NewRequest(http.MethodGet,
		fmt.Sprintf("repos/%s/%s/pulls/%d", url.PathEscape(owner), url.PathEscape(repo), n), nil)
	if err != nil {
		return DiffSource{}, fmt.Errorf("github: %s: %w", op, err)
	}
	req.Header.Set("Accept", diffMediaType)
	var buf bytes.Buffer
	_, err = c.gh.Do(ctx, req, &buf)
	if err == nil {
		return DiffSource{Unified: buf.String()}, nil
	}
	var er *gh.ErrorResponse
	if !errors.As(err, &er) || statusOf(er.Response) != http.StatusNotAcceptable {
		return DiffSource{}, classify(op, "", err)
	}
	return c.files(ctx, owner, repo, n)
}

// files reads the files endpoint, all pages, at most MaxFiles files.
func (c *Client) files(ctx context.Context, owner, repo string, n int) (DiffSource, error) {
	op := fmt.Sprintf("list files of %s/%s#%d", owner, repo, n)
	src := DiffSource{FromFilesEndpoint: true}
	opt := &gh.ListOptions{PerPage: perPage}
	for {
		page, resp, err := c.gh.PullRequests.ListFiles(ctx, owner, repo, n, opt)
		if err != nil {
			return DiffSource{}, classify(op, "", err)
		}
		for _, f := range page {
			if len(src.Files) == MaxFiles {
				src.Truncated = true
				break
			}
			src.Files = append(src.Files, changedFile(f))
		}
		if resp.NextPage == 0 || len(src.Files) >= MaxFiles {
			src.Truncated = src.Truncated || resp.NextPage != 0
			break
		}
		opt.Page = resp.NextPage
	}
	if len(src.Files) >= MaxFiles && !src.Truncated {
		// GitHub stops at 3,000 without saying so; the PR's count tells.
		pr, err := c.PullRequest(ctx, owner, repo, n)
		if err != nil {
			return DiffSource{}, err
		}
		src.Truncated = pr.ChangedFiles > len(src.Files)
	}
	return src, nil
}

// Comment is an issue comment or a PR review comment.
type Comment struct {
	ID          int64
	Author      string
	Body        string
	HTMLURL     string
	AuthorIsBot bool
	CreatedAt   time.Time
	// Path, Line and InReplyTo are set for review (line) comments only.
	Path      string
	Line      int
	InReplyTo int64
	// UpdatedAt is when the comment was last edited (or created).
	UpdatedAt time.Time
	// Issue is the number of the issue or pull request the comment is on,
	// read from its API URL (listings across a repository need it).
	Issue int
	// ThumbsUp and ThumbsDown count the comment's +1 and -1 reactions, as
	// the rollup GitHub includes with every comment says.
	ThumbsUp, ThumbsDown int
}

func isBot(login, typ string) bool {
	return typ == "Bot" || strings.HasSuffix(login, "[bot]")
}

func issueComment(ic *gh.IssueComment) Comment {
	up, down := reactionCounts(ic.Reactions)
	return Comment{
		ID:          ic.GetID(),
		Author:      ic.GetUser().GetLogin(),
		Body:        ic.GetBody(),
		HTMLURL:     ic.GetHTMLURL(),
		AuthorIsBot: isBot(ic.GetUser().GetLogin(), ic.GetUser().GetType()),
		CreatedAt:   ic.GetCreatedAt().Time,
		UpdatedAt:   ic.GetUpdatedAt().Time,
		Issue:       numberFrom(ic.GetIssueURL()),
		ThumbsUp:    up, ThumbsDown: down,
	}
}

// IssueComments lists every comment on PR n's conversation, oldest first.
func (c *Client) IssueComments(ctx context.Context, owner, repo string, n int) ([]Comment, error) {
	return allPages(fmt.Sprintf("list comments of %s/%s#%d", owner, repo, n), issueComment,
		func(page int) ([]*gh.IssueComment, *gh.Response, error) {
			opt := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: perPage, Page: page}}
			return c.gh.Issues.ListComments(ctx, owner, repo, n, opt)
		})
}

// ReviewComments lists every review (line) comment on PR n.
func (c *Client) ReviewComments(ctx context.Context, owner, repo string, n int) ([]Comment, error) {
	return allPages(fmt.Sprintf("list review comments of %s/%s#%d", owner, repo, n), reviewComment,
		func(page int) ([]*gh.PullRequestComment, *gh.Response, error) {
			opt := &gh.PullRequestListCommentsOptions{ListOptions: gh.ListOptions{PerPage: perPage, Page: page}}
			return c.gh.PullRequests.ListComments(ctx, owner, repo, n, opt)
		})
}

// allPages follows GitHub's pagination from the first page to the last,
// converting every item; op names the request in an error.
func allPages[T any](op string, conv func(T) Comment, list func(page int) ([]T, *gh.Response, error)) ([]Comment, error) {
	var out []Comment
	err := eachPage(op, list, func(it T) error {
		out = append(out, conv(it))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachPage follows GitHub's pagination from the first page to the last,
// handing every item to visit as its page arrives, so a long listing never
// sits in memory at once. A visit that returns ErrStop ends the listing
// without an error; any other error ends it with that error. op names the
// request in an error.
func eachPage[T any](op string, list func(page int) ([]T, *gh.Response, error), visit func(T) error) error {
	for page := 0; ; {
		items, resp, err := list(page)
		if err != nil {
			return classify(op, "", err)
		}
		for _, it := range items {
			if err := visit(it); err != nil {
				if errors.Is(err, ErrStop) {
					return nil
				}
				return err
			}
		}
		if resp.NextPage == 0 {
			return nil
		}
		page = resp.NextPage
	}
}

// CreateComment posts body on PR n's conversation.
func (c *Client) CreateComment(ctx context.Context, owner, repo string, n int, body string) (Comment, error) {
	ic, _, err := c.gh.Issues.CreateComment(ctx, owner, repo, n, &gh.IssueComment{Body: &body})
	if err != nil {
		return Comment{}, classify(fmt.Sprintf("create comment on %s/%s#%d", owner, repo, n), PermPullRequestsWrite, err)
	}
	return issueComment(ic), nil
}

// EditComment replaces the body of comment id.
func (c *Client) EditComment(ctx context.Context, owner, repo string, id int64, body string) (Comment, error) {
	ic, _, err := c.gh.Issues.EditComment(ctx, owner, repo, id, &gh.IssueComment{Body: &body})
	if err != nil {
		return Comment{}, classifyItem(fmt.Sprintf("edit comment %d in %s/%s", id, owner, repo), PermPullRequestsWrite, err)
	}
	return issueComment(ic), nil
}

// DeleteComment deletes comment id. A comment already gone is an error
// matching ErrNotFound.
func (c *Client) DeleteComment(ctx context.Context, owner, repo string, id int64) error {
	_, err := c.gh.Issues.DeleteComment(ctx, owner, repo, id)
	return classifyItem(fmt.Sprintf("delete comment %d in %s/%s", id, owner, repo), PermPullRequestsWrite, err)
}

// Annotation is a check-run annotation. Level is "notice", "warning" or
// "failure"; EndLine 0 means StartLine.
type Annotation struct {
	Path                  string
	StartLine, EndLine    int
	Level, Title, Message string
}

// CheckRun is a check run to create or update. Status "" with a Conclusion
// completes the run.
type CheckRun struct {
	Name, HeadSHA, Status, Conclusion string
	Title, Summary, Text              string
	// DetailsURL is where the run's details live; GitHub asks for one with
	// the action_required conclusion.
	DetailsURL string
	// ExternalID names what the run goes with: the report comment
	// (marker.CheckRef), so a later run can tell our report from a copy.
	ExternalID  string
	Annotations []Annotation
}

// CreateCheckRun creates a check run with the first MaxAnnotations
// annotations, then appends the rest with updates of MaxAnnotations each.
func (c *Client) CreateCheckRun(ctx context.Context, owner, repo string, r CheckRun) (int64, error) {
	first, rest := split(r.Annotations)
	out := output(r, first)
	cr, _, err := c.gh.Checks.CreateCheckRun(ctx, owner, repo, gh.CreateCheckRunOptions{
		Name:       r.Name,
		HeadSHA:    r.HeadSHA,
		Status:     optional(r.Status),
		Conclusion: optional(r.Conclusion),
		DetailsURL: optional(r.DetailsURL),
		ExternalID: optional(r.ExternalID),
		Output:     out,
	})
	if err != nil {
		return 0, classify(fmt.Sprintf("create check run %q on %s/%s@%s", r.Name, owner, repo, r.HeadSHA), PermChecksWrite, err)
	}
	id := cr.GetID()
	if len(rest) > 0 {
		r.Annotations = rest
		if err := c.UpdateCheckRun(ctx, owner, repo, id, r); err != nil {
			return id, err
		}
	}
	return id, nil
}

// UpdateCheckRun updates check run id; GitHub appends the annotations, sent
// in requests of at most MaxAnnotations.
func (c *Client) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, r CheckRun) error {
	rest := r.Annotations
	for first := true; first || len(rest) > 0; first = false {
		var batch []Annotation
		batch, rest = split(rest)
		_, _, err := c.gh.Checks.UpdateCheckRun(ctx, owner, repo, id, gh.UpdateCheckRunOptions{
			Name:       r.Name, // always sent by go-github: keep the run's name
			Status:     optional(r.Status),
			Conclusion: optional(r.Conclusion),
			ExternalID: optional(r.ExternalID),
			Output:     output(r, batch),
		})
		if err != nil {
			return classify(fmt.Sprintf("update check run %d in %s/%s", id, owner, repo), PermChecksWrite, err)
		}
	}
	return nil
}

func split(as []Annotation) (batch, rest []Annotation) {
	if len(as) <= MaxAnnotations {
		return as, nil
	}
	return as[:MaxAnnotations], as[MaxAnnotations:]
}

func output(r CheckRun, batch []Annotation) *gh.CheckRunOutput {
	if r.Title == "" && r.Summary == "" && r.Text == "" && len(batch) == 0 {
		return nil
	}
	out := &gh.CheckRunOutput{Title: gh.String(r.Title), Summary: gh.String(r.Summary), Text: optional(r.Text)}
	for _, a := range batch {
		end := a.EndLine
		if end < a.StartLine {
			end = a.StartLine
		}
		out.Annotations = append(out.Annotations, &gh.CheckRunAnnotation{
			Path:            gh.String(a.Path),
			StartLine:       gh.Int(a.StartLine),
			EndLine:         gh.Int(end),
			AnnotationLevel: gh.String(a.Level),
			Title:           optional(a.Title),
			Message:         gh.String(a.Message),
		})
	}
	return out
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Tree lists every file path in the repository at ref (the git trees API,
// recursive), in one request. truncated is true when GitHub cut the list
// (very large repositories); callers then fall back to probing paths.
func (c *Client) Tree(ctx context.Context, owner, repo, ref string) (paths []string, truncated bool, err error) {
	op := fmt.Sprintf("list the tree at %s in %s/%s", ref, owner, repo)
	t, _, err := c.gh.Git.GetTree(ctx, owner, repo, ref, true)
	if err != nil {
		return nil, false, classify(op, "", err)
	}
	for _, e := range t.Entries {
		if e.GetType() == "blob" {
			paths = append(paths, e.GetPath())
		}
	}
	return paths, t.GetTruncated(), nil
}

// FileContent reads path at ref (a SHA, branch or tag), whatever its size
// up to GitHub's 100 MB: above 1 MB the contents API returns no content, so
// the bytes come from the git blobs API. A missing file is found=false
// with a nil error.
func (c *Client) FileContent(ctx context.Context, owner, repo, path, ref string) (string, bool, error) {
	op := fmt.Sprintf("read %s at %s in %s/%s", path, ref, owner, repo)
	f, dir, _, err := c.gh.Repositories.GetContents(ctx, owner, repo, path, &gh.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		err = classify(op, "", err)
		if errors.Is(err, ErrNotFound) {
			return "", false, nil
		}
		return "", false, err
	}
	if f == nil {
		return "", false, fmt.Errorf("github: %s: is a directory (%d entries), not a file", op, len(dir))
	}
	if f.GetEncoding() == "none" || (f.Content == nil && f.GetSize() > 0) {
		// The contents API gives no content above 1 MB ("encoding":
		// "none"); the git blobs API serves the same bytes up to 100 MB.
		b, _, err := c.gh.Git.GetBlobRaw(ctx, owner, repo, f.GetSHA())
		if err != nil {
			return "", false, classify(op+" (blob "+f.GetSHA()+")", "", err)
		}
		return string(b), true, nil
	}
	s, err := f.GetContent()
	if err != nil {
		return "", false, fmt.Errorf("github: %s: %w", op, err)
	}
	return s, true, nil
}
