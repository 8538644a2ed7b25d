package eval

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// answer is a one-finding persona answer as JSON.
func answer(persona, file string, line int, sev string, conf int, evidence string) string {
	return `{"reviewer":"` + persona + `","findings":[{"title":"t ` + persona + `","severity":"` + sev + `","file":"` + file + `","line":` +
		strconv.Itoa(line) + `,"why_it_matters":"w","autofix_class":"manual","owner":"human","requires_verification":true,"confidence":` + strconv.Itoa(conf) +
		`,"evidence":["` + evidence + `"],"pre_existing":false}],"residual_risks":[],"testing_gaps":[]}`
}

func TestPipelineScores(t *testing.T) {
	const bug, clean = "real/go-unchecked-length/", "real/py-clean-rename/"
	src := `{"source":"scripted"}`
	fsys := corpusFS(t, map[string]string{
		// The issue is labelled for security only; correctness catches it,
		// citing the line where buf is sliced: an off-persona miss for the
		// persona alone, a catch for the pipeline.
		bug + "ground_truth.jsonl":        `{"id":"len-1","file":"frame/read.go","line":11,"line_end":12,"severity":"P0","category":"security","personas":["security"],"description":"d","excluded":false}` + "\n",
		bug + "recorded/source.json":      src,
		bug + "recorded/correctness.json": answer("correctness", "frame/read.go", 13, "P0", 75, "buf[:n]) with n from the wire"),
		bug + "recorded/security.json":    `{"reviewer":"security","findings":[],"residual_risks":[],"testing_gaps":[]}`,
		bug + "recorded/validator.jsonl":  `{"file":"frame/read.go","line":13,"validated":true,"reason":"r"}` + "\n",
		// A clean PR where a P1 survives the validator: the check fails.
		clean + "recorded/source.json":          src,
		clean + "recorded/maintainability.json": answer("maintainability", "util/names.py", 1, "P1", 100, "def normalize(s):"),
		clean + "recorded/correctness.json":     answer("correctness", "util/names.py", 3, "P2", 75, "return s.strip().lower()"),
		// The P2 is refuted, so the review is complete and the confirmed
		// P1 alone fails the clean PR's check.
		clean + "recorded/validator.jsonl": `{"file":"util/names.py","line":1,"validated":true,"reason":"r"}` + "\n" +
			`{"file":"util/names.py","line":3,"validated":false,"reason":"intended"}` + "\n",
	})
	cases, err := LoadSuite(fsys, ".", SuiteReal)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), cases, Options{Answerer: Recorded{FS: fsys, Root: "."}, Concurrency: 2, Team: releaseTwoTeam(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Pairs {
		if p.Persona == "correctness" && p.Case == "real/go-unchecked-length" && (p.FP != 1 || p.OffPersona != 1) {
			t.Errorf("correctness alone: %+v; want an off-persona false positive", p.Counts)
		}
	}
	ps := r.Pipeline
	if ps.Cases != 2 || ps.BugCases != 1 || ps.CleanCases != 1 {
		t.Fatalf("pipeline cases %+v", ps)
	}
	if ps.TP != 1 || ps.FP != 1 || ps.FN != 0 || ps.Recall() != (Ratio{1, 1}) || ps.Precision() != (Ratio{1, 2}) {
		t.Errorf("pipeline counts %+v; want the off-persona catch as a tp and the clean PR's P1 as a fp", ps.Counts)
	}
	if ps.FindingsPerCleanPR() != (Ratio{1, 1}) || ps.CleanFailShare() != (Ratio{1, 1}) || ps.BugFailShare() != (Ratio{1, 1}) {
		t.Errorf("per clean PR %v, clean failing %v, bug failing %v; want 1/1 each", ps.FindingsPerCleanPR(), ps.CleanFailShare(), ps.BugFailShare())
	}
	if ps.SeverityAgreement() != (Ratio{1, 1}) || ps.Gated != 3 || ps.Validated != 2 {
		t.Errorf("severity %v gated %d validated %d; want 1/1, 3, 2", ps.SeverityAgreement(), ps.Gated, ps.Validated)
	}
	for _, c := range ps.Results {
		if c.Conclusion != report.ConclusionFailure {
			t.Errorf("%s: conclusion %s; want failure", c.Case, c.Conclusion)
		}
		if c.Verdict != string(review.NotReady) {
			t.Errorf("%s: verdict %s; want not-ready (a confirmed blocking finding, not an incomplete review)", c.Case, c.Verdict)
		}
	}
	if !r.Scripted() || r.SourceLabel() != "scripted by hand (2 cases)" {
		t.Errorf("source %q; want scripted by hand (2 cases)", r.SourceLabel())
	}
	var table, md bytes.Buffer
	if err := WriteTable(&table, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, []Report{r}); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{table.String(), md.String()} {
		for _, want := range []string{ScriptedNotice, "scripted by hand (2 cases)", "clean PRs whose check fails", "1.000 (1/1)"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	}
}

// A recorded answer that does not parse keeps its persona in the team, where
// it fails: the offline pipeline's review is then incomplete (never a clean
// pass), as a live review whose persona failed would be.
func TestPipelineMalformedRecordingIsIncomplete(t *testing.T) {
	const clean = "real/py-clean-rename/"
	fsys := corpusFS(t, map[string]string{
		clean + "recorded/source.json":      `{"source":"scripted"}`,
		clean + "recorded/correctness.json": `{"reviewer":"correctness","findings":[],"residual_risks":[],"testing_gaps":[]}`,
		clean + "recorded/testing.json":     `{"reviewer":"testing","findings":"not a list"}`,
	})
	cases, err := LoadSuite(fsys, ".", SuiteReal)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), cases, Options{Answerer: Recorded{FS: fsys, Root: "."}, Concurrency: 1, Team: releaseTwoTeam(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Pipeline.Results) != 1 {
		t.Fatalf("pipeline results %d; want 1", len(r.Pipeline.Results))
	}
	c := r.Pipeline.Results[0]
	if c.Verdict != string(review.Degraded) || c.Conclusion != report.ConclusionFailure {
		t.Errorf("verdict %s, conclusion %s; want degraded and failure (the testing persona failed)", c.Verdict, c.Conclusion)
	}
}

// A finding on a labelled issue that got no verdict (nothing recorded for
// it) is unverified, never counted as the validator rejecting a real issue;
// the review is incomplete.
func TestPipelineNoVerdictIsNoRejection(t *testing.T) {
	const bug = "real/go-unchecked-length/"
	fsys := corpusFS(t, map[string]string{
		bug + "recorded/source.json":      `{"source":"scripted"}`,
		bug + "recorded/correctness.json": answer("correctness", "frame/read.go", 13, "P0", 75, "buf[:n]) with n from the wire"),
	})
	cases, err := LoadSuite(fsys, ".", SuiteReal)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), cases[:1], Options{Answerer: Recorded{FS: fsys, Root: "."}, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	ps := r.Pipeline
	if ps.Gated != 1 || ps.DroppedReal != 0 || ps.Unverified != 1 || ps.Incomplete != 1 {
		t.Errorf("gated %d, rejected on a labelled issue %d, unverified %d, incomplete %d; want 1, 0, 1, 1",
			ps.Gated, ps.DroppedReal, ps.Unverified, ps.Incomplete)
	}
}

// releaseTwoTeam is persona.Load with testing and maintainability always
// on, as in release 2: these tests hold the pipeline's scoring to small
// cases whose answers come from those personas, whatever their selection.
func releaseTwoTeam(t *testing.T) []persona.Persona {
	t.Helper()
	all, err := persona.Load()
	if err != nil {
		t.Fatal(err)
	}
	for i := range all {
		if all[i].Name == "testing" || all[i].Name == "maintainability" {
			all[i].AlwaysOn = true
		}
	}
	return all
}

// TestByLanguage: the per-language rows add up to the whole: cases without
// a language get a row of their own, and a run where none has one gets no
// table.
func TestByLanguage(t *testing.T) {
	rs := []CaseResult{{Case: "real/a", Language: "go"}, {Case: "real/b", Language: "python"}, {Case: "scripted/c"}, {Case: "scripted/d"}}
	for i := range rs {
		rs[i].Calibration = calibration(nil)
	}
	ls := SummarizePipeline(rs).ByLanguage()
	var names []string
	cases := 0
	for _, l := range ls {
		names = append(names, l.Language)
		cases += l.Cases
	}
	if !slices.Equal(names, []string{"go", "python", NoLanguage}) || cases != len(rs) {
		t.Errorf("rows %v covering %d cases; want go, python, %s covering %d", names, cases, NoLanguage, len(rs))
	}
	if ls := SummarizePipeline(rs[2:]).ByLanguage(); ls != nil {
		t.Errorf("scripted cases alone: %d rows; want no table", len(ls))
	}
}
