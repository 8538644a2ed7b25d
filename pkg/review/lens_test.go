package review_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// TestPathClassesDoNotHideCodeFromSecurity: issue 30's lens attacks
// through a whole review with the shipped selection. A file that runs a
// request header through `sh -c` under a path a class calls docs, tests or
// a licence: the security persona is asked, its P0 is validated and
// posted, and the review blocks. Before, only correctness was asked and
// the check was green.
func TestPathClassesDoNotHideCodeFromSecurity(t *testing.T) {
	t.Parallel()
	run := []string{
		"package run",
		"",
		`import "os/exec"`,
		"",
		"func Run(r *http.Request) {",
		`	out, _ := exec.Command("sh", "-c", r.Header.Get("X-Run")).Output()`,
		"	_ = out",
		"}",
	}
	py := []string{
		"import subprocess",
		"",
		"def hook(request):",
		`    subprocess.run(request.headers["X-Run"], shell=True)`,
	}
	js := []string{
		`const app = require("./app")`,
		`app.get("/calc", (q, s) => s.send(String(eval(q.query.expr))))`,
	}
	tests := []struct {
		path  string
		lines []string
		line  int
	}{
		{"doc/run.go", run, 6}, {"spec/run.go", run, 6}, {"e2e/run.go", run, 6}, {"LICENSE.go", run, 6},
		{"CHANGES.py", py, 4}, {"routes/calc.js", js, 2},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			all, err := persona.Load()
			if err != nil {
				t.Fatal(err)
			}
			e.rv.Personas = all
			e.addPR(t, addedFile(tt.path, tt.lines), nil)
			title := "Request header reaches a shell"
			e.model.Script("security", llmtest.OK(answer(t, "security", []finding.Finding{
				f(title, finding.P0, tt.path, tt.line, 100, quoting(tt.lines[tt.line-1])),
			}, nil, nil)))
			res, _, err := e.rv.ReviewPR(context.Background(), options())
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if n := len(e.model.RequestsFor("security")); n != 1 {
				t.Fatalf("security asked %d times; want once", n)
			}
			if len(res.Findings) != 1 || res.Findings[0].Title != title || res.Verdict != review.NotReady {
				t.Errorf("findings %+v, verdict %s; want the P0 posted and the review not ready", res.Findings, res.Verdict)
			}
		})
	}
}

// authHandler is the new auth/handler.go of the folding attacks: two
// header bypasses, a debug one (line 4) and a test-mode one (line 7).
var authHandler = []string{
	"package auth",
	"",
	"func authenticate(r *http.Request) bool {",
	`	if r.Header.Get("X-Debug") == "1" {`,
	"		return true",
	"	}",
	`	if r.Header.Get("X-Test-Mode") == "1" {`,
	"		return true",
	"	}",
	`	return checkToken(r.Header.Get("Authorization"))`,
	"}",
}

// TestFoldedGapValidatedWhenItsHostFalls: a P0 test gap folds into a P0
// defect two lines away; the validator refutes the defect, cannot judge
// it, or confirms it lowered to P3. The gap is validated on its own and
// posted as the P0 it is, and the review blocks. Before, it went with its
// host: never validated, never posted, and the check green.
func TestFoldedGapValidatedWhenItsHostFalls(t *testing.T) {
	t.Parallel()
	lines := authHandler
	host := "Authentication bypass through a debug header"
	gap := "No test for the authentication bypass through the X-Test-Mode header"
	tests := []struct {
		verdict  string // the validator's on the host
		hostSev  finding.Severity
		hostPost bool
	}{
		{"false: The debug header is stripped by the proxy.", "", false},
		{"lower: P3", finding.P3, true},
		{"malformed", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.verdict, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.addPR(t, addedFile("auth/handler.go", lines), nil)
			e.model.Script("security", llmtest.OK(answer(t, "security", []finding.Finding{
				f(host, finding.P0, "auth/handler.go", 4, 100, quoting(lines[3]), func(x *finding.Finding) {
					x.WhyItMatters = "A request with the X-Debug header skips the authentication token check: an authentication bypass."
				}),
			}, nil, nil)))
			e.model.Script("testing", llmtest.OK(answer(t, "testing", []finding.Finding{
				f(gap, finding.P0, "auth/handler.go", 7, 100, quoting(lines[6]), func(x *finding.Finding) {
					x.WhyItMatters = "Nothing tests that a request with the X-Test-Mode header still needs a token: the authentication bypass ships."
				}),
			}, nil, nil)))
			e.verdicts.set(host, tt.verdict)
			o := options()
			var unfolded bool
			o.Logf = func(format string, args ...any) {
				if strings.Contains(fmt.Sprintf(format, args...), "folded into auth/handler.go:4") {
					unfolded = true
				}
			}
			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if !unfolded {
				t.Fatal("the gap did not fold into the host and come out again: this test shows nothing")
			}
			if n := res.Coverage.DroppedByReason["folded test gap"]; n != 0 {
				t.Errorf("%d counted as folded; an unfolded gap is a finding of its own", n)
			}
			var got []string
			for _, x := range res.Findings {
				got = append(got, string(x.Severity)+" "+x.Title)
				if x.Title == host && x.TestGap != nil {
					t.Errorf("the lowered host still carries the gap's line %q", x.TestGap.Title)
				}
			}
			want := []string{"P0 " + gap}
			if tt.hostPost {
				want = append(want, string(tt.hostSev)+" "+host)
			}
			if !slices.Equal(got, want) || res.Verdict != review.NotReady {
				t.Errorf("posted %q, verdict %s; want %q and not ready", got, res.Verdict, want)
			}
			if n := len(validatorRequestsFor(e, gap)); n != 1 {
				t.Errorf("the gap was validated %d times; want once, on its own", n)
			}
		})
	}
}

func validatorRequestsFor(e *env, title string) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range e.model.Requests() {
		if r.Persona == llm.Validator && validatorTitle(r.Messages) == title {
			out = append(out, r)
		}
	}
	return out
}

// TestDefectWordedLikeATestGap: issue 30's literal fold attack. A P0 whose
// title says "test" or "cover" ("X-Test-Mode header skips authentication",
// a path traversal in the "cover image" upload) sits two lines from a P0
// about the same code that the validator refutes. Before, the P0 counted as
// a test gap by its words, folded into the host and went with it; now it is
// a defect, validated and posted on its own, and the review blocks.
func TestDefectWordedLikeATestGap(t *testing.T) {
	t.Parallel()
	lines := authHandler
	host := "Authentication header check returns before the token check"
	for _, p0 := range []string{"X-Test-Mode header skips authentication", "Authentication cover header X-Test-Mode skips the token check"} {
		t.Run(p0, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.addPR(t, addedFile("auth/handler.go", lines), nil)
			e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
				f(host, finding.P0, "auth/handler.go", 5, 100, quoting(lines[4]), func(x *finding.Finding) {
					x.WhyItMatters = "The authentication header check returns true before the token check runs."
				}),
			}, nil, nil)))
			e.model.Script("security", llmtest.OK(answer(t, "security", []finding.Finding{
				f(p0, finding.P0, "auth/handler.go", 7, 100, quoting(lines[6]), func(x *finding.Finding) {
					x.WhyItMatters = "Any caller that sends the X-Test-Mode header skips the authentication token check."
				}),
			}, nil, nil)))
			e.verdicts.set(host, "false: The debug branch is compiled out in production.")
			res, _, err := e.rv.ReviewPR(context.Background(), options())
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if len(res.Findings) != 1 || res.Findings[0].Title != p0 || res.Findings[0].Severity != finding.P0 || res.Verdict != review.NotReady {
				t.Errorf("posted %+v, verdict %s; want the P0 %q alone and the review not ready", res.Findings, res.Verdict, p0)
			}
			if n := res.Coverage.DroppedByReason["folded test gap"]; n != 0 {
				t.Errorf("%d folded; a defect is no test gap", n)
			}
		})
	}
}
