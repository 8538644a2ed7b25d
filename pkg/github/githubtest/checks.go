package githubtest

import (
	"cmp"
	"net/http"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/marker"
)

// AddCheckRun plants a check run as an earlier run, another workflow or
// another app created it (App "" is the token's own app); it returns the
// run's id. The API lists it; CheckRuns, what this run created, does not.
func (s *Server) AddCheckRun(c CheckRun) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	c.ID = s.nextID
	if c.App == "" {
		c.App = s.tokenApp()
	}
	if c.Status == "" {
		c.Status = "completed"
	}
	cp := c
	s.planted = append(s.planted, &cp)
	return c.ID
}

// tokenApp is the slug of the app the token acts for: a workflow's
// GITHUB_TOKEN is the github-actions app; an app token writes as
// "<slug>[bot]". Callers hold s.mu.
func (s *Server) tokenApp() string {
	login := s.tokenLogin
	if login == "" {
		login = commentAuthor
	}
	return strings.TrimSuffix(login, "[bot]")
}

// listCheckRunsForRef serves GET /repos/{owner}/{repo}/commits/{ref}/check-runs
// as GitHub does: newest first, check_name filtering by exact name, and
// filter=latest (the default) keeping only the newest run of each name.
func (s *Server) listCheckRunsForRef(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	q := r.URL.Query()
	name, filter := q.Get("check_name"), q.Get("filter")
	if filter != "" && filter != "all" && filter != "latest" {
		writeValidation(w, "CheckRun", "filter", "invalid", "filter must be latest or all")
		return
	}
	s.mu.Lock()
	var list []CheckRun
	seen := map[string]bool{}
	all := slices.Concat(s.planted, s.checks)
	slices.SortFunc(all, func(a, b *CheckRun) int { return cmp.Compare(a.ID, b.ID) })
	for i := len(all) - 1; i >= 0; i-- {
		c := *all[i]
		if c.HeadSHA != ref || name != "" && c.Name != name {
			continue
		}
		if filter != "all" {
			if seen[c.Name] {
				continue
			}
			seen[c.Name] = true
		}
		list = append(list, c)
	}
	s.mu.Unlock()
	start, end := page(w, r, len(list))
	runs := make([]any, 0, end-start)
	for _, c := range list[start:end] {
		runs = append(runs, s.checkRunJSON(r, c))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(list), "check_runs": runs})
}

// AddReport adds an issue comment as this Action publishes its report: the
// comment by author, and the `anchor-review` check run, created by the
// token's app on the head the report's metadata names, that names the
// comment (what makes it ours to a later run). A body with no valid
// metadata gets no check run. It returns the comment's id.
func (s *Server) AddReport(n int, author, body string) int64 {
	id := s.AddComment(n, author, body)
	m, err := marker.ParseReport(body)
	if err != nil {
		return id
	}
	conclusion := m.Conclusion
	if conclusion == "" {
		conclusion = "neutral"
	}
	s.AddCheckRun(CheckRun{Name: marker.CheckName, HeadSHA: m.HeadSHA, Conclusion: conclusion, ExternalID: marker.CheckRef(id)})
	return id
}
