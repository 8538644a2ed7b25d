package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The GraphQL endpoint: POST /graphql as on github.com (api.github.com/graphql),
// POST /api/graphql as on GitHub Enterprise Server, whose REST API is under
// /api/v3 (there is no /api/v3/graphql). It answers the three operations
// the Action sends, with GitHub's shapes: reviewThreads of a pull request,
// resolveReviewThread, and a branch's mergeQueue entries. Refusals come as
// GitHub sends them: HTTP 200 with an `errors` list (FORBIDDEN for
// resolveReviewThread under a token with `contents: read`, the default).

// QueueEntry is an entry of a branch's merge queue (SetMergeQueue).
type QueueEntry struct {
	PR       int    // the pull request (AddPR); its head is the PR's HeadSHA
	GroupSHA string // the merge group commit it is tested in
	State    string // "" means AWAITING_CHECKS
}

// SetContents sets the token's `contents` permission, "read" (the
// default, as the Action's documented permissions grant) or "write".
// resolveReviewThread needs "write".
func (s *Server) SetContents(level string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.contentsWrite = level == "write"
}

// SetMergeQueue sets branch's merge queue, in queue order.
func (s *Server) SetMergeQueue(branch string, entries []QueueEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queues == nil {
		s.queues = map[string][]QueueEntry{}
	}
	s.queues[branch] = entries
}

// Resolved reports whether the review thread that review comment id
// starts is resolved.
func (s *Server) Resolved(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resolved[id]
}

func isGraphQL(path string) bool { return path == "/graphql" || path == "/api/graphql" }

// threadID is the node id of the thread review comment first starts.
func threadID(first int64) string { return fmt.Sprintf("PRRT_kwDOAAAB%d", first) }

func graphqlError(typ, message string, path ...string) map[string]any {
	e := map[string]any{"message": message, "locations": []any{map[string]any{"line": 2, "column": 3}}}
	if typ != "" {
		e["type"] = typ
	}
	if len(path) > 0 {
		e["path"] = path
	}
	return e
}

func (s *Server) graphql(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.Header.Get("X-Original-Path"), enterprisePrefix+"/") {
		// <host>/api/v3/graphql does not exist on GitHub Enterprise Server.
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	if r.Header.Get("Authorization") == "" {
		writeJSON(w, http.StatusUnauthorized, map[string]any{
			"message":           "This endpoint requires you to be authenticated.",
			"documentation_url": "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql",
		})
		return
	}
	var req struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || strings.TrimSpace(req.Query) == "" {
		writeJSONError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	str := func(name string) (string, bool) {
		v, ok := req.Variables[name].(string)
		return v, ok && v != ""
	}
	invalid := func(name, typ string) {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []any{map[string]any{
			"extensions": map[string]any{"code": "variableMismatch", "variableName": name, "typeName": typ},
			"locations":  []any{map[string]any{"line": 1, "column": 7}},
			"message":    fmt.Sprintf("Variable $%s of type %s was provided invalid value", name, typ),
		}}})
	}
	after := 0
	if a, ok := req.Variables["after"].(string); ok && a != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(a, "cursor:"))
		if err != nil || !strings.HasPrefix(a, "cursor:") {
			writeJSON(w, http.StatusOK, map[string]any{"errors": []any{graphqlError("INVALID_CURSOR_ARGUMENTS", fmt.Sprintf("`%s` does not appear to be a valid cursor.", a))}})
			return
		}
		after = n
	}
	switch {
	case strings.Contains(req.Query, "resolveReviewThread("):
		id, ok := str("id")
		if !ok {
			invalid("id", "ID!")
			return
		}
		s.resolveThread(w, id)
	case strings.Contains(req.Query, "reviewThreads("):
		owner, ok1 := str("owner")
		name, ok2 := str("name")
		n, ok3 := req.Variables["number"].(float64)
		if !ok1 || !ok2 || !ok3 || n != float64(int(n)) {
			invalid("number", "Int!")
			return
		}
		_ = owner + name
		s.reviewThreads(w, int(n), after)
	case strings.Contains(req.Query, "mergeQueue("):
		branch, ok := str("branch")
		if !ok {
			invalid("branch", "String!")
			return
		}
		s.mergeQueue(w, branch, after)
	default:
		writeJSON(w, http.StatusOK, map[string]any{"errors": []any{graphqlError("", "githubtest: this fake answers reviewThreads, resolveReviewThread and mergeQueue only")}})
	}
}

// pageSize is the `first:` the Action asks for.
const pageSize = 100

func pageInfo(after, total int) map[string]any {
	end := min(after+pageSize, total)
	return map[string]any{"hasNextPage": end < total, "endCursor": "cursor:" + strconv.Itoa(end)}
}

func (s *Server) reviewThreads(w http.ResponseWriter, n, after int) {
	s.mu.Lock()
	_, known := s.prs[n]
	var nodes []any
	for _, c := range s.reviews[n] {
		if c.InReplyTo != 0 {
			continue
		}
		nodes = append(nodes, map[string]any{
			"id": threadID(c.ID), "isResolved": s.resolved[c.ID],
			"comments": map[string]any{"nodes": []any{map[string]any{"databaseId": c.ID}}},
		})
	}
	s.mu.Unlock()
	if !known {
		writeJSON(w, http.StatusOK, map[string]any{
			"data":   map[string]any{"repository": map[string]any{"pullRequest": nil}},
			"errors": []any{graphqlError("NOT_FOUND", fmt.Sprintf("Could not resolve to a PullRequest with the number of %d.", n), "repository", "pullRequest")},
		})
		return
	}
	total := len(nodes)
	page := nodes[min(after, total):min(after+pageSize, total)]
	if page == nil {
		page = []any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": map[string]any{"pullRequest": map[string]any{
		"reviewThreads": map[string]any{"nodes": page, "pageInfo": pageInfo(after, total)},
	}}}})
}

func (s *Server) resolveThread(w http.ResponseWriter, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first int64
	for _, cs := range s.reviews {
		for _, c := range cs {
			if c.InReplyTo == 0 && threadID(c.ID) == id {
				first = c.ID
			}
		}
	}
	refuse := func(typ, msg string) {
		writeJSON(w, http.StatusOK, map[string]any{
			"data":   map[string]any{"resolveReviewThread": nil},
			"errors": []any{graphqlError(typ, msg, "resolveReviewThread")},
		})
	}
	switch {
	case first == 0:
		refuse("NOT_FOUND", fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id))
	case !s.contentsWrite:
		// What a workflow token with `contents: read` gets.
		refuse("FORBIDDEN", "Resource not accessible by integration")
	default:
		if s.resolved == nil {
			s.resolved = map[int64]bool{}
		}
		s.resolved[first] = true
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"resolveReviewThread": map[string]any{
			"thread": map[string]any{"id": id, "isResolved": true},
		}}})
	}
}

func (s *Server) mergeQueue(w http.ResponseWriter, branch string, after int) {
	s.mu.Lock()
	entries, ok := s.queues[branch]
	var nodes []any
	for _, e := range entries {
		state := e.State
		if state == "" {
			state = "AWAITING_CHECKS"
		}
		var pr any
		if p, found := s.prs[e.PR]; found {
			pr = map[string]any{"number": e.PR, "headRefOid": p.HeadSHA}
		}
		nodes = append(nodes, map[string]any{"state": state, "headCommit": map[string]any{"oid": e.GroupSHA}, "pullRequest": pr})
	}
	s.mu.Unlock()
	if !ok {
		// A branch without a merge queue: mergeQueue is null.
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": map[string]any{"mergeQueue": nil}}})
		return
	}
	total := len(nodes)
	page := nodes[min(after, total):min(after+pageSize, total)]
	if page == nil {
		page = []any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": map[string]any{"mergeQueue": map[string]any{
		"entries": map[string]any{"nodes": page, "pageInfo": pageInfo(after, total)},
	}}}})
}
