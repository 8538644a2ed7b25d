package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
)

// TestFilesOutliveTheContainer: a Docker action's files for later steps
// (the report and the SARIF log) survive the step, and their outputs name
// them the way a later step can open them (relative to the workspace),
// though the run's RUNNER_TEMP and the container's /github/... paths are
// gone by then (the harness removes them).
func TestFilesOutliveTheContainer(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	pr := s.addPR(githubtest.PR{})
	s.answers(map[string][]map[string]any{"correctness": {offByOne("P1")}})
	s.event("pull_request", "pull_request.opened", pr)

	r := s.run(nil)

	if r.exit != 1 {
		t.Fatalf("exit code %d; want 1 (a P1 finding)%s", r.exit, r.logs())
	}
	for _, out := range []string{"report-path", "sarif-path"} {
		p := r.outputs[out]
		if p == "" || filepath.IsAbs(p) {
			t.Errorf("output %s = %q; want a path relative to the workspace", out, p)
		}
		b, err := r.file(out)
		if err != nil {
			t.Errorf("a later step cannot open %s: %v%s", out, err, r.logs())
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Errorf("%s %s is not JSON: %v", out, p, err)
		}
		if out == "sarif-path" && v["version"] != "2.1.0" {
			t.Errorf("sarif-path version %v; want 2.1.0", v["version"])
		}
	}
}

// TestOllamaServiceContainer: a model served beside the job is reached by
// its service container's hostname with no api-key (the README's
// workflow). The fake model server stands in for http://ollama:11434 as
// the HTTP proxy the request goes through, so the binary really asks for
// that host; it must send no Authorization header.
func TestOllamaServiceContainer(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	pr := s.addPR(githubtest.PR{})
	s.answers(nil)
	s.event("pull_request", "pull_request.opened", pr)

	r := s.run(map[string]string{"INPUT_API-KEY": "", "INPUT_BASE-URL": "http://ollama:11434/v1", "HTTP_PROXY": s.model.URL})

	if r.exit != 0 || r.outputs["conclusion"] != "success" {
		t.Fatalf("exit %d conclusion %q; want 0 success%s", r.exit, r.outputs["conclusion"], r.logs())
	}
	reqs := s.model.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request reached the fake server")
	}
	for _, q := range reqs {
		if v, ok := q.Header["Authorization"]; ok {
			t.Errorf("a request to %s carried Authorization %q; want none without a key", q.Path, v)
		}
	}
}

// TestUnauthorizedNamesAPIKey: an endpoint that wants a key the run does
// not have stops the run at the first 401 with one error naming api-key.
func TestUnauthorizedNamesAPIKey(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	pr := s.addPR(githubtest.PR{})
	s.model.SetDefault(func(llmtest.Request) llmtest.Reply { return llmtest.Unauthorized() })
	s.event("pull_request", "pull_request.opened", pr)

	r := s.run(map[string]string{"INPUT_API-KEY": "", "INPUT_BASE-URL": "http://ollama:11434/v1", "HTTP_PROXY": s.model.URL})

	if r.exit != 3 {
		t.Errorf("exit %d; want 3 (the endpoint refused the run)%s", r.exit, r.logs())
	}
	if !strings.Contains(r.stderr, "api-key") {
		t.Errorf("the error does not name api-key%s", r.logs())
	}
	// Calls already in flight when the first 401 came back are answered
	// too; none is retried, and the validator is never asked.
	seen := map[string]bool{}
	for _, q := range s.model.Requests() {
		if seen[q.Persona] || q.Persona == llm.Validator {
			t.Errorf("persona %s asked again after a 401", q.Persona)
		}
		seen[q.Persona] = true
	}
}

// TestAzureByInput: api-type azure sends Azure's request shape (the model
// is the deployment, the api-version input in the query) to a base-url
// whose host name says nothing about Azure.
func TestAzureByInput(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	pr := s.addPR(githubtest.PR{})
	s.answers(nil)
	s.event("pull_request", "pull_request.opened", pr)

	r := s.run(map[string]string{"INPUT_BASE-URL": s.model.URL, "INPUT_API-TYPE": "azure", "INPUT_API-VERSION": "2025-04-01-preview", "INPUT_MODEL": "review-deploy"})

	if r.exit != 0 {
		t.Fatalf("exit %d; want 0%s", r.exit, r.logs())
	}
	for _, q := range s.model.Requests() {
		if q.Deployment != "review-deploy" || q.APIVersion != "2025-04-01-preview" {
			t.Errorf("request %s?%s: deployment %q api-version %q; want review-deploy 2025-04-01-preview", q.Path, q.Query, q.Deployment, q.APIVersion)
		}
		if q.Header.Get("api-key") != "e2e-model-key" || q.Header.Get("Authorization") != "" {
			t.Errorf("request %s: the key is not in the api-key header alone", q.Path)
		}
	}
}
