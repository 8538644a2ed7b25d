package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/marker"
)

const prHead2 = "bb00cc11dd22ee33ff4455667788990011223344"

// TestReviewPRFollowsPushes: review --post reviews a push after a report
// incrementally, as the Action does; --full reviews the whole PR; each
// exit code is the Action's for the same outcome.
func TestReviewPRFollowsPushes(t *testing.T) {
	t.Parallel()
	gh := fakePR(t)
	m := llmtest.New()
	defer m.Close()
	m.SetDefault(func(r llmtest.Request) llmtest.Reply {
		switch {
		case r.Persona == llm.Validator:
			return verdict(true, "Integer division truncates.")
		case r.Persona == "correctness" && strings.Contains(messagesOf(r), "d.Percent/100"):
			return llmtest.OK(invoiceAnswer(t, "correctness", "P1", 75, whyDiscount))
		}
		return llmtest.OK(llmtest.DefaultContent(r))
	})
	args := func(extra ...string) []string {
		return append([]string{"review", "--repo", "o/r", "--pr", "7", "--github-api-url", gh.URL + "/", "--base-url", m.URL, "--api-key", "k", "--github-token", "t"}, extra...)
	}
	if _, stderr, err := run(t, noEnv, args("--post")...); !errors.Is(err, action.ErrBlocking) {
		t.Fatalf("first review: %v; want ErrBlocking\n%s", err, stderr)
	}

	// A push: one comment line at the top of invoice.go, far from line 46.
	head, err := os.ReadFile(filepath.Join(headDir, invoicePath))
	if err != nil {
		t.Fatal(err)
	}
	pushed := strings.Replace(string(head), "package billing\n", "// Amounts are in cents.\npackage billing\n", 1)
	gh.AddPR(githubtest.PR{Number: 7, Title: "Invoice discounts", Body: "Adds percentage discounts.", HeadSHA: prHead2, BaseSHA: prBase, HeadRepo: "o/r", BaseRepo: "o/r"})
	gh.SetContent(prHead2, invoicePath, pushed)
	gh.SetCompare(prHead, prHead2, githubtest.Compare{Commits: []string{prHead2}, Files: []githubtest.File{{
		Filename: invoicePath, Status: "modified", Additions: 1,
		Patch: "@@ -1,2 +1,3 @@\n // Package billing computes invoice totals.\n+// Amounts are in cents.\n package billing",
	}}})
	calls := len(m.Requests())
	_, stderr, err := run(t, noEnv, args("--post")...)
	if !errors.Is(err, action.ErrBlocking) {
		t.Fatalf("incremental review: %v; want ErrBlocking (the carried P1)\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "rereview: "+prHead[:7]+".."+prHead2[:7]) {
		t.Errorf("the push was not reviewed incrementally:\n%s", stderr)
	}
	for _, r := range m.Requests()[calls:] {
		if r.Persona != llm.Validator && strings.Contains(messagesOf(r), "d.Percent/100") {
			t.Fatalf("persona %s was sent code the push did not change", r.Persona)
		}
	}
	comments := gh.Comments(7)
	if len(comments) != 1 || comments[0].Edits != 1 || !strings.Contains(comments[0].Body, "internal/billing/invoice.go:47") {
		t.Fatalf("comments %+v; want the one report edited, the finding carried to line 47", comments)
	}
	if meta, err := marker.ParseReport(comments[0].Body); err != nil || meta.HeadSHA != prHead2 || meta.Findings[0].Commit != prHead {
		t.Fatalf("meta %+v, %v; want head %s, the finding found on %s", meta, err, prHead2, prHead)
	}

	// The same head again: rule 4. With --post the check carries the
	// failure (exit 0, as the Action); without it nothing does (exit 1,
	// as the Action with a token that cannot write checks).
	if _, stderr, err := run(t, noEnv, args("--post")...); err != nil {
		t.Errorf("rule 4 with --post: %v; want exit 0 (the check run carries the failure)\n%s", err, stderr)
	}
	if _, _, err := run(t, noEnv, args()...); !errors.Is(err, action.ErrBlocking) {
		t.Errorf("rule 4 without --post: %v; want ErrBlocking", err)
	}
	if n := len(gh.Comments(7)); n != 1 {
		t.Errorf("%d comments; want 1", n)
	}

	// --full: the whole PR, whatever was reviewed before.
	calls = len(m.Requests())
	_, stderr, err = run(t, noEnv, args("--post", "--full")...)
	if !errors.Is(err, action.ErrBlocking) || !strings.Contains(stderr, "a manual re-review") {
		t.Fatalf("--full: %v; want ErrBlocking after a whole-PR review\n%s", err, stderr)
	}
	sawLine := false
	for _, r := range m.Requests()[calls:] {
		sawLine = sawLine || (r.Persona != llm.Validator && strings.Contains(messagesOf(r), "d.Percent/100"))
	}
	if !sawLine {
		t.Error("--full did not send the whole PR to the personas")
	}
	if n := len(gh.Comments(7)); n != 1 {
		t.Errorf("%d comments; want 1", n)
	}
}

func TestReviewFullNeedsPR(t *testing.T) {
	t.Parallel()
	_, _, err := run(t, noEnv, "review", "--diff", invoicePatch, "--full", "--api-key", "k")
	if !errors.Is(err, ErrUsage) {
		t.Fatalf("--full with --diff: %v; want ErrUsage", err)
	}
	_, _, err = run(t, noEnv, "review", "--repo", "o/r", "--pr", "7", "--on-new-commits", "ignore", "--api-key", "k")
	if !errors.Is(err, ErrUsage) {
		t.Fatalf("--on-new-commits ignore: %v; want ErrUsage", err)
	}
}

// TestReviewPRReviewsUnattestedHead: a report of ours for the PR's head
// whose metadata does not attest a complete review (a release-1 report,
// written before validator failures made a review incomplete; or a
// release-2 report of an incomplete review) is not "already reviewed":
// its green conclusion must not be carried onto the head, so the PR is
// reviewed again and the check is computed from that review.
func TestReviewPRReviewsUnattestedHead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		meta marker.Meta
	}{
		{"release-1 success", marker.Meta{Version: 1, HeadSHA: prHead, Verdict: "ready", Conclusion: "success"}},
		{"release-1 degraded neutral", marker.Meta{Version: 1, HeadSHA: prHead, Verdict: "degraded", Conclusion: "neutral"}},
		{"incomplete neutral", marker.Meta{Version: 2, HeadSHA: prHead, Heads: []string{prHead}, Verdict: "degraded", Conclusion: "neutral", Incomplete: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gh := fakePR(t)
			m := llmtest.New()
			defer m.Close()
			m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P1", 75, whyDiscount)))
			m.Script(llm.Validator, verdict(true, "Integer division truncates."))
			gh.AddReport(7, "github-actions[bot]", marker.Report+"\n"+marker.FormatMeta(tc.meta)+"\n## anchor-review\n")
			_, stderr, err := run(t, noEnv, "review", "--repo", "o/r", "--pr", "7", "--post", "--github-api-url", gh.URL+"/", "--github-token", "t", "--base-url", m.URL, "--api-key", "k")
			if !errors.Is(err, action.ErrBlocking) {
				t.Errorf("review --post: %v; want ErrBlocking from a new review\n%s", err, stderr)
			}
			if len(m.Requests()) == 0 {
				t.Error("no model request: the earlier report was carried instead of reviewing the head")
			}
			checks := gh.CheckRuns()
			if len(checks) != 1 || checks[0].Conclusion != "failure" {
				t.Fatalf("check runs %+v; want one failure from the new review", checks)
			}
			if c := gh.Comments(7); len(c) != 1 {
				t.Errorf("%d comments; want the one report, edited", len(c))
			}
		})
	}
}
