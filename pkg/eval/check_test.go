package eval

import (
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/anchor-review/anchor-review/fixtures"
)

// TestRealCorpus holds the shipped corpus to its integrity: it fails on any
// broken case, an empty suite, or a real suite less than a third clean.
func TestRealCorpus(t *testing.T) {
	checks, err := CheckCorpus(fixtures.FS, DefaultRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		for _, p := range c.Problems {
			t.Errorf("%s: %s", c.Suite, p)
		}
	}
}

// corpusFS is testdata/corpus (two tiny real cases in the shared format)
// as a MapFS, with edits applied: "<nil>" removes a file.
func corpusFS(t *testing.T, edits map[string]string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	src := os.DirFS("testdata/corpus")
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(src, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range edits {
		if v == "<nil>" {
			delete(m, k)
			continue
		}
		m[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

func TestCheckCorpusGood(t *testing.T) {
	checks, err := CheckCorpus(corpusFS(t, nil), ".", SuiteReal)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 1 || checks[0].Cases != 2 || checks[0].Clean != 1 || checks[0].Bug != 1 || len(checks[0].Problems) != 0 {
		t.Fatalf("got %+v; want 2 real cases (1 clean), no problem", checks)
	}
	cases, err := LoadSuite(corpusFS(t, nil), ".", SuiteReal)
	if err != nil {
		t.Fatal(err)
	}
	is := cases[0].Truth[0]
	if cases[0].ID() != "real/go-unchecked-length" || is.Line != 11 || is.LineEnd != 12 || strings.Join(is.Personas, ",") != "security,correctness" ||
		is.Persona != "security" || is.Category != "security" || cases[0].Meta.License != "BSD-3-Clause" {
		t.Errorf("loaded %s %+v %+v", cases[0].ID(), is, cases[0].Meta)
	}
	if !cases[1].Clean() || cases[0].Clean() {
		t.Errorf("clean: got %t, %t; want false, true", cases[0].Clean(), cases[1].Clean())
	}
}

func TestCheckCorpusBroken(t *testing.T) {
	const bug, clean = "real/go-unchecked-length/", "real/py-clean-rename/"
	meta := func(s string) string {
		b, err := os.ReadFile("testdata/corpus/" + bug + "case.json")
		if err != nil {
			t.Fatal(err)
		}
		old, repl, _ := strings.Cut(s, "=>")
		return strings.Replace(string(b), old, repl, 1)
	}
	label := func(fields string) string {
		return `{"id":"x","file":"frame/read.go","severity":"P1","category":"correctness","personas":["correctness"],"description":"d","excluded":false,` + fields + "}\n"
	}
	for _, tc := range []struct {
		name  string
		edits map[string]string
		want  string
	}{
		{"no case.json", map[string]string{bug + "case.json": "<nil>"}, "case.json is required for a real case"},
		{"copyleft licence", map[string]string{bug + "case.json": meta(`"BSD-3-Clause"=>"GPL-3.0"`)}, `license "GPL-3.0"; want a permissive SPDX id`},
		{"no source", map[string]string{bug + "case.json": meta(`"example.com/frame@v1.0.1"=>""`)}, `source ""`},
		{"bug case without its fix", map[string]string{bug + "case.json": meta(`"example.com/frame@v1.0.2"=>""`)}, `fix ""`},
		{"bad cve", map[string]string{bug + "case.json": meta(`"cve":""=>"cve":"2024-1"`)}, `cve "2024-1"`},
		{"files not the diff's", map[string]string{bug + "case.json": meta(`["frame/read.go"]=>["frame/write.go"]`)}, "want the files the diff changes"},
		{"unknown language", map[string]string{bug + "case.json": meta(`"go"=>"cobol"`)}, `language "cobol"`},
		{"wrong kind", map[string]string{bug + "case.json": meta(`"real"=>"scripted"`)}, `kind "scripted"; want "real"`},
		{"unknown field", map[string]string{bug + "case.json": meta(`{=>{"stars":5,`)}, `unknown field "stars"`},
		{"label on context lines only", map[string]string{bug + "ground_truth.jsonl": label(`"line":8,"line_end":11`)}, "overlaps no line the diff adds"},
		{"label outside the hunks", map[string]string{bug + "ground_truth.jsonl": label(`"line":40,"line_end":40`)}, "is not on the new side"},
		{"label without category", map[string]string{bug + "ground_truth.jsonl": strings.Replace(label(`"line":12,"line_end":12`), `"category":"correctness",`, "", 1)}, "category is required"},
		{"persona not first of personas", map[string]string{bug + "ground_truth.jsonl": label(`"line":12,"persona":"security"`)}, `persona "security" must be the first of personas`},
		{"line_end before line", map[string]string{bug + "ground_truth.jsonl": label(`"line":12,"line_end":11`)}, "line_end 11 is before line 12"},
		{"label leaning on a default", map[string]string{bug + "ground_truth.jsonl": label(`"line":12`)}, "line_end is required in a real case"},
		{"unknown category", map[string]string{bug + "ground_truth.jsonl": strings.Replace(label(`"line":12,"line_end":12`), `"correctness",`, `"style",`, 1)}, `category "style"; want one of`},
		{"multi-line description", map[string]string{bug + "ground_truth.jsonl": strings.Replace(label(`"line":12,"line_end":12`), `"d"`, `"d\ne"`, 1)}, "description must be one line"},
		{"no notes", map[string]string{bug + "case.json": meta(`"notes":"test fixture for the scorer's loader: a tiny reversed fix in the shared format"=>"notes":" "`)}, "notes are required"},
		{"bug case without labels", map[string]string{bug + "ground_truth.jsonl": ""}, "a bug case has no ground-truth label"},
		{"clean case with a label", map[string]string{clean + "ground_truth.jsonl": `{"id":"x","file":"util/names.py","line":1,"line_end":1,"severity":"P3","category":"api-contract","personas":["api-contract"],"description":"d","excluded":false}` + "\n"}, "a clean case has 1 ground-truth labels"},
		{"diff does not parse", map[string]string{clean + "diff.patch": strings.Replace(mustRead(t, "testdata/corpus/"+clean+"diff.patch"), "+1,4", "+1,9", 1)}, "diff.patch"},
		{"empty diff", map[string]string{clean + "diff.patch": ""}, "the diff changes no file"},
		{"recorded answers without a source", map[string]string{clean + "recorded/security.json": "{}"}, "without source.json"},
		{"recorded source without a date", map[string]string{clean + "recorded/source.json": `{"source":"recorded","model":"m"}`}, "needs the date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checks, err := CheckCorpus(corpusFS(t, tc.edits), ".", SuiteReal)
			if err != nil {
				t.Fatal(err)
			}
			all := strings.Join(checks[0].Problems, "\n")
			if !strings.Contains(all, tc.want) {
				t.Errorf("problems:\n%s\nwant one containing %q", all, tc.want)
			}
		})
	}
	// Every broken case is listed, not only the first.
	checks, err := CheckCorpus(corpusFS(t, map[string]string{bug + "case.json": "<nil>", clean + "pr.json": "{}"}), ".", SuiteReal)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(checks[0].Problems); n != 2 {
		t.Errorf("got %d problems %q; want 2", n, checks[0].Problems)
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The corpus as a whole: the real suite has cases, and at least a third of
// them are clean (SPEC section 7.6).
func TestCheckCorpusShape(t *testing.T) {
	const clean = "real/py-clean-rename/"
	drop := func(dirs ...string) map[string]string {
		edits := map[string]string{}
		for _, d := range dirs {
			for _, f := range []string{"case.json", "diff.patch", "ground_truth.jsonl", "pr.json"} {
				edits[d+f] = "<nil>"
			}
		}
		return edits
	}
	for _, tc := range []struct {
		name  string
		edits map[string]string
		want  string
	}{
		{"no clean case", drop(clean), "0 of 1 real cases are clean; want at least a third"},
		{"no case at all", drop(clean, "real/go-unchecked-length/"), "the suite has no cases"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checks, err := CheckCorpus(corpusFS(t, tc.edits), ".", SuiteReal)
			if err != nil {
				t.Fatal(err)
			}
			if all := strings.Join(checks[0].Problems, "\n"); !strings.Contains(all, tc.want) {
				t.Errorf("problems:\n%s\nwant one containing %q", all, tc.want)
			}
		})
	}
}
