package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/review"
)

const (
	earlierSHA = "1111111111111111111111111111111111111111"
	firstSHA   = "2222222222222222222222222222222222222222"
)

// rereviewed is an incremental re-review: one new finding, two carried
// (one found on the first head), one gone, one refuted.
func rereviewed() review.Result {
	carriedP1 := fnd(finding.P1, 75, "store/cache.go", 52, "Cache never evicts", "correctness")
	carriedP1.WhyItMatters, carriedP1.FoundOn = "", firstSHA
	carriedP1.Validation = &finding.Validation{Validated: true, Reason: "confirmed on 2222222"}
	carriedP3 := fnd(finding.P3, 75, "docs/guide.go", 7, "Typo in log "+canary, "maintainability")
	carriedP3.WhyItMatters, carriedP3.FoundOn = "", earlierSHA
	fresh := fnd(finding.P2, 100, "store/cache.go", 31, "Added helper ignores its input", "correctness")
	fs := []finding.Finding{carriedP1, fresh, carriedP3}
	for i := range fs {
		fs[i].Number = i + 1
	}
	cov := baseCoverage()
	cov.Rejections = append(cov.Rejections, review.Rejection{Title: "Off by one", File: "store/cache.go", Line: 42, Reason: "the new commit fixed it"})
	return review.Result{
		Repo: "octo/widgets", PR: 12, HeadSHA: headSHA, Mode: "comment", Findings: fs, Coverage: cov, Verdict: review.NotReady,
		Rereview: &review.Rereview{
			Incremental: true, From: earlierSHA, To: headSHA, Commits: 2,
			Heads:   []string{firstSHA, earlierSHA, headSHA},
			Carried: 2, Rechecked: 1, Confirmed: 0,
			Gone:      []review.Rejection{{Title: "Leaked file handle", File: "store/tmp.go", Line: 5, Reason: "its file was deleted in 9c27eed"}},
			OutsidePR: []string{"vendor/x.go"},
		},
	}
}

func TestRereviewRendering(t *testing.T) {
	for _, tt := range []struct {
		name   string
		render func() string
	}{
		{"comment_rereview", func() string { return Comment(rereviewed(), opts()) }},
		{"comment_rereview_whole", func() string {
			r := rereviewed()
			r.Rereview = &review.Rereview{From: earlierSHA, To: headSHA, Reason: "the reviewed head 1111111 is not an ancestor of 9c27eed (a force push or a rebase)", Heads: []string{earlierSHA, headSHA}}
			for i := range r.Findings {
				r.Findings[i].FoundOn = ""
			}
			return Comment(r, opts())
		}},
		{"check_unreviewed", func() string { return formatCheck(Check(unreviewed("success", 0, 3), opts())) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkGolden(t, tt.name, tt.render())
		})
	}
}

func TestRereviewMeta(t *testing.T) {
	r := rereviewed()
	body := Comment(r, opts())
	m, err := marker.ParseReport(body)
	if err != nil {
		t.Fatalf("ParseReport: %v", err)
	}
	if len(m.Heads) != 3 || m.Heads[2] != headSHA || !m.Carries() {
		t.Fatalf("meta heads %v, carries %v; want the history ending at the head, carrying", m.Heads, m.Carries())
	}
	commits := map[string]string{}
	for _, f := range m.Findings {
		commits[f.File] = f.Commit
	}
	if commits["store/cache.go"] != firstSHA && commits["store/cache.go"] != headSHA {
		t.Fatalf("commits %v", commits)
	}
	if commits["docs/guide.go"] != earlierSHA {
		t.Errorf("the carried finding's commit = %q; want the head it was found on, %s", commits["docs/guide.go"], earlierSHA)
	}
	for _, f := range m.Findings {
		if strings.Contains(f.Title, canary) {
			t.Errorf("the meta line leaks the planted secret: %q", f.Title)
		}
	}
	if !strings.Contains(body, "Carried from the review of `2222222`") {
		t.Error("a carried finding does not name the commit it was found on")
	}
	r.Partial = true
	if m, _ := marker.ParseReport(Comment(r, opts())); !m.Incomplete || m.Carries() {
		t.Errorf("an incomplete review's meta: incomplete %v, carries %v; want true, false", m.Incomplete, m.Carries())
	}
}

// unreviewed is the skip-mode result: the earlier report's verdict, and
// new commits nobody reviewed.
func unreviewed(conclusion string, blocking, commits int) review.Result {
	verdict := "ready"
	if blocking > 0 {
		verdict = "not-ready"
	}
	return review.Result{
		Repo: "octo/widgets", PR: 12, HeadSHA: headSHA, Mode: "comment",
		Skipped: true, SkipRule: 4, SkipReason: "on-new-commits is skip",
		Carried:    &marker.Meta{Version: 2, HeadSHA: earlierSHA, Verdict: verdict, Conclusion: conclusion, Blocking: blocking},
		Unreviewed: &review.Unreviewed{Since: earlierSHA, Commits: commits},
	}
}

// TestUnreviewedNeverGreen: under on-new-commits skip the new head's check
// is failure after a blocking review, else action_required: never success
// or neutral, whatever the earlier conclusion.
func TestUnreviewedNeverGreen(t *testing.T) {
	for _, tt := range []struct {
		conclusion string
		blocking   int
		want       string
	}{
		{"success", 0, ConclusionActionRequired},
		{"neutral", 0, ConclusionActionRequired},
		{"failure", 2, ConclusionFailure},
		{"failure", 0, ConclusionFailure}, // every persona failed earlier
		{"success", 1, ConclusionFailure}, // a forged or odd meta: blocking wins
	} {
		r := unreviewed(tt.conclusion, tt.blocking, 1)
		got, _ := Conclusion(r, "P1")
		if got != tt.want {
			t.Errorf("earlier %s/%d: conclusion %s; want %s", tt.conclusion, tt.blocking, got, tt.want)
		}
		chk := Check(r, opts())
		if chk.Conclusion != tt.want || !strings.Contains(chk.Title, "1 commit not reviewed") || !strings.Contains(chk.Title, "/anchor-review") {
			t.Errorf("check %q %q; want %s titled with the count and the command", chk.Conclusion, chk.Title, tt.want)
		}
	}
	r := unreviewed("success", 0, 0)
	if chk := Check(r, opts()); !strings.HasPrefix(chk.Title, "New commits not reviewed") {
		t.Errorf("title without a count: %q", chk.Title)
	}
}

// TestMetaExplanationsGiveWayToRows: the metadata records each posted
// finding's reason and fix so a later run can show them when it carries
// the finding; when the comment is too long for them, the rows shown now
// win: the hidden line drops the explanations (every finding still
// recorded, so still carried) before any row is trimmed.
func TestMetaExplanationsGiveWayToRows(t *testing.T) {
	r := rereviewed()
	for i := range r.Findings {
		r.Findings[i].WhyItMatters = strings.Repeat("Callers lose data when the cache is full. ", 20)
		r.Findings[i].SuggestedFix = "Evict the oldest entry."
	}
	o := opts()
	m, err := marker.ParseReport(Comment(r, o))
	if err != nil || len(m.Findings) != 3 || m.Findings[0].Why == "" || m.Findings[0].Fix != "Evict the oldest entry." {
		t.Fatalf("meta %+v, %v; want every finding with its reason and fix", m, err)
	}

	o = o.normalize(r)
	d := newDoc(r, o)
	d.metaLine = marker.FormatMeta(d.meta().WithoutExplanations())
	want := d.render(view{marker: true}, len(d.rows), false)
	o.MaxLen = utf8.RuneCountInString(want)
	got := Comment(r, o)
	if got != want {
		t.Fatalf("at %d runes: got\n%s\nwant every row, Coverage left out, and a meta line without explanations:\n%s", o.MaxLen, got, want)
	}
	m, err = marker.ParseReport(got)
	if err != nil || len(m.Findings) != 3 || m.Truncated || !m.Carries() {
		t.Errorf("meta %+v, %v; want every finding recorded", m, err)
	}
}
