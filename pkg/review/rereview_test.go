package review_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// The heads of the re-review scenario: the PR was reviewed at oldSHA
// (after olderSHA); headSHA is the push since.
const (
	oldSHA   = "1111111111111111111111111111111111111111"
	olderSHA = "2222222222222222222222222222222222222222"
	midSHA   = "3333333333333333333333333333333333333333"
)

// defaultScope is the scope key of a review with no exclude patterns, no
// personas option and no .gitattributes marks: the tests' options.
var defaultScope = review.ScopeKey(nil, nil, scope.Attributes{})

// The earlier report's findings (titles are what the validator fake keys on).
const (
	tUntouched = "Nil map write in helper49"      // a.go:50, far from the change: carried to :52
	tFixed     = "Off by one in helper39"         // a.go:40, the line the push replaced: re-checked, refuted
	tDeleted   = "Leaked file handle"             // c.go:5, the push deleted c.go: gone
	tNear      = "Unchecked overflow in helper30" // a.go:31, next to the insertion: re-checked
	tOtherFile = "Typo in helper6"                // b.go:7, a file the push left alone: carried as is
	tNew       = "Added helper ignores its input" // found by this run in the new lines
)

// oldA and newA are a.go at oldSHA and at headSHA: two lines inserted after
// line 30, line 40 replaced.
func oldA() []string { return goLines("helpers", 60) }

func newA() []string {
	old := oldA()
	out := slices.Clone(old[:30])
	out = append(out, "func added1(x int) int { return 0 }", "func added2(x int) int { return 0 }")
	out = append(out, old[30:39]...)
	out = append(out, "func helper39(x int) int { return x*39 }")
	return append(out, old[40:]...)
}

// deltaA is a.go's patch from oldSHA to headSHA, as the compare API sends it.
func deltaA() string {
	old, cur := oldA(), newA()
	return fmt.Sprintf("@@ -30,1 +30,3 @@\n %s\n+%s\n+%s\n@@ -39,3 +41,3 @@\n %s\n-%s\n+%s\n %s",
		old[29], cur[30], cur[31], old[38], old[39], cur[41], old[40])
}

func metaFinding(file string, line int, sev, title, reviewer string) marker.Finding {
	f := finding.Finding{File: file, Title: title}
	return marker.Finding{File: file, Line: line, Severity: sev, Anchor: 75, Fingerprint: finding.Fingerprint(f),
		Title: title, Reviewer: reviewer, Commit: olderSHA}
}

// earlierReport is our report for oldSHA, version 2, with five findings.
func earlierReport(version int) string {
	m := marker.Meta{Version: version, HeadSHA: oldSHA, BaseRef: "main", Scope: defaultScope, Verdict: "not-ready", Conclusion: "failure", Blocking: 2}
	if version == 2 {
		m.Heads = []string{olderSHA, oldSHA}
		m.Findings = []marker.Finding{
			metaFinding("a.go", 50, "P1", tUntouched, "correctness"),
			metaFinding("a.go", 40, "P1", tFixed, "correctness"),
			metaFinding("c.go", 5, "P2", tDeleted, "reliability"),
			metaFinding("a.go", 31, "P2", tNear, "correctness"),
			metaFinding("b.go", 7, "P3", tOtherFile, "maintainability"),
		}
	}
	return marker.Report + "\n" + marker.FormatMeta(m) + "\n## anchor-review: 5 findings\n"
}

// rereviewPR serves the scenario: the PR adds a.go (new version) and b.go;
// our report is for oldSHA; the compare API knows oldSHA...headSHA.
func (e *env) rereviewPR(t *testing.T, version int) {
	t.Helper()
	b := goLines("helpers", 20)
	a := newA()
	e.addPR(t, addedFile("a.go", a)+addedFile("b.go", b), map[string]string{
		"a.go": strings.Join(a, "\n") + "\n", "b.go": strings.Join(b, "\n") + "\n",
	})
	e.gh.AddReport(prNum, "github-actions[bot]", earlierReport(version))
	e.gh.SetCompare(oldSHA, headSHA, githubtest.Compare{
		Commits: []string{midSHA, headSHA},
		Files: []githubtest.File{
			{Filename: "a.go", Status: "modified", Patch: deltaA(), Additions: 3, Deletions: 1},
			{Filename: "c.go", Status: "removed", Patch: "@@ -1,3 +0,0 @@\n-package helpers\n-\n-func leak() {}", Deletions: 3},
		},
	})
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
		f(tNew, finding.P3, "a.go", 31, 100, routing("manual", "human")),
	}, nil, nil)))
	e.verdicts.set(tFixed, "false: the new commit fixed it: helper39 no longer adds one")
}

// pushOnA serves the scenario's PR and earlier report with a push that
// changed a.go alone (no persona script, no verdicts).
func (e *env) pushOnA(t *testing.T) {
	t.Helper()
	b, a := goLines("helpers", 20), newA()
	e.addPR(t, addedFile("a.go", a)+addedFile("b.go", b), map[string]string{
		"a.go": strings.Join(a, "\n") + "\n", "b.go": strings.Join(b, "\n") + "\n",
	})
	e.gh.AddReport(prNum, "github-actions[bot]", earlierReport(2))
	e.gh.SetCompare(oldSHA, headSHA, githubtest.Compare{Commits: []string{headSHA},
		Files: []githubtest.File{{Filename: "a.go", Status: "modified", Patch: deltaA(), Additions: 3, Deletions: 1}}})
}

func titles(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s@%s:%d", f.Title, f.File, f.Line))
	}
	return out
}

func TestIncrementalReview(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.rereviewPR(t, 2)
	e.verdicts.set(tNear, "malformed") // the validator cannot judge it: kept, review incomplete

	res, _, err := e.rv.ReviewPR(context.Background(), options())
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	rr := res.Rereview
	if rr == nil || !rr.Incremental || rr.From != oldSHA || rr.To != headSHA || rr.Commits != 2 {
		t.Fatalf("Rereview = %+v; want incremental %s..%s, 2 commits", rr, oldSHA[:7], headSHA[:7])
	}
	if want := []string{olderSHA, oldSHA, headSHA}; !slices.Equal(rr.Heads, want) {
		t.Errorf("heads = %v; want %v", rr.Heads, want)
	}
	got := titles(res.Findings)
	want := []string{tUntouched + "@a.go:52", tNear + "@a.go:33", tNew + "@a.go:31", tOtherFile + "@b.go:7"}
	if !slices.Equal(got, want) {
		t.Fatalf("findings = %v\nwant       %v", got, want)
	}
	// Inline comments and SARIF place carried findings on the PR's diff:
	// every posted finding's file is among res.Files, not only the delta's.
	for _, f := range res.Findings {
		if !slices.ContainsFunc(res.Files, func(df *diff.File) bool { return df.Path() == f.File }) {
			t.Errorf("%s: its file %s is not in res.Files (the PR's diff)", f.Title, f.File)
		}
	}
	for _, f := range res.Findings {
		carried := f.Title != tNew
		if carried != (f.FoundOn == olderSHA) {
			t.Errorf("%s: FoundOn = %q; want %q for carried findings only", f.Title, f.FoundOn, olderSHA)
		}
	}
	if rr.Carried != 2 || rr.Rechecked != 2 || rr.Unchecked != 1 || len(rr.Gone) != 1 || rr.Gone[0].Title != tDeleted {
		t.Errorf("carried %d, rechecked %d, unchecked %d, gone %+v; want 2, 2, 1, [%s]", rr.Carried, rr.Rechecked, rr.Unchecked, rr.Gone, tDeleted)
	}
	if !slices.ContainsFunc(res.Coverage.Rejections, func(r review.Rejection) bool {
		return r.Title == tFixed && strings.Contains(r.Reason, "fixed")
	}) {
		t.Errorf("the refuted carried finding is not among the rejections: %+v", res.Coverage.Rejections)
	}
	if !res.Partial || res.Verdict != review.NotReady {
		t.Errorf("partial %v, verdict %s; want an incomplete review (one carried finding unchecked) that is still not-ready (a P1 carried)", res.Partial, res.Verdict)
	}

	// The personas saw the new commits only: a.go's delta, not b.go.
	for _, r := range e.model.Requests() {
		if r.Persona == llm.Validator {
			continue
		}
		body := string(r.Body)
		if strings.Contains(body, "b.go") || !strings.Contains(body, "added1") {
			t.Fatalf("persona %s was sent more than the delta (b.go) or not the delta", r.Persona)
		}
		if strings.Contains(body, "helper10(") {
			t.Fatalf("persona %s was sent a.go lines the push did not touch", r.Persona)
		}
	}
	// The new finding is judged against the PR's change of its file, not
	// the push's: a.go is new in the PR, so it has no base version (the
	// push's base region would show a.go as it was at the last review).
	judged := false
	for _, r := range e.model.RequestsFor(llm.Validator) {
		if strings.Contains(r.Messages[3].Content, tNew) {
			judged = true
			if !strings.Contains(r.Messages[3].Content, "the file is new in this pull request") {
				t.Errorf("the new finding's base region is not the PR's:\n%s", r.Messages[3].Content)
			}
		}
	}
	if !judged {
		t.Errorf("no validator request for %q", tNew)
	}
	calls := modelCalls(e.model)
	// The new finding and the two touched carried ones, plus the one repair
	// request of the malformed answer.
	if calls[llm.Validator] != 4 {
		t.Errorf("validator calls = %d; want 4", calls[llm.Validator])
	}
	reqs := e.gh.Requests()
	if n := ghCount(reqs, "GET", "/compare/"+oldSHA+"..."+headSHA, ""); n != 1 {
		t.Errorf("compare requests = %d; want 1", n)
	}
	if n := ghCount(reqs, "GET", "/contents/a.go", headSHA); n != 1 {
		t.Errorf("a.go head reads = %d; want 1 (one cache for new and carried findings)", n)
	}
	noViolations(t, e.model)
}

// TestIncrementalFallsBackToWholePR: every case where the new commits
// cannot be reviewed alone reviews the whole PR, and says why.
func TestIncrementalFallsBackToWholePR(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		version int
		setup   func(e *env)
		rerun   bool
		reason  string
	}{
		{name: "the compare API fails", version: 2, reason: "compare API failed",
			setup: func(e *env) {
				e.gh.Inject(githubtest.Fault{PathContains: "/compare/", Status: http.StatusInternalServerError})
			}},
		{name: "force push: diverged", version: 2, reason: "not an ancestor",
			setup: func(e *env) {
				e.gh.SetCompare(oldSHA, headSHA, githubtest.Compare{Status: "diverged", AheadBy: 1, BehindBy: 3, Commits: []string{headSHA}})
			}},
		{name: "the reviewed head is gone (404)", version: 2, reason: "compare API failed",
			setup: func(e *env) {
				e.gh.Inject(githubtest.Fault{PathContains: "/compare/", Status: http.StatusNotFound})
			}},
		{name: "a report from release 1", version: 1, reason: "older release"},
		// A newer report of ours (the newest decides) for another base
		// branch: the PR was retargeted, and the new commits alone do not
		// show what the new base brings.
		{name: "the base branch changed", version: 2, reason: "base branch changed",
			setup: func(e *env) {
				e.gh.AddReport(prNum, "github-actions[bot]", strings.Replace(earlierReport(2), `"base_ref":"main"`, `"base_ref":"release-1"`, 1))
			}},
		// The earlier review ran with an exclude pattern this run does
		// not have: what it left out would stay unreviewed.
		{name: "the exclude patterns changed", version: 2, reason: "exclude patterns, the personas or exclude-personas option",
			setup: func(e *env) {
				e.gh.AddReport(prNum, "github-actions[bot]", strings.Replace(earlierReport(2), `"scope":"`+defaultScope+`"`,
					`"scope":"`+review.ScopeKey([]string{"b.go"}, nil, scope.Attributes{})+`"`, 1))
			}},
		{name: "a report that records no base branch", version: 2, reason: "does not record the base branch",
			setup: func(e *env) {
				e.gh.AddReport(prNum, "github-actions[bot]", strings.Replace(earlierReport(2), `"base_ref":"main",`, ``, 1))
			}},
		{name: "a manual re-review", version: 2, rerun: true, reason: "manual re-review"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.rereviewPR(t, tc.version)
			if tc.setup != nil {
				tc.setup(e)
			}
			o := options()
			o.Rerun = tc.rerun
			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			rr := res.Rereview
			if rr == nil || rr.Incremental || !strings.Contains(rr.Reason, tc.reason) {
				t.Fatalf("Rereview = %+v; want a whole-PR review because %q", rr, tc.reason)
			}
			sawB := false
			for _, r := range e.model.Requests() {
				sawB = sawB || (r.Persona != llm.Validator && strings.Contains(string(r.Body), "b.go"))
			}
			if !sawB {
				t.Error("the personas did not see the whole PR (b.go)")
			}
			for _, f := range res.Findings {
				if f.FoundOn != "" {
					t.Errorf("a whole-PR review carried %s from %s", f.Title, f.FoundOn)
				}
			}
			if want := []string{olderSHA, oldSHA, headSHA}; tc.version == 2 && !slices.Equal(rr.Heads, want) {
				t.Errorf("heads = %v; want %v", rr.Heads, want)
			}
		})
	}
}

// TestIncrementalNothingOfThePR: a push that changes none of the PR's
// files (a merge of the base branch) costs no model call; the earlier
// findings are carried.
func TestIncrementalNothingOfThePR(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.rereviewPR(t, 2)
	e.gh.SetCompare(oldSHA, headSHA, githubtest.Compare{
		Commits: []string{headSHA},
		Files:   []githubtest.File{{Filename: "vendor/other.go", Status: "modified", Patch: "@@ -1 +1 @@\n-a\n+b"}},
	})
	res, _, err := e.rv.ReviewPR(context.Background(), options())
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	if n := len(e.model.Requests()); n != 0 {
		t.Fatalf("%d model calls; want none", n)
	}
	rr := res.Rereview
	if !rr.Incremental || !slices.Equal(rr.OutsidePR, []string{"vendor/other.go"}) || len(res.Findings) != 4 || res.Partial {
		t.Fatalf("rereview %+v, %d findings, partial %v; want 4 carried (c.go is no longer in the PR), vendor/other.go outside the PR", rr, len(res.Findings), res.Partial)
	}
	if res.Verdict != review.NotReady {
		t.Errorf("verdict %s; want not-ready (carried P1s)", res.Verdict)
	}
}

// TestOnNewCommitsSkip: skip reviews nothing, costs one compare request to
// count the commits, and records what was left unreviewed.
func TestOnNewCommitsSkip(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.rereviewPR(t, 2)
	o := options()
	o.OnNewCommits = review.OnNewCommitsSkip
	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	if !res.Skipped || res.SkipRule != 4 || res.Unreviewed == nil || res.Unreviewed.Commits != 2 || res.Unreviewed.Since != oldSHA {
		t.Fatalf("result = skipped %v rule %d unreviewed %+v; want rule 4 with 2 unreviewed commits since %s", res.Skipped, res.SkipRule, res.Unreviewed, oldSHA)
	}
	if !strings.Contains(res.SkipReason, "2 commits") || !strings.Contains(res.SkipReason, "/anchor-review") {
		t.Errorf("skip reason %q; want the count and how to review them", res.SkipReason)
	}
	if n := len(e.model.Requests()); n != 0 {
		t.Errorf("%d model calls; want none", n)
	}
	if n := len(e.gh.Requests()); n != 4 {
		t.Errorf("%d GitHub requests; want 4 (PR, comments, the check runs that vouch for the report, compare)", n)
	}
	o.Rerun = true // a manual re-review reviews whatever on-new-commits says
	if res, _, err := e.rv.ReviewPR(context.Background(), o); err != nil || res.Skipped {
		t.Fatalf("rerun under skip: skipped %v, %v; want a review", res.Skipped, err)
	}
}

// TestReviewedHeadsBounded: the history of reviewed heads keeps the newest
// marker.MaxHeads, ending at the new head, whatever the earlier report held.
func TestReviewedHeadsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.rereviewPR(t, 2)
	m := marker.Meta{Version: 2, HeadSHA: oldSHA, Verdict: "ready", Conclusion: "success"}
	for i := range marker.MaxHeads {
		m.Heads = append(m.Heads, fmt.Sprintf("%040x", i+1))
	}
	m.Heads[len(m.Heads)-1] = oldSHA
	e.gh.AddReport(prNum, "github-actions[bot]", marker.Report+"\n"+marker.FormatMeta(m)+"\n")
	res, _, err := e.rv.ReviewPR(context.Background(), options())
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	hs := res.Rereview.Heads
	if len(hs) != marker.MaxHeads || hs[len(hs)-1] != headSHA || hs[len(hs)-2] != oldSHA || hs[0] != fmt.Sprintf("%040x", 2) {
		t.Fatalf("heads %v; want the newest %d, ending %s, %s", hs, marker.MaxHeads, oldSHA[:7], headSHA[:7])
	}
}

// TestUncheckedCarriedFindingIsIncomplete: a carried finding whose region
// changed and that the validator could not judge stays, and the review is
// incomplete: its check takes the incomplete input's conclusion, never
// success.
func TestUncheckedCarriedFindingIsIncomplete(t *testing.T) {
	t.Parallel()
	for _, incomplete := range []string{review.IncompleteFailure, review.IncompleteNeutral} {
		t.Run(incomplete, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.rereviewPR(t, 2)
			// Only P2/P3 findings, so nothing blocks: the conclusion is the
			// incomplete input's.
			m := marker.Meta{Version: 2, HeadSHA: oldSHA, BaseRef: "main", Scope: defaultScope, Verdict: "ready-with-fixes", Conclusion: "success", Heads: []string{oldSHA},
				Findings: []marker.Finding{metaFinding("a.go", 31, "P2", tNear, "correctness")}}
			e.gh.AddReport(prNum, "github-actions[bot]", marker.Report+"\n"+marker.FormatMeta(m)+"\n")
			e.verdicts.set(tNear, "malformed")
			o := options()
			o.Incomplete = incomplete
			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if !slices.Equal(titles(res.Findings), []string{tNear + "@a.go:33", tNew + "@a.go:31"}) || res.Rereview.Unchecked != 1 {
				t.Fatalf("findings %v, unchecked %d; want the carried finding kept, unchecked", titles(res.Findings), res.Rereview.Unchecked)
			}
			if !res.Partial || len(res.Incomplete) == 0 || res.Verdict != review.Degraded {
				t.Fatalf("partial %v, incomplete %q, verdict %s; want an incomplete, degraded review", res.Partial, res.Incomplete, res.Verdict)
			}
			if c, _ := report.Conclusion(res, "P1"); c != incomplete {
				t.Errorf("conclusion %s; want the incomplete input's %s", c, incomplete)
			}
		})
	}
}

// TestCarriedFindingFoundAgain: when this run reports a carried finding
// again, the report lists it once, as this run's (not as carried).
func TestCarriedFindingFoundAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.pushOnA(t)
	// The new review reports the near finding again, on its mapped line.
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
		f(tNear, finding.P2, "a.go", 33, 100, routing("manual", "human")),
	}, nil, nil)))
	e.verdicts.set(tFixed, "false: fixed")
	res, _, err := e.rv.ReviewPR(context.Background(), options())
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	n := 0
	for _, f := range res.Findings {
		if f.Title == tNear {
			n++
			if f.FoundOn != "" {
				t.Errorf("the finding found again is shown as carried from %s", f.FoundOn)
			}
		}
	}
	if n != 1 || res.Rereview.Again != 1 {
		t.Fatalf("%q listed %d times, again %d; want once, again 1 (%v)", tNear, n, res.Rereview.Again, titles(res.Findings))
	}
}

// TestIncrementalMarkerAddedByPR: a generated-code marker the pull request
// itself added excludes nothing, in an incremental review too. The new
// commits' diff shows that marker as a context line (it was there at the
// reviewed head), so scoping the delta alone would take the file for
// generated and leave its new lines unreviewed while the check goes green.
func TestIncrementalMarkerAddedByPR(t *testing.T) {
	t.Parallel()
	const mark = "// Code generated by hand. DO NOT EDIT."
	old := append([]string{mark, ""}, goLines("helpers", 20)...)
	cur := slices.Clone(old)
	cur[3] = "func helper1(x int) int { return x / 0 }"
	patch := fmt.Sprintf("@@ -1,7 +1,7 @@\n %s\n %s\n %s\n-%s\n+%s\n %s\n %s\n %s", old[0], old[1], old[2], old[3], cur[3], old[4], old[5], old[6])
	// base.go carried the marker at the base commit: generated, in the
	// PR's change and in the push's alike. Its change is larger than a
	// hand edit (which is reviewed whatever the marker says).
	var bp strings.Builder
	fmt.Fprintf(&bp, "@@ -1,%d +1,%d @@\n %s\n \n", scope.HandEditLines+2, scope.HandEditLines+2, mark)
	for i := range scope.HandEditLines {
		fmt.Fprintf(&bp, "-var b%d = %d\n", i, i)
	}
	for i := range scope.HandEditLines {
		fmt.Fprintf(&bp, "+var b%d = x / 1\n", i)
	}
	basePatch := strings.TrimSuffix(bp.String(), "\n")
	base := "diff --git a/base.go b/base.go\nindex 1111111..2222222 100644\n--- a/base.go\n+++ b/base.go\n" + basePatch + "\n"
	e := newEnv(t, nil)
	e.addPR(t, addedFile("gen.go", cur)+base, map[string]string{"gen.go": strings.Join(cur, "\n") + "\n"})
	m := marker.Meta{Version: 2, HeadSHA: oldSHA, BaseRef: "main", Scope: review.ScopeKey(nil, []string{"correctness"}, scope.Attributes{}),
		Verdict: "ready", Conclusion: "success", Heads: []string{oldSHA}}
	e.gh.AddReport(prNum, "github-actions[bot]", marker.Report+"\n"+marker.FormatMeta(m)+"\n")
	e.gh.SetCompare(oldSHA, headSHA, githubtest.Compare{Commits: []string{headSHA}, Files: []githubtest.File{
		{Filename: "gen.go", Status: "modified", Additions: 1, Deletions: 1, Patch: patch},
		{Filename: "base.go", Status: "modified", Additions: scope.HandEditLines, Deletions: scope.HandEditLines, Patch: basePatch},
	}})
	o := options()
	o.Personas = []string{"correctness"}
	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	if res.Rereview == nil || !res.Rereview.Incremental {
		t.Fatalf("Rereview = %+v; want an incremental review", res.Rereview)
	}
	if want := []review.Excluded{{Path: "base.go", Reason: "generated"}}; !slices.Equal(res.Coverage.NotReviewed, want) {
		t.Errorf("not reviewed %v; want %v (gen.go's marker is the pull request's own)", res.Coverage.NotReviewed, want)
	}
	reqs := e.model.RequestsFor("correctness")
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "x / 0") || strings.Contains(string(reqs[0].Body), "x / 1") {
		t.Errorf("correctness requests %d; want one holding the new line of gen.go and nothing of base.go", len(reqs))
	}
}

// TestCarriedFindingNearAnotherStays: a carried finding gives way only to
// a new report of the same problem. A different problem of the same
// severity reported a line or two away is another finding: dropping the
// carried one would leave it out of the report and its metadata, so no
// later run could carry it, though nothing fixed it.
func TestCarriedFindingNearAnotherStays(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.pushOnA(t)
	// This run reports another P2 two lines from the carried tNear
	// (a.go:31, at a.go:33 after the push).
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
		f(tNew, finding.P2, "a.go", 31, 100, routing("manual", "human")),
	}, nil, nil)))
	res, _, err := e.rv.ReviewPR(context.Background(), options())
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	got := titles(res.Findings)
	if !slices.Contains(got, tNear+"@a.go:33") || !slices.Contains(got, tNew+"@a.go:31") || res.Rereview.Again != 0 {
		t.Fatalf("findings %v, again %d; want both %q and %q, neither taken for the other", got, res.Rereview.Again, tNear, tNew)
	}
}

// ScopeKey tells configurations apart by what they cover, not by how they
// are written: order, blanks, comments and repeats do not count.
func TestScopeKey(t *testing.T) {
	attrs := scope.ParseAttributes("gen/** linguist-generated\n")
	base := review.ScopeKey([]string{"docs/**", "*.snap"}, []string{"security"}, attrs)
	if got := review.ScopeKey([]string{" *.snap", "# comment", "docs/**", "", "docs/**"}, []string{"security"}, attrs); got != base {
		t.Errorf("the same patterns written otherwise: %s; want %s", got, base)
	}
	for name, other := range map[string]string{
		"another pattern":    review.ScopeKey([]string{"docs/**"}, []string{"security"}, attrs),
		"another team":       review.ScopeKey([]string{"docs/**", "*.snap"}, nil, attrs),
		"other attributes":   review.ScopeKey([]string{"docs/**", "*.snap"}, []string{"security"}, scope.Attributes{}),
		"pattern as persona": review.ScopeKey([]string{"docs/**", "*.snap", "security"}, nil, attrs),
	} {
		if other == base {
			t.Errorf("%s: same key %s", name, base)
		}
	}
}

// TestIncrementalDirectiveIsThePRs (issue 24): "a directive this PR adds"
// is judged on the PR's whole change. An earlier push added a shell
// command under a //nolint line; the new push edits the comment above.
// In the new commits' diff the directive and the command are context
// lines, but the PR added them: the directive does not suppress the P1 a
// persona reports on the command, which is validated and posted.
func TestIncrementalDirectiveIsThePRs(t *testing.T) {
	t.Parallel()
	const path = "gate.go"
	cur := []string{
		"package gate",
		"",
		`import "os/exec"`,
		"",
		"// Run runs cmd in a shell.",
		"func Run(cmd string) error {",
		"\t//nolint:gosec // reviewed",
		"\treturn exec.Command(\"sh\", \"-c\", cmd).Run()",
		"}",
	}
	patch := "@@ -5,5 +5,5 @@\n-// Run runs cmd.\n+" + cur[4] + "\n func Run(cmd string) error {\n \t//nolint:gosec // reviewed\n " + cur[7] + "\n }"
	e := newEnv(t, nil)
	e.addPR(t, addedFile(path, cur), map[string]string{path: strings.Join(cur, "\n") + "\n"})
	m := marker.Meta{Version: 2, HeadSHA: oldSHA, BaseRef: "main", Scope: review.ScopeKey(nil, []string{"correctness"}, scope.Attributes{}),
		Verdict: "ready", Conclusion: "success", Heads: []string{oldSHA}}
	e.gh.AddReport(prNum, "github-actions[bot]", marker.Report+"\n"+marker.FormatMeta(m)+"\n")
	e.gh.SetCompare(oldSHA, headSHA, githubtest.Compare{Commits: []string{headSHA}, Files: []githubtest.File{
		{Filename: path, Status: "modified", Additions: 1, Deletions: 1, Patch: patch},
	}})
	const title = "gosec G204: subprocess launched with the caller's string"
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
		f(title, finding.P1, path, 8, 100),
	}, nil, nil)))
	o := options()
	o.Personas = []string{"correctness"}

	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	if res.Rereview == nil || !res.Rereview.Incremental {
		t.Fatalf("Rereview = %+v; want an incremental review", res.Rereview)
	}
	if len(res.Findings) != 1 || res.Findings[0].Title != title {
		t.Errorf("findings %+v; want the P1 under the PR's own //nolint:gosec posted (dropped: %v)", res.Findings, res.Coverage.DroppedByReason)
	}
}
