package e2e

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/inline"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/stats"
)

// cli runs the binary as a command (not as the Action) with the stage's
// GitHub and args; it returns the result like run.
func (s *stage) cli(env map[string]string, args ...string) result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = s.dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + s.dir}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r := result{stdout: "", stderr: ""}
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			s.t.Fatalf("run %v: %v", args, err)
		}
		r.exit = ee.ExitCode()
	}
	r.stdout, r.stderr = stdout.String(), stderr.String()
	return r
}

// deleteComment deletes an issue or review comment through the fake's
// API, as a maintainer would.
func deleteComment(s *stage, kind string, id int64) {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodDelete, s.gh.URL+"/repos/"+repoFull+"/"+kind+"/comments/"+itoa(int(id)), nil)
	if err != nil {
		s.t.Fatal(err)
	}
	resp, err := s.gh.HTTPClient().Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		s.t.Fatalf("delete %s comment %d: %v %v", kind, id, err, resp)
	}
	resp.Body.Close()
}

// inlineComments are our inline comments on PR n.
func inlineComments(s *stage, n int) []githubtest.Comment {
	var out []githubtest.Comment
	for _, c := range s.gh.ReviewComments(n) {
		if _, ok := inline.ParseMarker(c.Body); ok {
			out = append(out, c)
		}
	}
	return out
}

// rewriteMeta replaces a report's metadata line with older's, as an
// earlier release wrote it.
func rewriteMeta(s *stage, n int, older func(m marker.Meta) string) {
	s.t.Helper()
	c := reportComments(s.gh, n)[0]
	m := reportMeta(s.t, c)
	lines := strings.SplitN(c.Body, "\n", 3)
	editComment(s, c.ID, lines[0]+"\n"+older(m)+"\n"+lines[2])
}

// TestStatsFromReviewHistory builds a repository's history by running real
// reviews, pushes and re-reviews through the binary (inline comments on),
// then reads it back with `anchor-review stats`:
//   - #7: the off-by-one, then Mean added, then the loop fixed (the
//     off-by-one is acted on), merged with Mean still posted, but Mean's
//     comment got a thumbs-up (accepted, not dismissed);
//   - #8: reviewed once, a thumbs-down on its inline comment (dismissed);
//   - #9: never reviewed (no report);
//   - #10 and #12: reports as releases 2 and 1 wrote them;
//   - #11: its report was deleted;
//   - #13: a thumbs-down on an inline comment that was deleted since.
func TestStatsFromReviewHistory(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	s.followupModel()
	s.env["INPUT_INLINE"] = "true"
	review := func(pr githubtest.PR, fixture string) {
		s.t.Helper()
		s.event("pull_request", fixture, pr)
		if r := s.run(nil); r.exit > 1 {
			t.Fatalf("review of #%d: exit %d%s", pr.Number, r.exit, r.logs())
		}
	}

	pr7 := s.addPR(githubtest.PR{Number: 7})
	review(pr7, "pull_request.opened")
	pr7 = s.push(pr7, sumWithMean(), deltaMean)
	review(pr7, "pull_request.synchronize")
	pr7 = s.push(pr7, sumFixed(), deltaFix)
	review(pr7, "pull_request.synchronize")
	pr7.State, pr7.Merged = "closed", true
	s.gh.AddPR(pr7)
	for _, c := range inlineComments(s, 7) {
		if strings.Contains(c.Body, meanTitle) {
			s.gh.React(c.ID, "+1")
		}
	}

	for _, n := range []int{8, 10, 11, 12, 13} {
		review(s.addPR(githubtest.PR{Number: n}), "pull_request.opened")
	}
	s.addPR(githubtest.PR{Number: 9})
	c8 := inlineComments(s, 8)[0]
	s.gh.React(c8.ID, "-1")
	if mk, _ := inline.ParseMarker(c8.Body); reportMeta(t, reportComments(s.gh, 8)[0]).Findings[0].Inline != mk.Fingerprint {
		t.Errorf("#8's report does not record its inline comment's fingerprint %s", mk.Fingerprint)
	}
	rewriteMeta(s, 10, func(m marker.Meta) string {
		m.Reviews, m.Usage, m.ValidatorUsage, m.Resolved = 0, nil, nil, nil
		for i := range m.Findings {
			m.Findings[i].Inline = ""
		}
		return marker.FormatMeta(m) // exactly what release 2 wrote
	})
	rewriteMeta(s, 12, func(m marker.Meta) string {
		return `<!-- anchor-review:meta {"version":1,"head_sha":"` + m.HeadSHA + `","verdict":"` + m.Verdict + `","conclusion":"` + m.Conclusion + `","blocking":1} -->`
	})
	deleteComment(s, "issues", reportComments(s.gh, 11)[0].ID)
	c13 := inlineComments(s, 13)[0]
	s.gh.React(c13.ID, "-1")
	deleteComment(s, "pulls", c13.ID)

	env := map[string]string{"GITHUB_TOKEN": "ghs_e2eToken0000", "GITHUB_API_URL": s.gh.URL}
	jsonPath := filepath.Join(s.dir, "stats.json")
	before := len(s.gh.Requests())
	r := s.cli(env, "stats", "--repo", repoFull, "--since", "2024-01-01", "--json", jsonPath, "--min-findings", "2", "--min-rate", "0.6")
	if r.exit != 0 {
		t.Fatalf("stats: exit %d%s", r.exit, r.logs())
	}
	for _, req := range s.gh.Requests()[before:] {
		if req.Method != http.MethodGet || strings.Contains(req.Path, "graphql") {
			t.Errorf("stats sent %s %s; want REST reads only", req.Method, req.Path)
		}
	}
	var got stats.Report
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("--json: %v\n%s", err, b)
	}
	tot := got.Totals
	// #7, #8, #10, #12, #13 have reports; #9 never had one, #11's is gone.
	if tot.PullRequests != 7 || tot.Reviewed != 5 || tot.WithoutReport != 2 || tot.OlderReports != 2 || tot.UnreadableReports != 0 {
		t.Errorf("totals %+v; want 7 PRs, 5 reviewed, 2 without a report, 2 older reports", tot)
	}
	// #7 three reviews, #8 and #13 one each, #10 one reviewed head, #12 counted once.
	if tot.Reviews != 7 {
		t.Errorf("reviews %d; want 7", tot.Reviews)
	}
	var correctness *stats.Persona
	for i, p := range got.Personas {
		if p.Name == "correctness" {
			correctness = &got.Personas[i]
		}
	}
	if correctness == nil {
		t.Fatalf("no correctness row: %+v", got.Personas)
	}
	// Posted: #7 two, #8 one, #13 one, #10 (release 2) one; #12 (release 1) records none.
	// Judgeable: #7's two, the only PR with an incremental re-review.
	want := stats.Persona{Posted: 5, Judgeable: 2, ActedOn: 1, Dismissed: 1, ThumbsUp: 1, ThumbsDown: 1}
	if c := *correctness; c.Posted != want.Posted || c.Judgeable != want.Judgeable || c.ActedOn != want.ActedOn || c.Dismissed != want.Dismissed || c.ThumbsUp != want.ThumbsUp || c.ThumbsDown != want.ThumbsDown {
		t.Errorf("correctness %+v; want posted 5, judgeable 2, acted on 1, dismissed 1 (#8's thumbs-down; #7's Mean merged with a thumbs-up is accepted), thumbs up 1, thumbs down 1", c)
	}
	if tot.IncrementalPRs != 1 || tot.IncrementalReviews != 2 {
		t.Errorf("incremental %d PRs, %d reviews; want #7's two pushes", tot.IncrementalPRs, tot.IncrementalReviews)
	}
	// Reviews and calls come from the three reports that record them: #7 (3), #8, #13.
	if c := *correctness; c.Reviews != 5 || c.Calls < 5 || c.PromptTokens == 0 {
		t.Errorf("correctness usage %+v; want 5 reviews with their calls and tokens", c)
	}
	if correctness.Cost != nil {
		t.Errorf("cost %v for e2e-model, which has no price; want none, never a guess", *correctness.Cost)
	}
	if got.Validator == nil || got.Validator.Calls == 0 {
		t.Errorf("validator %+v; want its calls", got.Validator)
	}
	// Acted on 1 of 2 judgeable is 50%, below 60%, over at least 2
	// findings: correctness is never suggested for removal.
	if got.Suggestion != nil || strings.Join(got.Kept, ",") != "correctness" {
		t.Errorf("suggestion %+v, kept %v; want no removal, correctness kept", got.Suggestion, got.Kept)
	}
	for _, want := range []string{
		"## anchor-review stats: " + repoFull,
		"```mermaid\npie showData\n    title Prompt tokens by persona",
		"| correctness | 5 |",
		"Below the rate but never suggested for removal: correctness",
		"Acted-on figures rest on 1 pull request with an incremental re-review (2 incremental re-reviews), of 5 reviewed",
		"2 reports predate per-persona figures",
		"not known: no model of these reviews has a known price",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "stats: "+repoFull+": 7 pull requests updated since 2024-01-01") {
		t.Errorf("no progress on stderr:\n%s", r.stderr)
	}

	// Above the minimum, never below: with 6 findings required, no suggestion.
	r = s.cli(env, "stats", "--repo", repoFull, "--since", "2024-01-01", "--min-findings", "6", "--min-rate", "0.5")
	if r.exit != 0 || !strings.Contains(r.stdout, "No removal: no persona meets the rule") || !strings.Contains(r.stdout, "Too few findings to judge (fewer than 6 posted): correctness") {
		t.Errorf("below the minimum: exit %d, want no suggestion%s", r.exit, r.logs())
	}
}

// TestStatsWithoutAccess: a token that cannot read the repository's pull
// requests or issues (404: private or unknown to it; 403: forbidden) is an
// error naming the permissions stats needs, exit 3, and nothing on stdout.
func TestStatsWithoutAccess(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path   string
		status int
	}{{"/pulls", http.StatusNotFound}, {"/pulls", http.StatusForbidden}, {"/issues/comments", http.StatusForbidden}} {
		s := newStage(t)
		review := s.addPR(githubtest.PR{Number: 7})
		s.answers(nil)
		s.event("pull_request", "pull_request.opened", review)
		s.run(nil)
		s.gh.Inject(githubtest.Fault{Method: "GET", PathContains: c.path, Status: c.status})
		r := s.cli(map[string]string{"GITHUB_TOKEN": "ghs_e2eToken0000", "GITHUB_API_URL": s.gh.URL}, "stats", "--repo", repoFull, "--since", "2024-01-01")
		if r.exit != 3 || r.stdout != "" || !strings.Contains(r.stderr, "pull-requests: read") || !strings.Contains(r.stderr, "HTTP "+itoa(c.status)) {
			t.Errorf("%s answers %d: exit %d; want 3, nothing on stdout, the status and the permissions named%s", c.path, c.status, r.exit, r.logs())
		}
	}
}

// TestPricingInput: the pricing input prices the review in Coverage and
// the job summary, and the report records the cost for stats; a bad value
// is a configuration error naming the input, and nothing is posted.
func TestPricingInput(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	s.answers(map[string][]map[string]any{"correctness": {offByOne("P1")}})
	pr := s.addPR(githubtest.PR{Number: 7})
	s.event("pull_request", "pull_request.opened", pr)

	bad := s.run(map[string]string{"INPUT_PRICING": "e2e-model = 0.40, 1.60"})
	if bad.exit != 2 || !strings.Contains(bad.stdout+bad.stderr, "pricing") || len(reportComments(s.gh, 7)) != 0 {
		t.Fatalf("a bad pricing input: exit %d, %d reports; want 2, the input named, nothing posted%s", bad.exit, len(reportComments(s.gh, 7)), bad.logs())
	}
	// With a provider-style prompt cache, and the warm-up so the other
	// personas find the first one's prefix cached: cached input is priced
	// at its own price.
	s.model.SimulatePromptCache(true)
	r := s.run(map[string]string{"INPUT_PRICING": "e2e-model = 1.00, 0.25, 4.00", "INPUT_CACHE-WARMUP": "true"})
	if r.exit != 1 {
		t.Fatalf("exit %d; want 1%s", r.exit, r.logs())
	}
	const want = "**Estimated cost:** $"
	body := reportComments(s.gh, 7)[0].Body
	if !strings.Contains(body, want) || !strings.Contains(r.summary, want) || !strings.Contains(body, "e2e-model at $1.00 input, $0.25 cached input, $4.00 output per million tokens (the pricing input)") {
		t.Errorf("the comment or the job summary lacks the cost:\n%s\n---\n%s", body, r.summary)
	}
	m := reportMeta(t, reportComments(s.gh, 7)[0])
	if len(m.Usage) == 0 || m.ValidatorUsage == nil || m.ValidatorUsage.Cost <= 0 {
		t.Fatalf("meta usage %+v validator %+v; want priced totals", m.Usage, m.ValidatorUsage)
	}
	cached := 0
	for _, u := range m.Usage {
		cached += u.CachedTokens
		want := (float64(u.PromptTokens-u.CachedTokens)*1.00 + float64(u.CachedTokens)*0.25 + float64(u.CompletionTokens)*4.00) / 1e6
		if u.Unpriced != 0 || math.Abs(u.Cost-want) > 2e-6 {
			t.Errorf("%s: cost %v for %+v; want %v (cached input at the cached price)", u.Name, u.Cost, u, want)
		}
	}
	if cached == 0 {
		t.Error("no cached tokens counted; the fake provider reported some")
	}
}
