package evalcorpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	goodPatch = "diff --git a/lib/a.js b/lib/a.js\n--- a/lib/a.js\n+++ b/lib/a.js\n@@ -1,3 +1,3 @@\n x\n-y = 1\n+y = 2\n z\n"
	goodCase  = `{"kind":"real","clean":false,"language":"javascript","source":"npm:a@1.0.0","fix":"npm:a@1.0.1","cve":"CVE-2024-12345","license":"MIT","files":["lib/a.js"],"notes":"reversed fix"}`
	goodLabel = `{"id":"sec-1","file":"lib/a.js","line":2,"line_end":2,"severity":"P1","category":"security","personas":["security","correctness"],"persona":"security","description":"y is wrong","excluded":false}`
	goodPR    = `{"title":"Set y","body":""}`
)

func writeCase(t *testing.T, files map[string]string) string {
	t.Helper()
	all := map[string]string{"diff.patch": goodPatch, "case.json": goodCase, "ground_truth.jsonl": goodLabel + "\n", "pr.json": goodPR}
	for k, v := range files {
		all[k] = v
	}
	dir := filepath.Join(t.TempDir(), "case")
	for name, text := range all {
		if text == "<absent>" {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheck(t *testing.T) {
	label := func(old, new string) map[string]string {
		return map[string]string{"ground_truth.jsonl": strings.Replace(goodLabel, old, new, 1) + "\n"}
	}
	kase := func(old, new string) map[string]string {
		return map[string]string{"case.json": strings.Replace(goodCase, old, new, 1)}
	}
	tests := []struct {
		name    string
		files   map[string]string
		wantErr string // "" means valid
	}{
		{name: "valid bug case"},
		{name: "valid clean case", files: map[string]string{"case.json": strings.Replace(goodCase, `"clean":false`, `"clean":true`, 1), "ground_truth.jsonl": ""}},
		{name: "label on a context line", files: label(`"line":2,"line_end":2`, `"line":3,"line_end":3`), wantErr: "overlaps no line the diff adds"},
		{name: "label range covering an added line", files: label(`"line":2,"line_end":2`, `"line":1,"line_end":3`)},
		{name: "label range running past the hunk", files: label(`"line":2,"line_end":2`, `"line":2,"line_end":4`), wantErr: "is not on the new side of any hunk"},
		{name: "fix is not one provenance", files: kase(`"npm:a@1.0.1"`, `"npm:a@1.0.1 and npm:a@1.0.2"`), wantErr: "fix"},
		{name: "clean case fix may be prose", files: map[string]string{"case.json": strings.Replace(strings.Replace(goodCase, `"clean":false`, `"clean":true`, 1), `"npm:a@1.0.1"`, `"none known"`, 1), "ground_truth.jsonl": ""}},
		{name: "source is not a provenance", files: kase(`"npm:a@1.0.0"`, `"the a package"`), wantErr: "source"},
		{name: "label on a file the diff does not change", files: label(`"file":"lib/a.js"`, `"file":"lib/b.js"`), wantErr: "lib/b.js:2-2 is not on the new side of any hunk"},
		{name: "inverted range", files: label(`"line_end":2`, `"line_end":1`), wantErr: "line_end 1 is before line 2"},
		{name: "persona not the first of personas", files: label(`"persona":"security"`, `"persona":"correctness"`), wantErr: "must be the first"},
		{name: "unknown persona", files: label(`["security","correctness"],"persona":"security"`, `["hacker"],"persona":"hacker"`), wantErr: `persona "hacker": each persona must be one of`},
		{name: "bad severity", files: label(`"P1"`, `"high"`), wantErr: "severity must be P0, P1, P2 or P3"},
		{name: "unknown category", files: label(`"category":"security"`, `"category":"style"`), wantErr: `category "style"`},
		{name: "missing line_end", files: label(`"line_end":2,`, ``), wantErr: "line_end is required in a real case"},
		{name: "unknown label field", files: label(`"excluded":false`, `"excluded":false,"extra":1`), wantErr: "unknown field"},
		{name: "repeated id", files: map[string]string{"ground_truth.jsonl": goodLabel + "\n" + goodLabel + "\n"}, wantErr: `duplicate id "sec-1"`},
		{name: "clean case with labels", files: kase(`"clean":false`, `"clean":true`), wantErr: "a clean case has 1 ground-truth labels"},
		{name: "bug case without labels", files: map[string]string{"ground_truth.jsonl": ""}, wantErr: "a bug case has no ground-truth label"},
		{name: "GPL code", files: kase(`"MIT"`, `"GPL-3.0-only"`), wantErr: `license "GPL-3.0-only"; want a permissive SPDX id`},
		{name: "no provenance", files: kase(`"npm:a@1.0.0"`, `""`), wantErr: `source ""; want module@version`},
		{name: "bad CVE id", files: kase(`CVE-2024-12345`, `GHSA-xxxx`), wantErr: `cve "GHSA-xxxx"; want CVE-YYYY-NNNN`},
		{name: "unknown language", files: kase(`"javascript"`, `"cobol"`), wantErr: `language "cobol"`},
		{name: "not a real case", files: kase(`"real"`, `"scripted"`), wantErr: `kind "scripted"`},
		{name: "files differ from the diff", files: kase(`["lib/a.js"]`, `["lib/a.js","lib/b.js"]`), wantErr: "want the files the diff changes"},
		{name: "hunk count too large", files: map[string]string{"diff.patch": strings.Replace(goodPatch, "+1,3", "+1,4", 1)}, wantErr: "diff.patch"},
		{name: "empty title", files: map[string]string{"pr.json": `{"title":" ","body":""}`}, wantErr: "pr.json: title (non-empty) and body are required"},
		{name: "missing pr.json", files: map[string]string{"pr.json": "<absent>"}, wantErr: "pr.json"},
		{name: "multi-line description", files: label(`y is wrong`, `y is\nwrong`), wantErr: "description must be one line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Check(writeCase(t, tt.files))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("valid case rejected: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("accepted, want an error containing %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}
