package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
)

// TestNoSecretsRuns: GitHub gives no secrets to runs for fork and
// Dependabot pull requests, so api-key is empty there. The skip pre-check
// still runs (it needs no model): a dependency bump skips cleanly, exit 0.
// A pull request that needs a review fails with exit 2 naming api-key,
// after the pre-check's two reads and with no write and no model call.
func TestNoSecretsRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		event      string // "" means pull_request
		pr         githubtest.PR
		fork       bool
		requests   int  // GitHub requests; the pre-check's two reads when 0
		checkWrite bool // the one write is rule 3's skipped check run
		actor      string
		wantExit   int
		want       []string
	}{
		// Rule 3 writes its `skipped` check run: two reads and one write.
		{name: "dependabot bump", pr: githubtest.PR{Title: "chore(deps): bump golang.org/x/net from 0.23.0 to 0.24.0", Author: "dependabot[bot]"},
			actor: "dependabot[bot]", wantExit: 0, requests: 3, checkWrite: true, want: []string{"skipped"}},
		{name: "dependabot bump with release notes", pr: githubtest.PR{Title: "chore(deps): bump x from 1 to 2", Body: "Release notes...", Author: "dependabot[bot]"},
			actor: "dependabot[bot]", wantExit: 0, requests: 3, checkWrite: true, want: []string{"skipped"}},
		{name: "dependabot PR without a trivial title", pr: githubtest.PR{Title: "Bump x from 1 to 2", Body: "Release notes...", Author: "dependabot[bot]"},
			actor: "dependabot[bot]", wantExit: 2, want: []string{"::error::", "api-key", "Dependabot"}},
		{name: "fork PR needing a review", pr: githubtest.PR{}, fork: true, actor: "forker", wantExit: 2,
			want: []string{"::error::", "api-key", "fork", "comments /anchor-review"}},
		{name: "fork draft", pr: githubtest.PR{Draft: true}, fork: true, actor: "forker", wantExit: 0, want: []string{"skipped"}},
		// pull_request_target runs get secrets even for forks: an empty key
		// there is a configuration error before any request.
		{name: "fork on pull_request_target", event: "pull_request_target", pr: githubtest.PR{Draft: true}, fork: true, actor: "forker",
			wantExit: 2, requests: -1, want: []string{"::error::", "input api-key"}},
		// Not a pull request event: the exception does not apply.
		{name: "dependabot push", event: "push", pr: githubtest.PR{}, actor: "dependabot[bot]",
			wantExit: 2, requests: -1, want: []string{"::error::", "input api-key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStage(t)
			pr := s.addPR(tt.pr)
			event := tt.event
			if event == "" {
				event = "pull_request"
			}
			s.event(event, "pull_request.opened", pr)
			if tt.fork {
				forkEvent(t, s.env["GITHUB_EVENT_PATH"])
			}

			// The default endpoint (OpenAI's), which needs a key: any other
			// (an Ollama service container) may need none.
			r := s.run(map[string]string{"INPUT_API-KEY": "", "INPUT_BASE-URL": "", "GITHUB_ACTOR": tt.actor})

			if r.exit != tt.wantExit {
				t.Errorf("exit code %d; want %d%s", r.exit, tt.wantExit, r.logs())
			}
			log := r.stdout + r.stderr
			for _, w := range tt.want {
				if !strings.Contains(log, w) {
					t.Errorf("log lacks %q%s", w, r.logs())
				}
			}
			want := 2
			switch tt.requests {
			case -1:
				want = 0
			case 0:
			default:
				want = tt.requests
			}
			if n := len(s.gh.Requests()); n != want {
				t.Errorf("GitHub requests: got %d; want %d\n%s", n, want, describe(s.gh.Requests()))
			}
			w := writes(s.gh.Requests())
			switch {
			case tt.checkWrite && (len(w) != 1 || !strings.HasSuffix(w[0].Path, "/check-runs")):
				t.Errorf("writes: got %s; want the skipped check run only", describe(w))
			case !tt.checkWrite && len(w) != 0:
				t.Errorf("writes: got %s; want none", describe(w))
			}
			if n := len(s.model.Requests()); n != 0 {
				t.Errorf("model requests: got %d; want 0", n)
			}
		})
	}
}

// TestCarriedFailureWithReadOnlyToken: rule 4 carries an earlier failure
// forward; when the check run cannot be written (a read-only token), the
// step's exit code carries it, so a push after a failed review never
// passes.
func TestCarriedFailureWithReadOnlyToken(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	pr := s.addPR(githubtest.PR{})
	s.gh.AddReport(pr.Number, botLogin, "<!-- anchor-review:report -->\n"+
		`<!-- anchor-review:meta {"version":1,"head_sha":"`+pr.HeadSHA+`","verdict":"not-ready","conclusion":"failure","blocking":1} -->`+"\nearlier report\n")
	s.gh.Inject(githubtest.ReadOnlyToken())
	s.event("pull_request", "pull_request.synchronize", pr)

	r := s.run(nil)

	if r.exit != 1 {
		t.Errorf("exit code %d; want 1 (the carried failure)%s", r.exit, r.logs())
	}
	if got := r.outputs["skipped"]; got != "true" {
		t.Errorf("skipped = %q; want true", got)
	}
	if n := len(s.model.Requests()); n != 0 {
		t.Errorf("model requests: got %d; want 0", n)
	}
}

// forkEvent rewrites the event file so the head repository is a fork.
func forkEvent(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	head := ev["pull_request"].(map[string]any)["head"].(map[string]any)
	head["repo"].(map[string]any)["full_name"] = "forker/" + strings.Split(repoFull, "/")[1]
	out, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNoSecretsForkWithAnotherEndpoint: api-key is optional for a base-url
// other than OpenAI's (a model server beside the job may want none), so a
// fork's run without secrets goes on to the review. An endpoint that does
// want a key answers 401: the run stops naming api-key, and says why the
// key is empty there (GitHub gives a fork's run no secrets) and what to do,
// as it does for the default endpoint.
func TestNoSecretsForkWithAnotherEndpoint(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	pr := s.addPR(githubtest.PR{})
	s.model.SetDefault(func(llmtest.Request) llmtest.Reply { return llmtest.Unauthorized() })
	s.event("pull_request", "pull_request.opened", pr)
	forkEvent(t, s.env["GITHUB_EVENT_PATH"])

	r := s.run(map[string]string{"INPUT_API-KEY": "", "INPUT_BASE-URL": "http://gateway.internal:8080/v1", "HTTP_PROXY": s.model.URL, "GITHUB_ACTOR": "forker"})

	if r.exit != 3 {
		t.Errorf("exit %d; want 3 (the endpoint refused the run)%s", r.exit, r.logs())
	}
	log := r.stdout + r.stderr
	for _, w := range []string{"::error::", "api-key", "fork", "/anchor-review"} {
		if !strings.Contains(log, w) {
			t.Errorf("log lacks %q%s", w, r.logs())
		}
	}
}
