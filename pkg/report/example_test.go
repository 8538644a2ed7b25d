package report_test

import (
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
)

func ExampleComment() {
	r := review.Result{
		Repo:    "octo/widgets",
		PR:      7,
		HeadSHA: "0123456789abcdef0123456789abcdef01234567",
		Mode:    "comment",
		Findings: []finding.Finding{{
			Title:        "Error from Close is dropped",
			Severity:     finding.P1,
			File:         "store/file.go",
			Line:         31,
			WhyItMatters: "A failed flush loses writes silently; ping @octocat.",
			Confidence:   100,
			Reviewers:    []string{"correctness", "reliability"},
			Number:       1,
			Promoted:     true,
		}},
		Coverage: review.Coverage{
			Personas: []review.PersonaRun{
				{Name: "correctness", Reason: "always on", Model: "gpt-4.1-mini", Calls: 1, Findings: 1,
					Usage: review.Usage{Calls: 1, PromptTokens: 2000, CachedTokens: 1024, CompletionTokens: 120}},
				{Name: "reliability", Reason: "error handling in store/file.go", Model: "gpt-4.1-mini", Calls: 1, Findings: 1,
					Usage: review.Usage{Calls: 1, PromptTokens: 2100, CachedTokens: 2048, CompletionTokens: 110}},
			},
			ValidatorRan:   true,
			ValidatorModel: "gpt-4.1-mini",
			Validated:      1,
			Usage:          review.Usage{Calls: 3, PromptTokens: 5200, CachedTokens: 4096, CompletionTokens: 310},
		},
		Verdict: review.NotReady,
	}
	conclusion, blocking := report.Conclusion(r, "P1")
	fmt.Println(conclusion, blocking)
	fmt.Print(report.Comment(r, report.Options{}))
	// Output:
	// failure 1
	// <!-- anchor-review:report -->
	// <!-- anchor-review:meta {"version":2,"head_sha":"0123456789abcdef0123456789abcdef01234567","verdict":"not-ready","conclusion":"failure","blocking":1,"heads":["0123456789abcdef0123456789abcdef01234567"],"findings":[{"file":"store/file.go","line":31,"severity":"P1","anchor":100,"fingerprint":"ad771aa4680af6df","id":"ad771a","title":"Error from Close is dropped","reviewer":"correctness","commit":"0123456789abcdef0123456789abcdef01234567","why":"A failed flush loses writes silently; ping \u0040​octocat."}],"reviews":1,"usage":[{"name":"correctness","reviews":1,"calls":1,"prompt_tokens":2000,"cached_tokens":1024,"completion_tokens":120,"cost":0.000685,"posted":1},{"name":"reliability","reviews":1,"calls":1,"prompt_tokens":2100,"cached_tokens":2048,"completion_tokens":110,"cost":0.000402}],"validator_usage":{"reviews":1,"calls":1,"prompt_tokens":1100,"cached_tokens":1024,"completion_tokens":80,"cost":0.000261}} -->
	// ## anchor-review: 1 finding
	//
	// **Team:** correctness (always on); reliability (error handling in store/file.go).
	//
	// ### P1: defects normal use will hit
	//
	// | # | File | Issue | Reviewer | Confidence |
	// |---|---|---|---|---|
	// | 1 | [`store/file.go:31`](https://github.com/octo/widgets/blob/0123456789abcdef0123456789abcdef01234567/store/file.go#L30-L32) | `ad771a` **Error from Close is dropped**<br>A failed flush loses writes silently; ping @​octocat. | correctness, reliability | 100 (promoted) |
	//
	// <details><summary>Coverage</summary>
	//
	// **Personas:** 2 personas ran.
	//
	// - correctness: always on · model gpt-4.1-mini · 1 call · 1 finding
	// - reliability: error handling in store/file.go · model gpt-4.1-mini · 1 call · 1 finding
	//
	// **Gate (anchor 75):** none dropped.
	//
	// **Synthesis drops:** none dropped.
	//
	// **Demotions:** none.
	//
	// **Validator:** ran; 1 validated, 0 rejected or failed.
	//
	// **Not reviewed:** none.
	//
	// **Tokens:** 5,200 prompt (4,096 cached), 310 completion, 3 calls.
	//
	// **Estimated cost:** $0.0013: gpt-4.1-mini at $0.40 input, $0.10 cached input, $1.60 output per million tokens (the built-in list prices of 2025-08-07).
	//
	// </details>
	//
	// **Verdict: Not ready**
}
