package inline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
)

// BenchmarkBuild plans the review of a 3,000-file, ~100k-line PR with 200
// posted findings (30 go on lines) against 300 earlier comments of ours,
// the largest input a run can give it.
func BenchmarkBuild(b *testing.B) {
	var text strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&text, "diff --git a/f%d.go b/f%d.go\n--- a/f%d.go\n+++ b/f%d.go\n@@ -1,1 +1,33 @@\n package p\n", i, i, i, i)
		for j := range 32 {
			fmt.Fprintf(&text, "+var v%d = %d\n", j, i)
		}
	}
	d, err := diff.Parse([]byte(text.String()))
	if err != nil {
		b.Fatal(err)
	}
	var fs []finding.Finding
	for i := range 200 {
		fs = append(fs, finding.Finding{
			Number: i + 1, Title: fmt.Sprintf("Problem %d", i), Severity: finding.P1, File: fmt.Sprintf("f%d.go", i*15), Line: 2 + i%30,
			WhyItMatters: "It breaks.", Confidence: 100, Reviewers: []string{"correctness"},
			Suggestion: &finding.Suggestion{StartLine: 2 + i%30, EndLine: 3 + i%30, Replacement: "var fixed = 1"},
		})
	}
	var existing []github.Comment
	for i := range 300 {
		existing = append(existing, github.Comment{ID: int64(i + 1), Author: "github-actions[bot]", Body: FormatMarker(Marker{Fingerprint: fmt.Sprintf("%016x", i)}) + "\nold"})
	}
	in := Input{Findings: fs, Files: d.Files, HeadSHA: strings.Repeat("a", 40), BotLogin: "github-actions[bot]", Existing: existing, Complete: true}
	b.ReportAllocs()
	for b.Loop() {
		p := Build(in)
		if len(p.Comments) != MaxComments || len(p.Resolve) != 300 {
			b.Fatalf("%d comments, %d resolved", len(p.Comments), len(p.Resolve))
		}
	}
}
