package action_test

import (
	"context"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
)

const (
	pubOld   = "1111111111111111111111111111111111111111"
	pubNewer = "5555555555555555555555555555555555555555"
)

// reportFor is a valid report of ours for head, saying text.
func reportFor(head, text string) string {
	return marker.Report + "\n" + marker.FormatMeta(marker.Meta{HeadSHA: head, Verdict: "ready", Conclusion: "success", Heads: []string{head}}) + "\n" + text + "\n"
}

// skipped is the on-new-commits skip result for the PR's head.
func skipped(conclusion string, blocking int) review.Result {
	verdict := "ready"
	if blocking > 0 {
		verdict = "not-ready"
	}
	return review.Result{Repo: pubOwner + "/" + pubRepo, PR: pubPR, HeadSHA: pubHead, Mode: action.ModeComment,
		Skipped: true, SkipRule: 4, SkipReason: "on-new-commits is skip",
		Carried:    &marker.Meta{Version: 2, HeadSHA: pubOld, Verdict: verdict, Conclusion: conclusion, Blocking: blocking},
		Unreviewed: &review.Unreviewed{Since: pubOld, Commits: 2}}
}

// TestPublishUnreviewedNeverGreen: on-new-commits skip writes one check on
// the new head, action_required after a clean review (failure where GitHub
// refuses action_required), failure after a blocking one; no comment.
func TestPublishUnreviewedNeverGreen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		conclusion string
		blocking   int
		refuse     bool
		want       string
		posts      int // check-run creations
	}{
		{"clean earlier review", "success", 0, false, report.ConclusionActionRequired, 1},
		{"GitHub refuses action_required", "success", 0, true, report.ConclusionFailure, 2},
		{"blocking earlier review", "failure", 1, false, report.ConclusionFailure, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newPubEnv(t)
			if tc.refuse {
				e.srv.RefuseConclusion(report.ConclusionActionRequired)
			}
			e.srv.AddReport(pubPR, pubBot, reportFor(pubOld, "the earlier report"))
			pr := e.pr(t)
			pr.Info = nil
			out := e.publish(t, e.gh, action.ModeComment, false, skipped(tc.conclusion, tc.blocking), pr)
			runs := e.srv.CheckRuns()
			if len(runs) != 1 || runs[0].Conclusion != tc.want || runs[0].HeadSHA != pubHead || !out.CheckWritten {
				t.Fatalf("check runs %+v, written %v; want one %s on the new head", runs, out.CheckWritten, tc.want)
			}
			if out.Conclusion != tc.want {
				t.Errorf("conclusion output %q; want the check's, %q", out.Conclusion, tc.want)
			}
			if !strings.Contains(runs[0].Title, "2 commits not reviewed") {
				t.Errorf("title %q; want the number of unreviewed commits", runs[0].Title)
			}
			var creates int
			for _, w := range writes(e.srv.Requests()) {
				if strings.HasSuffix(w, "/check-runs") {
					creates++
				} else {
					t.Errorf("unexpected write %s: skip posts no comment", w)
				}
			}
			if creates != tc.posts {
				t.Errorf("%d check-run creations; want %d", creates, tc.posts)
			}
			if c := e.srv.Comments(pubPR); len(c) != 1 || !strings.Contains(c[0].Body, "the earlier report") {
				t.Errorf("the earlier report changed: %+v", c)
			}
		})
	}
}

// TestPublishRacingPushes: two runs for two pushes. The newer run (for the
// PR's head) must edit the report the older run posted after the newer
// run's Stage 1 read, never add a second; the older run, finishing last,
// must not overwrite the newer report.
func TestPublishRacingPushes(t *testing.T) {
	t.Parallel()
	t.Run("the newer run edits the report posted since its start", func(t *testing.T) {
		t.Parallel()
		e := newPubEnv(t)
		stale := e.pr(t) // Stage 1 of the newer run: no report yet
		e.srv.AddReport(pubPR, pubBot, reportFor(pubOld, "the older run's report"))
		out := e.publish(t, e.gh, action.ModeComment, false, result(action.ModeComment, true), stale)
		ours := e.markerComments()
		if len(ours) != 1 || !strings.Contains(ours[0].Body, tP0) {
			t.Fatalf("report comments %+v; want exactly one, with this run's findings", ours)
		}
		for _, w := range writes(e.srv.Requests()) {
			if strings.HasPrefix(w, "POST") && strings.Contains(w, "/comments") || strings.HasPrefix(w, "DELETE") {
				t.Errorf("write %s: the newer run must edit the posted report, not post or delete", w)
			}
		}
		if !out.CheckWritten {
			t.Error("no check run")
		}
	})
	t.Run("an older run finishing last leaves the newer report alone", func(t *testing.T) {
		t.Parallel()
		e := newPubEnv(t)
		e.srv.AddReport(pubPR, pubBot, reportFor(pubOld, "the report both runs read at Stage 1"))
		stale := e.pr(t)
		// While this (older) run reviewed pubHead, a push moved the PR to
		// pubNewer and that run already posted its report.
		e.srv.AddPR(githubtest.PR{Number: pubPR, Title: "Add order search", HeadSHA: pubNewer, BaseSHA: strings.Repeat("0", 40)})
		ctx := context.Background()
		if _, err := e.gh.EditComment(ctx, pubOwner, pubRepo, e.srv.Comments(pubPR)[0].ID, reportFor(pubNewer, "the newer run's report")); err != nil {
			t.Fatal(err)
		}
		out := e.publish(t, e.gh, action.ModeComment, false, result(action.ModeComment, true), stale)
		c := e.srv.Comments(pubPR)
		if len(c) != 1 || !strings.Contains(c[0].Body, "the newer run's report") {
			t.Fatalf("comments %+v; want the newer run's report untouched", c)
		}
		runs := e.srv.CheckRuns()
		if len(runs) != 1 || runs[0].HeadSHA != pubHead || !out.CheckWritten {
			t.Fatalf("check runs %+v; want this run's check on its own (older) head only", runs)
		}
	})
}
