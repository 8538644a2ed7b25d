package suite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"

	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
)

// TestInlineReviewAndSARIF runs the whole Action with inline: true on the
// buggy demo PR: one COMMENT review with the posted findings on their lines,
// the report linking them, a SARIF file that the 2.1.0 schema accepts with
// one result per posted finding, and a rerun on the same head that posts no
// second review.
func TestInlineReviewAndSARIF(t *testing.T) {
	w := newWorld(t)
	w.env["INPUT_INLINE"] = "true"
	o := w.run()
	if o.code != 1 {
		t.Fatalf("exit %d; want 1 (the buggy PR has blocking findings)\n%s", o.code, o.stdout)
	}
	rvs := w.gh.Reviews(prNumber)
	if len(rvs) != 1 || rvs[0].Event != "COMMENT" || rvs[0].CommitID != headSHA || len(rvs[0].Comments) == 0 {
		t.Fatalf("reviews %+v; want one COMMENT review on the head", rvs)
	}
	body := oneComment(t, w)
	for _, c := range w.gh.ReviewComments(prNumber) {
		if !strings.Contains(body, "#discussion_r"+strconv.FormatInt(c.ID, 10)+")") {
			t.Errorf("the report does not link inline comment %d", c.ID)
		}
	}

	path := o.outputs["sarif-path"]
	if path == "" {
		t.Fatalf("no sarif-path output: %v", o.outputs)
	}
	b, err := os.ReadFile(filepath.Join(w.dir, path)) // relative to the workspace
	if err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile("../../fixtures/sarif/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewBytesLoader(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors() {
		t.Errorf("SARIF schema: %s", e)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.Atoi(o.outputs["findings"]); len(log.Runs[0].Results) != n || n == 0 {
		t.Errorf("%d SARIF results; want the %d posted findings", len(log.Runs[0].Results), n)
	}
	for _, r := range log.Runs[0].Results {
		if len(r.PartialFingerprints["anchorReviewFinding/v1"]) != 16 {
			t.Errorf("result without the inline fingerprint: %v", r.PartialFingerprints)
		}
	}
	if strings.Contains(string(b), apiKey) || strings.Contains(string(b), ghToken) {
		t.Error("a secret reached the SARIF file")
	}

	// A manual rerun of the same head: every finding is already commented.
	w.env["GITHUB_EVENT_NAME"] = "workflow_dispatch"
	w.env["INPUT_PR-NUMBER"] = strconv.Itoa(prNumber)
	w.env["GITHUB_EVENT_PATH"] = w.writeDispatchEvent(t)
	w.run()
	if n := len(w.gh.Reviews(prNumber)); n != 1 {
		t.Errorf("%d reviews after the rerun; want 1 (nothing re-posted)", n)
	}
	for _, c := range w.gh.ReviewComments(prNumber) {
		if c.Edits != 0 {
			t.Errorf("comment %d edited although its finding is still reported", c.ID)
		}
	}
}

// TestSARIFNotWrittenWhenNothingRan: a review that could not run writes no
// SARIF file, since an empty log would close every code-scanning alert.
func TestSARIFNotWrittenWhenNothingRan(t *testing.T) {
	w := newWorld(t)
	w.env["INPUT_INLINE"] = "true"
	w.model.SetDefault(func(llmtest.Request) llmtest.Reply { return llmtest.ServerError() })
	o := w.run()
	if o.code != 3 {
		t.Fatalf("exit %d; want 3", o.code)
	}
	if o.outputs["sarif-path"] != "" || len(w.gh.Reviews(prNumber)) != 0 {
		t.Errorf("sarif-path %q, %d reviews; want none", o.outputs["sarif-path"], len(w.gh.Reviews(prNumber)))
	}
}

// writeDispatchEvent writes the workflow_dispatch payload for this repo.
func (w *world) writeDispatchEvent(t *testing.T) string {
	t.Helper()
	var ev map[string]any
	readJSON(t, "github/workflow_dispatch.json", &ev)
	ev["repository"].(map[string]any)["full_name"] = owner + "/" + repoName
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(w.dir, "dispatch.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
