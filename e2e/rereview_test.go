package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/marker"
)

// The follow-up story: sum.go as first reviewed (sumHead, with the
// off-by-one), then a push adding Mean (which divides by zero), then a push
// fixing the loop.
const (
	meanAdded = `
// Mean is the average of the first n values.
func Mean(values []int, n int) int {
	return Sum(values, n) / n
}
`
	meanLine  = 14
	meanTitle = "Mean divides by zero when n is 0"
	loopTitle = "Loop reads one element past n"
	// deltaMean is sum.go's patch from the first head to the second.
	deltaMean = "@@ -10,0 +11,5 @@\n+\n+// Mean is the average of the first n values.\n+func Mean(values []int, n int) int {\n+\treturn Sum(values, n) / n\n+}"
	// deltaFix is sum.go's patch from the second head to the third.
	deltaFix = "@@ -5,3 +5,3 @@\n \ttotal := 0\n-\tfor i := 0; i <= n; i++ {\n+\tfor i := 0; i < n; i++ {\n \t\ttotal += values[i]"
)

func sumWithMean() string { return sumHead + meanAdded }

func sumFixed() string { return strings.Replace(sumWithMean(), "i <= n;", "i < n;", 1) }

// fileDiff is the PR diff of sum.go added with content.
func fileDiff(content string) string {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var b strings.Builder
	b.WriteString("diff --git a/internal/calc/sum.go b/internal/calc/sum.go\nnew file mode 100644\nindex 0000000..5b7c1d2\n--- /dev/null\n+++ b/internal/calc/sum.go\n")
	b.WriteString("@@ -0,0 +1," + itoa(len(lines)) + " @@\n")
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// push moves the PR to a new head holding content, tells the compare API
// about from...to with sum.go's patch, and points the event at it.
func (s *stage) push(pr githubtest.PR, content, patch string) githubtest.PR {
	s.t.Helper()
	from := pr.HeadSHA
	pr.HeadSHA = newSHA()
	s.gh.AddPR(pr)
	s.gh.SetDiff(pr.Number, fileDiff(content))
	s.gh.SetContent(pr.HeadSHA, sumPath, content)
	s.gh.SetCompare(from, pr.HeadSHA, githubtest.Compare{
		Commits: []string{pr.HeadSHA},
		Files:   []githubtest.File{{Filename: sumPath, Status: "modified", Patch: patch}},
	})
	s.event("pull_request", "pull_request.synchronize", pr)
	return pr
}

// followupModel answers as reviewers would on each step of the story:
// the off-by-one while the reviewed diff holds the wrong loop, Mean's
// division while it holds Mean, nothing in the diff of the fix; the validator refutes
// the off-by-one against a fixed head and confirms everything else.
func (s *stage) followupModel() {
	s.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		body := promptText(r)
		if r.Persona == llm.Validator {
			return llmtest.Verdicts(r, func(f string) string {
				if strings.Contains(f, loopTitle) && strings.Contains(body, "i < n;") {
					return `{"validated":false,"reason":"The loop now stops before n: fixed by the new commit."}`
				}
				return `{"validated":true,"reason":"Real in the code as written."}`
			})
		}
		if r.Persona != "correctness" {
			return llmtest.OK(answer(r.Persona))
		}
		var fs []map[string]any
		if strings.Contains(body, "i <= n;") && !strings.Contains(body, "i < n;") {
			fs = append(fs, offByOne("P1"))
		}
		if strings.Contains(body, "func Mean(") && !strings.Contains(body, "i < n;") {
			fs = append(fs, meanFinding())
		}
		return llmtest.OK(answer(r.Persona, fs...))
	})
}

// promptText is every message of a model request, decoded (the request
// body's JSON escapes < and >).
func promptText(r llmtest.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

func meanFinding() map[string]any {
	f := offByOne("P2")
	f["title"], f["line"] = meanTitle, meanLine
	f["why_it_matters"] = "Mean(values, 0) panics with an integer division by zero."
	f["evidence"] = []string{"internal/calc/sum.go:14: return Sum(values, n) / n"}
	f["suggested_fix"] = "Return 0 when n is 0."
	return f
}

// tableRow is the report's table row holding title ("" when none does).
func tableRow(body, title string) string {
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, "**"+title+"**") {
			return line
		}
	}
	return ""
}

func reportMeta(t *testing.T, c githubtest.Comment) marker.Meta {
	t.Helper()
	m, err := marker.ParseReport(c.Body)
	if err != nil {
		t.Fatalf("the report's meta does not parse: %v\n%s", err, c.Body)
	}
	return m
}

// TestPushesAreReviewedIncrementally: a push after a review is reviewed
// from the reviewed head on; the untouched finding is carried, the fixed
// one is re-checked and gone, and the one report is edited in place.
func TestPushesAreReviewedIncrementally(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	s.followupModel()
	pr := s.addPR(githubtest.PR{})
	s.event("pull_request", "pull_request.opened", pr)
	if r := s.run(nil); r.exit != 1 {
		t.Fatalf("first review: exit %d; want 1%s", r.exit, r.logs())
	}
	first := reportComments(s.gh, pr.Number)
	if len(first) != 1 {
		t.Fatalf("%d reports after the first review; want 1", len(first))
	}

	// Push 1: Mean is added below the loop.
	pr2 := s.push(pr, sumWithMean(), deltaMean)
	before := len(s.model.Requests())
	second := s.run(nil)
	if second.exit != 1 {
		t.Fatalf("second review: exit %d; want 1 (the carried P1)%s", second.exit, second.logs())
	}
	wantOutputs(t, second, map[string]string{"skipped": "false", "findings": "2", "verdict": "not-ready", "conclusion": "failure"})
	for _, r := range s.model.Requests()[before:] {
		if r.Persona != llm.Validator && strings.Contains(promptText(r), "total += values[i]") {
			t.Fatalf("persona %s was sent code the push did not change", r.Persona)
		}
	}
	reports := reportComments(s.gh, pr.Number)
	if len(reports) != 1 || reports[0].ID != first[0].ID || reports[0].Edits != 1 {
		t.Fatalf("reports %+v; want the one report edited in place", reports)
	}
	body := reports[0].Body
	for _, want := range []string{loopTitle, meanTitle, "Carried from the review of `" + pr.HeadSHA[:7] + "`", "**Reviewed range:** the new commits only"} {
		if !strings.Contains(body, want) {
			t.Errorf("the report lacks %q:\n%s", want, body)
		}
	}
	// The carried finding shows what it showed when first posted: its
	// reason and its fix, not only its title.
	if row := tableRow(body, loopTitle); !strings.Contains(row, "every caller passing the full length crashes") || !strings.Contains(row, "Suggested fix: Use i &lt; n.") {
		t.Errorf("the carried finding's row lost its reason or fix: %q", row)
	}
	m := reportMeta(t, reports[0])
	if m.HeadSHA != pr2.HeadSHA || len(m.Heads) != 2 || len(m.Findings) != 2 {
		t.Errorf("meta %+v; want head %s, 2 heads, 2 findings", m, pr2.HeadSHA)
	}
	checks := s.gh.CheckRuns()
	if ch := checks[len(checks)-1]; ch.HeadSHA != pr2.HeadSHA || ch.Conclusion != "failure" {
		t.Errorf("check %s/%s; want failure on the new head", ch.HeadSHA, ch.Conclusion)
	}

	// Push 2: the loop is fixed; the off-by-one is re-checked and gone.
	pr3 := s.push(pr2, sumFixed(), deltaFix)
	third := s.run(nil)
	if third.exit != 0 {
		t.Fatalf("third review: exit %d; want 0 (only a P2 left)%s", third.exit, third.logs())
	}
	wantOutputs(t, third, map[string]string{"findings": "1", "verdict": "ready-with-fixes", "conclusion": "success"})
	reports = reportComments(s.gh, pr.Number)
	if len(reports) != 1 || reports[0].Edits != 2 {
		t.Fatalf("reports %+v; want the one report edited again", reports)
	}
	body = reports[0].Body
	if strings.Contains(body, "| **"+loopTitle) || !strings.Contains(body, meanTitle) || !strings.Contains(body, "fixed by the new commit") {
		t.Errorf("the fixed finding is still listed, Mean is missing, or the rejection is not in Coverage:\n%s", body)
	}
	if row := tableRow(body, meanTitle); !strings.Contains(row, "panics with an integer division by zero") || !strings.Contains(row, "Return 0 when n is 0.") || !strings.Contains(row, "Carried from the review of") {
		t.Errorf("the finding carried a second time lost its reason or fix: %q", row)
	}
	m = reportMeta(t, reports[0])
	if len(m.Findings) != 1 || m.Findings[0].Commit != pr2.HeadSHA || len(m.Heads) != 3 {
		t.Errorf("meta %+v; want Mean, found on %s, and 3 reviewed heads", m, pr2.HeadSHA)
	}
	if ch := s.gh.CheckRuns()[len(s.gh.CheckRuns())-1]; ch.HeadSHA != pr3.HeadSHA || ch.Conclusion != "success" {
		t.Errorf("check %s/%s; want success on the fixed head", ch.HeadSHA, ch.Conclusion)
	}
	for _, w := range writes(s.gh.Requests()) {
		if w.Method == http.MethodDelete {
			t.Errorf("unexpected delete %s", w.Path)
		}
	}
}

// commentEvent writes an issue_comment payload (the octokit example, moved
// onto the PR) for a new comment by login with association, and returns
// the comment's id.
func (s *stage) commentEvent(pr githubtest.PR, body, login, association string) int64 {
	s.t.Helper()
	id := s.gh.AddComment(pr.Number, login, body)
	b, err := fixtures.FS.ReadFile("github/issue_comment.created.json")
	if err != nil {
		s.t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(b, &ev); err != nil {
		s.t.Fatal(err)
	}
	ev["repository"].(map[string]any)["full_name"] = repoFull
	issue := ev["issue"].(map[string]any)
	issue["number"] = pr.Number
	issue["pull_request"] = map[string]any{"url": s.gh.URL + "/repos/" + repoFull + "/pulls/" + itoa(pr.Number)}
	c := ev["comment"].(map[string]any)
	c["id"], c["body"], c["author_association"] = id, body, association
	c["user"].(map[string]any)["login"] = login
	out, err := json.Marshal(ev)
	if err != nil {
		s.t.Fatal(err)
	}
	path := filepath.Join(s.dir, "issue_comment.event.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		s.t.Fatal(err)
	}
	s.env["GITHUB_EVENT_NAME"] = "issue_comment"
	s.env["GITHUB_EVENT_PATH"] = path
	// On issue_comment GITHUB_SHA is the default branch's head: never the
	// commit to put the check on.
	s.env["GITHUB_SHA"] = strings.Repeat("d", 40)
	return id
}

// TestCommentCommand: /anchor-review by someone who may push (their
// permission read from the API, whatever author_association says)
// re-reviews the whole PR (rule 4 bypassed) with a reaction and a check on
// the PR's head from the API; anyone else, and any commenter whose
// permission cannot be read, gets a notice, and nothing happens.
func TestCommentCommand(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, association string
		grant             func(gh *githubtest.Server, login string)
	}{
		{"a maintainer re-reviews", "MEMBER", func(gh *githubtest.Server, login string) { gh.SetRole(login, "maintain") }},
		// A member whose membership is private shows as CONTRIBUTOR.
		{"a private org member with write re-reviews", "CONTRIBUTOR", func(gh *githubtest.Server, login string) { gh.SetRole(login, "write") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStage(t)
			s.answers(map[string][]map[string]any{"correctness": {offByOne("P1")}})
			pr := s.addPR(githubtest.PR{})
			s.event("pull_request", "pull_request.opened", pr)
			if r := s.run(nil); r.exit != 1 {
				t.Fatalf("first review: exit %d%s", r.exit, r.logs())
			}
			calls := len(s.model.Requests())
			tt.grant(s.gh, "maintainer")
			id := s.commentEvent(pr, "/anchor-review please", "maintainer", tt.association)
			r := s.run(nil)
			if r.exit != 1 {
				t.Fatalf("re-review: exit %d; want 1%s", r.exit, r.logs())
			}
			wantOutputs(t, r, map[string]string{"skipped": "false", "findings": "1", "conclusion": "failure"})
			if len(s.model.Requests()) == calls {
				t.Fatal("no model call: the comment did not re-review")
			}
			if got := s.gh.Reactions(id); len(got) != 1 || got[0] != "eyes" {
				t.Errorf("reactions on the command %v; want [eyes]", got)
			}
			checks := s.gh.CheckRuns()
			if len(checks) != 2 || checks[1].HeadSHA != pr.HeadSHA {
				t.Errorf("checks %+v; want the second on the PR's head %s (not GITHUB_SHA)", checks, pr.HeadSHA)
			}
			if n := len(reportComments(s.gh, pr.Number)); n != 1 {
				t.Errorf("%d reports; want 1", n)
			}
		})
	}
	for _, tt := range []struct {
		name, association, notice string
		setup                     func(gh *githubtest.Server, login string)
	}{
		// author_association says COLLABORATOR for triage and read-only
		// collaborators.
		{"a triage COLLABORATOR is refused", "COLLABORATOR", "role on " + repoFull + " is triage (permission read)",
			func(gh *githubtest.Server, login string) { gh.SetRole(login, "triage") }},
		{"a read-only COLLABORATOR is refused", "COLLABORATOR", "is read (permission read)",
			func(gh *githubtest.Server, login string) { gh.SetRole(login, "read") }},
		{"a drive-by commenter is refused", "NONE", "is read (permission read)", func(*githubtest.Server, string) {}},
		{"a refused permission read is no permission", "OWNER", "could not read their permission",
			func(gh *githubtest.Server, login string) {
				gh.SetRole(login, "admin")
				gh.Inject(githubtest.Fault{PathContains: "/permission", Status: http.StatusForbidden})
			}},
		{"a login that is no user is refused", "MEMBER", "could not read their permission",
			func(gh *githubtest.Server, login string) { gh.SetNoUser(login) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStage(t)
			s.answers(nil)
			pr := s.addPR(githubtest.PR{})
			tt.setup(s.gh, "commenter")
			s.commentEvent(pr, "/anchor-review", "commenter", tt.association)
			r := s.run(nil)
			if r.exit != 0 || !strings.Contains(r.stdout, "may request a review") || !strings.Contains(r.stdout, tt.notice) {
				t.Fatalf("exit %d; want 0 with a notice containing %q%s", r.exit, tt.notice, r.logs())
			}
			if n := len(s.model.Requests()); n != 0 {
				t.Errorf("%d model calls; want none", n)
			}
			if w := writes(s.gh.Requests()); len(w) != 0 {
				t.Errorf("writes %s; want nothing posted", describe(w))
			}
			var reads []string
			for _, req := range s.gh.Requests() {
				reads = append(reads, req.Method+" "+req.Path)
			}
			if want := "GET /repos/" + repoFull + "/collaborators/commenter/permission"; len(reads) != 1 || reads[0] != want {
				t.Errorf("requests %v; want only %s", reads, want)
			}
			wantOutputs(t, r, map[string]string{"skipped": "true"})
		})
	}
}

// TestOnNewCommitsSkipNeverGreen: with on-new-commits skip a push gets no
// review and a check that is never green.
func TestOnNewCommitsSkipNeverGreen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		severity string // of the first review's finding; "" for none
		refuse   bool
		want     string
		fromFile bool // on_new_commits: skip in .github/anchor-review.yml, not the input
	}{
		{"clean first review", "", false, "action_required", false},
		{"GitHub refuses action_required", "", true, "failure", false},
		{"blocking first review", "P1", false, "failure", false},
		{"set by the repository configuration", "", false, "action_required", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newStage(t)
			if tc.severity != "" {
				s.answers(map[string][]map[string]any{"correctness": {offByOne(tc.severity)}})
			} else {
				s.answers(nil)
			}
			if tc.refuse {
				s.gh.RefuseConclusion("action_required")
			}
			pr := s.addPR(githubtest.PR{})
			if tc.fromFile {
				s.gh.SetContent(pr.BaseSHA, ".github/anchor-review.yml", "on_new_commits: skip\n")
			} else {
				s.env["INPUT_ON-NEW-COMMITS"] = "skip"
			}
			s.event("pull_request", "pull_request.opened", pr)
			s.run(nil)
			calls := len(s.model.Requests())
			pr2 := s.push(pr, sumWithMean(), deltaMean)
			r := s.run(nil)
			if r.exit != 0 {
				t.Fatalf("exit %d; want 0 (the check carries it)%s", r.exit, r.logs())
			}
			wantOutputs(t, r, map[string]string{"skipped": "true", "conclusion": tc.want})
			if len(s.model.Requests()) != calls {
				t.Error("the skipped push cost model calls")
			}
			checks := s.gh.CheckRuns()
			ch := checks[len(checks)-1]
			if ch.HeadSHA != pr2.HeadSHA || ch.Conclusion != tc.want || !strings.Contains(ch.Title, "1 commit not reviewed") {
				t.Errorf("check on %s: %s %q; want %s on %s, titled with the count", ch.HeadSHA, ch.Conclusion, ch.Title, tc.want, pr2.HeadSHA)
			}
		})
	}
}

// TestRereviewFaults: nothing goes wrong silently. A failing compare API
// or an unreadable meta line reviews the whole PR; a carried finding's
// deleted file drops it; every case leaves one report.
func TestRereviewFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		before func(s *stage, pr githubtest.PR)
	}{
		{name: "the compare API fails", before: func(s *stage, pr githubtest.PR) {
			s.gh.Inject(githubtest.Fault{PathContains: "/compare/", Status: http.StatusBadGateway})
		}},
		{name: "the meta line does not parse", before: func(s *stage, pr githubtest.PR) {
			c := reportComments(s.gh, pr.Number)[0]
			broken := strings.Replace(c.Body, `"version":2`, `"version":"two"`, 1)
			editComment(s, c.ID, broken)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newStage(t)
			s.followupModel()
			pr := s.addPR(githubtest.PR{})
			s.event("pull_request", "pull_request.opened", pr)
			s.run(nil)
			pr2 := s.push(pr, sumWithMean(), deltaMean)
			tc.before(s, pr)
			r := s.run(nil)
			if r.exit != 1 {
				t.Fatalf("exit %d; want 1 (the off-by-one, found again)%s", r.exit, r.logs())
			}
			reports := reportComments(s.gh, pr.Number)
			if len(reports) != 1 {
				t.Fatalf("%d reports; want 1", len(reports))
			}
			body := reports[0].Body
			if strings.Contains(body, "the new commits only") {
				t.Errorf("an incremental review despite the fault:\n%s", body)
			}
			if strings.Contains(body, "Carried from") {
				t.Errorf("a whole-PR review carried findings:\n%s", body)
			}
			if m := reportMeta(t, reports[0]); m.HeadSHA != pr2.HeadSHA {
				t.Errorf("meta head %s; want %s", m.HeadSHA, pr2.HeadSHA)
			}
		})
	}
	t.Run("a carried finding's file is deleted", func(t *testing.T) {
		t.Parallel()
		s := newStage(t)
		s.followupModel()
		pr := s.addPR(githubtest.PR{})
		s.event("pull_request", "pull_request.opened", pr)
		s.run(nil)
		// The push deletes sum.go and adds mean.go instead.
		from := pr.HeadSHA
		pr.HeadSHA = newSHA()
		s.gh.AddPR(pr)
		mean := "package calc\n" + meanAdded
		s.gh.SetDiff(pr.Number, strings.ReplaceAll(fileDiff(mean), "internal/calc/sum.go", "internal/calc/mean.go"))
		s.gh.SetContent(pr.HeadSHA, "internal/calc/mean.go", mean)
		s.gh.SetCompare(from, pr.HeadSHA, githubtest.Compare{Commits: []string{pr.HeadSHA}, Files: []githubtest.File{
			{Filename: sumPath, Status: "removed", Patch: "@@ -1,10 +0,0 @@\n-" + strings.Join(strings.Split(strings.TrimSuffix(sumHead, "\n"), "\n"), "\n-")},
			{Filename: "internal/calc/mean.go", Status: "added", Patch: "@@ -0,0 +1,6 @@\n+" + strings.Join(strings.Split(strings.TrimSuffix(mean, "\n"), "\n"), "\n+")},
		}})
		s.event("pull_request", "pull_request.synchronize", pr)
		r := s.run(nil)
		if r.exit != 0 {
			t.Fatalf("exit %d; want 0 (the P1's file is gone, Mean is a P2)%s", r.exit, r.logs())
		}
		reports := reportComments(s.gh, pr.Number)
		if len(reports) != 1 || strings.Contains(reports[0].Body, "| **"+loopTitle) || !strings.Contains(reports[0].Body, "its file was deleted") {
			t.Fatalf("reports %d; want one, the deleted file's finding gone and said so:\n%s", len(reports), reports[0].Body)
		}
	})
}

// editComment rewrites a comment through the fake's API, as another
// writer would.
func editComment(s *stage, id int64, body string) {
	s.t.Helper()
	b, _ := json.Marshal(map[string]string{"body": body})
	req, err := http.NewRequest(http.MethodPatch, s.gh.URL+"/repos/"+repoFull+"/issues/comments/"+itoa(int(id)), strings.NewReader(string(b)))
	if err != nil {
		s.t.Fatal(err)
	}
	resp, err := s.gh.HTTPClient().Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		s.t.Fatalf("edit comment: %v %v", err, resp)
	}
	resp.Body.Close()
}

// TestRacingPushes: the newer run, held in its review, must see the report
// the older run posted meanwhile and edit it: never a second report.
func TestRacingPushes(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	release := make(chan struct{})
	s.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		<-release
		if r.Persona == llm.Validator {
			return llmtest.Verdicts(r, func(string) string { return `{"validated":true,"reason":"Real."}` })
		}
		if r.Persona == "correctness" {
			return llmtest.OK(answer(r.Persona, offByOne("P1")))
		}
		return llmtest.OK(answer(r.Persona))
	})
	pr := s.addPR(githubtest.PR{})
	s.event("pull_request", "pull_request.opened", pr)
	wait := s.start(t.Context(), nil)
	deadline := time.Now().Add(time.Minute)
	for len(s.model.Requests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	// Meanwhile the run for the previous push (not cancelled in time)
	// posts its report.
	older := marker.Report + "\n" + marker.FormatMeta(marker.Meta{HeadSHA: strings.Repeat("e", 40), Verdict: "ready", Conclusion: "success", Heads: []string{strings.Repeat("e", 40)}}) + "\n## anchor-review: no findings\n"
	s.gh.AddReport(pr.Number, botLogin, older)
	close(release)
	r := wait()
	if r.exit != 1 {
		t.Fatalf("exit %d; want 1%s", r.exit, r.logs())
	}
	reports := reportComments(s.gh, pr.Number)
	if len(reports) != 1 || !strings.Contains(reports[0].Body, loopTitle) || reports[0].Edits != 1 {
		t.Fatalf("reports %+v; want the older run's report edited with this run's findings", reports)
	}
	for _, w := range writes(s.gh.Requests()) {
		if w.Method == http.MethodDelete || (w.Method == http.MethodPost && strings.HasSuffix(w.Path, "/comments")) {
			t.Errorf("write %s %s: the newer run must edit the posted report", w.Method, w.Path)
		}
	}
}
