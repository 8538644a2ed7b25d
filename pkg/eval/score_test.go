package eval

import (
	"slices"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
)

// f builds a finding at file:line with the given anchor.
func f(file string, line, conf int) finding.Finding {
	return finding.Finding{Title: "t", Severity: "P1", File: file, Line: line, WhyItMatters: "w",
		AutofixClass: "manual", Owner: "human", Confidence: conf, Evidence: []string{"e"}}
}

func is(id, persona, file string, line int) Issue {
	return Issue{ID: id, Persona: persona, File: file, Line: line, Severity: "P1", Description: "d"}
}

func TestScore(t *testing.T) {
	excl := is("x", "security", "a.go", 50)
	excl.Excluded, excl.ExcludedReason = true, "needs production config"
	truth := []Issue{
		is("s1", "security", "a.go", 10),
		is("s2", "security", "a.go", 20),
		is("c1", "correctness", "a.go", 30),
		excl,
	}
	preExisting := f("a.go", 10, 75)
	preExisting.PreExisting = true

	for _, tc := range []struct {
		name     string
		findings []finding.Finding
		want     Counts
		outcomes []Outcome
		recall   Ratio
		prec     Ratio
		f1       Ratio
	}{
		{"perfect", []finding.Finding{f("a.go", 10, 100), f("a.go", 20, 75)},
			Counts{Findings: 2, TP: 2, Excluded: 1}, []Outcome{TruePositive, TruePositive},
			Ratio{2, 2}, Ratio{2, 2}, Ratio{4, 4}},
		{"all miss, no findings", nil,
			Counts{FN: 2, Excluded: 1}, nil,
			Ratio{0, 2}, Ratio{0, 0}, Ratio{0, 2}},
		{"false positives only", []finding.Finding{f("a.go", 40, 50), f("b.go", 10, 75)},
			Counts{Findings: 2, FP: 2, FN: 2, Excluded: 1}, []Outcome{FalsePositive, FalsePositive},
			Ratio{0, 2}, Ratio{0, 2}, Ratio{0, 4}},
		{"excluded hit is neither tp nor fp", []finding.Finding{f("a.go", 52, 50), f("a.go", 10, 75)},
			Counts{Findings: 2, TP: 1, FN: 1, Excluded: 1, ExcludedHits: 1}, []Outcome{ExcludedHit, TruePositive},
			Ratio{1, 2}, Ratio{1, 1}, Ratio{2, 3}},
		{"two findings on one issue", []finding.Finding{f("a.go", 11, 75), f("a.go", 9, 50)},
			Counts{Findings: 2, TP: 1, FN: 1, Excluded: 1, Duplicates: 1}, []Outcome{TruePositive, Duplicate},
			Ratio{1, 2}, Ratio{1, 1}, Ratio{2, 3}},
		{"within 3 lines matches, off by 4 does not", []finding.Finding{f("a.go", 13, 75), f("a.go", 24, 75)},
			Counts{Findings: 2, TP: 1, FP: 1, FN: 1, Excluded: 1}, []Outcome{TruePositive, FalsePositive},
			Ratio{1, 2}, Ratio{1, 2}, Ratio{2, 4}},
		{"off by 4 below", []finding.Finding{f("a.go", 6, 75)},
			Counts{Findings: 1, FP: 1, FN: 2, Excluded: 1}, []Outcome{FalsePositive},
			Ratio{0, 2}, Ratio{0, 1}, Ratio{0, 3}},
		{"wrong file", []finding.Finding{f("b/a.go", 10, 100)},
			Counts{Findings: 1, FP: 1, FN: 2, Excluded: 1}, []Outcome{FalsePositive},
			Ratio{0, 2}, Ratio{0, 1}, Ratio{0, 3}},
		{"normalized file matches", []finding.Finding{f("./a.go", 10, 100), f(`/a.go`, 20, 100)},
			Counts{Findings: 2, TP: 2, Excluded: 1}, []Outcome{TruePositive, TruePositive},
			Ratio{2, 2}, Ratio{2, 2}, Ratio{4, 4}},
		{"another persona's issue is an off-persona fp", []finding.Finding{f("a.go", 30, 100)},
			Counts{Findings: 1, FP: 1, FN: 2, Excluded: 1, OffPersona: 1}, []Outcome{FalsePositive},
			Ratio{0, 2}, Ratio{0, 1}, Ratio{0, 3}},
		{"pre-existing is unscored", []finding.Finding{preExisting},
			Counts{Findings: 1, FN: 2, Excluded: 1, PreExisting: 1}, []Outcome{PreExisting},
			Ratio{0, 2}, Ratio{0, 0}, Ratio{0, 2}},
		// Line 15 is 5 from s1 and 5 from s2: no match. Line 17 is within 3 of s2 only.
		{"between two issues", []finding.Finding{f("a.go", 15, 75), f("a.go", 17, 75)},
			Counts{Findings: 2, TP: 1, FP: 1, FN: 1, Excluded: 1}, []Outcome{FalsePositive, TruePositive},
			Ratio{1, 2}, Ratio{1, 2}, Ratio{2, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Score("security", Case{Name: "c", Truth: truth}, finding.Answer{Reviewer: "security", Findings: tc.findings})
			if p.Counts != tc.want {
				t.Errorf("counts: got %+v; want %+v", p.Counts, tc.want)
			}
			var got []Outcome
			for _, r := range p.Results {
				got = append(got, r.Outcome)
			}
			if !slices.Equal(got, tc.outcomes) {
				t.Errorf("outcomes: got %v; want %v", got, tc.outcomes)
			}
			if p.Recall() != tc.recall || p.Precision() != tc.prec || p.F1() != tc.f1 {
				t.Errorf("recall/precision/f1: got %v %v %v; want %v %v %v",
					p.Recall(), p.Precision(), p.F1(), tc.recall, tc.prec, tc.f1)
			}
			if !slices.Equal(p.ExcludedIDs, []string{"x"}) {
				t.Errorf("excluded ids: got %v; want [x]", p.ExcludedIDs)
			}
		})
	}
}

// A greedy scorer would give the first finding the closer issue and leave
// the second with nothing; the maximum matching credits both.
func TestScoreMaximumMatching(t *testing.T) {
	truth := []Issue{is("a", "security", "x.go", 10), is("b", "security", "x.go", 14)}
	p := Score("security", Case{Truth: truth}, finding.Answer{Findings: []finding.Finding{
		f("x.go", 12, 75), // within 3 of both; closer to neither
		f("x.go", 9, 75),  // only near a
	}})
	if p.TP != 2 || p.FP != 0 || p.Duplicates != 0 {
		t.Fatalf("tp/fp/dup: got %d/%d/%d; want 2/0/0", p.TP, p.FP, p.Duplicates)
	}
	if got := []string{p.Results[0].Issue, p.Results[1].Issue}; !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("assignment: got %v; want [b a]", got)
	}
}

// A finding on an excluded issue that is also near a taken issue goes to the
// closer one.
func TestScoreUnmatchedGoesToNearest(t *testing.T) {
	ex := is("ex", "security", "x.go", 4)
	ex.Excluded, ex.ExcludedReason = true, "r"
	truth := []Issue{is("a", "security", "x.go", 2), ex}
	p := Score("security", Case{Truth: truth}, finding.Answer{Findings: []finding.Finding{
		f("x.go", 2, 75), f("x.go", 4, 75), f("x.go", 1, 75),
	}})
	got := []Outcome{p.Results[0].Outcome, p.Results[1].Outcome, p.Results[2].Outcome}
	if want := []Outcome{TruePositive, ExcludedHit, Duplicate}; !slices.Equal(got, want) {
		t.Errorf("outcomes: got %v; want %v", got, want)
	}
}

func TestCalibration(t *testing.T) {
	truth := []Issue{is("a", "testing", "t.go", 10), is("b", "testing", "t.go", 30), is("c", "testing", "t.go", 50)}
	p := Score("testing", Case{Truth: truth}, finding.Answer{Findings: []finding.Finding{
		f("t.go", 10, 100), // tp
		f("t.go", 30, 75),  // tp
		f("t.go", 70, 75),  // fp
		f("t.go", 90, 75),  // fp
		f("t.go", 50, 50),  // tp
		f("t.go", 51, 50),  // duplicate: not in calibration
		f("t.go", 99, 50),  // fp
	}})
	want := []AnchorStat{
		{0, 0, 0, Ratio{0, 0}}, {25, 0, 0, Ratio{0, 0}},
		{50, 2, 1, Ratio{1, 2}}, {75, 3, 1, Ratio{1, 3}}, {100, 1, 1, Ratio{1, 1}},
	}
	if !slices.Equal(p.Calibration, want) {
		t.Errorf("calibration: got %+v; want %+v", p.Calibration, want)
	}
	r := Summarize([]PairResult{p, p})
	if got := r.Overall.Calibration[3]; got.Findings != 6 || got.Matched != 2 || got.Share.String() != "0.333" {
		t.Errorf("summed @75: got %+v; want 2/6", got)
	}
}

func TestSummarizeMicroAverageAndOrder(t *testing.T) {
	pairs := []PairResult{
		{Persona: "security", Case: "b", Counts: Counts{TP: 1, FN: 1}, Calibration: calibration(nil)},
		{Persona: "correctness", Case: "z", Counts: Counts{TP: 3, FP: 1}, Calibration: calibration(nil)},
		{Persona: "security", Case: "a", Counts: Counts{FP: 2}, Failed: "boom", Calibration: calibration(nil)},
	}
	r := Summarize(pairs)
	var order []string
	for _, p := range r.Pairs {
		order = append(order, p.Persona+"/"+p.Case)
	}
	if want := []string{"correctness/z", "security/a", "security/b"}; !slices.Equal(order, want) {
		t.Errorf("order: got %v; want %v", order, want)
	}
	sec := r.Personas[1]
	if sec.Persona != "security" || sec.Cases != 2 || sec.Failed != 1 || sec.Precision() != (Ratio{1, 3}) || sec.Recall() != (Ratio{1, 2}) {
		t.Errorf("security summary: got %+v", sec)
	}
	if r.Overall.Precision() != (Ratio{4, 7}) || r.Overall.Recall() != (Ratio{4, 5}) {
		t.Errorf("overall: precision %v recall %v; want 4/7 4/5", r.Overall.Precision(), r.Overall.Recall())
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		r         Ratio
		str, json string
	}{
		{Ratio{0, 0}, "-", "null"},
		{Ratio{0, 3}, "0.000", "0"},
		{Ratio{2, 3}, "0.667", "0.6667"},
		{Ratio{3, 3}, "1.000", "1"},
	} {
		b, err := tc.r.MarshalJSON()
		if err != nil || string(b) != tc.json || tc.r.String() != tc.str {
			t.Errorf("%v: got %q, %s, %v; want %q, %s", tc.r, tc.r.String(), b, err, tc.str, tc.json)
		}
	}
}
