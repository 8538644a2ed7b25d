package report

import (
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// TestDismissalsRendered: a dismissed finding leaves the tables and the
// blocking set; the report, the check's summary and the metadata list the
// dismissal; the reason is sanitized like all posted text (no HTML, no
// live mention, no off-host link, no secret, no marker copy).
func TestDismissalsRendered(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("c", 40)
	f := finding.Finding{Number: 1, Title: "Exported type removed", Severity: finding.P1, File: "api.go", Line: 9, Confidence: 100, Reviewers: []string{"correctness"}}
	fp := finding.Fingerprint(f)
	reason := "intended <script>x</script> @org/team [docs](https://evil.example/x) sk-proj-abcdefghijklmnopqrstuvwxyz012345 " + marker.Report
	r := review.Result{HeadSHA: head, Repo: "o/r", Dismissed: []finding.Finding{f}, Verdict: review.Ready,
		Dismissals: []marker.Dismissal{{ID: fp[:6], Fingerprint: fp, File: "api.go", Line: 9, Severity: "P1", Title: f.Title,
			By: "maint", At: "2026-11-28T05:40:00Z", Reason: reason, Head: head}}}
	o := Options{Secrets: []string{"sk-proj-abcdefghijklmnopqrstuvwxyz012345"}}
	body := Comment(r, o)
	chk := Check(r, o)
	if chk.Conclusion != ConclusionSuccess {
		t.Errorf("conclusion %s; want success (the finding is dismissed)", chk.Conclusion)
	}
	for name, text := range map[string]string{"comment": body, "check": chk.Summary} {
		if !strings.Contains(text, "### Dismissed findings") || !strings.Contains(text, "`"+fp[:6]+"`") || !strings.Contains(text, "`maint`") || !strings.Contains(text, "2026-11-28 05:40 UTC") {
			t.Errorf("%s does not list the dismissal (id, who, when):\n%s", name, text)
		}
		for _, bad := range []string{"<script>", "@org", "evil.example", "sk-proj-", "\n| 1 |"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s holds %q:\n%s", name, bad, text)
			}
		}
	}
	if strings.Count(body, marker.Report) != 1 {
		t.Errorf("the reason carried a copy of the marker")
	}
	m, err := marker.ParseReport(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Dismissals) != 1 || len(m.Findings) != 1 || m.Findings[0].ID != fp[:6] || m.Blocking != 0 || strings.Contains(m.Dismissals[0].Reason, "sk-proj-") {
		t.Errorf("meta %+v; want the dismissal and the finding recorded, nothing blocking, no secret", m)
	}
}

// TestAmendKeepsTotals: re-publishing after a dismissal counts no review
// and keeps the earlier Coverage and team line.
func TestAmendKeepsTotals(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("c", 40)
	earlier := marker.Meta{Version: 2, HeadSHA: head, Verdict: "not-ready", Conclusion: "failure", Blocking: 1, Reviews: 3,
		Heads: []string{head}, Usage: []marker.Usage{{Name: "correctness", Reviews: 3, Calls: 3, PromptTokens: 10}}}
	team, cov := EarlierSections("x\n**Team:** correctness (always on).\n\n<details><summary>Coverage</summary>\n\n**Personas:** 1 persona ran.\n<!-- hidden -->\n\n</details>\n")
	r := review.Reissue(earlier, "o/r", 1)
	body := Comment(r, Options{Amend: &Amendment{Meta: earlier, Team: team, Coverage: cov}})
	m, err := marker.ParseReport(body)
	if err != nil {
		t.Fatal(err)
	}
	if m.Reviews != 3 || len(m.Usage) != 1 || m.Usage[0].Calls != 3 || m.Conclusion != "success" {
		t.Errorf("meta %+v; want the earlier totals and the new conclusion", m)
	}
	if !strings.Contains(body, "**Team:** correctness (always on).") || !strings.Contains(body, "**Personas:** 1 persona ran.") || strings.Contains(body, "<!-- hidden") {
		t.Errorf("body lost the earlier sections or kept a hidden line:\n%s", body)
	}
}
