package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflow is the part of a workflow file the re-review triggers need.
type workflow struct {
	On struct {
		IssueComment *struct {
			Types []string `yaml:"types"`
		} `yaml:"issue_comment"`
		ReviewComment *struct {
			Types []string `yaml:"types"`
		} `yaml:"pull_request_review_comment"`
	} `yaml:"on"`
	Jobs map[string]struct {
		If          string `yaml:"if"`
		Concurrency struct {
			Group            string `yaml:"group"`
			CancelInProgress bool   `yaml:"cancel-in-progress"`
		} `yaml:"concurrency"`
	} `yaml:"jobs"`
}

// TestWorkflowsRunTheCommand: the README's workflow and the repository's
// own run /anchor-review comments (issue_comment created), guarded by an
// if: that lets only the command on a pull request through and leaves who
// may run it to the action (author_association is no permission: the
// action reads the commenter's permission from the API). Pushes and
// dispatches share one job-level concurrency group per PR; a comment's run
// gets its own, so a refused command cannot cancel a review in progress.
func TestWorkflowsRunTheCommand(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	m := regexp.MustCompile("(?s)Copy this workflow[^\n]*\n\n```yaml\n(.*?)```").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README has no workflow to copy")
	}
	for name, text := range map[string]string{"README.md": m[1], ".github/workflows/review.yml": readRepoFile(t, ".github/workflows/review.yml")} {
		var w workflow
		if err := yaml.Unmarshal([]byte(text), &w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w.On.IssueComment == nil || !slices.Equal(w.On.IssueComment.Types, []string{"created"}) {
			t.Errorf("%s: on.issue_comment = %+v; want types [created]", name, w.On.IssueComment)
		}
		// A reply in a finding's inline thread dismisses it (SPEC 9.1).
		if w.On.ReviewComment == nil || !slices.Equal(w.On.ReviewComment.Types, []string{"created"}) {
			t.Errorf("%s: on.pull_request_review_comment = %+v; want types [created]", name, w.On.ReviewComment)
		}
		job, ok := w.Jobs["review"]
		if !ok {
			t.Fatalf("%s: no review job", name)
		}
		for _, want := range []string{
			"github.event_name != 'issue_comment'",
			"github.event_name != 'pull_request_review_comment'",
			"github.event.issue.pull_request",
			"startsWith(github.event.comment.body, '/anchor-review')",
		} {
			if !strings.Contains(job.If, want) {
				t.Errorf("%s: the review job's if: lacks %s", name, want)
			}
		}
		if strings.Contains(job.If, "author_association") {
			t.Errorf("%s: the review job's if: trusts author_association, which says COLLABORATOR for read-only collaborators and CONTRIBUTOR for private members", name)
		}
		for _, key := range []string{"github.event.pull_request.number", "github.event.issue.number", "inputs.pr-number", "github.event.comment.id"} {
			if !strings.Contains(job.Concurrency.Group, key) {
				t.Errorf("%s: the concurrency group %q is not keyed on %s", name, job.Concurrency.Group, key)
			}
		}
		if !job.Concurrency.CancelInProgress {
			t.Errorf("%s: the concurrency group does not cancel the older run", name)
		}
	}
}

// TestWorkflowsAskForTheLeastPermissions: every workflow the README shows
// with the action, and the repository's own, ask for what the action's
// REST calls need (contents: read, pull-requests: write, checks: write) and
// no issues: write: the report is an issue comment on a pull request, which
// GitHub lets pull-requests: write create, edit, delete and react to.
func TestWorkflowsAskForTheLeastPermissions(t *testing.T) {
	blocks := map[string]string{".github/workflows/review.yml": readRepoFile(t, ".github/workflows/review.yml")}
	for i, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(readRepoFile(t, "README.md"), -1) {
		if strings.Contains(m[1], "uses: anchor-review/anchor-review@") {
			blocks[fmt.Sprintf("README.md workflow %d", i+1)] = m[1]
		}
	}
	if len(blocks) < 3 {
		t.Fatalf("found %d workflows using the action; want the repository's and at least two in the README", len(blocks))
	}
	for name, text := range blocks {
		var w struct {
			Permissions map[string]string `yaml:"permissions"`
			Jobs        map[string]struct {
				Permissions map[string]string `yaml:"permissions"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(text), &w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		perms := w.Permissions
		for _, j := range w.Jobs {
			if j.Permissions != nil {
				perms = j.Permissions
			}
		}
		if perms == nil {
			t.Errorf("%s: no permissions block", name)
			continue
		}
		if v, ok := perms["issues"]; ok {
			t.Errorf("%s: asks for issues: %s; pull-requests: write covers a pull request's comments", name, v)
		}
		for k, v := range map[string]string{"contents": "read", "pull-requests": "write", "checks": "write"} {
			if perms[k] != v {
				t.Errorf("%s: %s: %q; want %s", name, k, perms[k], v)
			}
		}
	}
}

// TestReadmeOllamaWorkflow: the README's model-beside-the-job workflow
// reaches the service by its name (inside the action's container localhost
// is the container), sends no api-key, pulls the model it reviews with, and
// ends its run (deadline-minutes) before the job's timeout kills it.
func TestReadmeOllamaWorkflow(t *testing.T) {
	m := regexp.MustCompile("(?s)### A model beside the job \\(Ollama\\).*?```yaml\n(.*?)```").FindStringSubmatch(readRepoFile(t, "README.md"))
	if m == nil {
		t.Fatal("README has no Ollama workflow")
	}
	var w struct {
		Jobs map[string]struct {
			TimeoutMinutes int `yaml:"timeout-minutes"`
			Services       map[string]struct {
				Image string   `yaml:"image"`
				Ports []string `yaml:"ports"`
			} `yaml:"services"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(m[1]), &w); err != nil {
		t.Fatal(err)
	}
	job, ok := w.Jobs["review"]
	if !ok {
		t.Fatal("no review job")
	}
	svc, ok := job.Services["ollama"]
	if !ok || !strings.HasPrefix(svc.Image, "ollama/ollama:") || !slices.Contains(svc.Ports, "11434:11434") {
		t.Errorf("service ollama = %+v; want a pinned ollama/ollama image on port 11434", svc)
	}
	var pull string
	for _, s := range job.Steps {
		if strings.Contains(s.Run, "/api/pull") {
			pull = s.Run
		}
		if !strings.HasPrefix(s.Uses, "anchor-review/anchor-review@") {
			continue
		}
		if s.With["base-url"] != "http://ollama:11434/v1" {
			t.Errorf("base-url %q; want the service's name, http://ollama:11434/v1", s.With["base-url"])
		}
		if _, ok := s.With["api-key"]; ok {
			t.Error("the Ollama workflow sets an api-key; it needs none")
		}
		if pull == "" || !strings.Contains(pull, "http://localhost:11434") || !strings.Contains(pull, `"model":"`+s.With["model"]+`"`) {
			t.Errorf("no earlier step pulls model %q through the service's mapped port: %q", s.With["model"], pull)
		}
		d, err := strconv.Atoi(s.With["deadline-minutes"])
		if err != nil || d >= job.TimeoutMinutes {
			t.Errorf("deadline-minutes %q, timeout-minutes %d; want the run's deadline before the job's", s.With["deadline-minutes"], job.TimeoutMinutes)
		}
	}
}
