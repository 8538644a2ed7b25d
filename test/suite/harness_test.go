// Package suite holds the end-to-end fault and security suites (SPEC
// sections 1, 3 and 4): the whole Action runs in process against the fake
// GitHub and the fake model server, which misbehave or turn hostile.
package suite

// The harness runs the whole Action in process against the fake GitHub
// (githubtest) and the fake model server (llmtest), through the same entry
// point the container uses (cli.Main with no arguments), with an injected
// environment: nothing here reads or writes the process environment.

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/cli"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/prompts"
)

// The pull request under review: fixtures/demo/buggy, served as PR 42 of
// octo-shop/shopfront.
const (
	owner    = "octo-shop"
	repoName = "shopfront"
	prNumber = 42
	headSHA  = "ef47c2cc6f9c34d49e066bc5467e5395bd3f37f8"
	baseSHA  = "73e5916a0d04556a545d0e66d978920bcaa83524"
	bot      = "github-actions[bot]"
	apiKey   = "test-api-key-5b0e7d"
	ghToken  = "test-gh-token-91c2aa"
)

// world is one run's fakes and environment.
type world struct {
	t     *testing.T
	gh    *githubtest.Server
	model *llmtest.Server
	dir   string
	env   map[string]string
	// answers are the buggy fixture's scripted persona answers (raw JSON)
	// and validator verdicts by "file:line".
	answers  map[string]json.RawMessage
	verdicts map[string]json.RawMessage
	// tweak, when set, changes the loaded configuration before runWith and
	// runShort start the Action (a deadline shorter than an input allows).
	tweak func(*action.Config)
}

// outcome is what one run left behind.
type outcome struct {
	err            error
	code           int
	stdout, stderr string
	outputs        map[string]string
	summary        string
}

// newWorld serves the buggy demo PR on a fresh fake GitHub and answers every
// persona and the validator from the fixture's answers.json (the model
// default). Tests change the fakes before calling run.
func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, gh: githubtest.New(), model: llmtest.New(), dir: t.TempDir()}
	t.Cleanup(w.gh.Close)
	t.Cleanup(w.model.Close)

	var pr struct {
		Title string `json:"title"`
		Body  string `json:"body"`
	}
	readJSON(t, "demo/buggy/pr.json", &pr)
	w.gh.AddPR(githubtest.PR{
		Number: prNumber, Title: pr.Title, Body: pr.Body, Author: "octodev",
		HeadSHA: headSHA, BaseSHA: baseSHA,
		HeadRepo: owner + "/" + repoName, BaseRepo: owner + "/" + repoName,
	})
	w.gh.SetDiff(prNumber, readFixture(t, "demo/buggy/diff.patch"))
	w.serveTree("demo/buggy/head", headSHA, ".txt")
	w.serveTree("demo/buggy/base", baseSHA, "")

	var all map[string]json.RawMessage
	readJSON(t, "demo/buggy/answers.json", &all)
	w.verdicts = map[string]json.RawMessage{}
	if v, ok := all[llm.Validator]; ok {
		if err := json.Unmarshal(v, &w.verdicts); err != nil {
			t.Fatalf("answers.json validator: %v", err)
		}
		delete(all, llm.Validator)
	}
	w.answers = all
	w.model.SetDefault(w.fixtureAnswer)

	w.env = map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   w.writeEvent(),
		"GITHUB_API_URL":      w.gh.URL + "/",
		"GITHUB_SERVER_URL":   "https://github.com",
		"GITHUB_REPOSITORY":   owner + "/" + repoName,
		"GITHUB_OUTPUT":       w.touch("output"),
		"GITHUB_STEP_SUMMARY": w.touch("summary.md"),
		"GITHUB_WORKSPACE":    w.dir,
		"INPUT_GITHUB-TOKEN":  ghToken,
		"INPUT_API-KEY":       apiKey,
		"INPUT_BASE-URL":      w.model.URL,
		"INPUT_MODEL":         "gpt-4.1-mini",
		"INPUT_FAIL-ON":       "P1",
		"INPUT_MODE":          "comment",
		"INPUT_BOT-LOGIN":     bot,
	}
	return w
}

// emptyAnswers makes every persona answer with no findings (the llmtest
// default), so nothing blocking can be found.
func (w *world) emptyAnswers() {
	w.model.SetDefault(func(r llmtest.Request) llmtest.Reply { return llmtest.OK(llmtest.DefaultContent(r)) })
}

var findingRef = regexp.MustCompile(`"file": "([^"]+)",\s*"line": (\d+)`)

// fixtureAnswer answers a persona with its recorded answer and the
// validator with the recorded verdict for the finding's file:line.
func (w *world) fixtureAnswer(r llmtest.Request) llmtest.Reply {
	if r.Persona == llm.Validator {
		return llmtest.Verdicts(r, func(f string) string {
			if m := findingRef.FindStringSubmatch(f); m != nil {
				if v, ok := w.verdicts[m[1]+":"+m[2]]; ok {
					return string(v)
				}
			}
			return `{"validated":true,"reason":"the fixture did not record this finding; accepted"}`
		})
	}
	if a, ok := w.answers[r.Persona]; ok {
		return llmtest.OK(string(a))
	}
	return llmtest.OK(llmtest.DefaultContent(r))
}

func (w *world) touch(name string) string {
	p := filepath.Join(w.dir, name)
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// writeEvent writes the real pull_request.opened payload, pointed at PR 42.
func (w *world) writeEvent() string {
	var ev map[string]any
	readJSON(w.t, "github/pull_request.opened.json", &ev)
	ev["number"] = prNumber
	pr := ev["pull_request"].(map[string]any)
	pr["number"] = prNumber
	pr["head"].(map[string]any)["sha"] = headSHA
	full := owner + "/" + repoName
	for _, side := range []string{"head", "base"} {
		pr[side].(map[string]any)["repo"].(map[string]any)["full_name"] = full
	}
	ev["repository"].(map[string]any)["full_name"] = full
	b, err := json.Marshal(ev)
	if err != nil {
		w.t.Fatal(err)
	}
	p := filepath.Join(w.dir, "event.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}

func (w *world) serveTree(dir, ref, suffix string) {
	err := fs.WalkDir(fixtures.FS, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fixtures.FS, p)
		if err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, dir+"/"), suffix)
		w.gh.SetContent(ref, rel, string(b))
		return nil
	})
	if err != nil {
		w.t.Fatalf("serve %s: %v", dir, err)
	}
}

func (w *world) getenv(k string) string { return w.env[k] }

// run runs the Action through cli.Main, as the container does.
func (w *world) run() outcome {
	w.t.Helper()
	var stdout, stderr bytes.Buffer
	err := cli.Main(context.Background(), nil, w.getenv, &stdout, &stderr)
	return w.collect(err, stdout.String(), stderr.String())
}

// runCtx is run under ctx (a cancellation, as a newer push's run or
// SIGTERM delivers it).
func (w *world) runCtx(ctx context.Context) outcome {
	w.t.Helper()
	var stdout, stderr bytes.Buffer
	err := cli.Main(ctx, nil, w.getenv, &stdout, &stderr)
	return w.collect(err, stdout.String(), stderr.String())
}

// runWith runs the Action through action.Run with the given client
// options, for faults whose real waits would be slow: sleeps are recorded
// (not slept) and the model's per-call timeout can be short. The clients
// are the real ones, talking HTTP to the fakes.
func (w *world) runWith(ghOpts []github.Option, mc llm.Config) outcome {
	return w.runShort(ghOpts, mc, nil)
}

// runShort is runWith where the personas named in short (nil: every call)
// use mc's CallTimeout and every other call the default one, so a short
// timeout meant for one slow persona cannot fire on a busy machine for the
// others.
func (w *world) runShort(ghOpts []github.Option, mc llm.Config, short map[string]bool) outcome {
	w.t.Helper()
	var stdout, stderr bytes.Buffer
	cfg, err := action.LoadConfig(w.getenv)
	if err != nil {
		w.t.Fatalf("LoadConfig: %v", err)
	}
	if w.tweak != nil {
		w.tweak(&cfg)
	}
	a := githubactions.New(githubactions.WithGetenv(w.getenv), githubactions.WithWriter(&stdout))
	action.Mask(a, cfg)
	personas, err := persona.Load()
	if err != nil {
		w.t.Fatal(err)
	}
	gh, err := github.New(nil, cfg.APIURL, cfg.GitHubToken, ghOpts...)
	if err != nil {
		w.t.Fatal(err)
	}
	mc.BaseURL, mc.APIKey, mc.Schemas = cfg.BaseURL, cfg.APIKey, prompts.Schemas()
	shortModel, err := llm.New(mc)
	if err != nil {
		w.t.Fatal(err)
	}
	var model llm.Completer = shortModel
	if short != nil {
		mc.CallTimeout = 0
		normal, err := llm.New(mc)
		if err != nil {
			w.t.Fatal(err)
		}
		model = splitModel{short: short, shortModel: shortModel, normal: normal}
	}
	err = action.Run(context.Background(), cfg, action.Deps{GitHub: gh, Model: model, Personas: personas, Actions: a, Log: &stdout})
	return w.collect(err, stdout.String(), stderr.String())
}

func (w *world) collect(err error, stdout, stderr string) outcome {
	out := outcome{err: err, code: exitCode(err), stdout: stdout, stderr: stderr}
	out.outputs = parseOutputs(w.t, w.env["GITHUB_OUTPUT"])
	b, rerr := os.ReadFile(w.env["GITHUB_STEP_SUMMARY"])
	if rerr != nil {
		w.t.Fatal(rerr)
	}
	out.summary = string(b)
	return out
}

// exitCode is the binary's mapping of errors to exit codes.
func exitCode(err error) int { return cli.ExitCode(err) }

// splitModel sends the personas in short to shortModel, the rest to normal.
type splitModel struct {
	short              map[string]bool
	shortModel, normal llm.Completer
}

func (m splitModel) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	if m.short[r.Persona] {
		return m.shortModel.Complete(ctx, r)
	}
	return m.normal.Complete(ctx, r)
}

// parseOutputs reads a GITHUB_OUTPUT file ("name<<DELIM", value lines,
// "DELIM", or "name=value"); a later value of a name wins.
func parseOutputs(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if name, delim, ok := strings.Cut(l, "<<"); ok {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		if name, val, ok := strings.Cut(l, "="); ok {
			out[name] = val
		}
	}
	return out
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(fixtures.FS, name)
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return string(b)
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(readFixture(t, name)), v); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
}

// reportComments returns the PR's comments by the bot that carry the marker.
func (w *world) reportComments() []githubtest.Comment {
	var out []githubtest.Comment
	for _, c := range w.gh.Comments(prNumber) {
		if c.Author == bot && strings.Contains(c.Body, "<!-- anchor-review:report -->") {
			out = append(out, c)
		}
	}
	return out
}

// ghCount counts fake-GitHub requests with the method whose path contains
// sub (method "" for any).
func (w *world) ghCount(method, sub string) int {
	n := 0
	for _, r := range w.gh.Requests() {
		if (method == "" || r.Method == method) && strings.Contains(r.Path, sub) {
			n++
		}
	}
	return n
}

// personaRequests counts model requests per persona.
func (w *world) personaRequests() map[string]int {
	out := map[string]int{}
	for _, r := range w.model.Requests() {
		out[r.Persona]++
	}
	return out
}
