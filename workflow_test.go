package main

import (
	"regexp"
	"slices"
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
		job, ok := w.Jobs["review"]
		if !ok {
			t.Fatalf("%s: no review job", name)
		}
		for _, want := range []string{
			"github.event_name != 'issue_comment'",
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
