package synth

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// genFiles is the PR the random inputs review: a modified Go file with lint
// directives, an added TypeScript file, a deleted file.
func genFiles() []*diff.File {
	var goLines []string
	for i := 1; i <= 40; i++ {
		switch i % 7 {
		case 0:
			goLines = append(goLines, fmt.Sprintf("+\tx%d := f() //nolint:errcheck", i))
		case 3:
			goLines = append(goLines, "\t//nolint:gosec")
		default:
			goLines = append(goLines, fmt.Sprintf("+\tx%d := g()", i))
		}
	}
	var tsLines []string
	for i := 1; i <= 30; i++ {
		if i%5 == 0 {
			tsLines = append(tsLines, "// eslint-disable-next-line no-console")
		} else {
			tsLines = append(tsLines, fmt.Sprintf("console.log(%d);", i))
		}
	}
	return []*diff.File{modified("pkg/a.go", 1, goLines...), added("web/b.ts", tsLines...), deleted("old.py")}
}

var (
	genPersonas = []string{"correctness", "testing", "maintainability", "security", "performance"}
	genTitles   = []string{"Nil deref", "nil-deref!", "Leaked handle", "Missing test", "missing  TEST", "Race on map"}
	genFileRefs = []string{"pkg/a.go", "./pkg/a.go", "b/pkg/a.go", "web/b.ts", "old.py", "missing.go"}
	genSev      = []finding.Severity{finding.P0, finding.P1, finding.P2, finding.P3}
)

// genInput draws a random input: mostly valid findings that often collide
// (few titles, close lines), with some invalid ones mixed in.
func genInput(r *rand.Rand) Input {
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	in := Input{Files: genFiles(), Mode: []string{ModeComment, ModeReportOnly}[r.IntN(2)], SuppressionForbidden: r.IntN(5) == 0}
	for range r.IntN(8) {
		p := PersonaResult{Persona: pick(genPersonas)}
		for range r.IntN(8) {
			f := finding.Finding{
				Title:                pick(genTitles),
				Severity:             genSev[r.IntN(len(genSev))],
				File:                 pick(genFileRefs),
				Line:                 r.IntN(44),
				WhyItMatters:         pick([]string{"breaks", "leaks", "slow"}),
				AutofixClass:         pick(finding.AutofixClasses()),
				Owner:                pick(finding.Owners()),
				RequiresVerification: r.IntN(2) == 0,
				Confidence:           []int{0, 25, 50, 50, 75, 75, 100}[r.IntN(7)],
				PreExisting:          r.IntN(10) == 0,
			}
			for range r.IntN(3) + 1 {
				f.Evidence = append(f.Evidence, pick([]string{"q1", "q2", "q3", "q4"}))
			}
			switch r.IntN(25) {
			case 0:
				f.Confidence = 72
			case 1:
				f.Severity = "P9"
			case 2:
				f.Evidence = nil
			case 3:
				f.Owner = "robot"
			}
			p.Answer.Findings = append(p.Answer.Findings, f)
		}
		in.Results = append(in.Results, p)
	}
	return in
}

// shuffled returns in with its results, and the findings within each, in a
// new random order (deep copies: Synthesize must not depend on aliasing).
func shuffled(r *rand.Rand, in Input) Input {
	rs := slices.Clone(in.Results)
	for i := range rs {
		fs := slices.Clone(rs[i].Answer.Findings)
		for j := range fs {
			fs[j].Evidence = slices.Clone(fs[j].Evidence)
		}
		r.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
		rs[i].Answer.Findings = fs
	}
	r.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
	in.Results = rs
	return in
}

func inputCount(in Input) int {
	n := 0
	for _, r := range in.Results {
		n += len(r.Answer.Findings)
	}
	return n
}

// checkInvariants holds Output to the properties every input must keep.
func checkInvariants(t *testing.T, in Input, out Output) {
	t.Helper()
	accounted := len(out.Gated) + len(out.BelowBar) + len(out.PreExisting) + len(out.Demoted) + sum(out.DroppedByReason)
	if n := inputCount(in); accounted != n {
		t.Fatalf("got %d findings accounted for (gated %d, below bar %d, pre-existing %d, demoted %d, dropped %v); want %d",
			accounted, len(out.Gated), len(out.BelowBar), len(out.PreExisting), len(out.Demoted), out.DroppedByReason, n)
	}
	gateDrops := 0
	for _, v := range out.DroppedByAnchor {
		gateDrops += v
	}
	if gateDrops != out.DroppedByReason[ReasonBelowGate] {
		t.Fatalf("got %d gate drops by anchor; want %d (by reason)", gateDrops, out.DroppedByReason[ReasonBelowGate])
	}
	if out.Demotions != out.DroppedByReason[ReasonDemoted] {
		t.Fatalf("got %d demotions; want %d", out.Demotions, out.DroppedByReason[ReasonDemoted])
	}
	for reason, n := range out.DroppedByReason {
		if n <= 0 {
			t.Fatalf("got count %d for %q; want only positive counts", n, reason)
		}
	}
	for i, f := range out.Gated {
		if f.Number != i+1 {
			t.Fatalf("gated %d: got number %d; want %d", i, f.Number, i+1)
		}
		if f.Confidence < finding.GateAnchor {
			t.Fatalf("gated %q at anchor %d; want >= %d", f.Title, f.Confidence, finding.GateAnchor)
		}
		if f.PreExisting {
			t.Fatalf("gated %q is pre-existing", f.Title)
		}
	}
	for _, f := range out.BelowBar {
		if f.Severity != finding.P0 || f.Confidence != 50 || f.Number != 0 {
			t.Fatalf("below bar holds %s@%d #%d; want P0@50 unnumbered", f.Severity, f.Confidence, f.Number)
		}
	}
	for _, set := range [][]finding.Finding{out.Gated, out.BelowBar, out.PreExisting, out.Demoted} {
		if !slices.IsSortedFunc(set, compareFindings) {
			t.Fatal("an output set is not sorted")
		}
		for _, f := range set {
			if !finding.ValidAnchor(f.Confidence) || len(f.Reviewers) == 0 || !slices.IsSorted(f.Reviewers) {
				t.Fatalf("got %+v; want a valid anchor and sorted reviewers", f)
			}
			if f.Promoted && len(f.Reviewers) < 2 {
				t.Fatalf("%q promoted with reviewers %v; want two or more", f.Title, f.Reviewers)
			}
		}
	}
	checkAnchorsTraceable(t, in, out)
}

// checkAnchorsTraceable: promotion never lowers an anchor, and nothing below
// 75 reaches Gated except through promotion. Each output finding must carry
// the text of an input finding by one of its reviewers (its top member)
// whose anchor is not above the output's; and some input finding on its file
// and normalized title must have the output's anchor (not promoted) or one
// step below it (promoted).
func checkAnchorsTraceable(t *testing.T, in Input, out Output) {
	t.Helper()
	files := newFileIndex(in.Files)
	for _, set := range [][]finding.Finding{out.Gated, out.BelowBar, out.PreExisting, out.Demoted} {
		for _, o := range set {
			top, source := false, false
			for _, r := range in.Results {
				if !slices.Contains(o.Reviewers, reviewerOf(r)) {
					continue
				}
				for _, f := range r.Answer.Findings {
					df, ok := files.lookup(f.File)
					if !ok || df.Path() != o.File || normalizeTitle(f.Title) != normalizeTitle(o.Title) || !schemaValid(f) {
						continue
					}
					if f.Title == o.Title && f.Line == o.Line && f.Confidence <= o.Confidence {
						top = true
					}
					if (!o.Promoted && f.Confidence == o.Confidence) || (o.Promoted && finding.Promote(f.Confidence) == o.Confidence) {
						source = true
					}
				}
			}
			if !top {
				t.Fatalf("%q at %d: no input member at or below that anchor (promotion lowered it?)", o.Title, o.Confidence)
			}
			if !source {
				t.Fatalf("%q at %d (promoted=%v): no input finding explains the anchor", o.Title, o.Confidence, o.Promoted)
			}
		}
	}
}

func TestSynthesizeProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		in := genInput(r)
		out := Synthesize(in)
		checkInvariants(t, in, out)
		for range 2 {
			again := Synthesize(shuffled(r, in))
			if !reflect.DeepEqual(out, again) {
				t.Fatalf("shuffled input changed the output:\n%+v\n%+v", out, again)
			}
		}
	}
}

func TestSynthesizeDoesNotModifyInput(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		in := genInput(r)
		before, err := json.Marshal(in.Results)
		if err != nil {
			t.Fatal(err)
		}
		Synthesize(in)
		after, _ := json.Marshal(in.Results)
		if string(before) != string(after) {
			t.Fatalf("Synthesize modified its input:\n%s\n%s", before, after)
		}
	}
}

func TestPromoteNeverLowers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		var gs []group
		for range r.IntN(10) {
			f := fnd("x", "a.go", 1, finding.P1, finding.Anchors()[r.IntN(len(finding.Anchors()))])
			f.Reviewers = genPersonas[:r.IntN(len(genPersonas))+1]
			gs = append(gs, group{f: f})
		}
		before := findingsOf(gs)
		promote(gs)
		for i, g := range gs {
			if g.f.Confidence < before[i].Confidence || !finding.ValidAnchor(g.f.Confidence) {
				t.Fatalf("promote took %d to %d", before[i].Confidence, g.f.Confidence)
			}
			if g.f.Promoted != (g.f.Confidence > before[i].Confidence) {
				t.Fatalf("promoted=%v for %d -> %d", g.f.Promoted, before[i].Confidence, g.f.Confidence)
			}
		}
	}
}

// FuzzSynthesize feeds Synthesize arbitrary persona answers (untrusted model
// output, decoded as the orchestrator would) and holds the invariants.
func FuzzSynthesize(f *testing.F) {
	seeds := []string{
		`[]`,
		`[{"Persona":"correctness","Answer":{"reviewer":"correctness","findings":[{"title":"Nil deref","severity":"P1","file":"pkg/a.go","line":7,"why_it_matters":"x","autofix_class":"manual","owner":"human","requires_verification":false,"confidence":50,"evidence":["q"],"pre_existing":false}]}},
		  {"Persona":"security","Answer":{"reviewer":"security","findings":[{"title":"nil-deref","severity":"P0","file":"./pkg/a.go","line":9,"why_it_matters":"y","autofix_class":"advisory","owner":"release","requires_verification":true,"confidence":50,"evidence":["r","q"],"pre_existing":false}]}}]`,
		`[{"Persona":"testing","Answer":{"findings":[{"title":"Missing test","severity":"P3","file":"web/b.ts","line":6,"autofix_class":"advisory","owner":"human","confidence":75,"evidence":["e"]}]}}]`,
		`[{"Persona":"x","Answer":{"findings":[{"title":"t","severity":"P0","file":"web/b.ts","line":31,"autofix_class":"manual","owner":"human","confidence":100,"evidence":["e"]}]}}]`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), false)
	}
	files := genFiles()
	f.Fuzz(func(t *testing.T, data []byte, reportOnly bool) {
		var rs []PersonaResult
		if json.Unmarshal(data, &rs) != nil {
			return
		}
		in := Input{Results: rs, Files: files, Mode: ModeComment}
		if reportOnly {
			in.Mode = ModeReportOnly
		}
		out := Synthesize(in)
		checkInvariants(t, in, out)
		rev := in
		rev.Results = slices.Clone(rs)
		slices.Reverse(rev.Results)
		if again := Synthesize(rev); !reflect.DeepEqual(out, again) {
			t.Fatalf("reversed input changed the output")
		}
	})
}

// TestSynthesizeTieBreak: two reports of one problem that differ in a single
// field merge to the same finding whichever arrives first.
func TestSynthesizeTieBreak(t *testing.T) {
	base := func(mods ...func(*finding.Finding)) finding.Finding {
		return fnd("Nil deref", "pkg/a.go", 2, finding.P1, 75, mods...)
	}
	tests := map[string][2]finding.Finding{
		"why":      {base(func(f *finding.Finding) { f.WhyItMatters = "a" }), base(func(f *finding.Finding) { f.WhyItMatters = "b" })},
		"fix":      {base(func(f *finding.Finding) { f.SuggestedFix = "a" }), base(func(f *finding.Finding) { f.SuggestedFix = "b" })},
		"evidence": {base(evidence("a")), base(evidence("b"))},
		"line":     {base(func(f *finding.Finding) { f.Line = 3 }), base()},
		"title":    {base(func(f *finding.Finding) { f.Title = "nil deref" }), base()},
		"routing":  {base(advisory), base()},
	}
	for name, pair := range tests {
		for _, personas := range [][2]string{{"correctness", "security"}, {"security", "security"}} {
			in := Input{Files: genFiles(), Results: []PersonaResult{res(personas[0], pair[0]), res(personas[1], pair[1])}}
			rev := Input{Files: in.Files, Results: []PersonaResult{res(personas[1], pair[1]), res(personas[0], pair[0])}}
			if a, b := Synthesize(in), Synthesize(rev); !reflect.DeepEqual(a, b) {
				t.Errorf("%s %v: order changed the output:\n%+v\n%+v", name, personas, a.Gated, b.Gated)
			}
		}
	}
}
