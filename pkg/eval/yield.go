package eval

import (
	"bufio"
	"fmt"
	"slices"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// Yield is what one persona contributed to the whole pipeline over the
// cases it ran on: its calls and tokens (offline, estimated from the
// request and the recorded answer: a recording holds no usage), the
// findings of its that passed synthesis's gate, that the validator
// confirmed, that were posted, that were posted with no other persona
// behind them, and its test gaps folded into another finding's line.
type Yield struct {
	Persona     string `json:"persona"`
	Cases       int    `json:"cases"`
	Calls       int    `json:"calls"`
	Tokens      int    `json:"tokens"`
	Gated       int    `json:"gated"`
	Validated   int    `json:"validated"`
	Posted      int    `json:"posted"`
	PostedAlone int    `json:"posted_alone"`
	Folded      int    `json:"folded"`
}

func (y *Yield) add(o Yield) {
	y.Cases += o.Cases
	y.Calls += o.Calls
	y.Tokens += o.Tokens
	y.Gated += o.Gated
	y.Validated += o.Validated
	y.Posted += o.Posted
	y.PostedAlone += o.PostedAlone
	y.Folded += o.Folded
}

// yieldOf is the per-persona yield of one review, in team order.
func yieldOf(res review.Result) []Yield {
	var out []Yield
	for _, p := range res.Coverage.Personas {
		y := Yield{Persona: p.Name, Cases: 1, Calls: p.Calls, Tokens: p.Usage.PromptTokens + p.Usage.CompletionTokens}
		for _, f := range res.Findings {
			if !slices.Contains(f.Reviewers, p.Name) {
				continue
			}
			y.Gated++
			if f.Validation != nil && f.Validation.Validated {
				y.Validated++
			}
			y.Posted++
			if len(f.Reviewers) == 1 {
				y.PostedAlone++
			}
		}
		for _, rj := range slices.Concat(res.Coverage.Rejections, res.Coverage.OverBudget) {
			if slices.Contains(rj.Reviewers, p.Name) {
				y.Gated++
			}
		}
		for _, f := range allFindings(res) {
			if f.TestGap != nil && slices.Contains(f.TestGap.Reviewers, p.Name) {
				y.Folded++
			}
		}
		out = append(out, y)
	}
	return out
}

// allFindings is every finding the review kept after synthesis: posted,
// below the bar, and (report-only) demoted.
func allFindings(res review.Result) []finding.Finding {
	return slices.Concat(res.Findings, res.BelowBar)
}

// sumYield sums per-case yields by persona, in SPEC order.
func sumYield(rs []CaseResult) []Yield {
	by := map[string]*Yield{}
	var names []string
	for _, r := range rs {
		for _, y := range r.Yield {
			if by[y.Persona] == nil {
				by[y.Persona] = &Yield{Persona: y.Persona}
				names = append(names, y.Persona)
			}
			by[y.Persona].add(y)
		}
	}
	sortPersonas(names)
	out := make([]Yield, 0, len(names))
	for _, n := range names {
		out = append(out, *by[n])
	}
	return out
}

// writeYield prints the per-persona yield table of the whole pipeline.
func writeYield(bw *bufio.Writer, r Report) {
	ys := r.Pipeline.Yield
	if len(ys) == 0 {
		return
	}
	fmt.Fprintln(bw)
	const tokens = "tokens~" // estimated where an answer is replayed
	fmt.Fprintf(bw, "per-persona yield in the whole pipeline (answers: %s)\n", r.SourceLabel())
	fmt.Fprintf(bw, "%-16s %5s %5s %8s %6s %9s %6s %12s %6s\n", "persona", "cases", "calls", tokens, "gated", "validated", "posted", "posted alone", "folded")
	var all Yield
	for _, y := range ys {
		fmt.Fprintf(bw, "%-16s %5d %5d %8d %6d %9d %6d %12d %6d\n", y.Persona, y.Cases, y.Calls, y.Tokens, y.Gated, y.Validated, y.Posted, y.PostedAlone, y.Folded)
		all.add(y)
	}
	fmt.Fprintf(bw, "%-16s %5s %5d %8d %6s %9s %6s %12d %6d\n", "all", "-", all.Calls, all.Tokens, "-", "-", "-", all.PostedAlone, all.Folded)
	fmt.Fprintln(bw, "tokens~: prompt and answer tokens; where an answer is replayed (recorded, or reused from the per-persona pass) estimated from the request's text and the answer, since a replay carries no usage")
}
