package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
)

// checkReport checks the report-path output: the file exists and is JSON.
func checkReport(t *testing.T, r result) map[string]any {
	t.Helper()
	path := r.outputs["report-path"]
	b, err := r.file("report-path")
	if err != nil {
		t.Fatalf("report-path: %v%s", err, r.logs())
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("report-path %s does not parse as JSON: %v", path, err)
	}
	return v
}

// TestFirstReviewThenManualRerun is issue 6: the first review creates
// exactly one report comment and one check run on the head SHA; a
// workflow_dispatch rerun edits that same comment instead of adding one.
func TestFirstReviewThenManualRerun(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	pr := s.addPR(githubtest.PR{})
	s.answers(map[string][]map[string]any{"correctness": {offByOne("P1")}})
	s.event("pull_request", "pull_request.opened", pr)

	first := s.run(nil)

	if first.exit != 1 {
		t.Errorf("first run: exit code %d; want 1 (a P1 finding)%s", first.exit, first.logs())
	}
	wantOutputs(t, first, map[string]string{
		"skipped": "false", "skip-reason": "", "findings": "1", "verdict": "not-ready", "conclusion": "failure",
	})
	checkReport(t, first)
	comments := s.gh.Comments(pr.Number)
	if len(comments) != 1 {
		t.Fatalf("comments after the first run %d; want 1", len(comments))
	}
	c := comments[0]
	if line, _, _ := strings.Cut(c.Body, "\n"); line != reportMk {
		t.Errorf("comment's first line %q; want %q", line, reportMk)
	}
	if !strings.Contains(c.Body, "Loop reads one element past n") {
		t.Errorf("comment lacks the finding:\n%s", c.Body)
	}
	wantURL := fmt.Sprintf("https://github.com/%s/pull/%d#issuecomment-%d", repoFull, pr.Number, c.ID)
	wantOutputs(t, first, map[string]string{"comment-url": wantURL})
	checks := s.gh.CheckRuns()
	if len(checks) != 1 {
		t.Fatalf("check runs %d; want 1", len(checks))
	}
	if ch := checks[0]; ch.Name != "anchor-review" || ch.HeadSHA != pr.HeadSHA || ch.Status != "completed" || ch.Conclusion != "failure" {
		t.Errorf("check run %q on %s %s/%s; want %q on %s completed/failure", ch.Name, ch.HeadSHA, ch.Status, ch.Conclusion, "anchor-review", pr.HeadSHA)
	}

	t.Logf("a full review cost %d GitHub requests and %d model calls:%s", len(s.gh.Requests()), len(s.model.Requests()), describe(s.gh.Requests()))

	// The rerun: the bot's report is on the PR, and a person asks again.
	s.event("workflow_dispatch", "workflow_dispatch", pr)
	second := s.run(map[string]string{"INPUT_PR-NUMBER": itoa(pr.Number)})

	if second.exit != 1 {
		t.Errorf("rerun: exit code %d; want 1%s", second.exit, second.logs())
	}
	wantOutputs(t, second, map[string]string{"skipped": "false", "comment-url": wantURL, "conclusion": "failure"})
	after := s.gh.Comments(pr.Number)
	if len(after) != 1 || after[0].ID != c.ID || after[0].Edits != 1 {
		t.Errorf("after the rerun: %d comments (first id %d, %d edits); want 1, id %d, 1 edit", len(after), idOf(after), editsOf(after), c.ID)
	}
	for _, w := range writes(s.gh.Requests()) {
		if w.Method == http.MethodPost && strings.HasSuffix(w.Path, "/comments") && strings.Contains(w.Body, "anchor-review:report") {
			continue // the first run's one create
		}
		if w.Method == http.MethodDelete {
			t.Errorf("unexpected delete %s", w.Path)
		}
	}
	if got := len(s.gh.CheckRuns()); got != 2 {
		t.Errorf("check runs after the rerun %d; want 2 (one per run)", got)
	}
}

func idOf(cs []githubtest.Comment) int64 {
	if len(cs) == 0 {
		return 0
	}
	return cs[0].ID
}

func editsOf(cs []githubtest.Comment) int {
	if len(cs) == 0 {
		return 0
	}
	return cs[0].Edits
}

// TestConclusionFollowsFindings: the check and the exit code follow the
// most severe posted finding against fail-on (default P1).
func TestConclusionFollowsFindings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                 string
		findings             []map[string]any
		failOn               string
		wantExit             int
		wantConclusion       string
		wantVerdict, wantNum string
	}{
		{name: "only a P3", findings: []map[string]any{offByOne("P3")}, wantExit: 0, wantConclusion: "success", wantVerdict: "ready-with-fixes", wantNum: "1"},
		{name: "nothing found", wantExit: 0, wantConclusion: "success", wantVerdict: "ready", wantNum: "0"},
		{name: "a P1 under fail-on never", findings: []map[string]any{offByOne("P1")}, failOn: "never", wantExit: 0, wantConclusion: "success", wantVerdict: "not-ready", wantNum: "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStage(t)
			pr := s.addPR(githubtest.PR{})
			s.answers(map[string][]map[string]any{"correctness": tt.findings})
			s.event("pull_request", "pull_request.opened", pr)

			r := s.run(map[string]string{"INPUT_FAIL-ON": tt.failOn})

			if r.exit != tt.wantExit {
				t.Errorf("exit code %d; want %d%s", r.exit, tt.wantExit, r.logs())
			}
			wantOutputs(t, r, map[string]string{"conclusion": tt.wantConclusion, "verdict": tt.wantVerdict, "findings": tt.wantNum})
			checks := s.gh.CheckRuns()
			if len(checks) != 1 || checks[0].Conclusion != tt.wantConclusion {
				t.Errorf("check runs %+v; want one with conclusion %s", checks, tt.wantConclusion)
			}
			if got := len(reportComments(s.gh, pr.Number)); got != 1 {
				t.Errorf("report comments %d; want 1", got)
			}
			checkReport(t, r)
		})
	}
}

// TestReportOnlyOutputs: report-only posts nothing, so there is no check
// run and the conclusion output is empty; it never says "success" beside a
// not-ready verdict. Unvalidated findings do not fail the step.
func TestReportOnlyOutputs(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	pr := s.addPR(githubtest.PR{})
	s.answers(map[string][]map[string]any{"correctness": {offByOne("P0")}})
	s.event("pull_request", "pull_request.opened", pr)

	r := s.run(map[string]string{"INPUT_MODE": "report-only"})

	if r.exit != 0 {
		t.Errorf("exit code %d; want 0%s", r.exit, r.logs())
	}
	wantOutputs(t, r, map[string]string{"conclusion": "", "verdict": "not-ready", "findings": "1", "comment-url": "", "skipped": "false"})
	if n, w := len(s.gh.CheckRuns()), writes(s.gh.Requests()); n != 0 || len(w) != 0 {
		t.Errorf("check runs %d, writes %d; want none in report-only mode:%s", n, len(w), describe(w))
	}
	if !strings.Contains(r.summary, "Loop reads one element past n") {
		t.Errorf("the job summary lacks the finding:\n%s", r.summary)
	}
}

// TestConcurrentRunsLeaveOneComment: two runs started at once (a push
// and a manual rerun) end with exactly one report comment. The fake
// GitHub holds both creates back so they overlap.
func TestConcurrentRunsLeaveOneComment(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	pr := s.addPR(githubtest.PR{})
	s.answers(map[string][]map[string]any{"correctness": {offByOne("P2")}})
	// A barrier: both runs' creates are held until both have arrived, so
	// the runs overlap on any machine.
	s.gh.Inject(githubtest.Fault{Method: http.MethodPost, PathContains: "/issues/", HoldUntil: 2, Times: 2})
	s.event("pull_request", "pull_request.synchronize", pr)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	waitA := s.start(ctx, nil)
	waitB := s.start(ctx, nil)
	a, b := waitA(), waitB()

	for i, r := range []result{a, b} {
		if r.exit != 0 {
			t.Errorf("run %d: exit code %d; want 0%s", i, r.exit, r.logs())
		}
	}
	got := reportComments(s.gh, pr.Number)
	if len(got) != 1 {
		t.Fatalf("report comments %d; want 1", len(got))
	}
	creates := 0
	for _, w := range writes(s.gh.Requests()) {
		if w.Method == http.MethodPost && strings.HasSuffix(w.Path, "/comments") {
			creates++
		}
	}
	if creates != 2 || s.gh.BarrierTimeouts() != 0 {
		t.Fatalf("%d create(s), %d barrier timeouts; want 2 and 0: the barrier should make both runs post together", creates, s.gh.BarrierTimeouts())
	}
	want := fmt.Sprintf("#issuecomment-%d", got[0].ID)
	for i, r := range []result{a, b} {
		if u := r.outputs["comment-url"]; !strings.HasSuffix(u, want) {
			t.Errorf("run %d: comment-url %q; want the surviving comment (%s); %d creates", i, u, want, creates)
		}
	}
}

// TestReadOnlyToken: a token that may not write (a fork PR) causes no
// retry storm; the report goes to the job summary, the log names the
// missing permission, and the exit code still carries the verdict.
func TestReadOnlyToken(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	pr := s.addPR(githubtest.PR{})
	s.answers(map[string][]map[string]any{"correctness": {offByOne("P1")}})
	s.gh.Inject(githubtest.ReadOnlyToken())
	s.event("pull_request", "pull_request.opened", pr)

	r := s.run(nil)

	if r.exit != 1 {
		t.Errorf("exit code %d; want 1 (the P1 verdict)%s", r.exit, r.logs())
	}
	all := s.gh.Requests()
	w := writes(all)
	if len(w) != 2 {
		t.Errorf("GitHub writes %d; want 2 (one comment, one check run attempt):%s", len(w), describe(w))
	}
	t.Logf("a read-only run cost %d GitHub requests (%d writes)", len(all), len(w))
	if len(all) > 12 {
		t.Errorf("GitHub requests %d; want at most 12:%s", len(all), describe(all))
	}
	if len(s.gh.Comments(pr.Number)) != 0 || len(s.gh.CheckRuns()) != 0 {
		t.Errorf("the fake accepted a write from a read-only token")
	}
	if !strings.Contains(r.summary, "Loop reads one element past n") {
		t.Errorf("job summary lacks the finding:\n%s", r.summary)
	}
	for _, perm := range []string{"pull-requests: write", "checks: write"} {
		if !strings.Contains(r.stdout, perm) {
			t.Errorf("log does not name the missing permission %q%s", perm, r.logs())
		}
	}
	if !strings.Contains(r.stdout, "::error ") || !strings.Contains(r.stdout, "file="+sumPath) {
		t.Errorf("no error annotation on %s in the log%s", sumPath, r.logs())
	}
	wantOutputs(t, r, map[string]string{"conclusion": "failure", "verdict": "not-ready", "comment-url": ""})
}

// TestEveryPersonaFails: when no persona answers, the run exits 3, the
// check fails, and nothing on the PR reads as a clean review.
func TestEveryPersonaFails(t *testing.T) {
	t.Parallel()
	serverError := llmtest.ServerError()
	// A tiny Retry-After keeps the client's backoff (the real one) short.
	serverError.Headers = map[string]string{"retry-after-ms": "1"}
	tests := []struct {
		name  string
		reply llmtest.Reply
	}{
		{name: "500 on every call", reply: serverError},
		{name: "malformed answers", reply: llmtest.Malformed()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStage(t)
			pr := s.addPR(githubtest.PR{})
			s.model.SetDefault(func(llmtest.Request) llmtest.Reply { return tt.reply })
			s.event("pull_request", "pull_request.opened", pr)

			r := s.run(nil)

			if r.exit != 3 {
				t.Errorf("exit code %d; want 3%s", r.exit, r.logs())
			}
			wantOutputs(t, r, map[string]string{"conclusion": "failure", "verdict": "degraded", "skipped": "false"})
			checks := s.gh.CheckRuns()
			if len(checks) != 1 || checks[0].Conclusion != "failure" {
				t.Errorf("check runs %+v; want one failure", checks)
			}
			for _, c := range s.gh.Comments(pr.Number) {
				if strings.Contains(c.Body, "Ready to merge") {
					t.Errorf("a comment reads as a clean review:\n%s", c.Body)
				}
			}
			for _, req := range s.model.Requests() {
				if req.Persona == llm.Validator {
					t.Errorf("the validator ran with no persona answer")
				}
			}
			checkReport(t, r)
		})
	}
}

// TestSecretsNeverLeak: the api key and the GitHub token are unique
// canaries, and the model echoes both inside its finding. Neither may reach
// GitHub, the step's log, its outputs, the job summary or the report file;
// both are masked with ::add-mask:: first.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	apiKey := "CanaryApiKey" + newSHA()[28:]
	token := "CanaryGhToken" + newSHA()[28:]
	s.env["INPUT_API-KEY"], s.env["INPUT_GITHUB-TOKEN"] = apiKey, token
	pr := s.addPR(githubtest.PR{})
	s.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		if r.Persona == llm.Validator {
			return llmtest.Verdicts(r, func(string) string { return `{"validated":true,"reason":"Confirmed."}` })
		}
		if r.Persona != "correctness" {
			return llmtest.OK(answer(r.Persona))
		}
		// Echo what the model can see of the key, plus the token.
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		f := offByOne("P1")
		f["title"] = "Leak " + key + " " + token
		f["why_it_matters"] = "The key " + key + " and token " + token + " are exposed."
		f["evidence"] = []string{"sum.go:6: " + key, token}
		f["suggested_fix"] = "Rotate " + key + " and " + token + "."
		return llmtest.OK(answer(r.Persona, f))
	})
	s.event("pull_request", "pull_request.opened", pr)

	r := s.run(nil)

	if r.exit != 1 {
		t.Errorf("exit code %d; want 1%s", r.exit, r.logs())
	}
	echoed := false
	for _, req := range s.model.RequestsFor("correctness") {
		echoed = echoed || strings.HasSuffix(req.Header.Get("Authorization"), apiKey)
	}
	if !echoed {
		t.Fatalf("the model never saw the api key, so it could not echo it")
	}
	for _, secret := range []string{apiKey, token} {
		if !strings.Contains(r.stdout, "::add-mask::"+secret+"\n") {
			t.Errorf("no ::add-mask:: for %q%s", secret, r.logs())
		}
	}
	var log []string
	for line := range strings.Lines(r.stdout) {
		if !strings.HasPrefix(line, "::add-mask::") {
			log = append(log, line)
		}
	}
	report, err := r.file("report-path")
	if err != nil {
		t.Fatalf("report-path: %v", err)
	}
	places := map[string]string{
		"stdout (masks aside)": strings.Join(log, ""),
		"stderr":               r.stderr,
		"GITHUB_OUTPUT":        r.rawOutput,
		"job summary":          r.summary,
		"report file":          string(report),
	}
	for i, req := range s.gh.Requests() {
		places[fmt.Sprintf("GitHub request %d (%s %s) body", i, req.Method, req.Path)] = req.Body
	}
	for where, text := range places {
		for name, secret := range map[string]string{"api key": apiKey, "github token": token} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s appears in the %s", name, where)
			}
		}
	}
	if got := len(reportComments(s.gh, pr.Number)); got != 1 {
		t.Errorf("report comments %d; want 1 (the finding posted, redacted)", got)
	}
}

// TestGitHubEnterpriseServer: the Action on GHES, as the README documents
// it: the runner's GITHUB_API_URL (https://HOST/api/v3) receives every
// request, and the report, the comment URL and the links are on
// GITHUB_SERVER_URL (https://HOST), where GHES serves its pages.
func TestGitHubEnterpriseServer(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	host := s.gh.URL
	s.env["GITHUB_API_URL"] = host + "/api/v3"
	s.env["GITHUB_SERVER_URL"] = host
	pr := s.addPR(githubtest.PR{})
	s.answers(map[string][]map[string]any{"correctness": {offByOne("P1")}})
	s.event("pull_request", "pull_request.opened", pr)
	r := s.run(nil)
	if r.exit != 1 {
		t.Fatalf("exit %d; want 1 (a P1 finding)%s", r.exit, r.logs())
	}
	for _, req := range s.gh.Requests() {
		if !strings.HasPrefix(req.Path, "/api/v3/") {
			t.Errorf("%s %s: not under GITHUB_API_URL's /api/v3", req.Method, req.Path)
		}
	}
	comments := s.gh.Comments(pr.Number)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "]("+host+"/"+repoFull+"/blob/"+pr.HeadSHA+"/") || strings.Contains(comments[0].Body, "https://github.com/") {
		t.Errorf("the report does not link files on GITHUB_SERVER_URL only:\n%v", comments)
	}
	if got := r.outputs["comment-url"]; !strings.HasPrefix(got, host+"/"+repoFull+"/pull/") {
		t.Errorf("comment-url %q; want it on GITHUB_SERVER_URL", got)
	}
	if checks := s.gh.CheckRuns(); len(checks) != 1 || checks[0].Conclusion != "failure" {
		t.Errorf("check runs %+v; want one failure", checks)
	}
}
