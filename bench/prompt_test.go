package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// promptShape is how much of one run's persona prompts a provider's prefix
// cache can reuse.
type promptShape struct {
	calls int
	// totalBytes is the prompt text of every persona call; sharedBytes the
	// part of it each call has in common, from the first byte, with some
	// other persona call of the run (the cacheable prefix).
	totalBytes, sharedBytes int
}

// share is the cacheable fraction of the prompt bytes.
func (s promptShape) share() float64 { return float64(s.sharedBytes) / float64(s.totalBytes) }

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// shapeOf measures the persona requests (validator calls excluded) the
// fake model server received.
func shapeOf(reqs []llmtest.Request) promptShape {
	var texts []string
	for _, r := range reqs {
		if r.Persona != llm.Validator {
			texts = append(texts, llmtest.PromptText(r.Messages))
		}
	}
	s := promptShape{calls: len(texts)}
	for i, t := range texts {
		best := 0
		for j, u := range texts {
			if i != j {
				best = max(best, commonPrefix(t, u))
			}
		}
		s.totalBytes += len(t)
		s.sharedBytes += best
	}
	return s
}

// shapeRun reviews a generated diff of lines changed lines in files files
// through the real model client against the fake model server (empty
// answers) and measures the prompts it sent.
func shapeRun(tb testing.TB, team []persona.Persona, files, lines int) promptShape {
	tb.Helper()
	d, err := diff.Parse([]byte(genDiff(files, lines)))
	if err != nil {
		tb.Fatal(err)
	}
	srv := llmtest.New()
	defer srv.Close()
	rv := review.Reviewer{Model: newModel(tb, srv), Personas: team}
	_, err = rv.ReviewDiff(context.Background(), review.Options{Owner: owner, Repo: repo, Model: "gpt-4.1-mini", Validate: true, MaxValidations: -1},
		d, "Batch the store writes", "Moves every service onto the batch store.", nil)
	if err != nil {
		tb.Fatalf("ReviewDiff: %v", err)
	}
	s := shapeOf(srv.Requests())
	if s.calls == 0 {
		tb.Fatal("no persona calls")
	}
	return s
}

// BenchmarkPromptShape reviews generated diffs of 50, 500 and 5,000 changed
// lines and reports, over the persona calls of one run: shared-share (the
// share of prompt bytes in a prefix shared with another persona call, what
// provider prompt caching can reuse), shared-tok and call-tok (estimated
// tokens per call of that prefix and of the whole prompt, by
// prompt.EstimateTokens), and calls.
func BenchmarkPromptShape(b *testing.B) {
	team, err := fullTeam()
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []struct{ files, lines int }{{2, 50}, {10, 500}, {100, 5000}} {
		b.Run(fmt.Sprintf("lines=%d", size.lines), func(b *testing.B) {
			var s promptShape
			for b.Loop() {
				s = shapeRun(b, team, size.files, size.lines)
			}
			b.ReportMetric(s.share(), "shared-share")
			b.ReportMetric(float64(prompt.EstimateTokens(strings.Repeat(" ", s.sharedBytes/s.calls))), "shared-tok")
			b.ReportMetric(float64(prompt.EstimateTokens(strings.Repeat(" ", s.totalBytes/s.calls))), "call-tok")
			b.ReportMetric(float64(s.calls), "calls")
		})
	}
}
