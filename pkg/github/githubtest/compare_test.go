package githubtest_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
)

// keys are an object's keys, sorted.
func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestComparePayload: the compare endpoint answers in the shape of
// GitHub's published commit-comparison example: the same keys at the top,
// in each commit and in each file, with the configured values.
func TestComparePayload(t *testing.T) {
	b, err := fixtures.FS.ReadFile("github/commit-comparison.json")
	if err != nil {
		t.Fatal(err)
	}
	var real map[string]any
	if err := json.Unmarshal(b, &real); err != nil {
		t.Fatal(err)
	}
	srv := githubtest.New()
	defer srv.Close()
	srv.SetCompare("aaa", "bbb", githubtest.Compare{Status: "diverged", AheadBy: 1, BehindBy: 2, MergeBase: "mmm",
		Commits: []string{"bbb"}, Files: []githubtest.File{{Filename: "a.go", Status: "modified", Patch: "@@ -1 +1 @@\n-a\n+b", Additions: 1, Deletions: 1}}})
	var got map[string]any
	if resp := do(t, srv, "GET", "/repos/octo/demo/compare/aaa...bbb", "", "", &got); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if !reflect.DeepEqual(keys(got), keys(real)) {
		t.Errorf("top-level keys %v; want GitHub's %v", keys(got), keys(real))
	}
	commit := got["commits"].([]any)[0].(map[string]any)
	if !reflect.DeepEqual(keys(commit), keys(real["commits"].([]any)[0].(map[string]any))) {
		t.Errorf("commit keys %v differ from GitHub's", keys(commit))
	}
	file := got["files"].([]any)[0].(map[string]any)
	if !reflect.DeepEqual(keys(file), keys(real["files"].([]any)[0].(map[string]any))) {
		t.Errorf("file keys %v differ from GitHub's", keys(file))
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"status", got["status"], "diverged"},
		{"ahead_by", got["ahead_by"], 1.0},
		{"behind_by", got["behind_by"], 2.0},
		{"total_commits", got["total_commits"], 1.0},
		{"merge_base_commit.sha", got["merge_base_commit"].(map[string]any)["sha"], "mmm"},
		{"base_commit.sha", got["base_commit"].(map[string]any)["sha"], "aaa"},
		{"commits[0].sha", commit["sha"], "bbb"},
		{"files[0].patch", file["patch"], "@@ -1 +1 @@\n-a\n+b"},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
	if resp := do(t, srv, "GET", "/repos/octo/demo/compare/aaa...ccc", "", "", nil); resp.StatusCode != 404 {
		t.Errorf("an unknown pair: %d; want 404", resp.StatusCode)
	}
}

func TestReactionEndpoint(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	id := srv.AddComment(1, "alice", "/anchor-review")
	path := fmt.Sprintf("/repos/octo/demo/issues/comments/%d/reactions", id)
	var r map[string]any
	if resp := do(t, srv, "POST", path, "", `{"content":"eyes"}`, &r); resp.StatusCode != 201 || r["content"] != "eyes" {
		t.Fatalf("first reaction: %d %v; want 201 eyes", resp.StatusCode, r)
	}
	if resp := do(t, srv, "POST", path, "", `{"content":"eyes"}`, nil); resp.StatusCode != 200 {
		t.Errorf("the same reaction again: %d; want 200 (exists)", resp.StatusCode)
	}
	if resp := do(t, srv, "POST", path, "", `{"content":"thumbsup"}`, nil); resp.StatusCode != 422 {
		t.Errorf("an unknown content: %d; want 422", resp.StatusCode)
	}
	if resp := do(t, srv, "POST", "/repos/octo/demo/issues/comments/99999/reactions", "", `{"content":"eyes"}`, nil); resp.StatusCode != 404 {
		t.Errorf("a missing comment: %d; want 404", resp.StatusCode)
	}
	if got := srv.Reactions(id); !slices.Equal(got, []string{"eyes"}) {
		t.Errorf("reactions %v; want [eyes]", got)
	}
}
