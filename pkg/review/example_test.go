package review_test

import (
	"context"
	"fmt"
	"log"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/prompts"
)

// ExampleReviewer_ReviewPR reviews a one-file pull request against the
// in-process fakes of GitHub and of the model: the correctness persona
// reports one bug, the validator confirms it, and the Result holds it.
func ExampleReviewer_ReviewPR() {
	gh := githubtest.New()
	defer gh.Close()
	gh.AddPR(githubtest.PR{Number: 1, Title: "Add Clamp", Body: "Clamps x to [lo, hi].", HeadSHA: "h1", BaseSHA: "b1"})
	gh.SetDiff(1, "diff --git a/mathx/clamp.go b/mathx/clamp.go\nnew file mode 100644\n--- /dev/null\n+++ b/mathx/clamp.go\n"+
		"@@ -0,0 +1,9 @@\n+package mathx\n+\n+// Clamp limits x to [lo, hi].\n+func Clamp(x, lo, hi int) int {\n+\tif x < lo {\n+\t\treturn hi\n+\t}\n+\treturn min(x, hi)\n+}\n")
	gh.SetContent("h1", "mathx/clamp.go", "package mathx\n\n// Clamp limits x to [lo, hi].\nfunc Clamp(x, lo, hi int) int {\n\tif x < lo {\n\t\treturn hi\n\t}\n\treturn min(x, hi)\n}\n")

	model := llmtest.New()
	defer model.Close()
	model.Script("correctness", llmtest.OK(`{"reviewer":"correctness","residual_risks":[],"testing_gaps":[],"findings":[{`+
		`"title":"Clamp returns hi for values below lo","severity":"P1","file":"mathx/clamp.go","line":6,`+
		`"why_it_matters":"Clamp(-5, 0, 10) returns 10 instead of 0.","autofix_class":"safe_auto","owner":"review-fixer",`+
		`"requires_verification":false,"confidence":100,"evidence":["return hi"],"pre_existing":false}]}`))
	model.Script(llm.Validator, llmtest.OK(`{"validated":true,"reason":"Line 6 returns hi where lo is meant."}`))

	ghc, err := github.New(gh.HTTPClient(), gh.URL+"/", "token")
	if err != nil {
		log.Fatal(err)
	}
	mc, err := llm.New(llm.Config{BaseURL: model.URL, APIKey: "key", Schemas: prompts.Schemas()})
	if err != nil {
		log.Fatal(err)
	}
	all, err := persona.Load()
	if err != nil {
		log.Fatal(err)
	}
	rv := review.Reviewer{GitHub: ghc, Model: mc, Personas: all}
	res, _, err := rv.ReviewPR(context.Background(), review.Options{
		Owner: "octo", Repo: "mathx", PR: 1, Validate: true, Model: "gpt-4.1-mini", MaxValidations: -1,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range res.Coverage.Personas {
		fmt.Printf("persona %s: %s\n", p.Name, p.Reason)
	}
	for _, f := range res.Findings {
		fmt.Printf("%d. [%s] %s (%s:%d, anchor %d)\n", f.Number, f.Severity, f.Title, f.File, f.Line, f.Confidence)
	}
	fmt.Println("verdict:", res.Verdict)
	// Output:
	// persona correctness: always on
	// persona security: code that can run changed in mathx/clamp.go
	// persona api-contract: exported Go signature Clamp changed in mathx/clamp.go
	// persona go: Go code in mathx/clamp.go
	// 1. [P1] Clamp returns hi for values below lo (mathx/clamp.go:6, anchor 100)
	// verdict: not-ready
}
