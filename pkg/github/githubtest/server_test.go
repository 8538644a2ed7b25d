package githubtest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
)

// do sends a request and decodes a JSON answer into out (when not nil).
func do(t *testing.T, srv *githubtest.Server, method, path, accept, body string, out any) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return resp
}

func TestPullPayload(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	srv.AddPR(githubtest.PR{Number: 2, Title: "t", HeadRepo: "mallory/demo", BaseRepo: "octo/demo", HeadSHA: "h", BaseSHA: "b"})
	var pr map[string]any
	do(t, srv, "GET", "/repos/octo/demo/pulls/2", "", "", &pr)
	head := pr["head"].(map[string]any)
	base := pr["base"].(map[string]any)
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"body", pr["body"], nil},
		{"number", pr["number"], 2.0},
		{"merged_at", pr["merged_at"], nil},
		{"head.repo.full_name", head["repo"].(map[string]any)["full_name"], "mallory/demo"},
		{"head.repo.fork", head["repo"].(map[string]any)["fork"], true},
		{"base.repo.full_name", base["repo"].(map[string]any)["full_name"], "octo/demo"},
		{"head.sha", head["sha"], "h"},
		{"node_id kept from the real payload", pr["node_id"], "MDExOlB1bGxSZXF1ZXN0MQ=="},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: got %v; want %v", tt.name, tt.got, tt.want)
		}
	}
	if resp := do(t, srv, "GET", "/repos/octo/demo/pulls/3", "", "", nil); resp.StatusCode != 404 {
		t.Errorf("unknown PR: got %d; want 404", resp.StatusCode)
	}
}

func TestPagination(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	for i := range 250 {
		srv.AddComment(1, "alice", fmt.Sprint(i))
	}
	tests := []struct {
		query    string
		wantLen  int
		wantRels []string
		wantNext string
	}{
		{"", 30, []string{"next", "last"}, "page=2&per_page=30"},
		{"?per_page=100", 100, []string{"next", "last"}, "page=2&per_page=100"},
		{"?per_page=100&page=2", 100, []string{"prev", "next", "last", "first"}, "page=3&per_page=100"},
		{"?per_page=100&page=3", 50, []string{"prev", "first"}, ""},
		{"?per_page=500&page=1", 100, []string{"next", "last"}, "page=2&per_page=100"},
		{"?per_page=100&page=9", 0, []string{"prev", "first"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var got []map[string]any
			resp := do(t, srv, "GET", "/repos/o/r/issues/1/comments"+tt.query, "", "", &got)
			if len(got) != tt.wantLen {
				t.Errorf("got %d comments; want %d", len(got), tt.wantLen)
			}
			link := resp.Header.Get("Link")
			var rels []string
			next := ""
			for _, part := range strings.Split(link, ", ") {
				if part == "" {
					continue
				}
				url, rel, _ := strings.Cut(part, "; ")
				rel = strings.Trim(strings.TrimPrefix(rel, "rel="), `"`)
				rels = append(rels, rel)
				if rel == "next" {
					next = url[strings.Index(url, "?")+1 : len(url)-1]
				}
			}
			if !reflect.DeepEqual(rels, tt.wantRels) && !(len(rels) == 0 && len(tt.wantRels) == 0) {
				t.Errorf("got rels %v; want %v (Link %q)", rels, tt.wantRels, link)
			}
			if next != tt.wantNext {
				t.Errorf("got next %q; want %q", next, tt.wantNext)
			}
		})
	}
}

func TestFilesCapAndDerivation(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	srv.AddPR(githubtest.PR{Number: 1})
	files := make([]githubtest.File, 3100)
	for i := range files {
		files[i] = githubtest.File{Filename: fmt.Sprintf("f%d", i)}
	}
	srv.SetFiles(1, files)
	var page []map[string]any
	resp := do(t, srv, "GET", "/repos/o/r/pulls/1/files?per_page=100&page=30", "", "", &page)
	if len(page) != 100 || strings.Contains(resp.Header.Get("Link"), `rel="next"`) {
		t.Errorf("page 30: got %d files, Link %q; want 100 and no next page", len(page), resp.Header.Get("Link"))
	}
	if _, ok := page[0]["patch"]; ok {
		t.Errorf("got a patch key for a file without a patch")
	}

	const diff = "diff --git a/old.go b/new.go\nsimilarity index 90%\nrename from old.go\nrename to new.go\n--- a/old.go\n+++ b/new.go\n@@ -1,2 +1,2 @@\n ctx\n-a\n+b\n+c\ndiff --git a/bin.png b/bin.png\nnew file mode 100644\nBinary files /dev/null and b/bin.png differ\n"
	srv.AddPR(githubtest.PR{Number: 2})
	srv.SetDiff(2, diff)
	var got []map[string]any
	do(t, srv, "GET", "/repos/o/r/pulls/2/files", "", "", &got)
	if len(got) != 2 {
		t.Fatalf("got %d files; want 2", len(got))
	}
	want := map[string]any{"filename": "new.go", "previous_filename": "old.go", "status": "renamed",
		"additions": 2.0, "deletions": 1.0, "patch": "@@ -1,2 +1,2 @@\n ctx\n-a\n+b\n+c"}
	for k, v := range want {
		if got[0][k] != v {
			t.Errorf("%s: got %v; want %v", k, got[0][k], v)
		}
	}
	if got[1]["status"] != "added" || got[1]["patch"] != nil {
		t.Errorf("got %v; want an added file without patch", got[1])
	}

	// And a diff built from files, for tests that only set files.
	srv.AddPR(githubtest.PR{Number: 3})
	srv.SetFiles(3, []githubtest.File{{Filename: "a.go", Status: "added", Patch: "@@ -0,0 +1 @@\n+x"}})
	resp = do(t, srv, "GET", "/repos/o/r/pulls/3", "application/vnd.github.diff", "", nil)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/vnd.github.diff") {
		t.Errorf("got Content-Type %q; want the diff media type", ct)
	}
	req, err := http.NewRequest("GET", srv.URL+"/repos/o/r/pulls/3", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.github.diff")
	raw, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Body.Close()
	text, _ := io.ReadAll(raw.Body)
	for _, want := range []string{"diff --git a/a.go b/a.go\n", "new file mode", "+++ b/a.go\n", "@@ -0,0 +1 @@\n+x"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("diff built from files lacks %q:\n%s", want, text)
		}
	}
}

func TestLimits(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	annotations := func(n int) string {
		var as []string
		for i := range n {
			as = append(as, fmt.Sprintf(`{"path":"a.go","start_line":%d,"end_line":%d,"annotation_level":"warning","message":"m"}`, i+1, i+1))
		}
		return "[" + strings.Join(as, ",") + "]"
	}
	run := func(summary string, n int) string {
		return fmt.Sprintf(`{"name":"c","head_sha":"s","output":{"title":"t","summary":%q,"annotations":%s}}`, summary, annotations(n))
	}
	tests := []struct {
		name, method, path, body string
		want                     int
	}{
		{"comment at the limit", "POST", "/repos/o/r/issues/1/comments", fmt.Sprintf(`{"body":%q}`, strings.Repeat("x", 65536)), 201},
		{"comment too long", "POST", "/repos/o/r/issues/1/comments", fmt.Sprintf(`{"body":%q}`, strings.Repeat("x", 65537)), 422},
		{"comment without body", "POST", "/repos/o/r/issues/1/comments", `{}`, 422},
		{"comment bad JSON", "POST", "/repos/o/r/issues/1/comments", `{`, 400},
		{"50 annotations", "POST", "/repos/o/r/check-runs", run("s", 50), 201},
		{"51 annotations", "POST", "/repos/o/r/check-runs", run("s", 51), 422},
		{"summary too long", "POST", "/repos/o/r/check-runs", run(strings.Repeat("s", 65536), 0), 422},
		{"check run without head_sha", "POST", "/repos/o/r/check-runs", `{"name":"c"}`, 422},
		{"completed without conclusion", "POST", "/repos/o/r/check-runs", `{"name":"c","head_sha":"s","status":"completed"}`, 422},
		{"bad annotation level", "POST", "/repos/o/r/check-runs", `{"name":"c","head_sha":"s","output":{"title":"t","summary":"s","annotations":[{"path":"a","start_line":1,"end_line":1,"annotation_level":"error","message":"m"}]}}`, 422},
		{"update unknown run", "PATCH", "/repos/o/r/check-runs/1", `{"name":"c"}`, 404},
		{"edit unknown comment", "PATCH", "/repos/o/r/issues/comments/1", `{"body":"x"}`, 404},
		{"unknown route", "GET", "/nope", "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body map[string]any
			resp := do(t, srv, tt.method, tt.path, "", tt.body, &body)
			if resp.StatusCode != tt.want {
				t.Fatalf("got %d (%v); want %d", resp.StatusCode, body, tt.want)
			}
			if tt.want == 422 {
				errs, _ := body["errors"].([]any)
				if body["message"] != "Validation Failed" || len(errs) != 1 || body["documentation_url"] == nil {
					t.Errorf("got %v; want GitHub's validation-error shape", body)
				}
			}
		})
	}
}

func TestFaults(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	srv.AddPR(githubtest.PR{Number: 1})
	srv.Inject(githubtest.ServerError(2), githubtest.DiffTooLarge(), githubtest.ReadOnlyToken())
	var got []int
	for range 3 {
		got = append(got, do(t, srv, "GET", "/repos/o/r/pulls/1", "", "", nil).StatusCode)
	}
	got = append(got, do(t, srv, "GET", "/repos/o/r/pulls/1", "application/vnd.github.diff", "", nil).StatusCode)
	got = append(got, do(t, srv, "POST", "/repos/o/r/issues/1/comments", "", `{"body":"x"}`, nil).StatusCode)
	got = append(got, do(t, srv, "DELETE", "/repos/o/r/issues/comments/1", "", "", nil).StatusCode)
	if want := []int{500, 500, 200, 406, 403, 403}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v; want %v", got, want)
	}
	if n := len(srv.Comments(1)); n != 0 {
		t.Errorf("got %d comments; want none after refused writes", n)
	}
	if n := len(srv.Requests()); n != 6 {
		t.Errorf("got %d recorded requests; want 6", n)
	}
}

func TestEnterprisePrefixAndConcurrency(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(t, srv, "POST", "/api/v3/repos/o/r/issues/1/comments", "", fmt.Sprintf(`{"body":"%d"}`, i), nil)
		}()
	}
	wg.Wait()
	if n := len(srv.Comments(1)); n != 20 {
		t.Errorf("got %d comments; want 20", n)
	}
	var c map[string]any
	do(t, srv, "PATCH", fmt.Sprintf("/api/v3/repos/o/r/issues/comments/%d", srv.Comments(1)[0].ID), "", `{"body":"edited"}`, &c)
	if want := srv.URL + "/api/v3/repos/o/r/issues/comments/"; !strings.HasPrefix(c["url"].(string), want) {
		t.Errorf("got url %v; want under %s", c["url"], want)
	}
	if c["user"].(map[string]any)["type"] != "Bot" {
		t.Errorf("got user %v; want a Bot", c["user"])
	}
}

func TestWebhookFixturesShipped(t *testing.T) {
	// Other packages' event tests read these; make sure they are embedded.
	for _, name := range []string{"pull_request.opened.json", "pull_request.opened.with-null-body.json", "workflow_dispatch.json", "issue_comment.created.json"} {
		if _, err := fixtures.FS.ReadFile("github/" + name); err != nil {
			t.Errorf("got %v; want github/%s embedded", err, name)
		}
	}
}

// TestHoldUntil: the barrier holds matching requests until the count
// arrives, then lets them go on together.
func TestHoldUntil(t *testing.T) {
	s := githubtest.New()
	defer s.Close()
	s.AddPR(githubtest.PR{Number: 1})
	s.Inject(githubtest.Fault{Method: "POST", PathContains: "/comments", HoldUntil: 2, Times: 2, Delay: 5 * time.Second})
	post := func() int {
		resp, err := s.HTTPClient().Post(s.URL+"/repos/o/r/issues/1/comments", "application/json", strings.NewReader(`{"body":"x"}`))
		if err != nil {
			t.Error(err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	first := make(chan int)
	go func() { first <- post() }()
	select {
	case <-first:
		t.Fatal("the first request went through before the second arrived")
	case <-time.After(50 * time.Millisecond):
	}
	if code := post(); code != 201 {
		t.Errorf("second create: got %d; want 201", code)
	}
	if code := <-first; code != 201 {
		t.Errorf("first create: got %d; want 201", code)
	}
	if n := len(s.Comments(1)); n != 2 {
		t.Errorf("comments: got %d; want 2", n)
	}
	if n := s.BarrierTimeouts(); n != 0 {
		t.Errorf("barrier timeouts: got %d; want 0 (the gate opened when the second arrived)", n)
	}
}

func TestHoldUntilThatCannotOpenPanics(t *testing.T) {
	s := githubtest.New()
	defer s.Close()
	defer func() {
		if recover() == nil {
			t.Error("Inject accepted HoldUntil 3 with Times 2")
		}
	}()
	s.Inject(githubtest.Fault{Method: "POST", HoldUntil: 3, Times: 2})
}

// TestContentsOverOneMB: like GitHub, the contents API gives no content
// for a file over 1 MB (encoding "none"); the raw media type and the blobs
// API give the bytes.
func TestContentsOverOneMB(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	big := strings.Repeat("x", 1<<20+1)
	srv.SetContent("head", "big.txt", big)
	get := func(path, accept string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Accept", accept)
		resp, err := srv.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	code, b := get("/repos/o/r/contents/big.txt?ref=head", "application/vnd.github+json")
	var m struct{ Content, Encoding, SHA string }
	if err := json.Unmarshal(b, &m); err != nil || code != 200 || m.Content != "" || m.Encoding != "none" {
		t.Fatalf("contents JSON: %d %q %q (%v); want 200 with empty content and encoding none", code, m.Content[:min(len(m.Content), 20)], m.Encoding, err)
	}
	if code, b := get("/repos/o/r/contents/big.txt?ref=head", "application/vnd.github.raw+json"); code != 200 || string(b) != big {
		t.Errorf("raw media type: %d, %d bytes; want 200 and the file", code, len(b))
	}
	if code, b := get("/repos/o/r/git/blobs/"+m.SHA, "application/vnd.github.v3.raw"); code != 200 || string(b) != big {
		t.Errorf("blob raw: %d, %d bytes; want 200 and the file", code, len(b))
	}
}
