package e2e

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
)

// TestFilesOutliveTheContainer: a Docker action's files for later steps
// (the report and the SARIF log) survive the step, and their outputs name
// them the way a later step can open them (relative to the workspace),
// though the run's RUNNER_TEMP and the container's /github/... paths are
// gone by then (the harness removes them).
func TestFilesOutliveTheContainer(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	pr := s.addPR(githubtest.PR{})
	s.answers(map[string][]map[string]any{"correctness": {offByOne("P1")}})
	s.event("pull_request", "pull_request.opened", pr)

	r := s.run(nil)

	if r.exit != 1 {
		t.Fatalf("exit code %d; want 1 (a P1 finding)%s", r.exit, r.logs())
	}
	for _, out := range []string{"report-path", "sarif-path"} {
		p := r.outputs[out]
		if p == "" || filepath.IsAbs(p) {
			t.Errorf("output %s = %q; want a path relative to the workspace", out, p)
		}
		b, err := r.file(out)
		if err != nil {
			t.Errorf("a later step cannot open %s: %v%s", out, err, r.logs())
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Errorf("%s %s is not JSON: %v", out, p, err)
		}
		if out == "sarif-path" && v["version"] != "2.1.0" {
			t.Errorf("sarif-path version %v; want 2.1.0", v["version"])
		}
	}
}
