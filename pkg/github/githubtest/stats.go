package githubtest

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"time"
)

// This file serves what `anchor-review stats` reads: the repository's pull
// requests (pulls/list), its issue and review comments across every pull
// request (issues/list-comments-for-repo, pulls/list-review-comments-for-
// repo) and the reactions rollup GitHub puts on every comment.

// React adds a reaction by another person (not the token) to comment id,
// an issue or a review comment: the rollup on the comment counts it.
func (s *Server) React(id int64, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.people[id] = append(s.people[id], content)
}

// rollup is GitHub's reaction-rollup object of comment id (the schema
// `reaction-rollup`: url, total_count and one count per content). Call
// with mu held.
func (s *Server) rollup(url string, id int64) map[string]any {
	m := map[string]any{"url": url + "/reactions", "total_count": 0}
	for c := range reactionContents {
		m[c] = 0
	}
	for _, c := range append(slices.Clone(s.reacts[id]), s.people[id]...) {
		m[c] = m[c].(int) + 1
		m["total_count"] = m["total_count"].(int) + 1
	}
	return m
}

// prUpdated is PR n's updated_at: its own stamp, or the latest of its
// comments' (GitHub bumps a pull request's updated_at when it is
// commented on). Call with mu held.
func (s *Server) prUpdated(n int) time.Time {
	t := stampOf(int64(n))
	for _, list := range [][]*Comment{s.comments[n], s.reviews[n]} {
		for _, c := range list {
			if c.UpdatedAt.After(t) {
				t = c.UpdatedAt
			}
		}
	}
	return t
}

// simpleOnly are the keys of a full pull request that the list endpoint's
// pull-request-simple lacks: a client reading a list must not rely on them.
var simpleOnly = []string{"merged", "mergeable", "rebaseable", "mergeable_state", "merged_by", "comments",
	"review_comments", "maintainer_can_modify", "commits", "additions", "deletions", "changed_files"}

// listPulls is GET /repos/{o}/{r}/pulls: state (open, closed, all; default
// open), sort (created, updated; default created) and direction (default
// desc for created, else asc), paged.
func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := cmp.Or(q.Get("state"), "open")
	sortBy := cmp.Or(q.Get("sort"), "created")
	dir := q.Get("direction")
	if dir == "" {
		dir = map[bool]string{true: "desc", false: "asc"}[sortBy == "created"]
	}
	type entry struct {
		p       PR
		updated time.Time
	}
	s.mu.Lock()
	var list []entry
	for _, p := range s.prs {
		st := cmp.Or(p.State, "open")
		if state != "all" && st != state {
			continue
		}
		list = append(list, entry{p, s.prUpdated(p.Number)})
	}
	s.mu.Unlock()
	slices.SortFunc(list, func(a, b entry) int {
		c := cmp.Compare(a.p.Number, b.p.Number)
		if sortBy == "updated" {
			c = cmp.Or(a.updated.Compare(b.updated), c)
		}
		if dir == "desc" {
			return -c
		}
		return c
	})
	start, end := page(w, r, len(list))
	out := make([]map[string]any, 0, end-start)
	for _, e := range list[start:end] {
		_, files, _, _ := s.pull(e.p.Number)
		m := s.pullJSON(r, e.p, files)
		for _, k := range simpleOnly {
			delete(m, k)
		}
		set(m, "created_at", stamp(stampOf(int64(e.p.Number))))
		set(m, "updated_at", stamp(e.updated))
		if e.p.Merged {
			set(m, "merged_at", stamp(e.updated))
			set(m, "closed_at", stamp(e.updated))
		}
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, out)
}

// listRepoComments serves the repository-wide comment lists: every
// comment of src updated at or after since, sorted by created (default)
// or updated, ascending unless direction is desc, paged.
func (s *Server) listRepoComments(w http.ResponseWriter, r *http.Request, src map[int][]*Comment, review bool) {
	q := r.URL.Query()
	var since time.Time
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			writeValidation(w, "Issue", "since", "invalid", "since is not an ISO 8601 timestamp")
			return
		}
		since = t
	}
	type entry struct {
		n int
		c Comment
	}
	s.mu.Lock()
	var list []entry
	for n, cs := range src {
		for _, c := range cs {
			if !c.UpdatedAt.Before(since) {
				list = append(list, entry{n, *c})
			}
		}
	}
	s.mu.Unlock()
	slices.SortFunc(list, func(a, b entry) int {
		c := cmp.Compare(a.c.ID, b.c.ID)
		if q.Get("sort") == "updated" {
			c = cmp.Or(a.c.UpdatedAt.Compare(b.c.UpdatedAt), c)
		}
		if strings.EqualFold(q.Get("direction"), "desc") {
			return -c
		}
		return c
	})
	start, end := page(w, r, len(list))
	out := make([]map[string]any, 0, end-start)
	for _, e := range list[start:end] {
		if review {
			out = append(out, s.reviewCommentJSON(r, e.n, e.c))
		} else {
			out = append(out, s.commentJSON(r, e.n, e.c))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) listRepoIssueComments(w http.ResponseWriter, r *http.Request) {
	s.listRepoComments(w, r, s.comments, false)
}

func (s *Server) listRepoReviewComments(w http.ResponseWriter, r *http.Request) {
	s.listRepoComments(w, r, s.reviews, true)
}

// Repo is a repository of an organization, as /orgs/{org}/repos lists it.
type Repo struct {
	Name     string // the name without the owner
	Archived bool
	PushedAt time.Time
}

// AddOrgRepo adds a repository to the organization's listing (every
// organization the fake is asked about lists the same ones).
func (s *Server) AddOrgRepo(r Repo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.orgRepos = append(s.orgRepos, r)
}

// listOrgRepos is GET /orgs/{org}/repos: sort pushed (by PushedAt) or
// full_name (the fake's repositories carry no creation or update time, so
// created, the default, and updated sort by name too) and direction
// (default asc for full_name, else desc), paged. Each entry is GitHub's repository example (the
// pull-request fixture's base repository) renamed.
func (s *Server) listOrgRepos(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sortBy := cmp.Or(q.Get("sort"), "created")
	dir := q.Get("direction")
	if dir == "" {
		dir = map[bool]string{true: "asc", false: "desc"}[sortBy == "full_name"]
	}
	s.mu.Lock()
	list := slices.Clone(s.orgRepos)
	s.mu.Unlock()
	org := r.PathValue("org")
	slices.SortStableFunc(list, func(a, b Repo) int {
		c := strings.Compare(a.Name, b.Name)
		if sortBy == "pushed" {
			c = cmp.Or(a.PushedAt.Compare(b.PushedAt), c)
		}
		if dir == "desc" {
			return -c
		}
		return c
	})
	start, end := page(w, r, len(list))
	out := make([]map[string]any, 0, end-start)
	for _, rp := range list[start:end] {
		m := template("pull-request.json")["base"].(map[string]any)["repo"].(map[string]any)
		full := org + "/" + rp.Name
		set(m, "name", rp.Name)
		set(m, "full_name", full)
		set(m, "owner.login", org)
		set(m, "archived", rp.Archived)
		set(m, "pushed_at", stamp(rp.PushedAt))
		set(m, "url", s.api(r)+"/repos/"+full)
		set(m, "html_url", s.web(r)+"/"+full)
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, out)
}
