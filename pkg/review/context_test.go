package review_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// calcPR serves a PR that modifies one line in the middle of a long Go
// file (so the context is its enclosing function, not the whole file) and
// changes a second, small file; the head tree also holds the first file's
// test.
func (e *env) calcPR(t *testing.T) (calcHead string) {
	t.Helper()
	var head strings.Builder
	head.WriteString("package calc\n\n") // 1-2
	for i := range 300 {                 // 3-302
		fmt.Fprintf(&head, "func pad%d() int { return %d }\n", i, i)
	}
	head.WriteString("\n// Ratio divides a by b.\nfunc Ratio(a, b int) int {\n") // 303-305
	head.WriteString("\tif b == 0 {\n\t\treturn 0\n\t}\n")                       // 306-308
	head.WriteString("\treturn a / (b - 1)\n}\n")                                // 309-310
	calcHead = head.String()
	d := "diff --git a/pkg/calc/calc.go b/pkg/calc/calc.go\nindex 1111111..2222222 100644\n--- a/pkg/calc/calc.go\n+++ b/pkg/calc/calc.go\n" +
		"@@ -306,4 +306,4 @@ func Ratio(a, b int) int {\n \tif b == 0 {\n \t\treturn 0\n \t}\n-\treturn a / b\n+\treturn a / (b - 1)\n" +
		"diff --git a/pkg/calc/doc.go b/pkg/calc/doc.go\nindex 3333333..4444444 100644\n--- a/pkg/calc/doc.go\n+++ b/pkg/calc/doc.go\n" +
		"@@ -1,2 +1,2 @@\n-// Package calc adds.\n+// Package calc divides.\n package calc\n"
	e.addPR(t, d, map[string]string{
		"pkg/calc/calc.go":      calcHead,
		"pkg/calc/doc.go":       "// Package calc divides.\npackage calc\n",
		"pkg/calc/calc_test.go": "package calc\n",
	})
	return calcHead
}

func TestContextInPersonaPrompts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.calcPR(t)
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
		f("Ratio divides by b-1", finding.P1, "pkg/calc/calc.go", 309, 100, func(x *finding.Finding) {
			x.Evidence = []string{"return a / (b - 1)"}
		}),
	}, nil, nil)))
	o := options()
	o.Personas = []string{"correctness", "testing"}

	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	noViolations(t, e.model)
	reqs := e.model.RequestsFor("testing")
	if len(reqs) != 1 {
		t.Fatalf("testing requests: %d; want 1", len(reqs))
	}
	shared := reqs[0].Messages[1].Content
	for _, want := range []string{
		// The numbered diff.
		"309 +\treturn a / (b - 1)\n",
		// The enclosing function with its doc comment, numbered, and not
		// the 200 functions before it.
		"File: pkg/calc/calc.go (enclosing blocks of the changes)",
		"304  // Ratio divides a by b.\n305  func Ratio(a, b int) int {\n",
		// A small file is shown whole.
		"File: pkg/calc/doc.go (whole file)",
		// The test-file list.
		"pkg/calc/calc.go: pkg/calc/calc_test.go",
	} {
		if !strings.Contains(shared, want) {
			t.Errorf("persona data lacks %q", want)
		}
	}
	if strings.Contains(shared, "func pad10()") {
		t.Errorf("persona data holds a function the change does not touch")
	}
	// Each head file is read once, for context and the validator together.
	for _, p := range []string{"pkg/calc/calc.go", "pkg/calc/doc.go"} {
		if n := ghCount(e.gh.Requests(), "GET", "/contents/"+p, headSHA); n != 1 {
			t.Errorf("%s read %d times; want 1", p, n)
		}
	}
	if res.Coverage.Validated != 1 || len(res.Findings) != 1 {
		t.Errorf("validated %d, posted %d; want 1, 1", res.Coverage.Validated, len(res.Findings))
	}
	// The validator has its own system message and reads the whole head
	// file, numbered.
	v := e.model.RequestsFor(llm.Validator)
	if len(v) != 1 || !strings.HasPrefix(v[0].Messages[0].Content, "# Independent validator") || !strings.Contains(v[0].Messages[2].Content, "  3  func pad0() int { return 0 }\n") {
		t.Errorf("validator request does not start with the validator's system message and hold the whole head file")
	}
}

// TestContextByNeed: when a PR changes source code and its tests, the
// personas get head context for the source file only: the test file is
// reviewed from its diff (and its head version is not read). A PR of
// tests alone keeps their context.
func TestContextByNeed(t *testing.T) {
	t.Parallel()
	var testHead strings.Builder
	testHead.WriteString("package calc\n\nimport \"testing\"\n\n") // 1-4
	for i := range 200 {                                           // 5-204
		fmt.Fprintf(&testHead, "func TestPad%d(t *testing.T) { _ = pad%d() }\n", i, i)
	}
	testHead.WriteString("\nfunc TestRatio(t *testing.T) {\n\tif Ratio(4, 2) != 2 {\n\t\tt.Fatal(\"ratio\")\n\t}\n}\n") // 205-210
	testDiff := "diff --git a/pkg/calc/calc_test.go b/pkg/calc/calc_test.go\nindex 5555555..6666666 100644\n--- a/pkg/calc/calc_test.go\n+++ b/pkg/calc/calc_test.go\n" +
		"@@ -207,3 +207,3 @@ func TestRatio(t *testing.T) {\n \tif Ratio(4, 2) != 2 {\n-\t\tt.Fatal(\"r\")\n+\t\tt.Fatal(\"ratio\")\n \t}\n"
	srcDiff := "diff --git a/pkg/calc/calc.go b/pkg/calc/calc.go\nindex 1111111..2222222 100644\n--- a/pkg/calc/calc.go\n+++ b/pkg/calc/calc.go\n" +
		"@@ -2,3 +2,3 @@\n \n-func pad0() int { return 1 }\n+func pad0() int { return 0 }\n \n"
	for _, tc := range []struct {
		name        string
		diff        string
		testContext bool
	}{
		{"source and tests", srcDiff + testDiff, false},
		{"tests alone", testDiff, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.addPR(t, tc.diff, map[string]string{
				"pkg/calc/calc.go":      "package calc\n\nfunc pad0() int { return 0 }\n\nfunc Ratio(a, b int) int { return a / b }\n",
				"pkg/calc/calc_test.go": testHead.String(),
			})
			o := options()
			o.Personas = []string{"correctness"}
			if _, _, err := e.rv.ReviewPR(context.Background(), o); err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			reqs := e.model.RequestsFor("correctness")
			if len(reqs) != 1 {
				t.Fatalf("correctness requests: %d; want 1", len(reqs))
			}
			shared := reqs[0].Messages[1].Content
			if got := strings.Contains(shared, "File: pkg/calc/calc_test.go ("); got != tc.testContext {
				t.Errorf("the test file has head context: %t; want %t", got, tc.testContext)
			}
			if tc.testContext {
				return
			}
			if !strings.Contains(shared, "File: pkg/calc/calc.go (whole file)") {
				t.Errorf("the source file has no head context; want it whole")
			}
			if n := ghCount(e.gh.Requests(), "GET", "/contents/pkg/calc/calc_test.go", headSHA); n != 0 {
				t.Errorf("the test file's head version was read %d times; want 0", n)
			}
		})
	}
}

// TestMaxInputTokensTooSmall: when not even one file fits a request, no
// call is made, every file is listed as not reviewed with the reason, and
// the review is incomplete.
func TestMaxInputTokensTooSmall(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.calcPR(t)
	o := options()
	o.MaxInputTokens = 2000
	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	if n := len(e.model.Requests()); n != 0 {
		t.Errorf("model requests: %d; want 0", n)
	}
	var paths []string
	for _, x := range res.Coverage.NotReviewed {
		paths = append(paths, x.Path)
		if !strings.Contains(x.Reason, "max-input-tokens 2000") {
			t.Errorf("not reviewed %s: reason %q; want max-input-tokens named", x.Path, x.Reason)
		}
	}
	if !slices.Equal(paths, []string{"pkg/calc/calc.go", "pkg/calc/doc.go"}) {
		t.Errorf("not reviewed: %q; want both files", paths)
	}
	if !res.Partial || res.Verdict != review.Degraded {
		t.Errorf("partial %t verdict %s; want true, degraded", res.Partial, res.Verdict)
	}
}

// batchRE finds the findings of a per-file validator request.
var batchRE = regexp.MustCompile(`### (F\d+)\n\n<<<DATA-[0-9a-f]+\n(\{[\s\S]*?\n\})\n`)

func TestValidatorPerFile(t *testing.T) {
	t.Parallel()
	const (
		tKeep, tLower, tRefute, tForgot, tRaise = "Kept overflow", "Lowered overflow", "Refuted overflow", "Forgotten overflow", "Raised overflow"
		tTwice                                  = "Twice-judged overflow"
	)
	e := newEnv(t, nil)
	e.helpersPR(t, 30, "pkg/a/x.go", "pkg/a/y.go")
	line := func(n int) func(*finding.Finding) {
		return func(x *finding.Finding) {
			x.Evidence = []string{fmt.Sprintf("func helper%d(x int) int { return x*%d + 1 }", n-1, n-1)}
		}
	}
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
		f(tKeep, finding.P1, "pkg/a/x.go", 3, 100, line(3)),
		f(tLower, finding.P1, "pkg/a/x.go", 8, 100, line(8)),
		f(tRefute, finding.P1, "pkg/a/x.go", 13, 100, line(13)),
		f(tForgot, finding.P1, "pkg/a/x.go", 18, 100, line(18)),
		f(tTwice, finding.P1, "pkg/a/x.go", 23, 100, line(23)),
		f(tRaise, finding.P2, "pkg/a/y.go", 5, 100, line(5)),
	}, nil, nil)))
	var mu sync.Mutex
	var batches [][]string
	e.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		if r.Persona != llm.Validator {
			return llmtest.OK(llmtest.DefaultContent(r))
		}
		if r.SchemaName != "validations" {
			t.Errorf("validator schema %q; want validations", r.SchemaName)
		}
		var titles []string
		var out []map[string]any
		for _, m := range batchRE.FindAllStringSubmatch(r.Messages[3].Content, -1) {
			var x finding.Finding
			if err := json.Unmarshal([]byte(m[2]), &x); err != nil {
				t.Errorf("finding %s: %v", m[1], err)
			}
			titles = append(titles, x.Title)
			switch x.Title {
			case tKeep:
				out = append(out, map[string]any{"finding": m[1], "validated": true, "reason": "Real."})
			case tLower:
				out = append(out, map[string]any{"finding": m[1], "validated": true, "reason": "Real but minor.", "severity": "P3"})
			case tRefute:
				out = append(out, map[string]any{"finding": m[1], "validated": false, "reason": "Guarded on line 2."})
			case tRaise:
				out = append(out, map[string]any{"finding": m[1], "validated": true, "reason": "Real.", "severity": "P0"})
			case tTwice:
				// Two verdicts for one id, and one for an id the
				// request does not hold: neither may confirm anything.
				out = append(out, map[string]any{"finding": m[1], "validated": true, "reason": "Real."},
					map[string]any{"finding": m[1], "validated": false, "reason": "Not real."},
					map[string]any{"finding": "F99", "validated": true, "reason": "Real."})
			}
		}
		mu.Lock()
		batches = append(batches, titles)
		mu.Unlock()
		b, _ := json.Marshal(map[string]any{"verdicts": out})
		return llmtest.OK(string(b))
	})
	o := options()
	o.Personas, o.ValidatorBatching = []string{"correctness"}, review.ValidatePerFile

	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	noViolations(t, e.model)
	vs := e.model.RequestsFor(llm.Validator)
	if n := len(vs); n != 2 {
		t.Errorf("validator calls: %d; want 2 (one per file)", n)
	}
	// Each call carries the PR's title, then its own file whole with the
	// file's diff in place (no other file's), and the findings last.
	for _, r := range vs {
		own, other := "pkg/a/x.go", "pkg/a/y.go"
		if strings.Contains(r.Messages[2].Content, "diff --git a/pkg/a/y.go") {
			own, other = other, own
		}
		view := r.Messages[2].Content
		if !strings.Contains(view, "diff --git a/"+own) || strings.Contains(view, "diff --git a/"+other) || !strings.Contains(view, " +1,") {
			t.Errorf("validator call for %s: the file view should hold %s alone, whole:\n%s", own, own, view)
		}
		if !strings.Contains(r.Messages[1].Content, "Title: ") || strings.Contains(r.Messages[1].Content, "diff --git") || !strings.Contains(r.Messages[3].Content, "### F1") {
			t.Errorf("validator call for %s: want the title, the file with its diff, then the findings", own)
		}
	}
	slices.SortFunc(batches, func(a, b []string) int { return len(b) - len(a) })
	if len(batches) != 2 || len(batches[0]) != 5 || len(batches[1]) != 1 {
		t.Errorf("batches: %q; want the 5 findings of x.go together and y.go's alone", batches)
	}
	got := map[string]finding.Severity{}
	for _, x := range res.Findings {
		got[x.Title] = x.Severity
	}
	want := map[string]finding.Severity{tKeep: finding.P1, tLower: finding.P3, tRaise: finding.P2}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("posted: %v; want %v (lowered kept lower, raise ignored)", got, want)
	}
	if i := slices.IndexFunc(res.Findings, func(x finding.Finding) bool { return x.Title == tLower }); i != len(res.Findings)-1 {
		t.Errorf("the lowered finding sorts at %d; want last (P3)", i)
	}
	reasons := map[string]string{}
	for _, r := range res.Coverage.Rejections {
		reasons[r.Title] = r.Reason
	}
	if reasons[tRefute] != "Guarded on line 2." || !strings.HasPrefix(reasons[tForgot], "validator failed (no verdict") ||
		!strings.HasPrefix(reasons[tTwice], "validator failed (two verdicts") || len(reasons) != 3 {
		t.Errorf("rejections: %v; want the refutation, a missing verdict and a doubled one", reasons)
	}
	// A finding the batch left without a verdict was not validated: the
	// review is incomplete and says so (green means reviewed).
	if !res.Partial || !slices.ContainsFunc(res.Incomplete, func(s string) bool { return strings.Contains(s, "could not be validated") }) {
		t.Errorf("partial %t, incomplete %q; want the missing verdict to make the review incomplete", res.Partial, res.Incomplete)
	}
}

// timedModel records when each persona call starts and ends.
type timedModel struct {
	next   llm.Completer
	mu     sync.Mutex
	spans  [][2]time.Time // persona calls
	vspans [][2]time.Time // validator calls
}

func (m *timedModel) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	start := time.Now()
	resp, err := m.next.Complete(ctx, r)
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.Persona == llm.Validator {
		m.vspans = append(m.vspans, [2]time.Time{start, time.Now()})
	} else {
		m.spans = append(m.spans, [2]time.Time{start, time.Now()})
	}
	return resp, err
}

// TestWarmCache: with WarmCache one persona call runs first, streamed; the
// others start once its first token has arrived (the provider has read its
// prompt, so its cache can serve them), not when it has answered. Without
// it all start together.
func TestWarmCache(t *testing.T) {
	t.Parallel()
	// Wide margins: the machine may be loaded. Without the warm-up every
	// call starts within firstToken of the first; with it the others
	// start at its first token, and latency-firstToken before its end.
	const firstToken, latency = time.Second, 3 * time.Second
	for _, warm := range []bool{false, true} {
		t.Run(fmt.Sprint("warm=", warm), func(t *testing.T) {
			t.Parallel()
			var tm *timedModel
			e := newEnv(t, func(c *llm.Client) llm.Completer {
				tm = &timedModel{next: c}
				return tm
			})
			e.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
				rep := e.verdicts.reply(r)
				rep.FirstToken, rep.Delay = firstToken, latency
				if r.Persona == llm.Validator {
					rep.Delay = time.Millisecond
				}
				return rep
			})
			e.calcPR(t)
			o := options()
			o.Personas, o.WarmCache = []string{"correctness", "testing", "maintainability"}, warm
			if _, _, err := e.rv.ReviewPR(context.Background(), o); err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if len(tm.spans) != 3 {
				t.Fatalf("persona calls: %d; want 3", len(tm.spans))
			}
			slices.SortFunc(tm.spans, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
			first, rest := tm.spans[0], tm.spans[1:]
			for _, s := range rest {
				waited := s[0].Sub(first[0]) >= firstToken
				if waited != warm {
					t.Errorf("a call started %v after the first; want it to wait for the first token (%v): %t", s[0].Sub(first[0]), firstToken, warm)
				}
				if !s[0].Before(first[1]) {
					t.Errorf("a call started after the first answered; want it sent at the first token at the latest")
				}
			}
			var streamed int
			for _, r := range e.model.Requests() {
				if r.Stream && r.Persona != llm.Validator {
					streamed++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[warm]; streamed != want {
				t.Errorf("%d streamed persona requests; want %d (the warm-up)", streamed, want)
			}
		})
	}
}

// validatorSpans records when each validator call started and ended.
type validatorSpans struct {
	next  llm.Completer
	mu    sync.Mutex
	spans [][2]time.Time
}

func (m *validatorSpans) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	start := time.Now()
	resp, err := m.next.Complete(ctx, r)
	if r.Persona == llm.Validator {
		m.mu.Lock()
		m.spans = append(m.spans, [2]time.Time{start, time.Now()})
		m.mu.Unlock()
	}
	return resp, err
}

// TestWarmCacheValidator: the validator round warms up the same way: one
// call first, streamed, the others at its first token, before it answered.
func TestWarmCacheValidator(t *testing.T) {
	t.Parallel()
	const firstToken, latency = time.Second, 3 * time.Second // wide margins, as in TestWarmCache
	files := []string{"pkg/a/one.go", "pkg/a/two.go", "pkg/a/three.go"}
	var vs *validatorSpans
	e := newEnv(t, func(c *llm.Client) llm.Completer {
		vs = &validatorSpans{next: c}
		return vs
	})
	e.helpersPR(t, 20, files...)
	var fs []finding.Finding
	for _, p := range files {
		fs = append(fs, f("Overflow in helper9 of "+p, finding.P1, p, 9, 100, func(x *finding.Finding) {
			x.Evidence = []string{"func helper8(x int) int { return x*8 + 1 }"}
		}))
	}
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", fs, nil, nil)))
	e.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		rep := llmtest.Verdicts(r, func(string) string { return `{"validated":true,"reason":"Real."}` })
		rep.FirstToken, rep.Delay = firstToken, latency
		return rep
	})
	o := options()
	o.Personas, o.WarmCache, o.ValidatorBatching = []string{"correctness"}, true, review.ValidatePerFile
	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	if len(vs.spans) != 3 || res.Coverage.Validated != 3 {
		t.Fatalf("validator calls %d, validated %d; want 3, 3", len(vs.spans), res.Coverage.Validated)
	}
	slices.SortFunc(vs.spans, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	first := vs.spans[0]
	for _, s := range vs.spans[1:] {
		if s[0].Sub(first[0]) < firstToken || !s[0].Before(first[1]) {
			t.Errorf("a validator call started %v after the first (answered after %v); want at its first token (%v), before its answer", s[0].Sub(first[0]), first[1].Sub(first[0]), firstToken)
		}
	}
	streamed := 0
	for _, r := range e.model.RequestsFor(llm.Validator) {
		if r.Stream {
			streamed++
		}
	}
	if streamed != 1 {
		t.Errorf("%d streamed validator requests; want 1 (the warm-up)", streamed)
	}
}

// TestValidatorPartCut: a validator request with its finding's head file
// sends the finding's own file's diff alone, whatever the size of the
// part (see TestValidatorDiffScope for one without the head file).
func TestValidatorPartCut(t *testing.T) {
	t.Parallel()
	files := []string{"pkg/a/one.go", "pkg/a/two.go"}
	for _, tc := range []struct {
		name      string
		lines     int
		wantOther bool
	}{
		{name: "small part: the finding's file", lines: 40, wantOther: false},
		{name: "large part: the finding's file", lines: 150, wantOther: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.helpersPR(t, tc.lines, files...)
			e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
				f("Overflow in helper9", finding.P1, files[0], 9, 100, func(x *finding.Finding) {
					x.Evidence = []string{"func helper8(x int) int { return x*8 + 1 }"}
				}),
			}, nil, nil)))
			o := options()
			// Both files fit one persona call either way.
			o.Personas, o.MaxInputTokens = []string{"correctness"}, diffBudget(t, 4500, true, "correctness")
			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if n := len(e.model.RequestsFor("correctness")); n != 1 {
				t.Fatalf("persona calls: %d; want 1 (one part)", n)
			}
			v := e.model.RequestsFor(llm.Validator)
			if len(v) != 1 || res.Coverage.Validated != 1 {
				t.Fatalf("validator calls %d, validated %d; want 1, 1", len(v), res.Coverage.Validated)
			}
			if got := strings.Contains(v[0].Messages[1].Content, "diff --git a/"+files[1]+" "); got != tc.wantOther {
				t.Errorf("validator diff holds the other file: %t; want %t", got, tc.wantOther)
			}
		})
	}
}

// A file too large for one persona request is split into groups of hunks,
// one part each. Its validation still sees the whole file's change: per
// file, the file whole with every hunk in place (not a group's hunks
// against the whole head, which do not line up); per finding, the base
// version of the cited region, rebuilt from all of the file's hunks.
func TestValidatorSeesSplitFileWhole(t *testing.T) {
	t.Parallel()
	const path = "pkg/big/big.go"
	// 130 one-line functions; two far-apart blocks of 25 lines each
	// replaced by 30, so each hunk is about half the diff and the second
	// sits 5 lines lower in the head than in the base.
	head := goLines("big", 130)
	var d strings.Builder
	fmt.Fprintf(&d, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n", path, path, path, path)
	// delta is base minus head line numbers before the hunk; at is the
	// 0-based first added line.
	delta := 0
	for _, at := range []int{10, 90} {
		const added, deleted = 30, 25
		fmt.Fprintf(&d, "@@ -%d,%d +%d,%d @@\n", at+delta, deleted+3, at, added+3)
		d.WriteString(" " + head[at-1] + "\n")
		for _, l := range head[at : at+deleted] {
			d.WriteString("-" + strings.Replace(l, "+ 1", "+ 2", 1) + "\n")
		}
		for _, l := range head[at : at+added] {
			d.WriteString("+" + l + "\n")
		}
		for _, l := range head[at+added : at+added+2] {
			d.WriteString(" " + l + "\n")
		}
		delta += deleted - added
	}
	second := 100 // an added line of the second hunk (1-based)
	for _, batching := range []string{review.ValidatePerFile, review.ValidatePerFinding} {
		t.Run(batching, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.addPR(t, d.String(), map[string]string{path: strings.Join(head, "\n") + "\n"})
			e.model.Script("correctness", llmtest.OK(answer(t, "correctness", nil, nil, nil)), llmtest.OK(answer(t, "correctness", []finding.Finding{
				f("Overflow in the second block", finding.P1, path, second, 100, func(x *finding.Finding) { x.Evidence = []string{strings.TrimSpace(head[second-1])} }),
			}, nil, nil)))
			if batching == review.ValidatePerFile {
				e.model.Script(llm.Validator, llmtest.OK(`{"verdicts":[{"finding":"F1","validated":true,"reason":"Real."}]}`))
			}
			o := options()
			o.Personas, o.ValidatorBatching = []string{"correctness"}, batching
			o.MaxInputTokens = diffBudget(t, 1150, true, "correctness") // two parts; room for the file whole in a validation
			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			noViolations(t, e.model)
			if n := len(e.model.RequestsFor("correctness")); n != 2 {
				t.Fatalf("persona calls: %d; want 2 (the file split in two groups of hunks)", n)
			}
			v := e.model.RequestsFor(llm.Validator)
			if len(v) != 1 || res.Coverage.Validated != 1 {
				t.Fatalf("validator calls %d, validated %d (not reviewed %v); want 1, 1", len(v), res.Coverage.Validated, res.Coverage.NotReviewed)
			}
			all := v[0].Messages[2].Content + v[0].Messages[3].Content
			if strings.Contains(all, "does not match the diff") {
				t.Errorf("the validator was told the head does not match the diff:\n%s", all)
			}
			if batching == review.ValidatePerFile {
				if !strings.Contains(all, "@@ -1,120 +1,130 @@") || !strings.Contains(all, "\n 11 +func") || !strings.Contains(all, "\n100 +func") {
					t.Errorf("per file: want the whole file with both hunks in place:\n%.2000s", all)
				}
			} else if !strings.Contains(all, "(base)") {
				t.Errorf("per finding: want the base version of the cited region:\n%.3000s", all)
			}
		})
	}
}

// TestWarmCacheFailedWarmUp: a warm-up that fails before any token (a 400,
// never retried) still releases its round: every other persona is called,
// and the failed one leaves the review incomplete, never a clean pass.
func TestWarmCacheFailedWarmUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.calcPR(t)
	e.model.Script("correctness", llmtest.BadRequest("context length exceeded"))
	o := options()
	o.Personas, o.WarmCache = []string{"correctness", "testing", "maintainability"}, true
	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	for _, p := range []string{"testing", "maintainability"} {
		if n := len(e.model.RequestsFor(p)); n != 1 {
			t.Errorf("%s requests %d; want 1 after the failed warm-up", p, n)
		}
	}
	if !res.Partial || !strings.Contains(strings.Join(res.Incomplete, "; "), "persona correctness failed") {
		t.Errorf("partial %v (%q); want incomplete: persona correctness failed", res.Partial, res.Incomplete)
	}
}
