package skip_test

import (
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

func Example() {
	head := "0123456789abcdef0123456789abcdef01234567"
	pr := skip.PR{State: "open", Title: "Fix CRLF handling", Body: "Fixes #12.", Author: "alice", HeadSHA: head}
	comments := []skip.Comment{
		{Author: "mallory", Body: marker.Report + "\n(a copied marker does not count)"},
		{ID: 2, Author: "github-actions[bot]", Body: marker.Report + "\n" +
			marker.FormatMeta(marker.Meta{HeadSHA: head, Verdict: "not-ready", Conclusion: "failure", Blocking: 1})},
	}

	// The check run this Action published with its report names the
	// comment: without it, the comment would be no report of ours.
	runs := func(sha string) ([]skip.CheckRun, error) {
		return []skip.CheckRun{{HeadSHA: sha, App: "github-actions", ExternalID: marker.CheckRef(2)}}, nil
	}

	d := skip.Decide(pr, comments, "github-actions[bot]", false, runs)
	fmt.Println(d.Skip, d.Rule, d.Carried.Conclusion)

	// A workflow_dispatch rerun reviews again.
	d = skip.Decide(pr, comments, "github-actions[bot]", true, runs)
	fmt.Println(d.Skip)

	// A push since the report: the new head was not reviewed, so no skip.
	pr.HeadSHA = "89abcdef0123456789abcdef0123456789abcdef"
	d = skip.Decide(pr, comments, "github-actions[bot]", false, runs)
	fmt.Println(d.Skip, d.Previous.HeadSHA == head)
	// Output:
	// true 4 failure
	// false
	// false true
}
