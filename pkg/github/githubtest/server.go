// Package githubtest is a fake GitHub REST API for tests and the offline
// demo: an httptest server that answers the endpoints anchor-review uses with
// GitHub's real payloads (fixtures/github), keeps the state writes create,
// enforces GitHub's size limits, records every request and injects faults.
//
// The fake serves one repository: owner and name in paths are accepted as
// given and echoed in URLs. Paths may carry GitHub Enterprise Server's
// /api/v3 prefix. A Server is safe for concurrent use.
package githubtest

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/anchor-review/anchor-review/fixtures"
)

// GitHub's limits the fake enforces.
const (
	MaxCommentBody   = 65536 // characters in an issue comment
	MaxCheckRunText  = 65535 // BYTES (UTF-8) in a check run's summary or text, as GitHub counts them
	MaxAnnotations   = 50    // annotations per check-run request
	MaxFiles         = 3000  // files the files endpoint returns
	defaultRepo      = "octocat/Hello-World"
	defaultPerPage   = 30
	maxPerPage       = 100
	enterprisePrefix = "/api/v3"
)

// stampOf is the fake's clock: object id is stamped a fixed origin plus id
// seconds, so answers are byte-stable.
func stampOf(id int64) time.Time {
	return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(id) * time.Second)
}

// PR configures a pull request. Zero fields take defaults: State "open",
// Author "octocat", repos "octocat/Hello-World", refs "feature"/"main",
// ChangedFiles the number of files configured.
type PR struct {
	Number                     int
	Title, Body, State, Author string // Body "" is served as null, as GitHub does
	Draft, Merged              bool
	HeadSHA, BaseSHA           string
	HeadRef, BaseRef           string
	HeadRepo, BaseRepo         string // owner/name; different for a fork
	ChangedFiles               int
}

// File is one entry of a PR's files endpoint. Patch "" omits the key
// (binary or huge files).
type File struct {
	Filename, PreviousFilename, Status, Patch string
	Additions, Deletions                      int
}

// Comment is an issue or review comment as the fake holds it.
type Comment struct {
	ID                   int64
	Author, Body         string
	CreatedAt, UpdatedAt time.Time
	Edits                int
	// Review (line) comments only: where it sits, the review that created
	// it (0 for one added by AddReviewComment/AddLineComment), the comment
	// it replies to. Path "" is served as README.md line 1.
	Path            string
	Line, StartLine int
	Side, CommitID  string
	ReviewID        int64
	InReplyTo       int64
}

// Annotation is a check-run annotation as received.
type Annotation struct {
	Path                  string
	StartLine, EndLine    int
	Level, Title, Message string
}

// CheckRun is a check run with every annotation sent across its create and
// updates.
type CheckRun struct {
	ID                                int64
	Name, HeadSHA, Status, Conclusion string
	Title, Summary, Text              string
	ExternalID                        string
	// App is the slug of the GitHub App that created the run: the token's
	// app (github-actions, or the app of SetTokenLogin's "<app>[bot]"), or
	// what AddCheckRun says.
	App         string
	Annotations []Annotation
	Updates     int
}

// Request is one request the fake received.
type Request struct {
	Method, Path, Query, Body string
	Header                    http.Header
}

// Server is the fake GitHub.
type Server struct {
	// URL is the API base URL, e.g. "http://127.0.0.1:4321"; append
	// "/api/v3/" to exercise GitHub Enterprise Server URLs.
	URL string

	srv *httptest.Server
	// handler serves every request (Handler).
	handler http.Handler

	mu       sync.Mutex
	nextID   int64
	prs      map[int]PR
	diffs    map[int]string
	files    map[int][]File
	comments map[int][]*Comment // issue comments per PR
	reviews  map[int][]*Comment // review comments per PR
	// prReviews are the pull-request reviews created per PR.
	prReviews map[int][]*Review
	contents  map[string]string // ref + "\x00" + path
	checks    []*CheckRun
	planted   []*CheckRun // AddCheckRun's: listed, not in CheckRuns
	// GraphQL (graphql.go): the token's contents permission, resolved
	// threads by their first comment, merge queues by branch.
	contentsWrite bool
	resolved      map[int64]bool
	queues        map[string][]QueueEntry
	compares      map[string]Compare // base + "..." + head
	reacts        map[int64][]string // comment id → reaction contents, in order
	// people are reactions by others than the token (React), per comment.
	people  map[int64][]string
	refused map[string]bool // check-run conclusions answered with 422
	faults  []*Fault
	// barrierTimeouts counts held requests released by their timeout
	// instead of the gate opening.
	barrierTimeouts int
	requests        []Request
	// tokenLogin is who the token writes comments as; "" means
	// github-actions[bot] (a GitHub App token writes as "<app>[bot]").
	tokenLogin string
	// roles are the users' roles on the repository (SetRole).
	roles map[string]role
	// orgRepos are the repositories /orgs/{org}/repos lists (AddOrgRepo).
	orgRepos []Repo
}

// New starts a fake GitHub. Close it when done.
func New() *Server {
	s := &Server{
		nextID:    1000,
		prs:       map[int]PR{},
		diffs:     map[int]string{},
		files:     map[int][]File{},
		comments:  map[int][]*Comment{},
		reviews:   map[int][]*Comment{},
		prReviews: map[int][]*Review{},
		contents:  map[string]string{},
		compares:  map[string]Compare{},
		reacts:    map[int64][]string{},
		people:    map[int64][]string{},
		refused:   map[string]bool{},
		roles:     map[string]role{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}", s.getPull)
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}/files", s.listFiles)
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}/comments", s.listReviewComments)
	mux.HandleFunc("POST /repos/{owner}/{repo}/pulls/{n}/reviews", s.createReview)
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}/reviews/{id}/comments", s.listReviewCommentsOf)
	mux.HandleFunc("PATCH /repos/{owner}/{repo}/pulls/comments/{id}", s.editReviewComment)
	mux.HandleFunc("POST /repos/{owner}/{repo}/pulls/{n}/comments/{id}/replies", s.replyToReviewComment)
	mux.HandleFunc("POST /repos/{owner}/{repo}/pulls/{n}/comments", s.createReviewComment)
	mux.HandleFunc("DELETE /repos/{owner}/{repo}/pulls/comments/{id}", s.deleteReviewComment)
	mux.HandleFunc("GET /repos/{owner}/{repo}/issues/{n}/comments", s.listComments)
	mux.HandleFunc("POST /repos/{owner}/{repo}/issues/{n}/comments", s.createComment)
	mux.HandleFunc("PATCH /repos/{owner}/{repo}/issues/comments/{id}", s.editComment)
	mux.HandleFunc("DELETE /repos/{owner}/{repo}/issues/comments/{id}", s.deleteComment)
	mux.HandleFunc("POST /repos/{owner}/{repo}/check-runs", s.createCheckRun)
	mux.HandleFunc("PATCH /repos/{owner}/{repo}/check-runs/{id}", s.updateCheckRun)
	mux.HandleFunc("GET /repos/{owner}/{repo}/check-runs/{id}", s.getCheckRun)
	mux.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", s.listCheckRunsForRef)
	mux.HandleFunc("POST /graphql", s.graphql)
	mux.HandleFunc("POST /api/graphql", s.graphql)
	mux.HandleFunc("GET /repos/{owner}/{repo}/contents/{path...}", s.getContent)
	mux.HandleFunc("GET /repos/{owner}/{repo}/git/trees/{sha}", s.getTree)
	mux.HandleFunc("GET /repos/{owner}/{repo}/compare/{basehead...}", s.getCompare)
	mux.HandleFunc("POST /repos/{owner}/{repo}/issues/comments/{id}/reactions", s.createReaction)
	mux.HandleFunc("GET /repos/{owner}/{repo}/git/blobs/{sha}", s.getBlob)
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls", s.listPulls)
	mux.HandleFunc("GET /repos/{owner}/{repo}/issues/comments", s.listRepoIssueComments)
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/comments", s.listRepoReviewComments)
	mux.HandleFunc("POST /repos/{owner}/{repo}/pulls/comments/{id}/reactions", s.createReaction)
	mux.HandleFunc("GET /repos/{owner}/{repo}/collaborators/{username}/permission", s.getPermission)
	mux.HandleFunc("GET /orgs/{org}/repos", s.listOrgRepos)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusNotFound, "Not Found")
	})
	s.handler = s.front(mux)
	s.srv = httptest.NewServer(s.handler)
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Handler is the server's handler, for a client that serves requests in
// memory (internal/memhttp).
func (s *Server) Handler() http.Handler { return s.handler }

// HTTPClient returns a client wired to the server.
func (s *Server) HTTPClient() *http.Client { return s.srv.Client() }

// AddPR adds or replaces a pull request.
func (s *Server) AddPR(p PR) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prs[p.Number] = p
}

// SetDiff sets the unified diff served for PR n. Without SetFiles, the files
// endpoint serves files derived from it.
func (s *Server) SetDiff(n int, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.diffs[n] = text
}

// SetFiles sets the files endpoint's list for PR n (the fake serves at most
// MaxFiles of them). Without SetDiff, the diff is built from their patches.
func (s *Server) SetFiles(n int, files []File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[n] = append([]File(nil), files...)
}

// AddComment adds an issue comment by author on PR n and returns its id.
// Logins ending in "[bot]" are served with user.type "Bot".
func (s *Server) AddComment(n int, author, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.newComment(author, body)
	s.comments[n] = append(s.comments[n], c)
	return c.ID
}

// AddReviewComment adds a review (line) comment by author on PR n.
func (s *Server) AddReviewComment(n int, author, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.newComment(author, body)
	s.reviews[n] = append(s.reviews[n], c)
	return c.ID
}

// SetContent sets the content of path at ref for the contents endpoint.
func (s *Server) SetContent(ref, path, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.contents[ref+"\x00"+strings.TrimPrefix(path, "/")] = content
}

// SetTokenLogin makes the comments the token creates carry login as their
// author, as a GitHub App's installation token does ("my-app[bot]").
func (s *Server) SetTokenLogin(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenLogin = login
}

// Inject adds faults.
func (s *Server) Inject(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range faults {
		if f.HoldUntil > 1 {
			if f.Times > 0 && f.Times < f.HoldUntil {
				// The fault would be spent before the gate could open.
				panic(fmt.Sprintf("githubtest: Fault with HoldUntil %d and Times %d can never open", f.HoldUntil, f.Times))
			}
			f.gate = &gate{open: make(chan struct{})}
		}
		s.faults = append(s.faults, &f)
	}
}

// BarrierTimeouts returns how many requests a HoldUntil fault released
// because its wait ran out rather than because the gate opened: tests that
// rely on the barrier assert zero.
func (s *Server) BarrierTimeouts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.barrierTimeouts
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// CountRequests is how many requests were served whose path contains
// pathContains (the path after any /api/v3).
func (s *Server) CountRequests(pathContains string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if strings.Contains(r.Path, pathContains) {
			n++
		}
	}
	return n
}

// Comments returns PR n's current issue comments (edits applied, deleted
// ones gone), oldest first.
func (s *Server) Comments(n int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Comment, 0, len(s.comments[n]))
	for _, c := range s.comments[n] {
		out = append(out, *c)
	}
	return out
}

// CheckRuns returns every check run created, in creation order.
func (s *Server) CheckRuns() []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]CheckRun, 0, len(s.checks))
	for _, c := range s.checks {
		cp := *c
		cp.Annotations = append([]Annotation(nil), c.Annotations...)
		out = append(out, cp)
	}
	return out
}

func (s *Server) newComment(author, body string) *Comment {
	s.nextID++
	at := stampOf(s.nextID)
	return &Comment{ID: s.nextID, Author: author, Body: body, CreatedAt: at, UpdatedAt: at}
}

// front records the request, strips /api/v3 and applies faults.
func (s *Server) front(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		p := r.URL.Path
		if rest, ok := strings.CutPrefix(p, enterprisePrefix+"/"); ok {
			p = "/" + rest
		}
		s.mu.Lock()
		s.requests = append(s.requests, Request{
			Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body), Header: r.Header.Clone(),
		})
		var hit *Fault
		for _, f := range s.faults {
			if f.Times >= 0 && f.matches(r, p) {
				cp := *f
				hit = &cp
				if f.Times > 0 {
					if f.Times--; f.Times == 0 {
						f.Times = -1 // spent
					}
				}
				break
			}
		}
		s.mu.Unlock()

		w.Header().Set("X-GitHub-Media-Type", "github.v3; format=json")
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "4999")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		if hit != nil && hit.gate != nil {
			timeout := hit.Delay
			if timeout == 0 {
				timeout = 10 * time.Second
			}
			if !hit.gate.wait(hit.HoldUntil, timeout, r.Context().Done()) {
				if r.Context().Err() != nil {
					return // the client gave up: serve nothing, as Delay does
				}
				s.mu.Lock()
				s.barrierTimeouts++
				s.mu.Unlock()
			}
			hit.Delay = 0 // the barrier replaced the delay
		}
		if hit != nil {
			if hit.Delay > 0 {
				t := time.NewTimer(hit.Delay)
				select {
				case <-r.Context().Done():
					t.Stop()
					return
				case <-t.C:
				}
			}
			if hit.Status != 0 {
				for k, v := range hit.Headers {
					w.Header().Set(k, v)
				}
				b := hit.Body
				if b == "" {
					b = errorBody(hit.Status, http.StatusText(hit.Status))
				}
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.WriteHeader(hit.Status)
				_, _ = io.WriteString(w, b)
				return
			}
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = p
		r2.URL.RawPath = ""
		r2.Header.Set("X-Original-Path", r.URL.Path)
		next.ServeHTTP(w, r2)
	})
}

// template returns a fresh decoded copy of a fixture.
func template(name string) map[string]any {
	b, err := fixtures.FS.ReadFile("github/" + name)
	if err != nil {
		panic(fmt.Sprintf("githubtest: fixture %s missing: %v", name, err))
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		panic(fmt.Sprintf("githubtest: fixture %s: %v", name, err))
	}
	if list, ok := v.([]any); ok {
		v = list[0]
	}
	return v.(map[string]any)
}

// set assigns m[a][b]...= v along a dotted path of existing objects.
func set(m map[string]any, key string, v any) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeJSONError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, errorShape(status, message))
}

// writeValidation answers 422 in GitHub's validation-error shape.
func writeValidation(w http.ResponseWriter, resource, field, code, message string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
		"message": "Validation Failed",
		"errors": []map[string]any{{
			"resource": resource, "field": field, "code": code, "message": message,
		}},
		"documentation_url": "https://docs.github.com/rest",
		"status":            "422",
	})
}

func number(w http.ResponseWriter, r *http.Request, key string) (int64, bool) {
	n, err := strconv.ParseInt(r.PathValue(key), 10, 64)
	if err != nil || n <= 0 {
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return 0, false
	}
	return n, true
}

func repoOf(r *http.Request) string { return r.PathValue("owner") + "/" + r.PathValue("repo") }

// web is the web host links in answers point to: GitHub Enterprise
// Server serves its web pages on the host of its API (https://HOST/api/v3
// → https://HOST/), github.com on github.com.
func (s *Server) web(r *http.Request) string {
	if strings.HasPrefix(r.Header.Get("X-Original-Path"), enterprisePrefix+"/") {
		return s.URL
	}
	return "https://github.com"
}

func (s *Server) api(r *http.Request) string {
	if strings.HasPrefix(r.Header.Get("X-Original-Path"), enterprisePrefix+"/") {
		return s.URL + enterprisePrefix
	}
	return s.URL
}

func fullName(s, def string) (full, owner, name string) {
	if s == "" {
		s = def
	}
	owner, name, ok := strings.Cut(s, "/")
	if !ok {
		owner, name = "octocat", s
	}
	return owner + "/" + name, owner, name
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	n, ok := number(w, r, "n")
	if !ok {
		return
	}
	p, files, diff, found := s.pull(int(n))
	if !found {
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	if accept := r.Header.Get("Accept"); strings.Contains(accept, "diff") {
		w.Header().Set("Content-Type", "application/vnd.github.diff; charset=utf-8")
		_, _ = io.WriteString(w, diff)
		return
	}
	writeJSON(w, http.StatusOK, s.pullJSON(r, p, files))
}

// pull looks up PR n and its changes as the endpoints serve them: the
// files (derived from the diff when only a diff was set) and the diff
// (derived from the files when only files were set).
func (s *Server) pull(n int) (p PR, files []File, diff string, found bool) {
	s.mu.Lock()
	p, found = s.prs[n]
	diff, hasDiff := s.diffs[n]
	files, hasFiles := s.files[n]
	s.mu.Unlock()
	if !hasFiles && hasDiff {
		files = filesFromDiff(diff)
	}
	if !hasDiff {
		diff = diffFromFiles(files)
	}
	return p, files, diff, found
}

func (s *Server) pullJSON(r *http.Request, p PR, files []File) map[string]any {
	m := template("pull-request.json")
	base, baseOwner, baseName := fullName(p.BaseRepo, defaultRepo)
	head, headOwner, headName := fullName(p.HeadRepo, base)
	state := p.State
	if state == "" {
		state = "open"
	}
	author := p.Author
	if author == "" {
		author = "octocat"
	}
	headRef, baseRef := p.HeadRef, p.BaseRef
	if headRef == "" {
		headRef = "feature"
	}
	if baseRef == "" {
		baseRef = "main"
	}
	api := s.api(r)
	apiPR := fmt.Sprintf("%s/repos/%s/pulls/%d", api, base, p.Number)
	set(m, "id", p.Number)
	set(m, "number", p.Number)
	set(m, "url", apiPR)
	set(m, "html_url", fmt.Sprintf("%s/%s/pull/%d", s.web(r), base, p.Number))
	set(m, "diff_url", fmt.Sprintf("%s/%s/pull/%d.diff", s.web(r), base, p.Number))
	set(m, "patch_url", fmt.Sprintf("%s/%s/pull/%d.patch", s.web(r), base, p.Number))
	set(m, "issue_url", fmt.Sprintf("%s/repos/%s/issues/%d", api, base, p.Number))
	set(m, "comments_url", fmt.Sprintf("%s/repos/%s/issues/%d/comments", api, base, p.Number))
	set(m, "review_comments_url", apiPR+"/comments")
	set(m, "commits_url", apiPR+"/commits")
	set(m, "title", p.Title)
	set(m, "body", nullable(p.Body))
	set(m, "state", state)
	set(m, "draft", p.Draft)
	set(m, "merged", p.Merged)
	set(m, "locked", false)
	if !p.Merged {
		set(m, "merged_at", nil)
		set(m, "merge_commit_sha", nil)
	}
	if state == "open" {
		set(m, "closed_at", nil)
	}
	set(m, "user.login", author)
	set(m, "user.type", userType(author))
	for _, side := range []struct{ key, sha, ref, full, owner, name string }{
		{"head", p.HeadSHA, headRef, head, headOwner, headName},
		{"base", p.BaseSHA, baseRef, base, baseOwner, baseName},
	} {
		set(m, side.key+".sha", side.sha)
		set(m, side.key+".ref", side.ref)
		set(m, side.key+".label", side.owner+":"+side.ref)
		set(m, side.key+".user.login", side.owner)
		set(m, side.key+".repo.full_name", side.full)
		set(m, side.key+".repo.name", side.name)
		set(m, side.key+".repo.owner.login", side.owner)
		set(m, side.key+".repo.fork", side.key == "head" && side.full != base)
		set(m, side.key+".repo.html_url", s.web(r)+"/"+side.full)
		set(m, side.key+".repo.url", api+"/repos/"+side.full)
	}
	adds, dels := 0, 0
	for _, f := range files {
		adds += f.Additions
		dels += f.Deletions
	}
	changed := p.ChangedFiles
	if changed == 0 {
		changed = len(files)
	}
	set(m, "changed_files", changed)
	set(m, "additions", adds)
	set(m, "deletions", dels)
	return m
}

func userType(login string) string {
	if strings.HasSuffix(login, "[bot]") {
		return "Bot"
	}
	return "User"
}

// page cuts [0,total) to the requested page and sets GitHub's Link header.
func page(w http.ResponseWriter, r *http.Request, total int) (start, end int) {
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = defaultPerPage
	}
	per = min(per, maxPerPage)
	n, err := strconv.Atoi(q.Get("page"))
	if err != nil || n < 1 {
		n = 1
	}
	last := max((total+per-1)/per, 1)
	link := func(p int, rel string) string {
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(per))
		return fmt.Sprintf(`<http://%s%s?%s>; rel="%s"`, r.Host, r.Header.Get("X-Original-Path"), q.Encode(), rel)
	}
	var links []string
	if n > 1 {
		links = append(links, link(n-1, "prev"))
	}
	if n < last {
		links = append(links, link(n+1, "next"), link(last, "last"))
	}
	if n > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	start = min((n-1)*per, total)
	return start, min(start+per, total)
}

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request) {
	n, ok := number(w, r, "n")
	if !ok {
		return
	}
	_, files, _, found := s.pull(int(n))
	if !found {
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	files = files[:min(len(files), MaxFiles)]
	start, end := page(w, r, len(files))
	out := make([]map[string]any, 0, end-start)
	for _, f := range files[start:end] {
		out = append(out, s.fileJSON(r, f))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) fileJSON(r *http.Request, f File) map[string]any {
	m := template("diff-entry-items.json")
	status := f.Status
	if status == "" {
		status = "modified"
	}
	repo := repoOf(r)
	sha := fmt.Sprintf("%x", sha1.Sum([]byte(f.Filename+"\x00"+f.Patch)))
	set(m, "sha", sha)
	set(m, "filename", f.Filename)
	set(m, "status", status)
	set(m, "additions", f.Additions)
	set(m, "deletions", f.Deletions)
	set(m, "changes", f.Additions+f.Deletions)
	set(m, "blob_url", fmt.Sprintf("%s/%s/blob/%s/%s", s.web(r), repo, sha, f.Filename))
	set(m, "raw_url", fmt.Sprintf("%s/%s/raw/%s/%s", s.web(r), repo, sha, f.Filename))
	set(m, "contents_url", fmt.Sprintf("%s/repos/%s/contents/%s?ref=%s", s.api(r), repo, f.Filename, sha))
	if f.Patch == "" {
		delete(m, "patch")
	} else {
		set(m, "patch", f.Patch)
	}
	if f.PreviousFilename != "" {
		set(m, "previous_filename", f.PreviousFilename)
	}
	return m
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	s.listCommentsOf(w, r, s.comments, false)
}

func (s *Server) listReviewComments(w http.ResponseWriter, r *http.Request) {
	s.listCommentsOf(w, r, s.reviews, true)
}

func (s *Server) listCommentsOf(w http.ResponseWriter, r *http.Request, src map[int][]*Comment, review bool) {
	n, ok := number(w, r, "n")
	if !ok {
		return
	}
	s.mu.Lock()
	list := make([]Comment, 0, len(src[int(n)]))
	for _, c := range src[int(n)] {
		list = append(list, *c)
	}
	s.mu.Unlock()
	start, end := page(w, r, len(list))
	out := make([]map[string]any, 0, end-start)
	for _, c := range list[start:end] {
		if review {
			out = append(out, s.reviewCommentJSON(r, int(n), c))
		} else {
			out = append(out, s.commentJSON(r, int(n), c))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) commentJSON(r *http.Request, n int, c Comment) map[string]any {
	m := template("issue-comment.json")
	repo := repoOf(r)
	api := s.api(r)
	set(m, "id", c.ID)
	set(m, "node_id", base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("IssueComment%d", c.ID))))
	set(m, "url", fmt.Sprintf("%s/repos/%s/issues/comments/%d", api, repo, c.ID))
	set(m, "html_url", fmt.Sprintf("%s/%s/pull/%d#issuecomment-%d", s.web(r), repo, n, c.ID))
	set(m, "issue_url", fmt.Sprintf("%s/repos/%s/issues/%d", api, repo, n))
	set(m, "body", c.Body)
	set(m, "user.login", c.Author)
	set(m, "user.type", userType(c.Author))
	set(m, "created_at", stamp(c.CreatedAt))
	set(m, "updated_at", stamp(c.UpdatedAt))
	s.mu.Lock()
	set(m, "reactions", s.rollup(m["url"].(string), c.ID))
	s.mu.Unlock()
	return m
}

func (s *Server) reviewCommentJSON(r *http.Request, n int, c Comment) map[string]any {
	m := template("pull-request-review-comment-2.json")
	repo := repoOf(r)
	api := s.api(r)
	self := fmt.Sprintf("%s/repos/%s/pulls/comments/%d", api, repo, c.ID)
	html := fmt.Sprintf("%s/%s/pull/%d#discussion_r%d", s.web(r), repo, n, c.ID)
	pull := fmt.Sprintf("%s/repos/%s/pulls/%d", api, repo, n)
	path, line, side, commit := c.Path, c.Line, c.Side, c.CommitID
	if path == "" {
		path, line = "README.md", 1
	}
	if side == "" {
		side = "RIGHT"
	}
	if commit == "" {
		commit = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
	}
	set(m, "id", c.ID)
	set(m, "node_id", base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("PullRequestReviewComment%d", c.ID))))
	set(m, "url", self)
	set(m, "html_url", html)
	set(m, "pull_request_url", pull)
	set(m, "_links.self.href", self)
	set(m, "_links.html.href", html)
	set(m, "_links.pull_request.href", pull)
	set(m, "pull_request_review_id", c.ReviewID)
	set(m, "body", c.Body)
	set(m, "user.login", c.Author)
	set(m, "user.type", userType(c.Author))
	set(m, "created_at", stamp(c.CreatedAt))
	set(m, "updated_at", stamp(c.UpdatedAt))
	s.mu.Lock()
	set(m, "reactions", s.rollup(self, c.ID))
	s.mu.Unlock()
	set(m, "path", path)
	set(m, "line", line)
	set(m, "original_line", line)
	set(m, "side", side)
	set(m, "commit_id", commit)
	set(m, "original_commit_id", commit)
	set(m, "diff_hunk", fmt.Sprintf("@@ -%d,1 +%d,1 @@", line, line))
	if c.StartLine > 0 {
		set(m, "start_line", c.StartLine)
		set(m, "original_start_line", c.StartLine)
		set(m, "start_side", side)
	} else {
		set(m, "start_line", nil)
		set(m, "original_start_line", nil)
		set(m, "start_side", nil)
	}
	if c.InReplyTo > 0 {
		set(m, "in_reply_to_id", c.InReplyTo)
	} else {
		delete(m, "in_reply_to_id")
	}
	return m
}

type commentRequest struct {
	Body *string `json:"body"`
}

// readComment decodes and checks a comment body as GitHub does.
func readComment(w http.ResponseWriter, r *http.Request) (string, bool) {
	var req commentRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSONError(w, http.StatusBadRequest, "Problems parsing JSON")
		return "", false
	}
	if req.Body == nil || *req.Body == "" {
		writeValidation(w, "IssueComment", "body", "missing_field", "body is missing")
		return "", false
	}
	if utf8.RuneCountInString(*req.Body) > MaxCommentBody {
		writeValidation(w, "IssueComment", "body", "custom",
			fmt.Sprintf("body is too long (maximum is %d characters)", MaxCommentBody))
		return "", false
	}
	return *req.Body, true
}

// commentAuthor is who the fake says wrote a comment: the workflow token's
// identity, as on Actions.
const commentAuthor = "github-actions[bot]"

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	n, ok := number(w, r, "n")
	if !ok {
		return
	}
	body, ok := readComment(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	author := s.tokenLogin
	if author == "" {
		author = commentAuthor
	}
	c := s.newComment(author, body)
	s.comments[int(n)] = append(s.comments[int(n)], c)
	cp := *c
	s.mu.Unlock()
	m := s.commentJSON(r, int(n), cp)
	w.Header().Set("Location", m["url"].(string))
	writeJSON(w, http.StatusCreated, m)
}

// findComment returns comment id in comments (the issue or the review
// comments, per PR), its PR number and its index. Call with mu held.
func findComment(comments map[int][]*Comment, id int64) (*Comment, int, int) {
	for n, list := range comments {
		for i, c := range list {
			if c.ID == id {
				return c, n, i
			}
		}
	}
	return nil, 0, 0
}

// editComment is PATCH /repos/{o}/{r}/issues/comments/{id}.
func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	s.editIn(w, r, s.comments, s.commentJSON)
}

// editIn edits comment {id} of comments and answers with render's JSON of
// it, or 404 when it is gone.
func (s *Server) editIn(w http.ResponseWriter, r *http.Request, comments map[int][]*Comment, render func(*http.Request, int, Comment) map[string]any) {
	id, ok := number(w, r, "id")
	if !ok {
		return
	}
	body, ok := readComment(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	c, n, _ := findComment(comments, id)
	if c == nil {
		s.mu.Unlock()
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	cp := c.edit(body)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, render(r, n, cp))
}

// edit replaces the body as GitHub does (one more edit, a later
// updated_at) and returns a copy. Call with mu held.
func (c *Comment) edit(body string) Comment {
	c.Body = body
	c.Edits++
	c.UpdatedAt = c.CreatedAt.Add(time.Duration(c.Edits) * time.Minute)
	return *c
}

// deleteComment is DELETE /repos/{o}/{r}/issues/comments/{id}.
func (s *Server) deleteComment(w http.ResponseWriter, r *http.Request) {
	s.deleteIn(w, r, s.comments)
}

// deleteIn deletes comment {id} of comments: 204, or 404 when it is gone.
func (s *Server) deleteIn(w http.ResponseWriter, r *http.Request, comments map[int][]*Comment) {
	id, ok := number(w, r, "id")
	if !ok {
		return
	}
	s.mu.Lock()
	c, n, i := findComment(comments, id)
	if c != nil {
		comments[n] = append(comments[n][:i:i], comments[n][i+1:]...)
	}
	s.mu.Unlock()
	if c == nil {
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type checkRunRequest struct {
	Name       *string `json:"name"`
	HeadSHA    *string `json:"head_sha"`
	Status     *string `json:"status"`
	Conclusion *string `json:"conclusion"`
	ExternalID *string `json:"external_id"`
	Output     *struct {
		Title       *string `json:"title"`
		Summary     *string `json:"summary"`
		Text        *string `json:"text"`
		Annotations []struct {
			Path            string `json:"path"`
			StartLine       int    `json:"start_line"`
			EndLine         int    `json:"end_line"`
			AnnotationLevel string `json:"annotation_level"`
			Title           string `json:"title"`
			Message         string `json:"message"`
		} `json:"annotations"`
	} `json:"output"`
}

// readCheckRun decodes and validates a check-run body; create demands the
// fields GitHub requires on create.
func readCheckRun(w http.ResponseWriter, r *http.Request, create bool) (checkRunRequest, bool) {
	var req checkRunRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSONError(w, http.StatusBadRequest, "Problems parsing JSON")
		return req, false
	}
	invalid := func(field, msg string) (checkRunRequest, bool) {
		writeValidation(w, "CheckRun", field, "invalid", msg)
		return req, false
	}
	if create && (req.Name == nil || *req.Name == "") {
		return invalid("name", "name is missing")
	}
	if create && (req.HeadSHA == nil || *req.HeadSHA == "") {
		return invalid("head_sha", "head_sha is missing")
	}
	if req.Status != nil && *req.Status == "completed" && req.Conclusion == nil {
		return invalid("conclusion", "conclusion is required when status is completed")
	}
	if o := req.Output; o != nil {
		if create && (o.Title == nil || *o.Title == "") {
			return invalid("output.title", "title is missing")
		}
		if o.Summary == nil || *o.Summary == "" {
			return invalid("output.summary", "summary is missing")
		}
		if len(*o.Summary) > MaxCheckRunText {
			return invalid("output.summary", fmt.Sprintf("summary is too long (maximum is %d bytes)", MaxCheckRunText))
		}
		if o.Text != nil && len(*o.Text) > MaxCheckRunText {
			return invalid("output.text", fmt.Sprintf("text is too long (maximum is %d bytes)", MaxCheckRunText))
		}
		if len(o.Annotations) > MaxAnnotations {
			return invalid("output.annotations", fmt.Sprintf("only %d annotations are allowed per request", MaxAnnotations))
		}
		for _, a := range o.Annotations {
			switch {
			case a.Path == "" || a.Message == "" || a.StartLine < 1 || a.EndLine < a.StartLine:
				return invalid("output.annotations", "annotation needs path, message, start_line and end_line")
			case a.AnnotationLevel != "notice" && a.AnnotationLevel != "warning" && a.AnnotationLevel != "failure":
				return invalid("output.annotations", "annotation_level must be notice, warning or failure")
			}
		}
	}
	return req, true
}

func (c *CheckRun) apply(req checkRunRequest) {
	if req.Name != nil {
		c.Name = *req.Name
	}
	if req.Status != nil {
		c.Status = *req.Status
	}
	if req.Conclusion != nil {
		c.Conclusion = *req.Conclusion
		c.Status = "completed"
	}
	if req.ExternalID != nil {
		c.ExternalID = *req.ExternalID
	}
	if o := req.Output; o != nil {
		if o.Title != nil {
			c.Title = *o.Title
		}
		c.Summary = *o.Summary
		if o.Text != nil {
			c.Text = *o.Text
		}
		for _, a := range o.Annotations {
			c.Annotations = append(c.Annotations, Annotation{
				Path: a.Path, StartLine: a.StartLine, EndLine: a.EndLine,
				Level: a.AnnotationLevel, Title: a.Title, Message: a.Message,
			})
		}
	}
}

func (s *Server) createCheckRun(w http.ResponseWriter, r *http.Request) {
	req, ok := readCheckRun(w, r, true)
	if !ok {
		return
	}
	s.mu.Lock()
	if req.Conclusion != nil && s.refused[*req.Conclusion] {
		s.mu.Unlock()
		writeValidation(w, "CheckRun", "conclusion", "invalid", fmt.Sprintf("conclusion %q is not allowed here", *req.Conclusion))
		return
	}
	s.nextID++
	c := &CheckRun{ID: s.nextID, HeadSHA: *req.HeadSHA, Status: "queued", App: s.tokenApp()}
	c.apply(req)
	s.checks = append(s.checks, c)
	cp := *c
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, s.checkRunJSON(r, cp))
}

func (s *Server) checkRun(id int64) *CheckRun {
	for _, c := range s.checks {
		if c.ID == id {
			return c
		}
	}
	return nil
}

func (s *Server) updateCheckRun(w http.ResponseWriter, r *http.Request) {
	id, ok := number(w, r, "id")
	if !ok {
		return
	}
	req, ok := readCheckRun(w, r, false)
	if !ok {
		return
	}
	s.mu.Lock()
	c := s.checkRun(id)
	var cp CheckRun
	if c != nil {
		c.apply(req)
		c.Updates++
		cp = *c
	}
	s.mu.Unlock()
	if c == nil {
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.checkRunJSON(r, cp))
}

func (s *Server) getCheckRun(w http.ResponseWriter, r *http.Request) {
	id, ok := number(w, r, "id")
	if !ok {
		return
	}
	s.mu.Lock()
	c := s.checkRun(id)
	var cp CheckRun
	if c != nil {
		cp = *c
	}
	s.mu.Unlock()
	if c == nil {
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.checkRunJSON(r, cp))
}

func (s *Server) checkRunJSON(r *http.Request, c CheckRun) map[string]any {
	m := template("check-run.json")
	repo := repoOf(r)
	api := s.api(r)
	started := stampOf(c.ID)
	set(m, "id", c.ID)
	set(m, "name", c.Name)
	set(m, "head_sha", c.HeadSHA)
	set(m, "url", fmt.Sprintf("%s/repos/%s/check-runs/%d", api, repo, c.ID))
	set(m, "html_url", fmt.Sprintf("%s/%s/runs/%d", s.web(r), repo, c.ID))
	set(m, "status", c.Status)
	set(m, "conclusion", nullable(c.Conclusion))
	set(m, "started_at", stamp(started))
	if c.Status == "completed" {
		set(m, "completed_at", stamp(started))
	} else {
		set(m, "completed_at", nil)
	}
	set(m, "output.title", nullable(c.Title))
	set(m, "output.summary", nullable(c.Summary))
	set(m, "output.text", nullable(c.Text))
	set(m, "output.annotations_count", len(c.Annotations))
	set(m, "output.annotations_url", fmt.Sprintf("%s/repos/%s/check-runs/%d/annotations", api, repo, c.ID))
	set(m, "pull_requests", []any{})
	set(m, "external_id", c.ExternalID)
	set(m, "app.slug", c.App)
	return m
}

func (s *Server) getContent(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("path")
	ref := r.URL.Query().Get("ref")
	s.mu.Lock()
	content, ok := s.contents[ref+"\x00"+p]
	s.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]any{
			"message":           "Not Found",
			"documentation_url": "https://docs.github.com/rest/repos/contents#get-repository-content",
			"status":            "404",
		})
		return
	}
	if strings.Contains(r.Header.Get("Accept"), ".raw") {
		// The raw media type: the file's bytes, at any size up to 100 MB.
		w.Header().Set("Content-Type", "application/vnd.github.raw; charset=utf-8")
		_, _ = io.WriteString(w, content)
		return
	}
	m := template("content-file-response-if-content-is-a-file.json")
	repo := repoOf(r)
	sha := blobSHA(content)
	self := fmt.Sprintf("%s/repos/%s/contents/%s?ref=%s", s.api(r), repo, p, ref)
	html := fmt.Sprintf("%s/%s/blob/%s/%s", s.web(r), repo, ref, p)
	git := fmt.Sprintf("%s/repos/%s/git/blobs/%s", s.api(r), repo, sha)
	set(m, "name", path.Base(p))
	set(m, "path", p)
	set(m, "size", len(content))
	set(m, "sha", sha)
	if len(content) > contentsLimit {
		// GitHub's contents API: files of 1-100 MB come with an empty
		// content and encoding "none"; the blobs API has the bytes.
		set(m, "content", "")
		set(m, "encoding", "none")
	} else {
		set(m, "content", wrap64(base64.StdEncoding.EncodeToString([]byte(content))))
	}
	set(m, "url", self)
	set(m, "html_url", html)
	set(m, "git_url", git)
	set(m, "download_url", fmt.Sprintf("https://raw.githubusercontent.com/%s/%s/%s", repo, ref, p))
	set(m, "_links", map[string]any{"git": git, "self": self, "html": html})
	writeJSON(w, http.StatusOK, m)
}

// contentsLimit is the largest file the contents API returns inline.
const contentsLimit = 1 << 20

// blobSHA is git's object name for content.
func blobSHA(content string) string {
	return fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(content), content))))
}

// getBlob serves the git blobs API: raw bytes for Accept
// application/vnd.github.raw (or .v3.raw), else GitHub's JSON shape with
// base64 content.
func (s *Server) getBlob(w http.ResponseWriter, r *http.Request) {
	sha := r.PathValue("sha")
	s.mu.Lock()
	content, ok := "", false
	for _, c := range s.contents {
		if blobSHA(c) == sha {
			content, ok = c, true
			break
		}
	}
	s.mu.Unlock()
	if !ok {
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	if strings.Contains(r.Header.Get("Accept"), ".raw") {
		w.Header().Set("Content-Type", "application/vnd.github.raw; charset=utf-8")
		_, _ = io.WriteString(w, content)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"sha":      sha,
		"node_id":  "B_" + sha[:12],
		"size":     len(content),
		"url":      fmt.Sprintf("%s/repos/%s/git/blobs/%s", s.api(r), repoOf(r), sha),
		"content":  wrap64(base64.StdEncoding.EncodeToString([]byte(content))),
		"encoding": "base64",
	})
}

// getTree serves the git trees endpoint from the contents set for that ref
// (with ?recursive=1, every blob and every directory), in GitHub's shape.
func (s *Server) getTree(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("sha")
	recursive := r.URL.Query().Get("recursive") != ""
	s.mu.Lock()
	files := map[string]string{}
	for k, v := range s.contents {
		if kref, p, ok := strings.Cut(k, "\x00"); ok && kref == ref {
			files[p] = v
		}
	}
	s.mu.Unlock()
	api, repo := s.api(r), repoOf(r)
	seen := map[string]bool{}
	var entries []map[string]any
	for p, content := range files {
		if !recursive && strings.Contains(p, "/") {
			dir, _, _ := strings.Cut(p, "/")
			if !seen[dir] {
				seen[dir] = true
				entries = append(entries, map[string]any{"path": dir, "mode": "040000", "type": "tree", "sha": fmt.Sprintf("%x", sha1.Sum([]byte(dir))), "url": fmt.Sprintf("%s/repos/%s/git/trees/%x", api, repo, sha1.Sum([]byte(dir)))})
			}
			continue
		}
		for dir := path.Dir(p); recursive && dir != "." && !seen[dir]; dir = path.Dir(dir) {
			seen[dir] = true
			entries = append(entries, map[string]any{"path": dir, "mode": "040000", "type": "tree", "sha": fmt.Sprintf("%x", sha1.Sum([]byte(dir))), "url": fmt.Sprintf("%s/repos/%s/git/trees/%x", api, repo, sha1.Sum([]byte(dir)))})
		}
		sha := fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(content), content))))
		entries = append(entries, map[string]any{"path": p, "mode": "100644", "type": "blob", "sha": sha, "size": len(content), "url": fmt.Sprintf("%s/repos/%s/git/blobs/%s", api, repo, sha)})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i]["path"].(string) < entries[j]["path"].(string) })
	writeJSON(w, http.StatusOK, map[string]any{
		"sha": ref, "url": fmt.Sprintf("%s/repos/%s/git/trees/%s", api, repo, ref),
		"tree": entries, "truncated": false,
	})
}

// wrap64 breaks base64 into lines of 60 characters, as GitHub sends it.
func wrap64(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteByte('\n')
	return b.String()
}

// diffFromFiles renders files as a git diff, the way GitHub's diff media
// type reads.
func diffFromFiles(files []File) string {
	var b strings.Builder
	for _, f := range files {
		old := f.Filename
		if f.PreviousFilename != "" {
			old = f.PreviousFilename
		}
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", old, f.Filename)
		from, to := "a/"+old, "b/"+f.Filename
		switch f.Status {
		case "added":
			b.WriteString("new file mode 100644\n")
			from = "/dev/null"
		case "removed":
			b.WriteString("deleted file mode 100644\n")
			to = "/dev/null"
		case "renamed":
			fmt.Fprintf(&b, "similarity index 90%%\nrename from %s\nrename to %s\n", old, f.Filename)
		}
		if f.Patch == "" {
			fmt.Fprintf(&b, "Binary files %s and %s differ\n", from, to)
			continue
		}
		fmt.Fprintf(&b, "--- %s\n+++ %s\n%s", from, to, f.Patch)
		if !strings.HasSuffix(f.Patch, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// filesFromDiff splits a git diff into the files endpoint's entries.
func filesFromDiff(diff string) []File {
	var files []File
	var cur *File
	var patch []string
	flush := func() {
		if cur != nil {
			cur.Patch = strings.Join(patch, "\n")
			files = append(files, *cur)
		}
		cur, patch = nil, nil
	}
	for _, line := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
			cur = &File{Status: "modified"}
			if i := strings.LastIndex(line, " b/"); i >= 0 {
				cur.Filename = line[i+3:]
			}
		case cur == nil:
		case patch != nil:
			patch = append(patch, line)
			switch {
			case strings.HasPrefix(line, "+"):
				cur.Additions++
			case strings.HasPrefix(line, "-"):
				cur.Deletions++
			}
		case strings.HasPrefix(line, "@@"):
			patch = append(patch, line)
		case strings.HasPrefix(line, "new file mode"):
			cur.Status = "added"
		case strings.HasPrefix(line, "deleted file mode"):
			cur.Status = "removed"
		case strings.HasPrefix(line, "rename from "):
			cur.Status, cur.PreviousFilename = "renamed", strings.TrimPrefix(line, "rename from ")
		case strings.HasPrefix(line, "+++ ") && line != "+++ /dev/null":
			cur.Filename = strings.TrimPrefix(strings.TrimPrefix(line, "+++ "), "b/")
		}
	}
	flush()
	return files
}
