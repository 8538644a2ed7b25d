package inline_test

import (
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/inline"
)

// Example plans the review of one finding with a one-line suggestion.
func Example() {
	d, _ := diff.Parse([]byte("diff --git a/app.go b/app.go\n--- a/app.go\n+++ b/app.go\n@@ -1,2 +1,2 @@\n package app\n-var limit = 10\n+var limit = -1\n"))
	f := finding.Finding{
		Number: 1, Title: "Negative limit disables paging", Severity: finding.P1, File: "app.go", Line: 2,
		WhyItMatters: "Every request reads the whole table.", Confidence: 100, Reviewers: []string{"correctness"},
		Suggestion: &finding.Suggestion{StartLine: 2, EndLine: 2, Replacement: "var limit = 10"},
	}
	p := inline.Build(inline.Input{Findings: []finding.Finding{f}, Files: d.Files, HeadSHA: "abc1234", BotLogin: "github-actions[bot]", Complete: true})
	c := p.Comments[0]
	fmt.Println(c.Path, c.Line, c.Side, c.Suggestion)
	fmt.Print(c.Body)
	// Output:
	// app.go 2 RIGHT true
	// <!-- anchor-review:inline fp=8da70c5237c99fbd -->
	// **P1 · Negative limit disables paging** · anchor 100 · correctness
	//
	// Every request reads the whole table.
	//
	// ```suggestion
	// var limit = 10
	// ```
	//
	// <sub>anchor-review · finding 1 of the report comment · id `6724f5` · to dismiss it with a reason, reply `/anchor-review dismiss <reason>`</sub>
}
