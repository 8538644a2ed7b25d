package report

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/pricing"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// pricedResult is a review by one persona on model, the validator on
// validatorModel.
func pricedResult(model, validatorModel string) review.Result {
	return review.Result{
		Repo: "octo/widgets", HeadSHA: headSHA, Verdict: review.Ready,
		Coverage: review.Coverage{
			Personas: []review.PersonaRun{{Name: "correctness", Reason: "always on", Model: model, Calls: 2,
				Usage: review.Usage{Calls: 2, PromptTokens: 1_000_000, CachedTokens: 600_000, CompletionTokens: 10_000}}},
			ValidatorRan: true, ValidatorModel: validatorModel,
			Usage: review.Usage{Calls: 3, PromptTokens: 1_100_000, CachedTokens: 600_000, CompletionTokens: 20_000},
		},
	}
}

func TestCoverageShowsTheEstimatedCost(t *testing.T) {
	// gpt-4.1-mini at 0.40/0.10/1.60: persona 0.16+0.06+0.016, validator 0.04+0.016.
	body := JobSummary(pricedResult("gpt-4.1-mini", "gpt-4.1-mini"), Options{})
	if !strings.Contains(body, "**Estimated cost:** $0.292: gpt-4.1-mini at $0.40 input, $0.10 cached input, $1.60 output per million tokens (the built-in list prices of 2025-08-07).") {
		t.Errorf("job summary lacks the cost:\n%s", body)
	}
}

func TestUnknownPriceShowsTokensOnly(t *testing.T) {
	body := Comment(pricedResult("llama3.1:8b", "llama3.1:8b"), Options{})
	if !strings.Contains(body, "**Tokens:** 1,100,000 prompt") || !strings.Contains(body, "not shown: no price is known for llama3.1:8b (set the `pricing` input)") {
		t.Errorf("an unpriced model: want tokens and no cost:\n%s", body)
	}
	if regexp.MustCompile(`\$[0-9]`).MatchString(body) {
		t.Errorf("an unpriced review shows an amount:\n%s", body)
	}
	m, err := marker.ParseReport(body)
	if err != nil {
		t.Fatal(err)
	}
	if u := m.Usage[0]; u.Cost != 0 || u.Unpriced != 1 || u.PromptTokens != 1_000_000 {
		t.Errorf("meta usage %+v; want tokens counted, no cost, one unpriced review", u)
	}
}

// TestMetaRunningTotals: a re-review adds its usage to the earlier
// report's, counts only findings it is the first to post, and records an
// earlier finding it no longer finds after a push as acted on.
func TestMetaRunningTotals(t *testing.T) {
	first := pricedResult("gpt-4.1-mini", "gpt-4.1-mini")
	fixed := fnd(finding.P1, 100, "a.go", 3, "Loop reads past n", "correctness")
	kept := fnd(finding.P2, 75, "a.go", 9, "Mean divides by zero", "correctness")
	first.Findings = []finding.Finding{fixed, kept}
	prev, err := marker.ParseReport(Comment(first, Options{Inline: &InlineStatus{Fingerprints: map[int]string{0: "00000000000000aa"}}}))
	if err != nil {
		t.Fatal(err)
	}
	if prev.Reviews != 1 || prev.Usage[0].Posted != 2 || prev.Findings[0].Inline != "00000000000000aa" {
		t.Fatalf("first meta %+v", prev)
	}

	second := pricedResult("gpt-4.1-mini", "gpt-4.1-mini")
	second.HeadSHA = strings.Repeat("e", 40)
	carried := kept
	carried.FoundOn = headSHA
	fresh := fnd(finding.P2, 75, "b.go", 1, "New problem", "security")
	second.Findings = []finding.Finding{carried, fresh}
	second.Rereview = &review.Rereview{Incremental: true, From: headSHA, To: second.HeadSHA, Heads: []string{headSHA, second.HeadSHA}, Previous: &prev}
	m, err := marker.ParseReport(Comment(second, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]marker.Usage{}
	for _, u := range m.Usage {
		byName[u.Name] = u
	}
	c := byName["correctness"]
	if m.Reviews != 2 || c.Reviews != 2 || c.Calls != 4 || c.PromptTokens != 2_000_000 || c.Posted != 2 || c.ActedOn != 1 {
		t.Errorf("correctness %+v, reviews %d; want two reviews' totals, 2 posted, 1 acted on", c, m.Reviews)
	}
	if c.Cost < 0.47 || c.Cost > 0.48 {
		t.Errorf("correctness cost %v; want twice 0.236", c.Cost)
	}
	if s := byName["security"]; s.Posted != 1 || s.Reviews != 0 {
		t.Errorf("security %+v; want 1 posted (it made no call)", s)
	}
	if v := m.ValidatorUsage; v == nil || v.Reviews != 2 || v.Calls != 2 {
		t.Errorf("validator %+v; want two reviews of one call", v)
	}
	if len(m.Resolved) != 1 || m.Resolved[0].Fingerprint != prev.Findings[0].Fingerprint || m.Resolved[0].Head != second.HeadSHA ||
		m.Resolved[0].Commit != headSHA || m.Resolved[0].Inline != prev.Findings[0].Inline {
		t.Errorf("resolved %+v; want the loop finding, gone at the second head", m.Resolved)
	}

	// A whole-PR re-review decides nothing about what a push fixed.
	second.Rereview.Incremental = false
	m, _ = marker.ParseReport(Comment(second, Options{}))
	if len(m.Resolved) != 0 {
		t.Errorf("a whole-PR re-review recorded %+v as resolved", m.Resolved)
	}
}

// TestTrimmedTotalsReadAsNotRecorded: when the comment is too long for
// the running totals, they go before the findings' record, and the review
// count goes with them: a report that keeps a count of reviews but no
// usage would read as reviews that cost nothing, and the next run would
// add its usage to a count its totals do not cover.
func TestTrimmedTotalsReadAsNotRecorded(t *testing.T) {
	res := pricedResult("gpt-4.1-mini", "gpt-4.1-mini")
	res.Verdict = review.NotReady
	for i := range 12 {
		res.Findings = append(res.Findings, finding.Finding{Number: i + 1, Title: strings.Repeat("Loop reads past n ", 5), Severity: finding.P1,
			File: "internal/calc/sum.go", Line: 10 + i, Confidence: 100, Reviewers: []string{"correctness"},
			WhyItMatters: strings.Repeat("the last element is read twice ", 10)})
	}
	trimmed := 0
	for max := 600; max <= 8000; max += 100 {
		m, err := marker.ParseReport(Comment(res, Options{MaxLen: max}))
		if err != nil || m.Usage != nil || m.ValidatorUsage != nil {
			continue
		}
		trimmed++
		if m.Reviews != 0 || m.Resolved != nil {
			t.Errorf("MaxLen %d: totals trimmed but reviews %d and %d resolved kept", max, m.Reviews, len(m.Resolved))
		}
	}
	if trimmed == 0 {
		t.Fatal("no length trimmed the totals; the test shows nothing")
	}
}

// TestEstimateCost: the report JSON's and the cost output's figure is the
// one Coverage shows; it is empty when a model called has no price or no
// usage was reported, and 0 for a run that made no call.
func TestEstimateCost(t *testing.T) {
	t.Parallel()
	noUsage := pricedResult("gpt-4.1-mini", "gpt-4.1-mini")
	noUsage.Coverage.Personas[0].Usage = review.Usage{Calls: 2}
	noUsage.Coverage.Usage = review.Usage{Calls: 3}
	tests := []struct {
		name     string
		r        review.Result
		output   string
		complete bool
		usd      bool // USD set
		unpriced []string
	}{
		{"priced", pricedResult("gpt-4.1-mini", "gpt-4.1-mini"), "0.292", true, true, nil},
		{"validator unpriced", pricedResult("gpt-4.1-mini", "llama3.1:8b"), "", false, true, []string{"llama3.1:8b"}},
		{"nothing priced", pricedResult("llama3.1:8b", "llama3.1:8b"), "", false, true, []string{"llama3.1:8b"}},
		{"no usage reported", noUsage, "", true, false, nil},
		{"no call (a skip)", review.Result{Skipped: true, SkipRule: 4}, "0", true, true, nil},
	}
	for _, tt := range tests {
		e := EstimateCost(tt.r, pricing.Table{})
		if got := e.Output(); got != tt.output {
			t.Errorf("%s: output %q; want %q", tt.name, got, tt.output)
		}
		if e.Complete != tt.complete || (e.USD != nil) != tt.usd || !slices.Equal(e.Unpriced, tt.unpriced) {
			t.Errorf("%s: %+v; want complete %t, usd set %t, unpriced %q", tt.name, e, tt.complete, tt.usd, tt.unpriced)
		}
		if tt.output != "" && tt.output != "0" {
			if body := JobSummary(tt.r, Options{}); !strings.Contains(body, "**Estimated cost:** $"+tt.output+":") {
				t.Errorf("%s: Coverage does not show $%s:\n%s", tt.name, tt.output, body)
			}
		}
	}
	if e := EstimateCost(pricedResult("gpt-4.1-mini", "gpt-4.1-mini"), pricing.Table{}); e.Calls != 3 || e.PromptTokens != 1_100_000 {
		t.Errorf("the estimate prices %d calls, %d prompt tokens; want the run's 3, 1,100,000", e.Calls, e.PromptTokens)
	}
}
