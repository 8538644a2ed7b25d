package skip_test

import (
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

func Example() {
	pr := skip.PR{State: "open", Title: "Fix CRLF handling", Body: "Fixes #12."}
	comments := []skip.Comment{
		{Author: "mallory", Body: marker.Report + "\n(a copied marker does not count)"},
		{Author: "github-actions[bot]", Body: marker.Report + "\n" +
			marker.FormatMeta(marker.Meta{HeadSHA: "0123456789abcdef0123456789abcdef01234567", Verdict: "not-ready", Conclusion: "failure", Blocking: 1})},
	}

	d := skip.Decide(pr, comments, "github-actions[bot]", false)
	fmt.Println(d.Skip, d.Rule, d.Carried.Conclusion)

	// A workflow_dispatch rerun reviews again.
	d = skip.Decide(pr, comments, "github-actions[bot]", true)
	fmt.Println(d.Skip)
	// Output:
	// true 4 failure
	// false
}
