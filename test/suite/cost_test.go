package suite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCostOutput: the cost step output is the figure the report's Coverage
// shows, and the report JSON carries it with the tokens it prices.
func TestCostOutput(t *testing.T) {
	t.Parallel()
	w := newWorld(t)

	o := w.run()

	wantCode(t, o, 1)
	cost := o.outputs["cost"]
	if cost == "" || cost == "0" {
		t.Fatalf("cost output %q; want the review's estimated cost", cost)
	}
	if body := oneComment(t, w); !strings.Contains(body, "**Estimated cost:** $"+cost+":") {
		t.Errorf("Coverage does not show the cost output's figure $%s:\n%s", cost, body)
	}
	b, err := os.ReadFile(filepath.Join(w.dir, o.outputs["report-path"]))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Cost *struct {
			USD          *float64 `json:"usd"`
			Complete     bool     `json:"complete"`
			Calls        int      `json:"calls"`
			PromptTokens int      `json:"prompt_tokens"`
		} `json:"cost"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if c := rep.Cost; c == nil || c.USD == nil || !c.Complete || c.Calls != len(w.model.Requests()) || c.PromptTokens == 0 {
		t.Errorf("report JSON cost %+v; want a complete figure over the run's %d calls", c, len(w.model.Requests()))
	}
}

// TestRule4OutputsTheCarriedReport: a second run on the same head skips
// (rule 4) and carries the first report: its verdict, its conclusion and
// its count of findings, never a findings=0 beside a carried not-ready;
// this run's own cost is 0 (no model call).
func TestRule4OutputsTheCarriedReport(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	first := w.run()
	wantCode(t, first, 1)
	if first.outputs["findings"] == "0" || first.outputs["verdict"] != "not-ready" {
		t.Fatalf("first run: findings %q, verdict %q; want findings and not-ready", first.outputs["findings"], first.outputs["verdict"])
	}
	calls := len(w.model.Requests())
	if err := os.WriteFile(w.env["GITHUB_OUTPUT"], nil, 0o644); err != nil {
		t.Fatal(err)
	}

	again := w.run()

	if len(w.model.Requests()) != calls {
		t.Errorf("the rule-4 run called the model")
	}
	want := map[string]string{"skipped": "true", "verdict": "not-ready", "findings": first.outputs["findings"], "conclusion": "failure", "cost": "0"}
	for k, v := range want {
		if again.outputs[k] != v {
			t.Errorf("rule-4 output %s = %q; want %q", k, again.outputs[k], v)
		}
	}
}
