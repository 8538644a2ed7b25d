package review_test

import (
	"context"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
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
