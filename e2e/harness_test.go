// Package e2e runs the built anchor-review binary the way GitHub Actions
// runs it: no arguments, the event and inputs in the environment only, a
// fake GitHub (githubtest) and a fake model server (llmtest) in process, and
// the step's results read back from GITHUB_OUTPUT, the job summary, the
// report file and the exit code.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
)

// binary is the anchor-review binary TestMain builds once for every test.
var binary string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "anchor-review-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	root, err := filepath.Abs("..")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	binary = filepath.Join(dir, "anchor-review")
	cmd := exec.Command("go", "build", "-o", binary, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// The repository every test's PR lives in (the octokit payloads' own).
const (
	owner    = "Codertocat"
	repoName = "Hello-World"
	repoFull = owner + "/" + repoName
	botLogin = "github-actions[bot]"
	reportMk = "<!-- anchor-review:report -->"
)

// A small real PR: a new Go file with an off-by-one in its loop.
const (
	sumPath = "internal/calc/sum.go"
	sumHead = `package calc

// Sum adds the first n values.
func Sum(values []int, n int) int {
	total := 0
	for i := 0; i <= n; i++ {
		total += values[i]
	}
	return total
}
`
	sumDiff = `diff --git a/internal/calc/sum.go b/internal/calc/sum.go
new file mode 100644
index 0000000..5b7c1d2
--- /dev/null
+++ b/internal/calc/sum.go
@@ -0,0 +1,10 @@
+package calc
+
+// Sum adds the first n values.
+func Sum(values []int, n int) int {
+	total := 0
+	for i := 0; i <= n; i++ {
+		total += values[i]
+	}
+	return total
+}
`
	// sumBugLine is the loop line, where the findings point.
	sumBugLine = 6
)

var shaSeq atomic.Int64

// newSHA returns a distinct 40-hex head SHA for each PR a test creates.
func newSHA() string {
	return fmt.Sprintf("%040x", 0xa5c0ffee00+shaSeq.Add(1))
}

// stage is one test's world: the two fakes, a work directory and the
// step's environment.
type stage struct {
	t     *testing.T
	gh    *githubtest.Server
	model *llmtest.Server
	dir   string
	env   map[string]string
	runs  atomic.Int64
}

// newStage starts both fakes and sets the environment a runner gives a
// container action: minimal, nothing from the host but PATH.
func newStage(t *testing.T) *stage {
	t.Helper()
	gh, model := githubtest.New(), llmtest.New()
	t.Cleanup(gh.Close)
	t.Cleanup(model.Close)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &stage{t: t, gh: gh, model: model, dir: dir}
	s.env = map[string]string{
		"PATH":               "/usr/bin:/bin",
		"HOME":               home,
		"GITHUB_ACTIONS":     "true",
		"GITHUB_API_URL":     gh.URL,
		"GITHUB_SERVER_URL":  "https://github.com",
		"GITHUB_REPOSITORY":  repoFull,
		"INPUT_GITHUB-TOKEN": "ghs_e2eToken0000",
		"INPUT_API-KEY":      "e2e-model-key",
		"INPUT_BASE-URL":     model.URL + "/v1",
		"INPUT_MODEL":        "e2e-model",
	}
	return s
}

// addPR adds a PR to the fake GitHub with the sum.go diff and head file;
// zero fields of p take the defaults of a fresh, open, human PR.
func (s *stage) addPR(p githubtest.PR) githubtest.PR {
	if p.Number == 0 {
		p.Number = 7
	}
	if p.Title == "" {
		p.Title = "Add calc.Sum"
	}
	if p.Author == "" {
		p.Author = "octodev"
	}
	if p.HeadSHA == "" {
		p.HeadSHA = newSHA()
	}
	if p.BaseSHA == "" {
		p.BaseSHA = strings.Repeat("b", 40)
	}
	p.HeadRepo, p.BaseRepo = repoFull, repoFull
	s.gh.AddPR(p)
	s.gh.SetDiff(p.Number, sumDiff)
	s.gh.SetContent(p.HeadSHA, sumPath, sumHead)
	return p
}

// event writes the payload of an octokit example event (fixtures/github),
// adjusted to pr, and points GITHUB_EVENT_NAME/GITHUB_EVENT_PATH at it.
// fixture is e.g. "pull_request.opened" or "workflow_dispatch".
func (s *stage) event(name, fixture string, pr githubtest.PR) {
	s.t.Helper()
	b, err := fixtures.FS.ReadFile("github/" + fixture + ".json")
	if err != nil {
		s.t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(b, &ev); err != nil {
		s.t.Fatal(err)
	}
	ev["repository"].(map[string]any)["full_name"] = repoFull
	if p, ok := ev["pull_request"].(map[string]any); ok {
		ev["number"] = pr.Number
		p["number"] = pr.Number
		p["title"] = pr.Title
		p["body"] = nil
		if pr.Body != "" {
			p["body"] = pr.Body
		}
		p["draft"] = pr.Draft
		p["state"] = "open"
		if pr.State != "" {
			p["state"] = pr.State
		}
		p["merged"] = pr.Merged
		head := p["head"].(map[string]any)
		head["sha"] = pr.HeadSHA
		head["repo"].(map[string]any)["full_name"] = repoFull
		p["base"].(map[string]any)["repo"].(map[string]any)["full_name"] = repoFull
	}
	out, err := json.Marshal(ev)
	if err != nil {
		s.t.Fatal(err)
	}
	path := filepath.Join(s.dir, fixture+".event.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		s.t.Fatal(err)
	}
	s.env["GITHUB_EVENT_NAME"] = name
	s.env["GITHUB_EVENT_PATH"] = path
}

// answers makes the fake model answer each persona with its findings (no
// findings for the others) and the validator with validated true. A
// persona answers the same on every request, so concurrent runs agree.
func (s *stage) answers(byPersona map[string][]map[string]any) {
	s.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
		if r.Persona == llm.Validator {
			return llmtest.Verdicts(r, func(string) string {
				return `{"validated":true,"reason":"The loop reads values[n], one past the documented range."}`
			})
		}
		return llmtest.OK(answer(r.Persona, byPersona[r.Persona]...))
	})
}

// answer is a persona's findings answer (prompts/findings.schema.json).
func answer(persona string, findings ...map[string]any) string {
	if findings == nil {
		findings = []map[string]any{}
	}
	b, err := json.Marshal(map[string]any{
		"reviewer": persona, "findings": findings, "residual_risks": []string{}, "testing_gaps": []string{},
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// offByOne is a finding on the loop line with the given severity, at
// anchor 100, routed manual so mode-aware demotion never drops it.
func offByOne(severity string) map[string]any {
	return map[string]any{
		"title":                 "Loop reads one element past n",
		"severity":              severity,
		"file":                  sumPath,
		"line":                  sumBugLine,
		"why_it_matters":        "Sum(values, len(values)) indexes values[len(values)] and panics; every caller passing the full length crashes.",
		"autofix_class":         "manual",
		"owner":                 "review-fixer",
		"requires_verification": true,
		"confidence":            100,
		"evidence":              []string{"internal/calc/sum.go:6: for i := 0; i <= n; i++ {"},
		"pre_existing":          false,
		"suggested_fix":         "Use i < n.",
	}
}

// result is what one run of the binary left behind.
type result struct {
	exit           int
	stdout, stderr string
	outputs        map[string]string
	rawOutput      string
	summary        string
	// workspace is the runner's workspace as a later step sees it.
	workspace string
}

// file reads the file a path output names, as a later step of the job
// would: a relative path from the workspace, where steps run.
func (r result) file(output string) ([]byte, error) {
	p := r.outputs[output]
	if p == "" {
		return nil, fmt.Errorf("output %s is empty", output)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.workspace, p)
	}
	return os.ReadFile(p)
}

// The directories of the runner a Docker action's container sees (each a
// bind mount); nothing else it writes survives the step.
var mounts = []string{"workspace", "home", "workflow", "file_commands"}

// start launches the binary with the stage's environment plus extra; wait
// collects its result. Each run is one container step: the runner's
// directories live under host/, the container's view of them under
// container/github/ (symlinks standing in for the bind mounts), and
// RUNNER_TEMP is set, as the runner sets it, to a path that only exists
// inside the container. When the step ends the container is removed, so a
// file the binary left anywhere but in the four mounts is gone, and a path
// output that names /github/... names nothing for a later step.
func (s *stage) start(ctx context.Context, extra map[string]string) func() result {
	s.t.Helper()
	n := s.runs.Add(1)
	rd := filepath.Join(s.dir, fmt.Sprintf("run%d", n))
	host, container := filepath.Join(rd, "host"), filepath.Join(rd, "container")
	inside := func(mount string) string { return filepath.Join(container, "github", mount) }
	for _, m := range mounts {
		if err := os.MkdirAll(filepath.Join(host, m), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(container, "github"), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(host, m), inside(m)); err != nil {
			s.t.Fatal(err)
		}
	}
	tmp := filepath.Join(container, "home", "runner", "work", "_temp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		s.t.Fatal(err)
	}
	env := maps.Clone(s.env)
	env["HOME"] = inside("home")
	env["GITHUB_WORKSPACE"] = inside("workspace")
	env["GITHUB_OUTPUT"] = filepath.Join(inside("file_commands"), "set_output")
	env["GITHUB_STEP_SUMMARY"] = filepath.Join(inside("file_commands"), "step_summary")
	env["RUNNER_TEMP"] = tmp
	for _, f := range []string{env["GITHUB_OUTPUT"], env["GITHUB_STEP_SUMMARY"]} {
		// The runner creates both files before the step starts.
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	maps.Copy(env, extra)
	if ev := env["GITHUB_EVENT_PATH"]; ev != "" {
		// The runner writes the payload into the workflow mount.
		b, err := os.ReadFile(ev)
		if err != nil {
			s.t.Fatal(err)
		}
		env["GITHUB_EVENT_PATH"] = filepath.Join(inside("workflow"), "event.json")
		if err := os.WriteFile(env["GITHUB_EVENT_PATH"], b, 0o644); err != nil {
			s.t.Fatal(err)
		}
	}

	cmd := exec.CommandContext(ctx, binary)
	cmd.Dir = inside("workspace") // docker run --workdir /github/workspace
	for k, v := range env {
		if v != "" { // an empty value is an unset variable, as on the runner
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	return func() result {
		s.t.Helper()
		err := cmd.Wait()
		r := result{exit: 0, stdout: stdout.String(), stderr: stderr.String(), workspace: filepath.Join(host, "workspace")}
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			r.exit = ee.ExitCode()
		case err != nil:
			s.t.Fatalf("run: %v", err)
		}
		// The step is over: the container and everything only it saw go.
		if err := os.RemoveAll(container); err != nil {
			s.t.Fatal(err)
		}
		out, _ := os.ReadFile(filepath.Join(host, "file_commands", "set_output"))
		sum, _ := os.ReadFile(filepath.Join(host, "file_commands", "step_summary"))
		r.rawOutput, r.summary = string(out), string(sum)
		r.outputs, err = parseOutput(r.rawOutput)
		if err != nil {
			s.t.Fatalf("GITHUB_OUTPUT: %v\n%s", err, out)
		}
		return r
	}
}

// run runs the binary once and returns its result.
func (s *stage) run(extra map[string]string) result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.t.Context(), 2*time.Minute)
	defer cancel()
	return s.start(ctx, extra)()
}

// parseOutput reads a GITHUB_OUTPUT file: `name=value` lines and the
// `name<<DELIMITER` heredoc form the toolkit writes.
func parseOutput(text string) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 10<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var val []string
			closed := false
			for sc.Scan() {
				if sc.Text() == delim {
					closed = true
					break
				}
				val = append(val, sc.Text())
			}
			if !closed {
				return nil, fmt.Errorf("output %q: delimiter %q never closes", name, delim)
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %q is neither name=value nor name<<DELIMITER", line)
		}
		out[name] = val
	}
	return out, sc.Err()
}

// writes returns the requests that changed state on the fake GitHub.
func writes(rs []githubtest.Request) []githubtest.Request {
	var out []githubtest.Request
	for _, r := range rs {
		if r.Method != "GET" && r.Method != "HEAD" {
			out = append(out, r)
		}
	}
	return out
}

// describe lists requests one a line, for failure messages.
func describe(rs []githubtest.Request) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "\n  %s %s", r.Method, r.Path)
	}
	return b.String()
}

// reportComments returns the PR's comments that carry the report marker.
func reportComments(gh *githubtest.Server, n int) []githubtest.Comment {
	var out []githubtest.Comment
	for _, c := range gh.Comments(n) {
		if strings.Contains(c.Body, reportMk) {
			out = append(out, c)
		}
	}
	return out
}

// wantOutputs checks the named outputs.
func wantOutputs(t *testing.T, r result, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got, ok := r.outputs[k]; !ok || got != v {
			t.Errorf("output %s = %q (set: %v); want %q", k, got, ok, v)
		}
	}
}

// logs is everything a run printed, for failure messages.
func (r result) logs() string {
	return "\n--- stdout:\n" + r.stdout + "\n--- stderr:\n" + r.stderr
}
