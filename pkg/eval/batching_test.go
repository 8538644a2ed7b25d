package eval

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// The pipeline validates per file by default, as the Action ships, and
// replays a model's per-file verdicts (validator-per-file.jsonl) for it;
// per-finding replays validator.jsonl. A model's recording without verdicts
// of the run's mode is not scored in that mode (nothing is made up), and
// says so; one with them is.
func TestPipelineValidatorModes(t *testing.T) {
	const both, perFindingOnly = "real/go-unchecked-length/", "real/go-unchecked-length-2/"
	src := `{"source":"recorded","model":"m","date":"2026-11-26"}`
	ans := answer("correctness", "frame/read.go", 13, "P0", 75, "buf[:n]) with n from the wire")
	files := map[string]string{
		both + "recorded/source.json":                `{"source":"recorded","model":"m","date":"2026-11-26"}`,
		both + "recorded/correctness.json":           ans,
		both + "recorded/validator.jsonl":            `{"file":"frame/read.go","line":13,"validated":false,"reason":"handled by the caller"}` + "\n",
		both + "recorded/validator-per-file.jsonl":   `{"file":"frame/read.go","line":13,"validated":true,"reason":"n comes from the wire"}` + "\n",
		perFindingOnly + "recorded/source.json":      src,
		perFindingOnly + "recorded/correctness.json": ans,
		perFindingOnly + "recorded/validator.jsonl":  `{"file":"frame/read.go","line":13,"validated":true,"reason":"r"}` + "\n",
	}
	fsys := corpusFS(t, files)
	// The second case is the first's copy under another name.
	for name, f := range fsys {
		if rest, ok := strings.CutPrefix(name, both); ok && !strings.HasPrefix(rest, "recorded/") {
			fsys[perFindingOnly+rest] = f
		}
	}
	cases, err := LoadSuite(fsys, ".", SuiteReal)
	if err != nil {
		t.Fatal(err)
	}
	run := func(batching string) PipelineSummary {
		r, err := Run(context.Background(), cases, Options{Answerer: Recorded{FS: fsys, Root: "."}, Concurrency: 1, ValidatorBatching: batching})
		if err != nil {
			t.Fatal(err)
		}
		return r.Pipeline
	}
	pf := run("")
	if pf.Batching != review.ValidatePerFile {
		t.Errorf("default batching %q; want %q", pf.Batching, review.ValidatePerFile)
	}
	if !slices.Equal(pf.NotScored, []string{"real/go-unchecked-length-2"}) || pf.Cases != 1 {
		t.Fatalf("per-file: scored %d, not scored %q; want 1 and the case without per-file verdicts", pf.Cases, pf.NotScored)
	}
	if pf.Gated != 1 || pf.Validated != 1 || pf.Rejected() != 0 || pf.TP != 1 {
		t.Errorf("per-file: gated %d, confirmed %d, rejected %d, tp %d; want 1, 1, 0, 1 (the per-file verdict)", pf.Gated, pf.Validated, pf.Rejected(), pf.TP)
	}
	pe := run(review.ValidatePerFinding)
	if len(pe.NotScored) != 0 || pe.Cases != 2 {
		t.Fatalf("per-finding: scored %d, not scored %q; want both", pe.Cases, pe.NotScored)
	}
	if pe.Gated != 2 || pe.Validated != 1 || pe.Rejected() != 1 || pe.DroppedReal != 1 {
		t.Errorf("per-finding: gated %d, confirmed %d, rejected %d (real %d); want 2, 1, 1 (1)", pe.Gated, pe.Validated, pe.Rejected(), pe.DroppedReal)
	}
	if _, err := Run(context.Background(), cases, Options{Answerer: Recorded{FS: fsys, Root: "."}, ValidatorBatching: "batched"}); err == nil {
		t.Error("an unknown batching mode: no error")
	}
}

// countingModel answers validator requests, confirming every finding, and
// counts them by schema.
type countingModel struct {
	mu    sync.Mutex
	calls map[string]int
}

func (m *countingModel) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	m.calls[req.Schema]++
	m.mu.Unlock()
	if req.Schema != prompt.ValidationsSchema {
		return llm.Response{JSON: []byte(`{"validated":true,"reason":"r"}`)}, nil
	}
	_, lines := splitFileLabel(req.Label)
	js := `{"verdicts":[`
	for k := range lines {
		if k > 0 {
			js += ","
		}
		js += `{"finding":"` + prompt.FindingID(k) + `","validated":true,"reason":"r"}`
	}
	return llm.Response{JSON: []byte(js + `]}`)}, nil
}

// The validator alone: offline, an item without a recorded verdict of the
// mode is not scored (never a rejection); live per file, the items of one
// case's file are judged in one call.
func TestRunValidatorModes(t *testing.T) {
	f := func(line int) finding.Finding {
		return finding.Finding{Title: "t", Severity: finding.P1, File: "a.go", Line: line, Evidence: []string{"x"}, Confidence: 75}
	}
	p := &Pool{
		Items: []PoolItem{
			{ID: "a", Case: "real/x", Finding: f(1), Real: true},
			{ID: "b", Case: "real/x", Finding: f(2), Real: false},
			{ID: "c", Case: "real/x", Finding: f(3), Real: false},
		},
		Source:  Source{Kind: SourceRecorded, Model: "m", Date: "2026-11-26"},
		Answers: map[string]finding.Validation{"a": {Validated: true, Reason: "r"}, "b": {Validated: false, Reason: "r"}},
	}
	cases := []Case{{Suite: "real", Name: "x"}}
	off, err := RunValidator(context.Background(), p, cases, ValidatorOptions{Batching: review.ValidatePerFinding})
	if err != nil {
		t.Fatal(err)
	}
	if off.NotScored != 1 || off.TP != 1 || off.TN != 1 || off.FP+off.FN+off.Failed != 0 {
		t.Errorf("offline per-finding: %+v, not scored %d; want tp 1, tn 1, 1 not scored", off.Confusion, off.NotScored)
	}
	// No per-file verdict was recorded: a model's per-finding verdicts do
	// not stand in for them.
	if pf, err := RunValidator(context.Background(), p, cases, ValidatorOptions{}); err != nil || pf.NotScored != 3 || pf.Batching != review.ValidatePerFile {
		t.Errorf("offline per-file: %+v (%v); want all 3 not scored, per-file", pf, err)
	}
	m := &countingModel{calls: map[string]int{}}
	live, err := RunValidator(context.Background(), p, cases, ValidatorOptions{Model: m, Batching: review.ValidatePerFile, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if m.calls[prompt.ValidationsSchema] != 1 || m.calls[prompt.ValidationSchema] != 0 {
		t.Errorf("live per-file calls %v; want one per-file call for the three items on a.go", m.calls)
	}
	if live.TP != 1 || live.FP != 2 || live.NotScored != 0 || live.Failed != 0 {
		t.Errorf("live per-file: %+v; want tp 1, fp 2", live.Confusion)
	}
}

func TestSplitFileLabel(t *testing.T) {
	f, lines := splitFileLabel("dir/a:b.go:12,40")
	if f != "dir/a:b.go" || !slices.Equal(lines, []int{12, 40}) {
		t.Errorf("got %q %v", f, lines)
	}
	fs := []finding.Finding{{File: "x.go", Line: 3}, {File: "x.go", Line: 9}}
	req := prompt.ForValidatorFile(fs, prompt.Context{}, "", "m")
	if f, lines := splitFileLabel(req.Label); f != "x.go" || !slices.Equal(lines, []int{3, 9}) {
		t.Errorf("a per-file request's label %q reads as %q %v; want x.go [3 9]", req.Label, f, lines)
	}
}

// A per-file call on the pool judges at most PoolFileBatch items of a file.
func TestRunValidatorPerFileBatch(t *testing.T) {
	p := &Pool{}
	for i := range PoolFileBatch + 1 {
		f := finding.Finding{Title: "t", Severity: finding.P1, File: "a.go", Line: i + 1, Evidence: []string{"x"}, Confidence: 75}
		p.Items = append(p.Items, PoolItem{ID: string(rune('a' + i)), Case: "real/x", Finding: f, Real: true})
	}
	m := &countingModel{calls: map[string]int{}}
	rep, err := RunValidator(context.Background(), p, []Case{{Suite: "real", Name: "x"}}, ValidatorOptions{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	if m.calls[prompt.ValidationsSchema] != 2 || rep.TP != PoolFileBatch+1 {
		t.Errorf("%d per-file calls, tp %d; want 2 calls (%d and 1 items), all confirmed", m.calls[prompt.ValidationsSchema], rep.TP, PoolFileBatch)
	}
}
