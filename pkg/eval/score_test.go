package eval

import (
	"slices"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
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
			tc.want.SevAgree = tc.want.TP // every finding and issue here is P1
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

// rangeDiff adds lines 1-12 of x.go; line 4 builds the request, line 10
// uses it.
const rangeDiff = `diff --git a/x.go b/x.go
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ b/x.go
@@ -0,0 +1,13 @@
+package x
+
+func send(c *http.Client, url string) error {
+	req, _ := http.NewRequest("GET", url, nil)
+	req.Header.Set("A", "b")
+	// three
+	// four
+	// five
+	// six
+	resp, err := c.Do(req)
+	_ = resp
+	return err
+}
`

func TestScoreRangesEvidenceAndPersonas(t *testing.T) {
	d, err := diff.Parse([]byte(rangeDiff))
	if err != nil {
		t.Fatal(err)
	}
	// The issue is where the request is built (line 4), its range 4-5.
	built := Issue{ID: "i", Persona: "security", Personas: []string{"security", "correctness"}, File: "x.go", Line: 4, LineEnd: 5, Severity: "P0", Description: "d"}
	c := Case{Suite: SuiteReal, Name: "c", Files: d.Files, Truth: []Issue{built}}
	use := func(ev ...string) finding.Finding {
		x := f("x.go", 10, 75) // cites the line where the request is used
		x.Evidence = ev
		return x
	}
	for _, tc := range []struct {
		name    string
		persona string
		f       finding.Finding
		want    Outcome
	}{
		{"range end widened by 3 reaches line 8", "security", func() finding.Finding { x := f("x.go", 8, 75); return x }(), TruePositive},
		{"line 10 alone is too far", "security", use("prose only, no code"), FalsePositive},
		{"quoted code on the building line matches", "security", use("`req, _ := http.NewRequest(\"GET\", url, nil)`"), TruePositive},
		{"a quote with a path:line prefix and a diff marker", "security", use("x.go:4: +  req, _ := http.NewRequest(\"GET\",   url, nil)"), TruePositive},
		{"a line reference", "security", use("see line 5"), TruePositive},
		{"a file:line reference", "security", use("x.go:4"), TruePositive},
		{"a short quote points nowhere", "security", use("`req`"), FalsePositive},
		{"the second persona is expected too", "correctness", use("`http.NewRequest(\"GET\", url, nil)`"), TruePositive},
		{"a third persona is off-persona", "testing", use("`http.NewRequest(\"GET\", url, nil)`"), FalsePositive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Score(tc.persona, c, finding.Answer{Findings: []finding.Finding{tc.f}})
			if got := p.Results[0].Outcome; got != tc.want {
				t.Fatalf("outcome %s (lines %v); want %s", got, p.Results[0].Lines, tc.want)
			}
			if tc.want == TruePositive && p.SevAgree != 0 {
				t.Errorf("severity agreement %d; want 0 (P1 found, P0 labelled)", p.SevAgree)
			}
		})
	}

	// The pipeline lane counts every persona's issue.
	p := score("pipeline", c, []finding.Finding{use("`http.NewRequest(\"GET\", url, nil)`")}, anyLane, nil)
	if p.TP != 1 {
		t.Errorf("pipeline: tp %d; want 1", p.TP)
	}
	// A judge rejection removes the match; the finding is a false positive.
	rej := Rejections{{Finding: 0, Issue: "i"}: "another problem"}
	p = ScoreWith("security", c, finding.Answer{Findings: []finding.Finding{f("x.go", 4, 75)}}, rej)
	if p.TP != 0 || p.FP != 1 || p.JudgeRejected != 1 || p.Results[0].Judge != "rejected" {
		t.Errorf("judge rejection: %+v %+v; want one fp, judge rejected", p.Counts, p.Results)
	}
	if got := Candidates(c, []finding.Finding{f("x.go", 4, 75), f("x.go", 30, 75)}, personaLane("security")); len(got) != 1 || got[0] != (Edge{0, "i"}) {
		t.Errorf("candidates: %v; want [{0 i}]", got)
	}
}

// FuzzFindingLines feeds model-written evidence to the line finder: it
// never panics and only returns lines >= 1, sorted and unique.
func FuzzFindingLines(f *testing.F) {
	f.Add("`req, _ := http.NewRequest(\"GET\", url, nil)`", 10)
	f.Add("x.go:4: + req.Header.Set(\"A\", \"b\")\nlines 3-5", 1)
	f.Add("see line 0 and lines 99999999999999999999-2", 3)
	f.Fuzz(func(t *testing.T, ev string, line int) {
		d, err := diff.Parse([]byte(rangeDiff))
		if err != nil {
			t.Fatal(err)
		}
		c := Case{Files: d.Files}
		x := finding.Finding{File: "x.go", Line: max(line, 1), Evidence: []string{ev}}
		got := findingLines(c, x)
		if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Fatalf("lines %v not sorted and unique", got)
		}
		for _, n := range got {
			if n < 1 {
				t.Fatalf("line %d < 1 in %v", n, got)
			}
		}
	})
}
