package eval

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/anchor-review/anchor-review/fixtures"
)

func TestShippedCases(t *testing.T) {
	cases, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 12 {
		t.Errorf("got %d cases; want at least 12", len(cases))
	}
	personas := map[string]bool{}
	var excluded, clean int
	for _, c := range cases {
		lines := strings.Count(string(c.Diff), "\n")
		if lines < 20 || lines > 120 {
			t.Errorf("%s: diff has %d lines; want 20-120", c.Name, lines)
		}
		if len(c.Truth) == 0 {
			clean++
			if len(c.Recorded) < 2 {
				t.Errorf("%s: clean case has %d recordings; want at least 2", c.Name, len(c.Recorded))
			}
		}
		for _, is := range c.Truth {
			personas[is.Persona] = true
			if is.Excluded {
				excluded++
			}
			if !strings.Contains(string(c.Diff), "+++ b/"+is.File+"\n") {
				t.Errorf("%s: issue %s names %s, which the diff does not change", c.Name, is.ID, is.File)
			}
		}
		// Every persona evaluated on a case has a recording.
		for _, p := range c.Personas() {
			path := DefaultRoot + "/" + c.Suite + "/" + c.Name + "/recorded/" + p + ".json"
			b, err := fs.ReadFile(fixtures.FS, path)
			if err != nil {
				t.Errorf("%s: %v", c.Name, err)
				continue
			}
			a, err := ParseAnswer(b)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			if a.Reviewer != p {
				t.Errorf("%s: reviewer %q; want %q", path, a.Reviewer, p)
			}
		}
	}
	if len(personas) < 7 {
		t.Errorf("ground truth covers %d personas; want at least 7", len(personas))
	}
	if excluded == 0 || clean == 0 {
		t.Errorf("excluded issues %d, clean cases %d; want at least one of each", excluded, clean)
	}
}

const okDiff = `diff --git a/a.go b/a.go
index 1111111..2222222 100644
--- a/a.go
+++ b/a.go
@@ -10,3 +10,4 @@ func f() {
 	x := 1
+	y := 2
 	return x
 }
`

func caseFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	base := map[string]string{
		"cases/scripted/c/pr.json":            `{"title":"t","body":""}`,
		"cases/scripted/c/diff.patch":         okDiff,
		"cases/scripted/c/ground_truth.jsonl": `{"id":"i","persona":"correctness","file":"a.go","line":11,"severity":"P1","description":"d","excluded":false}` + "\n",
	}
	for k, v := range files {
		base[k] = v
	}
	for k, v := range base {
		if v != "<nil>" {
			m[k] = &fstest.MapFile{Data: []byte(v)}
		}
	}
	return m
}

func TestLoadErrors(t *testing.T) {
	gt := func(s string) map[string]string { return map[string]string{"cases/scripted/c/ground_truth.jsonl": s} }
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // substring of the error
	}{
		{"pr unknown field", map[string]string{"cases/scripted/c/pr.json": `{"title":"t","body":"","x":1}`}, `cases/scripted/c/pr.json: json: unknown field "x"`},
		{"pr missing title", map[string]string{"cases/scripted/c/pr.json": `{"body":""}`}, "cases/scripted/c/pr.json: title"},
		{"no diff", map[string]string{"cases/scripted/c/diff.patch": "<nil>"}, "diff.patch"},
		{"hunk too short", map[string]string{"cases/scripted/c/diff.patch": strings.Replace(okDiff, "+10,4", "+10,5", 1)}, "cases/scripted/c/diff.patch: diff: line 9 (a.go): unexpected end of input"},
		{"hunk too long", map[string]string{"cases/scripted/c/diff.patch": strings.Replace(okDiff, "+10,4", "+10,3", 1)}, "beyond the hunk header's line counts"},
		{"gt unknown persona", gt("\n" + `{"id":"i","persona":"securty","file":"a.go","line":11,"severity":"P1","description":"d"}`), "cases/scripted/c/ground_truth.jsonl:2: persona \"securty\": each persona must be one of"},
		{"gt unknown field", gt(`{"id":"i","persona":"security","file":"a.go","line":11,"severity":"P1","description":"d","why":"x"}`), `ground_truth.jsonl:1: json: unknown field "why"`},
		{"gt bad severity", gt(`{"id":"i","persona":"security","file":"a.go","line":11,"severity":"high","description":"d"}`), "ground_truth.jsonl:1: severity"},
		{"gt float line", gt(`{"id":"i","persona":"security","file":"a.go","line":1.5,"severity":"P1","description":"d"}`), "ground_truth.jsonl:1: json"},
		{"gt duplicate id", gt(`{"id":"i","persona":"security","file":"a.go","line":11,"severity":"P1","description":"d"}` + "\n" + `{"id":"i","persona":"security","file":"a.go","line":12,"severity":"P1","description":"d"}`), `ground_truth.jsonl:2: duplicate id "i"`},
		{"gt excluded without reason", gt(`{"id":"i","persona":"security","file":"a.go","line":11,"severity":"P1","description":"d","excluded":true}`), "ground_truth.jsonl:1: excluded_reason"},
		{"gt reason without excluded", gt(`{"id":"i","persona":"security","file":"a.go","line":11,"severity":"P1","description":"d","excluded_reason":"r"}`), "ground_truth.jsonl:1: excluded_reason"},
		{"gt line outside hunks", gt(`{"id":"i","persona":"security","file":"a.go","line":14,"severity":"P1","description":"d"}`), `issue "i": a.go:14-14 is not on the new side`},
		{"gt file not in diff", gt(`{"id":"i","persona":"security","file":"b.go","line":11,"severity":"P1","description":"d"}`), "b.go:11-11 is not on the new side"},
		{"gt trailing data", gt(`{"id":"i","persona":"security","file":"a.go","line":11,"severity":"P1","description":"d"} {}`), "ground_truth.jsonl:1: trailing data"},
		{"recording for unknown persona", map[string]string{"cases/scripted/c/recorded/sec.json": "{}"}, "cases/scripted/c/recorded/sec.json: want <persona>.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadSuite(caseFS(tc.files), "cases", SuiteScripted)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v; want one containing %q", err, tc.want)
			}
			if !errors.Is(err, ErrCase) {
				t.Errorf("got %v; want it to wrap ErrCase", err)
			}
		})
	}
}

func TestLoadGood(t *testing.T) {
	cs, err := LoadSuite(caseFS(map[string]string{
		"cases/scripted/c/recorded/source.json":      `{"source":"scripted"}`,
		"cases/scripted/README.md":                   "not a case",
		"cases/scripted/c/recorded/security.json":    "{}",
		"cases/scripted/c/recorded/correctness.json": "{}",
	}), "cases", SuiteScripted)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Name != "c" || cs[0].Title != "t" || len(cs[0].Truth) != 1 {
		t.Fatalf("got %+v", cs)
	}
	if got := strings.Join(cs[0].Personas(), ","); got != "correctness,security" {
		t.Errorf("personas: got %s; want correctness,security", got)
	}
}

func FuzzParseTruth(f *testing.F) {
	f.Add([]byte(`{"id":"i","persona":"security","file":"a.go","line":11,"severity":"P1","description":"d"}`))
	f.Add([]byte(`{"id":"i","persona":"security","file":"a.go","line":11,"severity":"P1","description":"d","excluded":true,"excluded_reason":"r"}` + "\n\n"))
	f.Add([]byte("{}\n[]\nnull"))
	f.Fuzz(func(t *testing.T, b []byte) {
		issues, err := ParseTruth(b)
		if err != nil {
			return
		}
		for _, is := range issues {
			if is.ID == "" || !KnownPersona(is.Persona) || is.Line < 1 || !is.Severity.Valid() || is.File == "" {
				t.Fatalf("accepted invalid issue %+v", is)
			}
		}
	})
}
