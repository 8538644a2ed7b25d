package eval

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden (run with -update after checking):\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestRunOfflineGolden(t *testing.T) {
	cases, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), cases, Options{Answerer: Recorded{}, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Pairs {
		if p.Failed != "" {
			t.Errorf("pair %s/%s failed: %s", p.Persona, p.Case, p.Failed)
		}
	}
	var table, jsonl bytes.Buffer
	if err := WriteTable(&table, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONL(&jsonl, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "offline.table.golden", table.Bytes())
	golden(t, "offline.jsonl.golden", jsonl.Bytes())

	// Run order must not leak into the output.
	r1, err := Run(context.Background(), cases, Options{Answerer: Recorded{}, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WriteJSONL(&again, r1); err != nil {
		t.Fatal(err)
	}
	if again.String() != jsonl.String() {
		t.Error("JSONL differs between concurrency 4 and 1")
	}
}

// fakeAnswerer answers from a map keyed "persona/case"; a missing key is an error.
type fakeAnswerer map[string]string

func (f fakeAnswerer) Answer(ctx context.Context, persona string, c Case) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, ok := f[persona+"/"+c.Name]
	if !ok {
		return nil, errors.New("fake: no answer")
	}
	return []byte(s), nil
}

func TestRunReportsFailedPairs(t *testing.T) {
	c := Case{Name: "c", Truth: []Issue{
		{ID: "a", Persona: "correctness", File: "x.go", Line: 10, Severity: "P1", Description: "d"},
		{ID: "b", Persona: "security", File: "x.go", Line: 20, Severity: "P0", Description: "d"},
		{ID: "e", Persona: "testing", File: "x.go", Line: 30, Severity: "P2", Description: "d"},
		{ID: "f", Persona: "reliability", File: "x.go", Line: 40, Severity: "P2", Description: "d"},
	}}
	ans := fakeAnswerer{
		"correctness/c": `{"reviewer":"correctness","findings":[],"residual_risks":[],"testing_gaps":[]}`,
		"security/c":    `{"reviewer":"security","findings":[{"title":"t","severity":"P0","file":"x.go","line":20,"why_it_matters":"w","autofix_class":"manual","owner":"human","requires_verification":true,"confidence":0.85,"evidence":["e"],"pre_existing":false}],"residual_risks":[],"testing_gaps":[]}`,
		"testing/c":     `{"reviewer":"correctness","findings":[],"residual_risks":[],"testing_gaps":[]}`,
		// reliability: no answer at all.
	}
	r, err := Run(context.Background(), []Case{c}, Options{Answerer: ans, Concurrency: 2, Model: noModel{}, NoPipeline: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"correctness": "",
		"security":    "cannot unmarshal number 0.85",
		"testing":     `names reviewer "correctness"`,
		"reliability": "fake: no answer",
	}
	if len(r.Pairs) != len(want) {
		t.Fatalf("got %d pairs; want %d", len(r.Pairs), len(want))
	}
	for _, p := range r.Pairs {
		w := want[p.Persona]
		if (w == "") != (p.Failed == "") || !strings.Contains(p.Failed, w) {
			t.Errorf("%s: Failed = %q; want it to contain %q", p.Persona, p.Failed, w)
		}
		if p.FN != 1 || p.TP != 0 {
			t.Errorf("%s: TP, FN = %d, %d; want 0, 1", p.Persona, p.TP, p.FN)
		}
	}
	if r.Overall.Failed != 3 || r.Overall.Cases != 4 || r.Overall.FN != 4 {
		t.Errorf("overall failed/cases/fn = %d/%d/%d; want 3/4/4", r.Overall.Failed, r.Overall.Cases, r.Overall.FN)
	}
}

func TestRunPairsAndRestriction(t *testing.T) {
	c := Case{Name: "c", Recorded: []string{"maintainability"}, Truth: []Issue{
		{ID: "a", Persona: "security", File: "x.go", Line: 10, Severity: "P1", Description: "d"},
		{ID: "b", Persona: "correctness", File: "x.go", Line: 20, Severity: "P1", Description: "d", Excluded: true, ExcludedReason: "r"},
	}}
	empty := func(p string) string {
		return `{"reviewer":"` + p + `","findings":[],"residual_risks":[],"testing_gaps":[]}`
	}
	ans := fakeAnswerer{"security/c": empty("security"), "correctness/c": empty("correctness"), "maintainability/c": empty("maintainability")}
	for _, tc := range []struct {
		restrict []string
		live     bool
		want     string
	}{
		// Offline: the labelled personas and every recorded one.
		{nil, false, "correctness,maintainability,security"},
		// Live: the labelled personas and those selection picks
		// (correctness, always on); maintainability, neither labelled nor
		// selected, is not asked for its old recording's sake.
		{nil, true, "correctness,security"},
		{[]string{"security"}, true, "security"},
		{[]string{"performance"}, true, ""},
	} {
		o := Options{Personas: tc.restrict, Answerer: ans, Concurrency: 8, NoPipeline: true}
		if tc.live {
			o.Model = noModel{}
		}
		r, err := Run(context.Background(), []Case{c}, o)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range r.Pairs {
			got = append(got, p.Persona)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("restrict %v: pairs %v; want %s", tc.restrict, got, tc.want)
		}
	}
	if _, err := Run(context.Background(), []Case{c}, Options{Personas: []string{"securty"}, Answerer: ans, NoPipeline: true}); err == nil || !strings.Contains(err.Error(), `"securty"`) {
		t.Errorf("unknown persona: err = %v; want one naming it", err)
	}
}

func TestRunCancelled(t *testing.T) {
	cases, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, cases, Options{Answerer: Recorded{}, Concurrency: 2}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
}

func TestRecordedMissing(t *testing.T) {
	cases, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Recorded{}.Answer(context.Background(), "previous-comments", cases[0])
	if !errors.Is(err, ErrNoRecording) || !strings.Contains(err.Error(), cases[0].ID()+"/recorded/previous-comments.json") {
		t.Fatalf("err = %v; want ErrNoRecording naming the file", err)
	}
}

// noModel is a live model that must not be called (per-persona tests that
// want every case scored, recordings or not).
type noModel struct{}

func (noModel) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, errors.New("noModel: not to be called")
}

// recordingAnswerer answers from Recorded while saving every answer, the
// way a live run with --record does.
type recordingAnswerer struct{ rec *Recorder }

func (r recordingAnswerer) Answer(ctx context.Context, persona string, c Case) ([]byte, error) {
	b, err := Recorded{}.Answer(ctx, persona, c)
	if err != nil {
		return nil, err
	}
	return b, r.rec.SavePersona(c, persona, b)
}

func TestRecorderRoundTrip(t *testing.T) {
	cases, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rec := &Recorder{Dir: dir, Source: Source{Kind: SourceRecorded, Model: "m-1", Date: "2026-11-25"}}
	r1, err := Run(context.Background(), cases, Options{Answerer: recordingAnswerer{rec}, Concurrency: 4, NoPipeline: true})
	if err != nil {
		t.Fatal(err)
	}
	// Recorded replays the directory to the same scores; source.json names
	// the model and the day, and Load reads it back.
	src, err := os.ReadFile(filepath.Join(dir, "scripted", cases[0].Name, "recorded", "source.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s Source
	if err := decodeStrict(src, &s); err != nil || s.Label() != "recorded from m-1 on 2026-11-25" {
		t.Fatalf("source.json %s (%v); want recorded from m-1 on 2026-11-25", src, err)
	}
	r2, err := Run(context.Background(), cases, Options{Answerer: Recorded{FS: os.DirFS(dir), Root: "."}, Concurrency: 4, NoPipeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Scripted() {
		t.Error("offline replay of scripted cases not reported as scripted")
	}
	r1.Sources, r2.Sources = nil, nil
	var a, b bytes.Buffer
	if err := WriteJSONL(&a, r1); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONL(&b, r2); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("replaying recorded answers changed the report:\n%s\nvs\n%s", a.String(), b.String())
	}

	// Raw, non-JSON answers are written as received; names that escape
	// the directory are refused.
	x := Case{Suite: SuiteReal, Name: "x"}
	if err := rec.SavePersona(x, "correctness", []byte("not json")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "real", "x", "recorded", "correctness.json")); string(got) != "not json" {
		t.Errorf("recorded %q; want %q", got, "not json")
	}
	if err := rec.SavePersona(x, "../evil", []byte("{}")); err == nil {
		t.Error("Recorder accepted a persona that escapes its directory")
	}
	if err := rec.SavePersona(Case{Suite: "..", Name: "x"}, "correctness", []byte("{}")); err == nil {
		t.Error("Recorder accepted a suite that escapes its directory")
	}
}

// fakeJudge says "another issue" for issue ids in no, fails for ids in bad.
type fakeJudge struct{ no, bad string }

func (j fakeJudge) SameIssue(_ context.Context, _ Case, is Issue, _ finding.Finding) (bool, string, error) {
	if is.ID == j.bad {
		return false, "", errors.New("judge down")
	}
	return is.ID != j.no, "test", nil
}

func TestRunJudge(t *testing.T) {
	c := Case{Suite: SuiteScripted, Name: "c", Truth: []Issue{
		{ID: "a", Persona: "security", File: "x.go", Line: 10, Severity: "P1", Description: "d"},
		{ID: "b", Persona: "security", File: "x.go", Line: 30, Severity: "P1", Description: "d"},
	}}
	ans := fakeAnswerer{"security/c": `{"reviewer":"security","findings":[` +
		`{"title":"t","severity":"P1","file":"x.go","line":10,"why_it_matters":"w","autofix_class":"manual","owner":"human","requires_verification":true,"confidence":75,"evidence":["e"],"pre_existing":false},` +
		`{"title":"t","severity":"P1","file":"x.go","line":30,"why_it_matters":"w","autofix_class":"manual","owner":"human","requires_verification":true,"confidence":75,"evidence":["e"],"pre_existing":false}` +
		`],"residual_risks":[],"testing_gaps":[]}`}
	r, err := Run(context.Background(), []Case{c}, Options{Answerer: ans, Model: noModel{}, NoPipeline: true, Judge: fakeJudge{no: "a", bad: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(r.Pairs, func(p PairResult) bool { return p.Persona == "security" })
	if i < 0 {
		t.Fatalf("no security pair in %+v", r.Pairs)
	}
	p := r.Pairs[i]
	// a: rejected by the judge → fp, miss; b: the judge failed → the
	// overlap stands.
	if p.TP != 1 || p.FP != 1 || p.FN != 1 || p.JudgeRejected != 1 || p.JudgeErrors != 1 || !slices.Equal(p.Matched, []string{"b"}) {
		t.Errorf("got %+v matched %v; want tp 1 (b), fp 1 and fn 1 (a), one rejection, one judge error", p.Counts, p.Matched)
	}
}
