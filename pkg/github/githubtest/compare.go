package githubtest

import (
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Compare configures the compare API's answer for one base...head pair.
// Zero fields take defaults: Status "ahead", AheadBy the number of Commits,
// MergeBase the base SHA. Files (or, without them, the files of Diff) are
// the changes from base to head.
type Compare struct {
	Status            string
	AheadBy, BehindBy int
	MergeBase         string
	// Commits are the SHAs of the commits base..head, oldest first.
	Commits []string
	Files   []File
	Diff    string
}

// SetCompare sets the answer of GET /repos/{o}/{r}/compare/{base}...{head}.
// A pair never set answers 404, as GitHub does for an unknown commit.
func (s *Server) SetCompare(base, head string, c Compare) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compares[base+"..."+head] = c
}

// Reactions returns the reaction contents added to issue comment id, in
// the order they were created (a repeated reaction is listed once).
func (s *Server) Reactions(id int64) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reacts[id]...)
}

// RefuseConclusion makes check-run creation answer 422 for the given
// conclusion (e.g. "action_required", which some GitHub setups refuse).
func (s *Server) RefuseConclusion(conclusion string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refused[conclusion] = true
}

// getCompare serves repos/compare-commits in GitHub's commit-comparison
// shape (fixtures/github/commit-comparison.json).
func (s *Server) getCompare(w http.ResponseWriter, r *http.Request) {
	bh := r.PathValue("basehead")
	base, head, ok := strings.Cut(bh, "...")
	if !ok || base == "" || head == "" {
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	s.mu.Lock()
	c, found := s.compares[base+"..."+head]
	s.mu.Unlock()
	if !found {
		writeJSONError(w, http.StatusNotFound, "No common ancestor between "+base+" and "+head+".")
		return
	}
	files := c.Files
	if files == nil && c.Diff != "" {
		files = filesFromDiff(c.Diff)
	}
	status := c.Status
	if status == "" {
		status = "ahead"
	}
	ahead := c.AheadBy
	if ahead == 0 && status != "identical" && status != "behind" {
		ahead = len(c.Commits)
	}
	mergeBase := c.MergeBase
	if mergeBase == "" {
		mergeBase = base
	}
	m := template("commit-comparison.json")
	repo, api := repoOf(r), s.api(r)
	set(m, "url", fmt.Sprintf("%s/repos/%s/compare/%s", api, repo, bh))
	set(m, "html_url", fmt.Sprintf("%s/%s/compare/%s", s.web(r), repo, bh))
	set(m, "permalink_url", fmt.Sprintf("%s/%s/compare/%s", s.web(r), repo, bh))
	set(m, "diff_url", fmt.Sprintf("%s/%s/compare/%s.diff", s.web(r), repo, bh))
	set(m, "patch_url", fmt.Sprintf("%s/%s/compare/%s.patch", s.web(r), repo, bh))
	commitTemplate := m["base_commit"]
	set(m, "base_commit", commitJSON(commitTemplate, api, s.web(r), repo, base))
	set(m, "merge_base_commit", commitJSON(commitTemplate, api, s.web(r), repo, mergeBase))
	set(m, "status", status)
	set(m, "ahead_by", ahead)
	set(m, "behind_by", c.BehindBy)
	set(m, "total_commits", len(c.Commits))
	commits := make([]any, 0, len(c.Commits))
	for _, sha := range c.Commits {
		commits = append(commits, commitJSON(commitTemplate, api, s.web(r), repo, sha))
	}
	set(m, "commits", commits)
	out := make([]any, 0, len(files))
	for _, f := range files[:min(len(files), 300)] {
		fm := s.fileJSON(r, f)
		fm["blob_url"] = fmt.Sprintf("%s/%s/blob/%s/%s", s.web(r), repo, head, f.Filename)
		fm["raw_url"] = fmt.Sprintf("%s/%s/raw/%s/%s", s.web(r), repo, head, f.Filename)
		fm["contents_url"] = fmt.Sprintf("%s/repos/%s/contents/%s?ref=%s", api, repo, f.Filename, head)
		out = append(out, fm)
	}
	set(m, "files", out)
	writeJSON(w, http.StatusOK, m)
}

// commitJSON is the fixture's commit object re-stamped with sha; api and
// web are the API and web hosts of the request.
func commitJSON(tmpl any, api, web, repo, sha string) map[string]any {
	b, _ := json.Marshal(tmpl)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	tree := fmt.Sprintf("%x", sha1.Sum([]byte("tree "+sha)))
	set(m, "sha", sha)
	set(m, "url", fmt.Sprintf("%s/repos/%s/commits/%s", api, repo, sha))
	set(m, "html_url", fmt.Sprintf("%s/%s/commit/%s", web, repo, sha))
	set(m, "comments_url", fmt.Sprintf("%s/repos/%s/commits/%s/comments", api, repo, sha))
	set(m, "commit.url", fmt.Sprintf("%s/repos/%s/git/commits/%s", api, repo, sha))
	set(m, "commit.tree.sha", tree)
	set(m, "commit.tree.url", fmt.Sprintf("%s/repos/%s/tree/%s", api, repo, tree))
	set(m, "parents", []any{})
	return m
}

// reactionContents are the values the reactions API accepts.
var reactionContents = map[string]bool{"+1": true, "-1": true, "laugh": true, "confused": true, "heart": true, "hooray": true, "rocket": true, "eyes": true}

// createReaction serves reactions/create-for-issue-comment: 201 for a new
// reaction, 200 for one the token already added, 422 for an unknown content.
func (s *Server) createReaction(w http.ResponseWriter, r *http.Request) {
	id, ok := number(w, r, "id")
	if !ok {
		return
	}
	var req struct {
		Content *string `json:"content"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSONError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	if req.Content == nil || !reactionContents[*req.Content] {
		writeValidation(w, "Reaction", "content", "invalid", "content is not a valid reaction")
		return
	}
	s.mu.Lock()
	c, _, _ := findComment(s.comments, id)
	if strings.Contains(r.URL.Path, "/pulls/comments/") {
		c, _, _ = findComment(s.reviews, id)
	}
	status := http.StatusCreated
	if c != nil {
		for _, have := range s.reacts[id] {
			if have == *req.Content {
				status = http.StatusOK
			}
		}
		if status == http.StatusCreated {
			s.reacts[id] = append(s.reacts[id], *req.Content)
		}
	}
	s.nextID++
	rid := s.nextID
	s.mu.Unlock()
	if c == nil {
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	m := template("reaction.json")
	set(m, "id", rid)
	set(m, "node_id", fmt.Sprintf("REACTION_%d", rid))
	set(m, "content", *req.Content)
	set(m, "user.login", commentAuthor)
	set(m, "user.type", "Bot")
	set(m, "created_at", stamp(stampOf(rid)))
	writeJSON(w, status, m)
}
