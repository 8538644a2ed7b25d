package githubtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Review is a pull-request review as the fake holds it.
type Review struct {
	ID       int64
	Author   string
	Body     string
	Event    string // as sent: COMMENT, APPROVE, REQUEST_CHANGES or "" (pending)
	CommitID string
	Comments []int64 // ids of its line comments
}

// Reviews returns the reviews created on PR n, oldest first.
func (s *Server) Reviews(n int) []Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Review, 0, len(s.prReviews[n]))
	for _, r := range s.prReviews[n] {
		cp := *r
		cp.Comments = append([]int64(nil), r.Comments...)
		out = append(out, cp)
	}
	return out
}

// ReviewComments returns PR n's review (line) comments, edits applied,
// oldest first.
func (s *Server) ReviewComments(n int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Comment, 0, len(s.reviews[n]))
	for _, c := range s.reviews[n] {
		out = append(out, *c)
	}
	return out
}

// AddLineComment adds a review comment by author on path:line of PR n
// (side RIGHT), optionally a reply to another comment, and returns its id.
func (s *Server) AddLineComment(n int, author, path string, line int, inReplyTo int64, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.newComment(author, body)
	c.Path, c.Line, c.Side, c.InReplyTo = path, line, "RIGHT", inReplyTo
	s.reviews[n] = append(s.reviews[n], c)
	return c.ID
}

type reviewRequest struct {
	CommitID *string `json:"commit_id"`
	Body     *string `json:"body"`
	Event    *string `json:"event"`
	Comments []struct {
		Path      string  `json:"path"`
		Body      string  `json:"body"`
		Position  *int    `json:"position"`
		Line      *int    `json:"line"`
		Side      *string `json:"side"`
		StartLine *int    `json:"start_line"`
		StartSide *string `json:"start_side"`
	} `json:"comments"`
}

// unprocessable answers 422 in the validation_failed_simple shape GitHub
// declares for the reviews endpoint: errors are strings.
func unprocessable(w http.ResponseWriter, errs ...string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
		"message":           "Unprocessable Entity",
		"errors":            errs,
		"documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request",
		"status":            "422",
	})
}

// createReview is POST /repos/{o}/{r}/pulls/{n}/reviews with GitHub's rules:
// an event that is not one of the three (or empty, pending), a missing body
// for COMMENT or REQUEST_CHANGES, a commit_id that is not the PR's head, a
// comment on a file or line that is not in the diff, a start_line after the
// line, or a range across hunks: 422, and nothing is created.
func (s *Server) createReview(w http.ResponseWriter, r *http.Request) {
	n, ok := number(w, r, "n")
	if !ok {
		return
	}
	var req reviewRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSONError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	p, files, _, found := s.pull(int(n))
	if !found {
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	event := ""
	if req.Event != nil {
		event = *req.Event
	}
	body := ""
	if req.Body != nil {
		body = *req.Body
	}
	switch {
	case event != "" && event != "COMMENT" && event != "APPROVE" && event != "REQUEST_CHANGES":
		unprocessable(w, "Event is not included in the list")
		return
	case (event == "COMMENT" || event == "REQUEST_CHANGES") && body == "":
		unprocessable(w, "Body is required for event "+event)
		return
	case utf8.RuneCountInString(body) > MaxCommentBody:
		unprocessable(w, fmt.Sprintf("Body is too long (maximum is %d characters)", MaxCommentBody))
		return
	case req.CommitID != nil && *req.CommitID != p.HeadSHA:
		unprocessable(w, "commit_id is not the head of the pull request")
		return
	}
	hunks := map[string][]hunkRange{}
	for _, f := range files {
		hunks[f.Filename] = hunkRanges(f.Patch)
	}
	for _, c := range req.Comments {
		switch {
		case c.Body == "":
			unprocessable(w, "Body can't be blank")
			return
		case utf8.RuneCountInString(c.Body) > MaxCommentBody:
			unprocessable(w, fmt.Sprintf("Body is too long (maximum is %d characters)", MaxCommentBody))
			return
		case c.Line == nil && c.Position == nil:
			unprocessable(w, "Line could not be resolved")
			return
		case c.Position != nil:
			unprocessable(w, "position is not supported by this fake; use line and side")
			return
		}
		hs, inPR := hunks[c.Path]
		if !inPR {
			unprocessable(w, "Path could not be resolved")
			return
		}
		left := c.Side != nil && *c.Side == "LEFT"
		end := findHunk(hs, *c.Line, left)
		if end < 0 {
			unprocessable(w, "Line could not be resolved")
			return
		}
		if c.StartLine != nil {
			if *c.StartLine > *c.Line {
				unprocessable(w, "start_line must precede line")
				return
			}
			startLeft := left
			if c.StartSide != nil {
				startLeft = *c.StartSide == "LEFT"
			}
			if findHunk(hs, *c.StartLine, startLeft) != end {
				unprocessable(w, "start_line could not be resolved: the range must be inside one hunk")
				return
			}
		}
	}

	s.mu.Lock()
	s.nextID++
	rv := &Review{ID: s.nextID, Author: commentAuthor, Body: body, Event: event, CommitID: p.HeadSHA}
	for _, c := range req.Comments {
		cm := s.newComment(commentAuthor, c.Body)
		cm.Path, cm.Line, cm.Side, cm.ReviewID, cm.CommitID = c.Path, *c.Line, "RIGHT", rv.ID, p.HeadSHA
		if c.Side != nil {
			cm.Side = *c.Side
		}
		if c.StartLine != nil {
			cm.StartLine = *c.StartLine
		}
		s.reviews[int(n)] = append(s.reviews[int(n)], cm)
		rv.Comments = append(rv.Comments, cm.ID)
	}
	s.prReviews[int(n)] = append(s.prReviews[int(n)], rv)
	cp := *rv
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, s.reviewJSON(r, int(n), cp))
}

func (s *Server) reviewJSON(r *http.Request, n int, rv Review) map[string]any {
	m := template("pull-request-review.json")
	repo := repoOf(r)
	api := s.api(r)
	state := map[string]string{"COMMENT": "COMMENTED", "APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "": "PENDING"}[rv.Event]
	html := fmt.Sprintf("%s/%s/pull/%d#pullrequestreview-%d", s.web(r), repo, n, rv.ID)
	set(m, "id", rv.ID)
	set(m, "node_id", base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("PullRequestReview%d", rv.ID))))
	set(m, "user.login", rv.Author)
	set(m, "user.type", userType(rv.Author))
	set(m, "body", rv.Body)
	set(m, "state", state)
	set(m, "html_url", html)
	set(m, "pull_request_url", fmt.Sprintf("%s/repos/%s/pulls/%d", api, repo, n))
	set(m, "_links.html.href", html)
	set(m, "_links.pull_request.href", fmt.Sprintf("%s/repos/%s/pulls/%d", api, repo, n))
	set(m, "commit_id", rv.CommitID)
	set(m, "author_association", "NONE")
	if rv.Event == "" {
		delete(m, "submitted_at")
	} else {
		set(m, "submitted_at", stamp(stampOf(rv.ID)))
	}
	return m
}

// listReviewCommentsOf is GET .../pulls/{n}/reviews/{id}/comments.
func (s *Server) listReviewCommentsOf(w http.ResponseWriter, r *http.Request) {
	n, ok := number(w, r, "n")
	if !ok {
		return
	}
	id, ok := number(w, r, "id")
	if !ok {
		return
	}
	s.mu.Lock()
	var list []Comment
	found := false
	for _, rv := range s.prReviews[int(n)] {
		found = found || rv.ID == id
	}
	for _, c := range s.reviews[int(n)] {
		if c.ReviewID == id {
			list = append(list, *c)
		}
	}
	s.mu.Unlock()
	if !found {
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	start, end := page(w, r, len(list))
	out := make([]map[string]any, 0, end-start)
	for _, c := range list[start:end] {
		out = append(out, s.reviewCommentJSON(r, int(n), c))
	}
	writeJSON(w, http.StatusOK, out)
}

// editReviewComment is PATCH /repos/{o}/{r}/pulls/comments/{id}.
func (s *Server) editReviewComment(w http.ResponseWriter, r *http.Request) {
	s.editIn(w, r, s.reviews, s.reviewCommentJSON)
}

// hunkRange is one hunk's line span on each side.
type hunkRange struct{ oldStart, oldLines, newStart, newLines int }

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// hunkRanges reads the hunk headers of a file's patch.
func hunkRanges(patch string) []hunkRange {
	var out []hunkRange
	for _, line := range strings.Split(patch, "\n") {
		m := hunkHeader.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		num := func(s string) int {
			if s == "" {
				return 1
			}
			v, _ := strconv.Atoi(s)
			return v
		}
		out = append(out, hunkRange{num(m[1]), num(m[2]), num(m[3]), num(m[4])})
	}
	return out
}

// findHunk returns the index of the hunk holding line on the given side,
// or -1: GitHub comments only on lines the diff shows.
func findHunk(hs []hunkRange, line int, left bool) int {
	for i, h := range hs {
		start, count := h.newStart, h.newLines
		if left {
			start, count = h.oldStart, h.oldLines
		}
		if line >= start && line < start+count {
			return i
		}
	}
	return -1
}

// deleteReviewComment is DELETE /repos/{o}/{r}/pulls/comments/{id}: 204,
// or 404 when it is gone.
func (s *Server) deleteReviewComment(w http.ResponseWriter, r *http.Request) {
	s.deleteIn(w, r, s.reviews)
}

// replyToReviewComment is POST /repos/{o}/{r}/pulls/{n}/comments/{id}/replies.
func (s *Server) replyToReviewComment(w http.ResponseWriter, r *http.Request) {
	n, ok := number(w, r, "n")
	if !ok {
		return
	}
	id, ok := number(w, r, "id")
	if !ok {
		return
	}
	body, ok := readComment(w, r)
	if !ok {
		return
	}
	s.reply(w, r, int(n), id, body)
}

// createReviewComment is POST /repos/{o}/{r}/pulls/{n}/comments. The fake
// takes its in_reply_to form only (go-github's CreateCommentInReplyTo;
// GitHub then ignores every parameter but body); a new thread is 422.
func (s *Server) createReviewComment(w http.ResponseWriter, r *http.Request) {
	n, ok := number(w, r, "n")
	if !ok {
		return
	}
	var req struct {
		Body      *string `json:"body"`
		InReplyTo int64   `json:"in_reply_to"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSONError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	switch {
	case req.Body == nil || *req.Body == "":
		unprocessable(w, "body is missing")
		return
	case req.InReplyTo == 0:
		unprocessable(w, "githubtest serves only replies (in_reply_to) on this endpoint; a new thread needs commit_id, path and line")
		return
	}
	s.reply(w, r, int(n), req.InReplyTo, *req.Body)
}

// reply adds the token's reply to the thread comment id starts on PR n, as
// GitHub answers it: 201 with the review comment; a comment that is not
// on PR n is 404, and a reply to a reply is 422 (GitHub takes replies to a
// thread's first comment only).
func (s *Server) reply(w http.ResponseWriter, r *http.Request, n int, id int64, body string) {
	s.mu.Lock()
	var top *Comment
	for _, c := range s.reviews[n] {
		if c.ID == id {
			top = c
		}
	}
	switch {
	case top == nil:
		s.mu.Unlock()
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	case top.InReplyTo != 0:
		s.mu.Unlock()
		unprocessable(w, "in_reply_to cannot be a reply")
		return
	}
	author := s.tokenLogin
	if author == "" {
		author = commentAuthor
	}
	c := s.newComment(author, body)
	c.Path, c.Line, c.Side, c.InReplyTo = top.Path, top.Line, top.Side, top.ID
	s.reviews[n] = append(s.reviews[n], c)
	cp := *c
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, s.reviewCommentJSON(r, n, cp))
}
