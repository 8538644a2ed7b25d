package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
)

// benchInput is a large review: 200 files of 300 changed lines, 10 personas,
// 10,000 findings that often collide.
func benchInput() Input {
	r := rand.New(rand.NewPCG(7, 8))
	var in Input
	for i := range 200 {
		lines := make([]string, 300)
		for j := range lines {
			lines[j] = fmt.Sprintf("+\tv%d := call(%d)", j, j)
			if j%50 == 0 {
				lines[j] += " //nolint:errcheck"
			}
		}
		in.Files = append(in.Files, modified(fmt.Sprintf("pkg/p%d/f.go", i), 1, lines...))
	}
	personas := []string{"correctness", "testing", "maintainability", "security", "performance",
		"reliability", "api-contract", "adversarial", "data-migrations", "project-standards"}
	for _, p := range personas {
		pr := PersonaResult{Persona: p}
		for range 1000 {
			pr.Answer.Findings = append(pr.Answer.Findings, finding.Finding{
				Title:        fmt.Sprintf("Problem %d", r.IntN(20)),
				Severity:     finding.Severity(fmt.Sprintf("P%d", r.IntN(4))),
				File:         fmt.Sprintf("pkg/p%d/f.go", r.IntN(200)),
				Line:         r.IntN(300) + 1,
				WhyItMatters: "it breaks",
				AutofixClass: finding.AutofixClasses()[r.IntN(4)],
				Owner:        finding.Owners()[r.IntN(4)],
				Confidence:   finding.Anchors()[r.IntN(5)],
				Evidence:     []string{"quoted code"},
			})
		}
		in.Results = append(in.Results, pr)
	}
	in.Mode = ModeComment
	return in
}

func BenchmarkSynthesize10k(b *testing.B) {
	in := benchInput()
	if n := inputCount(in); n != 10000 {
		b.Fatalf("got %d findings; want 10000", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		Synthesize(in)
	}
}

// BenchmarkSynthesize10kQuoted is BenchmarkSynthesize10k with every file's
// head version in Heads and every finding quoting a line of it off by one:
// the cost of anchoring (search, snap) and of similarity dedupe on quotes.
func BenchmarkSynthesize10kQuoted(b *testing.B) {
	in := benchInput()
	in.Heads = map[string]string{}
	for _, f := range in.Files {
		var head strings.Builder
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				head.WriteString(l.Text + "\n")
			}
		}
		in.Heads[f.Path()] = head.String()
	}
	for i := range in.Results {
		for j := range in.Results[i].Answer.Findings {
			f := &in.Results[i].Answer.Findings[j]
			f.Evidence = []string{fmt.Sprintf("%s:%d: v%d := call(%d)", f.File, f.Line, f.Line-1, f.Line-1)}
			f.Line++
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		Synthesize(in)
	}
}
