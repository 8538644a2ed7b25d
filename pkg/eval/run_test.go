package eval

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
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
	r, err := Run(context.Background(), cases, nil, Recorded{}, 4)
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
	r1, err := Run(context.Background(), cases, nil, Recorded{}, 1)
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
	r, err := Run(context.Background(), []Case{c}, nil, ans, 2)
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
		want     string
	}{
		{nil, "correctness,maintainability,security"},
		{[]string{"security"}, "security"},
		{[]string{"performance"}, ""},
	} {
		r, err := Run(context.Background(), []Case{c}, tc.restrict, ans, 8)
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
	if _, err := Run(context.Background(), []Case{c}, []string{"securty"}, ans, 1); err == nil || !strings.Contains(err.Error(), `"securty"`) {
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
	if _, err := Run(ctx, cases, nil, Recorded{}, 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
}

func TestRecordedMissing(t *testing.T) {
	cases, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Recorded{}.Answer(context.Background(), "previous-comments", cases[0])
	if !errors.Is(err, ErrNoRecording) || !strings.Contains(err.Error(), cases[0].Name+"/recorded/previous-comments.json") {
		t.Fatalf("err = %v; want ErrNoRecording naming the file", err)
	}
}

func TestRecorderRoundTrip(t *testing.T) {
	cases, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rec := Recorder{Next: Recorded{}, Dir: dir}
	r1, err := Run(context.Background(), cases, nil, rec, 4)
	if err != nil {
		t.Fatal(err)
	}
	// The recorded directory is a case root of its own for Recorded.
	r2, err := Run(context.Background(), cases, nil, Recorded{FS: os.DirFS(dir), Root: "."}, 4)
	if err != nil {
		t.Fatal(err)
	}
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

	// Raw, non-JSON answers are written as received; errors are not recorded.
	bad := Recorder{Next: fakeAnswerer{"correctness/x": "not json"}, Dir: dir}
	if _, err := bad.Answer(context.Background(), "correctness", Case{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "x", "recorded", "correctness.json")); string(got) != "not json" {
		t.Errorf("recorded %q; want %q", got, "not json")
	}
	if _, err := bad.Answer(context.Background(), "testing", Case{Name: "x"}); err == nil {
		t.Error("Recorder hid its Next error")
	}
	if _, err := os.Stat(filepath.Join(dir, "x", "recorded", "testing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed answer was recorded: %v", err)
	}
	if _, err := (Recorder{Next: fakeAnswerer{"../evil/x": "{}"}, Dir: dir}).Answer(context.Background(), "../evil", Case{Name: "x"}); err == nil {
		t.Error("Recorder accepted a persona that escapes its directory")
	}
}
