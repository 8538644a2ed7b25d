package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
)

const earlierHead = "1111111111111111111111111111111111111111"

// earlierReport is the report comment a previous run left: its metadata
// says the review of an older head found blocking problems.
const earlierReport = reportMk + "\n" +
	`<!-- anchor-review:meta {"version":1,"head_sha":"1111111111111111111111111111111111111111","verdict":"not-ready","conclusion":"failure","blocking":2} -->` +
	"\n## anchor-review\n\n(the earlier report)\n\n**Verdict: Not ready**\n"

// TestSkippedPR is issue 2: a PR the pre-check skips costs two GitHub
// reads (three under rule 4: the check runs that make the report ours), no model call, one job-summary line, and writes nothing, except
// that an already-reviewed PR's new head gets the earlier verdict's check.
func TestSkippedPR(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pr      githubtest.PR
		event   string // octokit fixture name
		comment string // an earlier comment by the bot, if any
		// wantCheck is the conclusion of the one check run expected; ""
		// means no check run at all.
		wantCheck   string
		wantVerdict string
		wantInSkip  string // a word of skip-reason
	}{
		{
			name:        "draft",
			pr:          githubtest.PR{Draft: true},
			event:       "pull_request.opened",
			wantVerdict: "",
			wantInSkip:  "draft",
		},
		{
			// The PR was merged after the push that queued this run.
			name:        "closed",
			pr:          githubtest.PR{State: "closed", Merged: true},
			event:       "pull_request.synchronize",
			wantVerdict: "",
			wantInSkip:  "merged",
		},
		{
			name:        "dependency bump with empty body",
			pr:          githubtest.PR{Title: "chore(deps): bump golang.org/x/net from 0.23.0 to 0.24.0", Author: "dependabot[bot]"},
			event:       "pull_request.opened",
			wantCheck:   "skipped", // rule 3: a required check must not hold the bump forever
			wantVerdict: "",
			wantInSkip:  "automated",
		},
		{
			name:        "already reviewed",
			pr:          githubtest.PR{},
			event:       "pull_request.synchronize",
			comment:     earlierReport,
			wantCheck:   "failure",
			wantVerdict: "not-ready",
			wantInSkip:  "already reviewed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStage(t)
			pr := s.addPR(tt.pr)
			if tt.comment != "" {
				// The earlier report is for this very head (a re-run of the
				// same commit); a report for an older head is no skip.
				s.gh.AddReport(pr.Number, botLogin, strings.ReplaceAll(tt.comment, earlierHead, pr.HeadSHA))
			}
			s.event("pull_request", tt.event, pr)

			r := s.run(nil)

			if r.exit != 0 {
				t.Errorf("exit code %d; want 0%s", r.exit, r.logs())
			}
			// Rule 4's report exists: comment-url names it; the other rules
			// have none.
			wantURL := ""
			if tt.comment != "" {
				wantURL = "#issuecomment-" + strconv.FormatInt(s.gh.Comments(pr.Number)[0].ID, 10)
			}
			if got := r.outputs["comment-url"]; (wantURL == "") != (got == "") || !strings.HasSuffix(got, wantURL) {
				t.Errorf("comment-url %q; want %s", got, map[bool]string{true: "empty", false: "the earlier report's URL (…" + wantURL + ")"}[wantURL == ""])
			}
			// Rule 4 carries the earlier report's verdict, and its count
			// with it: a version 1 line records no findings, so the count
			// is not known (never a 0 beside a carried not-ready).
			wantFindings := "0"
			if tt.comment != "" {
				wantFindings = ""
			}
			wantOutputs(t, r, map[string]string{"skipped": "true", "verdict": tt.wantVerdict, "findings": wantFindings})
			if got := r.outputs["skip-reason"]; !strings.Contains(strings.ToLower(got), tt.wantInSkip) {
				t.Errorf("skip-reason %q; want it to mention %q", got, tt.wantInSkip)
			}
			if got := strings.Count(strings.TrimRight(r.summary, "\n"), "\n") + 1; strings.TrimSpace(r.summary) == "" || got != 1 {
				t.Errorf("job summary has %d lines; want 1:\n%s", got, r.summary)
			}
			if got := len(s.model.Requests()); got != 0 {
				t.Errorf("model requests %d; want 0", got)
			}

			all := s.gh.Requests()
			reads, want := len(all)-len(writes(all)), 2
			if tt.comment != "" {
				want = 3 // and the check runs that vouch for the earlier report (SPEC 9.2)
			}
			if reads != want {
				t.Errorf("GitHub reads %d; want %d (the PR, its comments, the check runs on the report's head when there is one):%s", reads, want, describe(all))
			}
			w := writes(all)
			checks := s.gh.CheckRuns()
			if tt.wantCheck == "" {
				if len(w) != 0 {
					t.Errorf("GitHub writes %d; want 0:%s", len(w), describe(w))
				}
				if got := r.outputs["conclusion"]; got != "" {
					t.Errorf("conclusion %q; want empty (no check run)", got)
				}
				return
			}
			if len(w) != 1 || len(checks) != 1 {
				t.Fatalf("GitHub writes %d, check runs %d; want 1 and 1:%s", len(w), len(checks), describe(w))
			}
			c := checks[0]
			if c.Name != "anchor-review" || c.HeadSHA != pr.HeadSHA || c.Conclusion != tt.wantCheck {
				t.Errorf("check run %q on %s: %s; want %q on %s: %s", c.Name, c.HeadSHA, c.Conclusion, "anchor-review", pr.HeadSHA, tt.wantCheck)
			}
			wantOutputs(t, r, map[string]string{"conclusion": tt.wantCheck})
			if got, want := len(s.gh.Comments(pr.Number)), min(len(tt.comment), 1); got != want {
				t.Errorf("comments %d; want %d (only an earlier report, untouched)", got, want)
			}
		})
	}
}

// TestSpoofedMarkerDoesNotSkip: a report marker in another user's comment
// must not switch the review off (skip rule 4 counts only the bot's).
func TestSpoofedMarkerDoesNotSkip(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	pr := s.addPR(githubtest.PR{})
	s.gh.AddComment(pr.Number, "mallory", strings.Replace(earlierReport, "not-ready", "ready", 1))
	s.event("pull_request", "pull_request.synchronize", pr)
	s.answers(nil)

	r := s.run(nil)

	if r.exit != 0 {
		t.Errorf("exit code %d; want 0%s", r.exit, r.logs())
	}
	wantOutputs(t, r, map[string]string{"skipped": "false", "skip-reason": "", "conclusion": "success"})
	if got := len(s.model.Requests()); got == 0 {
		t.Errorf("model requests %d; want the review to run", got)
	}
	if got := len(reportComments(s.gh, pr.Number)); got != 2 {
		t.Errorf("marker comments %d; want 2 (mallory's and the new report)", got)
	}
}

// TestUsageErrors: configuration mistakes and unsupported events exit 2
// with every problem named and no request to either fake; a pull_request
// action that does not start a review is a notice and exit 0.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	const remote = "" // the default endpoint (OpenAI), the one that needs a key
	tests := []struct {
		name     string
		event    string
		fixture  string
		env      map[string]string
		wantExit int
		// want are texts the step's log must contain.
		want []string
	}{
		{
			name: "bad fail-on", event: "pull_request", fixture: "pull_request.opened",
			env: map[string]string{"INPUT_FAIL-ON": "P9"}, wantExit: 2,
			want: []string{"::error::", "fail-on", `"P9"`},
		},
		{
			name: "non-number pr-number", event: "workflow_dispatch", fixture: "workflow_dispatch",
			env: map[string]string{"INPUT_PR-NUMBER": "abc"}, wantExit: 2,
			want: []string{"::error::", "pr-number", `"abc"`},
		},
		{
			name: "missing api-key with the default base-url", event: "pull_request", fixture: "pull_request.opened",
			env: map[string]string{"INPUT_API-KEY": "", "INPUT_BASE-URL": remote}, wantExit: 2,
			want: []string{"::error::", "api-key"},
		},
		{
			name: "every problem at once", event: "workflow_dispatch", fixture: "workflow_dispatch",
			env:      map[string]string{"INPUT_FAIL-ON": "sometimes", "INPUT_PR-NUMBER": "12x", "INPUT_API-KEY": "", "INPUT_BASE-URL": remote},
			wantExit: 2,
			want:     []string{"input fail-on", "input pr-number", "input api-key", `"sometimes"`, `"12x"`},
		},
		{
			name: "unsupported event", event: "issues", fixture: "issue_comment.created",
			wantExit: 2, want: []string{"::error::", `"issues"`, "pull_request", "workflow_dispatch"},
		},
		{
			name: "workflow_dispatch without pr-number", event: "workflow_dispatch", fixture: "workflow_dispatch",
			wantExit: 2, want: []string{"::error::", "pr-number"},
		},
		{
			name: "labeled is a notice", event: "pull_request", fixture: "pull_request.labeled",
			wantExit: 0, want: []string{"::notice::", "labeled"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStage(t)
			pr := s.addPR(githubtest.PR{})
			s.event(tt.event, tt.fixture, pr)

			r := s.run(tt.env)

			if r.exit != tt.wantExit {
				t.Errorf("exit code %d; want %d%s", r.exit, tt.wantExit, r.logs())
			}
			log := r.stdout + r.stderr
			for _, w := range tt.want {
				if !strings.Contains(log, w) {
					t.Errorf("log does not mention %q%s", w, r.logs())
				}
			}
			if got := len(s.gh.Requests()); got != 0 {
				t.Errorf("GitHub requests %d; want 0:%s", got, describe(s.gh.Requests()))
			}
			if got := len(s.model.Requests()); got != 0 {
				t.Errorf("model requests %d; want 0", got)
			}
			if tt.wantExit == 0 {
				wantOutputs(t, r, map[string]string{"skipped": "true"})
			}
		})
	}
}

// itoa is strconv.Itoa, short for the tables.
func itoa(n int) string { return strconv.Itoa(n) }
