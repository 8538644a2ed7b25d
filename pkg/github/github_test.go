package github_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/internal/sleeptest"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
)

const (
	owner = "octo"
	repo  = "demo"
	token = "ghs_s3cr3tT0k3nValue"
)

// now is the clock every test client sees.
var now = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// recorder stands in for time.Sleep and remembers every wait.
type recorder = sleeptest.Recorder

// setup starts a fake GitHub and a client whose jitter is the backoff
// ceiling, so waits are exact.
func setup(t *testing.T, opts ...github.Option) (*githubtest.Server, *github.Client, *recorder) {
	t.Helper()
	srv := githubtest.New()
	t.Cleanup(srv.Close)
	rec := &recorder{}
	base := []github.Option{
		github.WithSleep(rec.Sleep),
		github.WithJitter(func(d time.Duration) time.Duration { return d }),
		github.WithClock(func() time.Time { return now }),
	}
	c, err := github.New(srv.HTTPClient(), srv.URL, token, append(base, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return srv, c, rec
}

func TestPullRequest(t *testing.T) {
	tests := []struct {
		name string
		pr   githubtest.PR
		want github.PR
	}{
		{
			name: "open same-repo PR",
			pr: githubtest.PR{Number: 7, Title: "Add retries", Body: "Why: flaky API.", Author: "alice",
				HeadSHA: "aaa", BaseSHA: "bbb", HeadRef: "retry", BaseRef: "main", BaseRepo: "octo/demo"},
			want: github.PR{Number: 7, Title: "Add retries", Body: "Why: flaky API.", State: "open", Author: "alice",
				HTMLURL: "https://github.com/octo/demo/pull/7", HeadSHA: "aaa", BaseSHA: "bbb", HeadRef: "retry",
				BaseRef: "main", HeadRepo: "octo/demo", BaseRepo: "octo/demo"},
		},
		{
			name: "null body is empty",
			pr:   githubtest.PR{Number: 8, Title: "chore(deps): bump x", BaseRepo: "octo/demo"},
			want: github.PR{Number: 8, Title: "chore(deps): bump x", State: "open", Author: "octocat",
				HTMLURL: "https://github.com/octo/demo/pull/8", HeadRef: "feature", BaseRef: "main",
				HeadRepo: "octo/demo", BaseRepo: "octo/demo"},
		},
		{
			name: "fork",
			pr:   githubtest.PR{Number: 9, Title: "t", HeadRepo: "mallory/demo", BaseRepo: "octo/demo", Draft: true},
			want: github.PR{Number: 9, Title: "t", State: "open", Author: "octocat", Draft: true,
				HTMLURL: "https://github.com/octo/demo/pull/9", HeadRef: "feature", BaseRef: "main",
				HeadRepo: "mallory/demo", BaseRepo: "octo/demo"},
		},
		{
			name: "merged",
			pr:   githubtest.PR{Number: 10, Title: "t", State: "closed", Merged: true, ChangedFiles: 4},
			want: github.PR{Number: 10, Title: "t", State: "closed", Merged: true, Author: "octocat",
				HTMLURL: "https://github.com/octocat/Hello-World/pull/10", HeadRef: "feature", BaseRef: "main",
				HeadRepo: "octocat/Hello-World", BaseRepo: "octocat/Hello-World", ChangedFiles: 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c, _ := setup(t)
			srv.AddPR(tt.pr)
			got, err := c.PullRequest(context.Background(), owner, repo, tt.pr.Number)
			if err != nil {
				t.Fatalf("PullRequest: %v", err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got %+v; want %+v", *got, tt.want)
			}
		})
	}
}

func TestPullRequestNotFound(t *testing.T) {
	_, c, _ := setup(t)
	_, err := c.PullRequest(context.Background(), owner, repo, 404)
	if !errors.Is(err, github.ErrNotFound) {
		t.Fatalf("got %v; want ErrNotFound", err)
	}
	var api *github.APIError
	if !errors.As(err, &api) || api.Status != http.StatusNotFound {
		t.Fatalf("got %#v; want *APIError with status 404", err)
	}
	if want := "pull request octo/demo#404"; !strings.Contains(err.Error(), want) {
		t.Errorf("got %q; want it to name %q", err, want)
	}
}

func TestIssueCommentsPagination(t *testing.T) {
	tests := []struct {
		comments, wantRequests int
	}{
		{0, 1}, {1, 1}, {100, 1}, {101, 2}, {250, 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.comments), func(t *testing.T) {
			srv, c, _ := setup(t)
			for i := range tt.comments {
				author := "alice"
				if i%2 == 1 {
					author = "github-actions[bot]"
				}
				srv.AddComment(3, author, fmt.Sprintf("comment %d", i))
			}
			got, err := c.IssueComments(context.Background(), owner, repo, 3)
			if err != nil {
				t.Fatalf("IssueComments: %v", err)
			}
			if len(got) != tt.comments {
				t.Fatalf("got %d comments; want %d", len(got), tt.comments)
			}
			for i, cm := range got {
				if want := fmt.Sprintf("comment %d", i); cm.Body != want {
					t.Fatalf("comment %d: got body %q; want %q", i, cm.Body, want)
				}
				if cm.AuthorIsBot != (i%2 == 1) {
					t.Errorf("comment %d by %s: got AuthorIsBot %v", i, cm.Author, cm.AuthorIsBot)
				}
				if cm.ID == 0 || cm.CreatedAt.IsZero() || !strings.Contains(cm.HTMLURL, "#issuecomment-") {
					t.Errorf("comment %d: got %+v; want id, time and URL", i, cm)
				}
			}
			if n := c.Requests(); n != tt.wantRequests {
				t.Errorf("got %d requests; want %d", n, tt.wantRequests)
			}
			for _, r := range srv.Requests() {
				if !strings.Contains(r.Query, "per_page=100") {
					t.Errorf("got query %q; want per_page=100", r.Query)
				}
			}
		})
	}
}

func TestReviewComments(t *testing.T) {
	srv, c, _ := setup(t)
	srv.AddReviewComment(5, "bob", "nit: rename")
	srv.AddReviewComment(5, "dependabot[bot]", "auto")
	got, err := c.ReviewComments(context.Background(), owner, repo, 5)
	if err != nil {
		t.Fatalf("ReviewComments: %v", err)
	}
	if len(got) != 2 || got[0].Author != "bob" || got[0].AuthorIsBot || !got[1].AuthorIsBot {
		t.Errorf("got %+v; want bob (human) then dependabot[bot] (bot)", got)
	}
	if want := "/repos/octo/demo/pulls/5/comments"; srv.Requests()[0].Path != want {
		t.Errorf("got path %q; want %q", srv.Requests()[0].Path, want)
	}
}

func TestDiff(t *testing.T) {
	const unified = "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n"
	srv, c, _ := setup(t)
	srv.AddPR(githubtest.PR{Number: 1})
	srv.SetDiff(1, unified)
	got, err := c.Diff(context.Background(), owner, repo, 1)
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	want := github.DiffSource{Unified: unified}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v; want %+v", got, want)
	}
	if accept := srv.Requests()[0].Header.Get("Accept"); accept != "application/vnd.github.diff" {
		t.Errorf("got Accept %q; want the diff media type", accept)
	}
}

func manyFiles(n int) []githubtest.File {
	files := make([]githubtest.File, n)
	for i := range files {
		files[i] = githubtest.File{Filename: fmt.Sprintf("f%04d.go", i), Status: "modified",
			Patch: "@@ -1 +1 @@\n-a\n+b", Additions: 1, Deletions: 1}
	}
	return files
}

func TestDiffFallback(t *testing.T) {
	tests := []struct {
		name          string
		files         int
		changedFiles  int // PR's changed_files; 0: the file count
		wantFiles     int
		wantTruncated bool
		wantRequests  int
	}{
		{"250 files over 3 pages", 250, 0, 250, false, 1 + 3},
		{"one page", 2, 0, 2, false, 1 + 1},
		{"exactly 3000", 3000, 0, 3000, false, 1 + 30 + 1},
		{"GitHub caps at 3000", 3000, 4200, 3000, true, 1 + 30 + 1},
		{"more than 3000 listed", 3200, 0, 3000, true, 1 + 30 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c, _ := setup(t)
			srv.AddPR(githubtest.PR{Number: 2, ChangedFiles: tt.changedFiles})
			srv.SetFiles(2, manyFiles(tt.files))
			srv.Inject(githubtest.DiffTooLarge())
			got, err := c.Diff(context.Background(), owner, repo, 2)
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if !got.FromFilesEndpoint || got.Unified != "" {
				t.Errorf("got FromFilesEndpoint %v, Unified %q; want the files endpoint", got.FromFilesEndpoint, got.Unified)
			}
			if len(got.Files) != tt.wantFiles || got.Truncated != tt.wantTruncated {
				t.Errorf("got %d files, truncated %v; want %d, %v", len(got.Files), got.Truncated, tt.wantFiles, tt.wantTruncated)
			}
			if n := c.Requests(); n != tt.wantRequests {
				t.Errorf("got %d requests; want %d", n, tt.wantRequests)
			}
			want := github.ChangedFile{Path: "f0001.go", Status: "modified", Patch: "@@ -1 +1 @@\n-a\n+b", Additions: 1, Deletions: 1}
			if len(got.Files) > 1 && !reflect.DeepEqual(got.Files[1], want) {
				t.Errorf("got %+v; want %+v", got.Files[1], want)
			}
		})
	}
}

func TestRetry(t *testing.T) {
	tests := []struct {
		name         string
		fault        githubtest.Fault
		wantWaits    []time.Duration
		wantRequests int
		wantStatus   int // 0: success
		wantBudget   bool
	}{
		{"429 Retry-After seconds", githubtest.RateLimited("3", 1), ds(3), 2, 0, false},
		{"429 Retry-After HTTP-date", githubtest.RateLimited(now.Add(7*time.Second).Format(http.TimeFormat), 1), ds(7), 2, 0, false},
		{"429 Retry-After date in the past", githubtest.RateLimited(now.Add(-time.Hour).Format(http.TimeFormat), 1), ds(0), 2, 0, false},
		{"429 without Retry-After backs off", githubtest.RateLimited("", 2), ds(1, 2), 3, 0, false},
		{"429 Retry-After -1 is ignored", githubtest.RateLimited("-1", 1), ds(1), 2, 0, false},
		{"429 Retry-After soon is ignored", githubtest.RateLimited("soon", 1), ds(1), 2, 0, false},
		{"429 Retry-After 99999999 is clamped", githubtest.RateLimited("99999999", 1), ds(60), 2, 0, false},
		{"429 Retry-After overflow is clamped", githubtest.RateLimited("99999999999999999999999", 1), ds(60), 2, 0, false},
		{"500 then success", githubtest.ServerError(1), ds(1), 2, 0, false},
		{"503 with Retry-After", githubtest.Fault{Status: 503, Headers: map[string]string{"Retry-After": "4"}, Times: 1}, ds(4), 2, 0, false},
		{"500 until attempts run out", githubtest.ServerError(0), ds(1, 2, 4, 8), 5, 500, false},
		{"secondary limit with Retry-After", githubtest.SecondaryRateLimit("2", 1), ds(2), 2, 0, false},
		{"secondary limit, message only", githubtest.SecondaryRateLimit("", 1), ds(60), 2, 0, false},
		{"primary limit within budget", githubtest.PrimaryRateLimit(now.Add(30*time.Second), 1), ds(31), 2, 0, false},
		{"primary limit beyond budget", githubtest.PrimaryRateLimit(now.Add(time.Hour), 1), nil, 1, 0, true},
		{"404 is not retried", githubtest.Fault{Status: 404, Times: 1}, nil, 1, 404, false},
		{"422 is not retried", githubtest.Fault{Status: 422, Times: 1}, nil, 1, 422, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c, rec := setup(t)
			srv.AddPR(githubtest.PR{Number: 1, Title: "ok"})
			srv.Inject(tt.fault)
			pr, err := c.PullRequest(context.Background(), owner, repo, 1)
			switch {
			case tt.wantBudget:
				if !errors.Is(err, github.ErrRetryBudget) {
					t.Fatalf("got %v; want ErrRetryBudget", err)
				}
			case tt.wantStatus != 0:
				var api *github.APIError
				if !errors.As(err, &api) || api.Status != tt.wantStatus {
					t.Fatalf("got %v; want *APIError %d", err, tt.wantStatus)
				}
			case err != nil:
				t.Fatalf("PullRequest: %v", err)
			case pr.Title != "ok":
				t.Fatalf("got title %q; want ok", pr.Title)
			}
			if got := rec.Waits(); !reflect.DeepEqual(got, tt.wantWaits) {
				t.Errorf("got waits %v; want %v", got, tt.wantWaits)
			}
			if n := c.Requests(); n != tt.wantRequests {
				t.Errorf("got %d requests; want %d", n, tt.wantRequests)
			}
			if n := len(srv.Requests()); n != tt.wantRequests {
				t.Errorf("server got %d requests; want %d", n, tt.wantRequests)
			}
		})
	}
}

func ds(secs ...int) []time.Duration {
	out := make([]time.Duration, len(secs))
	for i, s := range secs {
		out[i] = time.Duration(s) * time.Second
	}
	return out
}

func TestRetryBudget(t *testing.T) {
	srv, c, rec := setup(t, github.WithRetry(github.Policy{Budget: 5 * time.Second}))
	srv.AddPR(githubtest.PR{Number: 1})
	srv.Inject(githubtest.RateLimited("3", 0))
	_, err := c.PullRequest(context.Background(), owner, repo, 1)
	if !errors.Is(err, github.ErrRetryBudget) {
		t.Fatalf("got %v; want ErrRetryBudget", err)
	}
	if got, want := rec.Waits(), ds(3); !reflect.DeepEqual(got, want) {
		t.Errorf("got waits %v; want %v", got, want)
	}
	// The budget spans the client's life: 2s are left, less than one wait.
	_, err = c.PullRequest(context.Background(), owner, repo, 1)
	if !errors.Is(err, github.ErrRetryBudget) {
		t.Fatalf("second call: got %v; want ErrRetryBudget", err)
	}
	if n := c.Requests(); n != 3 {
		t.Errorf("got %d requests; want 3", n)
	}
}

func TestRetryStopsWhenContextEnds(t *testing.T) {
	srv, c, rec := setup(t)
	srv.AddPR(githubtest.PR{Number: 1})
	srv.Inject(githubtest.ServerError(0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.PullRequest(ctx, owner, repo, 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v; want context.Canceled", err)
	}
	// go-github reports ctx.Err() whatever the transport did, so the
	// transport's own stop is checked by what it sent and waited.
	if n, waits := c.Requests(), rec.Waits(); n > 1 || len(waits) != 0 {
		t.Errorf("got %d requests, waits %v; want at most 1 request and no wait", n, waits)
	}
}

// dropFirst fails the first n round trips as a lost connection would.
type dropFirst struct {
	mu   sync.Mutex
	n    int
	next http.RoundTripper
}

func (d *dropFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	d.mu.Lock()
	drop := d.n > 0
	d.n--
	d.mu.Unlock()
	if drop {
		return nil, errors.New("connection reset by peer")
	}
	return d.next.RoundTrip(r)
}

// TestLostConnectionRetriedOnlyForReads: a read whose connection drops is
// retried; a write is not, since it may have happened (a second report
// comment must never be created).
func TestLostConnectionRetriedOnlyForReads(t *testing.T) {
	for _, tc := range []struct {
		name      string
		call      func(*github.Client) error
		wantErr   bool
		wantTries int
	}{
		{"GET pull request", func(c *github.Client) error {
			_, err := c.PullRequest(context.Background(), owner, repo, 1)
			return err
		}, false, 2},
		{"POST comment", func(c *github.Client) error {
			_, err := c.CreateComment(context.Background(), owner, repo, 1, "report")
			return err
		}, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := githubtest.New()
			t.Cleanup(srv.Close)
			srv.AddPR(githubtest.PR{Number: 1})
			rec := &recorder{}
			hc := &http.Client{Transport: &dropFirst{n: 1, next: srv.HTTPClient().Transport}}
			c, err := github.New(hc, srv.URL, token, github.WithSleep(rec.Sleep))
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(c)
			if (err != nil) != tc.wantErr || c.Requests() != tc.wantTries {
				t.Errorf("got err %v after %d tries; want error %v after %d", err, c.Requests(), tc.wantErr, tc.wantTries)
			}
			if n := len(srv.Comments(1)); n != 0 {
				t.Errorf("comments created: %d; want 0", n)
			}
		})
	}
}

func TestWritePermissionErrors(t *testing.T) {
	ctx := context.Background()
	writes := []struct {
		name string
		perm string
		call func(c *github.Client, id int64) error
	}{
		{"create comment", "pull-requests: write", func(c *github.Client, _ int64) error {
			_, err := c.CreateComment(ctx, owner, repo, 1, "hi")
			return err
		}},
		{"edit comment", "pull-requests: write", func(c *github.Client, id int64) error {
			_, err := c.EditComment(ctx, owner, repo, id, "hi")
			return err
		}},
		{"delete comment", "pull-requests: write", func(c *github.Client, id int64) error {
			return c.DeleteComment(ctx, owner, repo, id)
		}},
		{"create check run", "checks: write", func(c *github.Client, _ int64) error {
			_, err := c.CreateCheckRun(ctx, owner, repo, github.CheckRun{Name: "anchor-review", HeadSHA: "abc"})
			return err
		}},
		{"update check run", "checks: write", func(c *github.Client, id int64) error {
			return c.UpdateCheckRun(ctx, owner, repo, id, github.CheckRun{Name: "anchor-review", Summary: "s"})
		}},
	}
	for _, status := range []int{http.StatusForbidden, http.StatusNotFound} {
		for _, w := range writes {
			t.Run(fmt.Sprintf("%d %s", status, w.name), func(t *testing.T) {
				srv, c, rec := setup(t)
				id := srv.AddComment(1, "github-actions[bot]", "old")
				if status == http.StatusForbidden {
					srv.Inject(githubtest.ReadOnlyToken())
				} else {
					id = 999999 // nothing has this id: GitHub answers 404
					srv.Inject(githubtest.Fault{Method: "POST", Status: 404, Body: `{"message":"Not Found","status":"404"}`})
				}
				err := w.call(c, id)
				if status == http.StatusNotFound && strings.HasSuffix(w.name, " comment") && !strings.HasPrefix(w.name, "create") {
					// A 404 on one existing comment means it is gone, not
					// that the token may not write: ErrNotFound, no retry.
					var pe *github.PermissionError
					if !errors.Is(err, github.ErrNotFound) || errors.As(err, &pe) {
						t.Fatalf("got %v; want an error matching ErrNotFound, not a PermissionError", err)
					}
					if n := c.Requests(); n != 1 {
						t.Errorf("got %d requests; want 1", n)
					}
					return
				}
				var pe *github.PermissionError
				if !errors.As(err, &pe) {
					t.Fatalf("got %v; want *PermissionError", err)
				}
				if pe.Status != status || pe.Permission != w.perm {
					t.Errorf("got status %d, permission %q; want %d, %q", pe.Status, pe.Permission, status, w.perm)
				}
				if !strings.Contains(err.Error(), w.perm) {
					t.Errorf("got %q; want it to name %q", err, w.perm)
				}
				if n := c.Requests(); n != 1 || len(rec.Waits()) != 0 {
					t.Errorf("got %d requests, waits %v; want 1 request, no retry", n, rec.Waits())
				}
				if strings.Contains(err.Error(), token) {
					t.Errorf("error %q contains the token", err)
				}
			})
		}
	}
}

func TestCommentLifecycle(t *testing.T) {
	ctx := context.Background()
	srv, c, _ := setup(t)
	created, err := c.CreateComment(ctx, owner, repo, 4, "first")
	if err != nil {
		t.Fatalf("CreateComment: %v", err)
	}
	if created.Author != "github-actions[bot]" || !created.AuthorIsBot || created.Body != "first" {
		t.Errorf("got %+v; want first, by github-actions[bot]", created)
	}
	edited, err := c.EditComment(ctx, owner, repo, created.ID, "second")
	if err != nil {
		t.Fatalf("EditComment: %v", err)
	}
	if edited.ID != created.ID || edited.Body != "second" {
		t.Errorf("got %+v; want id %d with body second", edited, created.ID)
	}
	if got := srv.Comments(4); len(got) != 1 || got[0].Body != "second" || got[0].Edits != 1 {
		t.Errorf("got %+v; want one comment edited once", got)
	}
	if err := c.DeleteComment(ctx, owner, repo, created.ID); err != nil {
		t.Fatalf("DeleteComment: %v", err)
	}
	if got := srv.Comments(4); len(got) != 0 {
		t.Errorf("got %+v; want none", got)
	}
}

func TestCommentTooLong(t *testing.T) {
	tests := []struct {
		length     int
		wantStatus int
	}{
		{githubtest.MaxCommentBody, 0},
		{githubtest.MaxCommentBody + 1, http.StatusUnprocessableEntity},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.length), func(t *testing.T) {
			_, c, _ := setup(t)
			_, err := c.CreateComment(context.Background(), owner, repo, 1, strings.Repeat("é", tt.length))
			var api *github.APIError
			switch {
			case tt.wantStatus == 0 && err != nil:
				t.Fatalf("got %v; want success", err)
			case tt.wantStatus != 0 && (!errors.As(err, &api) || api.Status != tt.wantStatus):
				t.Fatalf("got %v; want *APIError %d", err, tt.wantStatus)
			}
		})
	}
}

func TestCreateCheckRunBatches(t *testing.T) {
	tests := []struct {
		annotations  int
		wantRequests int
	}{
		{0, 1}, {50, 1}, {51, 2}, {120, 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.annotations), func(t *testing.T) {
			srv, c, _ := setup(t)
			run := github.CheckRun{Name: "anchor-review", HeadSHA: "abc123", Conclusion: "failure",
				Title: "2 findings", Summary: "summary", Text: "details"}
			for i := range tt.annotations {
				run.Annotations = append(run.Annotations, github.Annotation{
					Path: "a.go", StartLine: i + 1, Level: "warning", Message: fmt.Sprintf("m%d", i)})
			}
			id, err := c.CreateCheckRun(context.Background(), owner, repo, run)
			if err != nil {
				t.Fatalf("CreateCheckRun: %v", err)
			}
			if n := c.Requests(); n != tt.wantRequests {
				t.Errorf("got %d requests; want %d", n, tt.wantRequests)
			}
			runs := srv.CheckRuns()
			if len(runs) != 1 || runs[0].ID != id {
				t.Fatalf("got %+v; want one run with id %d", runs, id)
			}
			got := runs[0]
			if got.Name != "anchor-review" || got.HeadSHA != "abc123" || got.Status != "completed" ||
				got.Conclusion != "failure" || got.Title != "2 findings" || got.Summary != "summary" || got.Text != "details" {
				t.Errorf("got %+v; want the run as sent", got)
			}
			if len(got.Annotations) != tt.annotations {
				t.Fatalf("got %d annotations; want %d", len(got.Annotations), tt.annotations)
			}
			for i, a := range got.Annotations {
				if a.Message != fmt.Sprintf("m%d", i) || a.EndLine != i+1 {
					t.Fatalf("annotation %d: got %+v; want m%d ending on its start line", i, a, i)
				}
			}
			for _, r := range srv.Requests()[1:] {
				if r.Method != http.MethodPatch || !strings.Contains(r.Body, `"name":"anchor-review"`) {
					t.Errorf("got %s %s; want a PATCH keeping the name", r.Method, r.Body)
				}
			}
		})
	}
}

func TestPostBodyReplayedOnRetry(t *testing.T) {
	srv, c, _ := setup(t)
	srv.Inject(githubtest.Fault{Method: "POST", Status: 502, Times: 1},
		githubtest.Fault{Method: "POST", Status: 429, Headers: map[string]string{"Retry-After": "1"}, Times: 1})
	if _, err := c.CreateComment(context.Background(), owner, repo, 1, "the report"); err != nil {
		t.Fatalf("CreateComment: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("got %d requests; want 3", len(reqs))
	}
	for i, r := range reqs {
		if r.Body != reqs[0].Body || !strings.Contains(r.Body, `"body":"the report"`) {
			t.Errorf("request %d: got body %q; want %q", i, r.Body, reqs[0].Body)
		}
	}
	if got := srv.Comments(1); len(got) != 1 {
		t.Errorf("got %d comments; want 1", len(got))
	}
}

func TestEnterpriseURL(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	c, err := github.New(srv.HTTPClient(), srv.URL+"/api/v3", token)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv.AddPR(githubtest.PR{Number: 1, Title: "ghes"})
	for range 150 {
		srv.AddComment(1, "alice", "x")
	}
	pr, err := c.PullRequest(context.Background(), owner, repo, 1)
	if err != nil || pr.Title != "ghes" {
		t.Fatalf("got %+v, %v; want the PR", pr, err)
	}
	comments, err := c.IssueComments(context.Background(), owner, repo, 1)
	if err != nil || len(comments) != 150 {
		t.Fatalf("got %d comments, %v; want 150", len(comments), err)
	}
	for _, r := range srv.Requests() {
		if !strings.HasPrefix(r.Path, "/api/v3/repos/octo/demo/") {
			t.Errorf("got path %q; want it under /api/v3/", r.Path)
		}
	}
}

func TestUserAgentOption(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	srv.AddPR(githubtest.PR{Number: 1})
	c, err := github.New(srv.HTTPClient(), srv.URL+"/", token, github.WithUserAgent("anchor-review/v1.4.0"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PullRequest(context.Background(), owner, repo, 1); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("User-Agent"); got != "anchor-review/v1.4.0" {
		t.Errorf("got User-Agent %q; want anchor-review/v1.4.0", got)
	}
}

func TestHeaders(t *testing.T) {
	srv, c, _ := setup(t)
	srv.AddPR(githubtest.PR{Number: 1})
	if _, err := c.PullRequest(context.Background(), owner, repo, 1); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	if got := h.Get("User-Agent"); got != github.DefaultUserAgent {
		t.Errorf("got User-Agent %q; want %q", got, github.DefaultUserAgent)
	}
	if got := h.Get("Authorization"); got != "Bearer "+token {
		t.Errorf("got Authorization %q; want the bearer token", got)
	}
}

func TestFileContent(t *testing.T) {
	long := strings.Repeat("line of text ü\n", 40)                             // base64 spans many wrapped lines
	huge := strings.Repeat("var x = \"ü\" // a long generated line\n", 40_000) // 1.4 MB
	tests := []struct {
		name, path, ref string
		want            string
		wantFound       bool
	}{
		{"found", "AGENTS.md", "base", "# rules\n", true},
		{"wrapped base64", "pkg/a.go", "head", long, true},
		{"other ref", "AGENTS.md", "head", "", false},
		{"missing", "nope.md", "base", "", false},
		// Above 1 MB the contents API answers `"content": "", "encoding":
		// "none"`; the bytes come from the blobs API (issue 12).
		{"over 1 MB through the blobs API", "gen/big.go", "head", huge, true},
	}
	srv, c, _ := setup(t)
	srv.SetContent("base", "AGENTS.md", "# rules\n")
	srv.SetContent("head", "pkg/a.go", long)
	srv.SetContent("head", "gen/big.go", huge)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found, err := c.FileContent(context.Background(), owner, repo, tt.path, tt.ref)
			if err != nil {
				t.Fatalf("FileContent: %v", err)
			}
			if got != tt.want || found != tt.wantFound {
				t.Errorf("got %.60q (%d bytes), %v; want %.60q (%d bytes), %v", got, len(got), found, tt.want, len(tt.want), tt.wantFound)
			}
		})
	}
	if blobs := srv.CountRequests("/git/blobs/"); blobs != 1 {
		t.Errorf("blob requests %d; want 1 (only the file over 1 MB)", blobs)
	}
}

func TestRequestsCountsConcurrently(t *testing.T) {
	srv, c, _ := setup(t)
	srv.AddPR(githubtest.PR{Number: 1})
	// Fewer faults than MaxAttempts: even if one request draws them all, it
	// still succeeds, so the count is exact whatever the interleaving.
	srv.Inject(githubtest.ServerError(3))
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.PullRequest(context.Background(), owner, repo, 1); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got, want := c.Requests(), len(srv.Requests()); got != want || got != 23 {
		t.Errorf("got %d requests (server saw %d); want 23 (= 20 + 3 retries)", got, want)
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "api.github.com", "://x"} {
		if _, err := github.New(nil, u, token); err == nil {
			t.Errorf("New(%q): got nil error; want one", u)
		}
	}
}

func TestTree(t *testing.T) {
	srv, c, _ := setup(t)
	srv.SetContent("base", "AGENTS.md", "# rules\n")
	srv.SetContent("base", "pkg/api/CLAUDE.md", "# api rules\n")
	srv.SetContent("base", "pkg/api/h.go", "package api\n")
	srv.SetContent("head", "other.go", "package x\n")
	got, truncated, err := c.Tree(context.Background(), owner, repo, "base")
	if err != nil {
		t.Fatalf("Tree: %v", err)
	}
	want := []string{"AGENTS.md", "pkg/api/CLAUDE.md", "pkg/api/h.go"}
	if !slices.Equal(got, want) || truncated {
		t.Errorf("got %q, truncated %v; want %q, false", got, truncated, want)
	}
	if n := c.Requests(); n != 1 {
		t.Errorf("got %d requests; want 1", n)
	}
}

// TestStalledServerCannotHang (issue 12): a server that sends the headers
// and then stalls mid-body is cut off by the attempt's overall deadline,
// not waited on forever.
func TestStalledServerCannotHang(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"number": 1, "title": "half a`)
		w.(http.Flusher).Flush()
		select { // stall until the client gives up (or the test ends)
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := github.New(srv.Client(), srv.URL, token, github.WithRetry(github.Policy{MaxAttempts: 1, AttemptTimeout: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.PullRequest(context.Background(), owner, repo, 1)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("PullRequest on a stalled body: got nil error; want the deadline's")
		}
	case <-time.After(time.Minute):
		t.Fatal("PullRequest still waiting on a stalled body after a minute: no overall deadline")
	}
}

func TestChangedFileUnseen(t *testing.T) {
	for _, tt := range []struct {
		f    github.ChangedFile
		want bool
	}{
		{github.ChangedFile{Path: "a.go", Status: "modified", Patch: "@@ -1 +1 @@\n-a\n+b", Additions: 1, Deletions: 1}, false},
		{github.ChangedFile{Path: "big.go", Status: "added", Additions: 40000}, true},
		{github.ChangedFile{Path: "big.go", Status: "modified", Deletions: 3}, true},
		{github.ChangedFile{Path: "logo.png", Status: "added"}, false},
		{github.ChangedFile{Path: "old.go", Status: "removed", Deletions: 900}, false},
		{github.ChangedFile{Path: "new.go", PreviousPath: "old.go", Status: "renamed"}, false},
	} {
		if got := tt.f.Unseen(); got != tt.want {
			t.Errorf("%+v.Unseen() = %v; want %v", tt.f, got, tt.want)
		}
	}
}
