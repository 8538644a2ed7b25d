package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/internal/memhttp"
	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/eval"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/prompt"
)

// evalLine is the part of a JSONL record the tests read.
type evalLine struct {
	Kind    string          `json:"kind"`
	Persona string          `json:"persona"`
	Case    string          `json:"case"`
	Failed  json.RawMessage `json:"failed"`
	TP      int             `json:"tp"`
	FP      int             `json:"fp"`
	FN      int             `json:"fn"`
	// JudgeRejected counts matches the judge model removed.
	JudgeRejected int `json:"judge_rejected"`
}

// parseJSONL decodes JSONL line by line: every line one JSON object, pairs
// first, then persona summaries, then exactly one overall line, last.
func parseJSONL(t *testing.T, s string) []evalLine {
	t.Helper()
	var lines []evalLine
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var l evalLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("JSONL line %d does not parse: %v\n%s", n, err, sc.Text())
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	order := map[string]int{"pair": 0, "persona": 1, "overall": 2, "pipeline-case": 3, "pipeline": 4, "pipeline-language": 5, "yield": 6, "validator": 7}
	for i, l := range lines {
		k, ok := order[l.Kind]
		if !ok {
			t.Fatalf("JSONL line %d: kind %q; want pair, persona or overall", i+1, l.Kind)
		}
		if i > 0 && k < order[lines[i-1].Kind] {
			t.Errorf("JSONL line %d: kind %q after %q; want pairs, personas, overall", i+1, l.Kind, lines[i-1].Kind)
		}
	}
	overall := 0
	for _, l := range lines {
		if l.Kind == "overall" {
			overall++
		}
	}
	if overall != 1 {
		t.Errorf("JSONL: got %d overall lines; want exactly one", overall)
	}
	return lines
}

// pairsOf returns "persona/case" for every pair line.
func pairsOf(lines []evalLine) []string {
	var out []string
	for _, l := range lines {
		if l.Kind == "pair" {
			out = append(out, l.Persona+"/"+l.Case)
		}
	}
	return out
}

// wantPairs is every (persona, case) pair eval runs offline on the shipped
// cases of every suite (those with recorded answers), restricted to only
// when it is not empty.
func wantPairs(t *testing.T, only ...string) []string {
	t.Helper()
	return suitePairs(t, eval.Suites(), true, only...)
}

// suitePairs is every (persona, case) pair of the shipped cases of suites:
// every case live, only those with recorded answers offline.
func suitePairs(t *testing.T, suites []string, offline bool, only ...string) []string {
	t.Helper()
	var cases []eval.Case
	for _, s := range suites {
		cs, err := eval.LoadSuite(fixtures.FS, eval.DefaultRoot, s)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, cs...)
	}
	var out []string
	for _, c := range cases {
		if offline && len(c.Recorded) == 0 {
			continue // offline, a case without recorded answers is not scored
		}
		for _, p := range c.Personas() {
			if len(only) == 0 || slices.Contains(only, p) {
				out = append(out, p+"/"+c.ID())
			}
		}
	}
	return out
}

// livePairs is every (persona, case) pair a live run asks on suite: the
// labelled personas and those selection picks (eval.LivePersonas).
func livePairs(t *testing.T, suite string) []string {
	t.Helper()
	cases, err := eval.LoadSuite(fixtures.FS, eval.DefaultRoot, suite)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cases {
		ps, err := eval.LivePersonas(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			out = append(out, p+"/"+c.ID())
		}
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestEvalOffline(t *testing.T) {
	t.Parallel()
	stdout, stderr, err := run(t, noEnv, "eval")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	checkGolden(t, "eval-offline.golden", stdout)
	for _, p := range wantPairs(t) {
		persona, c, _ := strings.Cut(p, "/")
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(persona) + ` +` + regexp.QuoteMeta(c) + ` .* ok$`).MatchString(stdout) {
			t.Errorf("table lacks a successful row for %s on %s", persona, c)
		}
	}
}

func TestEvalJSONL(t *testing.T) {
	t.Parallel()
	table, _, err := run(t, noEnv, "eval")
	if err != nil {
		t.Fatal(err)
	}
	all := wantPairs(t)
	tests := []struct {
		name     string
		personas []string
		toFile   bool
	}{
		{name: "stdout"},
		{name: "file", toFile: true},
		{name: "security only", personas: []string{"security"}},
		{name: "two personas", personas: []string{"reliability", "correctness"}, toFile: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"eval"}
			if len(tt.personas) > 0 {
				args = append(args, "--personas", strings.Join(tt.personas, ","))
			}
			file := filepath.Join(t.TempDir(), "eval.jsonl")
			if tt.toFile {
				args = append(args, "--jsonl", file)
			} else {
				args = append(args, "--jsonl", "-")
			}
			stdout, stderr, err := run(t, noEnv, args...)
			if err != nil {
				t.Fatalf("eval: %v\n%s", err, stderr)
			}
			var jsonl string
			if tt.toFile {
				b, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				jsonl = string(b)
			} else {
				var ok bool
				stdout, jsonl, ok = strings.Cut(stdout, "\n\n{")
				if !ok {
					t.Fatalf("stdout has no JSONL after the table:\n%s", stdout)
				}
				stdout, jsonl = stdout+"\n", "{"+jsonl
			}
			if len(tt.personas) == 0 && stdout != table {
				t.Errorf("the table differs from plain `eval`:\n%s", stdout)
			}
			lines := parseJSONL(t, jsonl)
			want := all
			if len(tt.personas) > 0 {
				want = wantPairs(t, tt.personas...)
				if len(want) == 0 || len(want) == len(all) {
					t.Fatalf("restriction to %q selects %d of %d pairs; want a proper subset", tt.personas, len(want), len(all))
				}
			}
			if got := pairsOf(lines); !slices.Equal(sorted(got), sorted(want)) {
				t.Errorf("pairs: got %q; want %q", got, want)
			}
			for _, l := range lines {
				if l.Kind == "persona" && len(tt.personas) > 0 && !slices.Contains(tt.personas, l.Persona) {
					t.Errorf("summary line for %s; want only %q", l.Persona, tt.personas)
				}
				if l.Kind == "pair" && string(l.Failed) != "null" {
					t.Errorf("pair %s/%s failed: %s", l.Persona, l.Case, l.Failed)
				}
			}
			for _, p := range persona.Names() {
				row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(p) + ` `)
				if len(tt.personas) > 0 && !slices.Contains(tt.personas, p) && row.MatchString(stdout) {
					t.Errorf("table has rows for %s; want only %q", p, tt.personas)
				}
			}
		})
	}
}

func TestEvalUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "record without live", args: []string{"--record", "x"}, want: "--record needs --live"},
		{name: "unknown flag", args: []string{"--frobnicate"}, want: "-frobnicate"},
		{name: "argument", args: []string{"extra"}, want: "no arguments"},
		{name: "unknown persona", args: []string{"--personas", "nosuch"}, want: `entry 1 is not a known persona`},
		{name: "bad suite", args: []string{"--suite", "fake"}, want: "--suite must be scripted, real or all"},
		{name: "judge without live", args: []string{"--judge-model", "m"}, want: "--judge-model needs --live"},
		{name: "runs without live", args: []string{"--runs", "2"}, want: "--runs needs --live"},
		{name: "zero runs", args: []string{"--runs", "0"}, want: "--runs must be at least 1"},
		{name: "runs with record", args: []string{"--live", "--runs", "2", "--record", "x", "--base-url", "http://127.0.0.1:1"}, want: "--record keeps one run"},
		{name: "live without key", args: []string{"--live"}, want: "--live needs OPENAI_API_KEY"},
		{name: "live with an unknown api-type", args: []string{"--live", "--api-key", "k", "--api-type", "bedrock"}, want: "api-type"},
		{name: "unknown validator batching", args: []string{"--validator-batching", "batched"}, want: "--validator-batching must be per-file or per-finding"},
		{name: "validator-only offline", args: []string{"--validator-only"}, want: "--validator-only needs --live"},
		{name: "unknown pool mode", args: []string{"--pool", "maybe"}, want: "--pool must be yes, no or only"},
		{name: "model-timeout without a unit", args: []string{"--live", "--api-key", "k", "--model-timeout", "300"}, want: `--model-timeout: "300" has no unit`},
		{name: "model-timeout past the deadline", args: []string{"--live", "--api-key", "k", "--deadline-minutes", "15", "--model-timeout", "20m"}, want: "--model-timeout: 20m0s is longer than the run's deadline"},
		{name: "deadline out of range", args: []string{"--live", "--api-key", "k", "--deadline-minutes", "0"}, want: "--deadline-minutes"},
		// Offline too: a typo is refused, not ignored.
		{name: "model-timeout without a unit, offline", args: []string{"--model-timeout", "300"}, want: `--model-timeout: "300" has no unit`},
		{name: "deadline out of range, offline", args: []string{"--deadline-minutes", "400"}, want: "--deadline-minutes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append([]string{"eval"}, tt.args...)
			if i := slices.Index(args, "x"); i >= 0 {
				args[i] = dir
			}
			stdout, _, err := run(t, noEnv, args...)
			if !errors.Is(err, ErrUsage) {
				t.Fatalf("eval %q: got %v; want a usage error", tt.args, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got message %q; want it to mention %q", err, tt.want)
			}
			if stdout != "" {
				t.Errorf("stdout: got %q; want nothing", stdout)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("the record directory got %d entries; want none", len(entries))
			}
		})
	}
}

func TestEvalHelp(t *testing.T) {
	t.Parallel()
	stdout, stderr, err := run(t, noEnv, "eval", "--help")
	if err != nil {
		t.Fatalf("eval --help: got %v; want nil", err)
	}
	for _, name := range []string{"personas", "live", "record", "jsonl", "concurrency", "model", "base-url", "api-key", "suite", "check", "runs", "judge-model", "markdown"} {
		if !regexp.MustCompile(`-` + name + `\b`).MatchString(stdout + stderr) {
			t.Errorf("eval --help does not document -%s", name)
		}
	}
}

var evalRepo = regexp.MustCompile(`(?m)^Repository: eval/(\S+)$`)

// truthAnswers answers every persona request with that persona's ground
// truth for the case its prompt names, at anchor 75: a perfect reviewer.
func truthAnswers(t *testing.T) func(llmtest.Request) llmtest.Reply {
	var cases []eval.Case
	for _, s := range eval.Suites() {
		cs, err := eval.LoadSuite(fixtures.FS, eval.DefaultRoot, s)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, cs...)
	}
	byName := map[string]eval.Case{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	return func(r llmtest.Request) llmtest.Reply {
		if r.Persona == llm.Validator {
			return validatorAnswer(r)
		}
		m := evalRepo.FindStringSubmatch(messagesOf(r))
		if m == nil {
			return llmtest.BadRequest("test: the prompt names no eval case")
		}
		findings := []any{}
		for _, is := range byName[m[1]].Truth {
			if is.Persona != r.Persona || is.Excluded {
				continue
			}
			findings = append(findings, map[string]any{
				"title": "Ground truth " + is.ID, "severity": is.Severity, "file": is.File, "line": is.Line,
				"why_it_matters": is.Description, "autofix_class": "manual", "owner": "human",
				"requires_verification": true, "confidence": 75, "evidence": []string{is.File}, "pre_existing": false,
			})
		}
		b, _ := json.Marshal(map[string]any{"reviewer": r.Persona, "findings": findings, "residual_risks": []string{}, "testing_gaps": []string{}})
		return llmtest.OK(string(b))
	}
}

var findingHeading = regexp.MustCompile(`(?m)^### (F\d+)$`)

// validatorAnswer confirms every finding of a validator request: one
// verdict, or, per file, one for each finding the request numbers.
func validatorAnswer(r llmtest.Request) llmtest.Reply {
	if r.SchemaName != prompt.ValidationsSchema {
		return llmtest.OK(`{"validated":true,"reason":"confirmed by the test"}`)
	}
	var vs []string
	for _, m := range findingHeading.FindAllStringSubmatch(messagesOf(r), -1) {
		vs = append(vs, fmt.Sprintf(`{"finding":%q,"validated":true,"reason":"confirmed by the test"}`, m[1]))
	}
	return llmtest.OK(`{"verdicts":[` + strings.Join(vs, ",") + `]}`)
}

// poolItems is the number of items of the shipped pool.
func poolItems(t *testing.T) int {
	b, err := fs.ReadFile(fixtures.FS, "eval/validator/pool.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

func TestEvalLiveRecord(t *testing.T) {
	t.Parallel()
	m := llmtest.New()
	defer m.Close()
	m.SetDefault(truthAnswers(t))
	dir := t.TempDir()
	jsonl := filepath.Join(t.TempDir(), "live.jsonl")

	_, stderr, err := run(t, noEnv, "eval", "--live", "--suite", "scripted", "--base-url", m.URL, "--api-key", "k", "--model", "eval-model",
		"--validator-batching", "per-finding", "--record", dir, "--jsonl", jsonl)
	if err != nil {
		t.Fatalf("eval --live: %v\n%s", err, stderr)
	}
	checkNoViolations(t, m)

	// Each persona alone: one request per pair, naming one persona and
	// carrying no other persona's instructions. The whole pipeline reuses
	// those answers: it asks only the personas it selects that no pair
	// asked, once each, and the validator once per gated finding.
	team, err := persona.Load()
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]int{}
	validations := 0
	for _, r := range m.Requests() {
		text := messagesOf(r)
		if n := strings.Count(text, llm.PersonaHeader); n != 1 {
			t.Errorf("request for %s names %d personas (%q lines); want 1", r.Persona, n, llm.PersonaHeader)
		}
		if r.Persona == llm.Validator {
			validations++
			if r.Model != "eval-model" || r.SchemaName != "validation" {
				t.Errorf("validator request: model %q schema %q; want eval-model, validation", r.Model, r.SchemaName)
			}
			continue
		}
		for _, p := range team {
			if has := strings.Contains(text, p.Instructions); has != (p.Name == r.Persona) {
				t.Errorf("request for %s carries %s's instructions: got %t; want %t", r.Persona, p.Name, has, p.Name == r.Persona)
			}
		}
		if r.Model != "eval-model" || r.SchemaName != "findings" {
			t.Errorf("request for %s: model %q schema %q; want eval-model, findings", r.Persona, r.Model, r.SchemaName)
		}
		c := evalRepo.FindStringSubmatch(text)
		if c == nil {
			t.Fatalf("request for %s names no case", r.Persona)
		}
		asked[r.Persona+"/scripted/"+c[1]]++
	}
	want := livePairs(t, eval.SuiteScripted)
	for _, p := range want {
		if asked[p] != 1 {
			t.Errorf("pair %s asked %d times; want once", p, asked[p])
		}
	}
	for p, n := range asked {
		if n != 1 {
			t.Errorf("%s asked %d times; want once (the pipeline reuses the pair's answer)", p, n)
		}
	}
	if validations == 0 {
		t.Error("the whole pipeline never asked the validator")
	}

	b, err := os.ReadFile(jsonl)
	if err != nil {
		t.Fatal(err)
	}
	lines := parseJSONL(t, string(b))
	for _, l := range lines {
		if l.Kind == "pair" && (string(l.Failed) != "null" || l.FP != 0 || l.FN != 0) {
			t.Errorf("pair %s/%s: failed %s, fp %d, fn %d; want a perfect score from ground-truth answers", l.Persona, l.Case, l.Failed, l.FP, l.FN)
		}
	}

	// Live output says where its answers came from.
	if !regexp.MustCompile(`"answers":"live from eval-model on \d{4}-\d{2}-\d{2} \(25 cases\)","scripted":false`).Match(b) {
		t.Errorf("JSONL summary lines do not say the answers are live from eval-model:\n%s", b)
	}

	// The recording is in the layout Recorded reads, with source.json and
	// the validator's verdicts, and replays to the same per-persona scores.
	for p := range asked {
		name, c, _ := strings.Cut(p, "/")
		if _, err := os.Stat(filepath.Join(dir, c, "recorded", name+".json")); err != nil {
			t.Errorf("recording for %s: %v", p, err)
		}
	}
	_, err = eval.LoadSuite(os.DirFS(dir), ".", eval.SuiteScripted)
	if err == nil || !strings.Contains(err.Error(), "pr.json") {
		t.Fatalf("a recording directory holds answers only: got %v; want a missing pr.json", err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "scripted", "go-sql-injection-search", "recorded", "source.json"))
	if err != nil || !regexp.MustCompile(`"source": "recorded",\s*"model": "eval-model",\s*"date": "\d{4}-\d{2}-\d{2}"`).Match(src) {
		t.Errorf("source.json %s (%v); want recorded, eval-model, a date", src, err)
	}
	if v, err := os.ReadFile(filepath.Join(dir, "scripted", "go-sql-injection-search", "recorded", "validator.jsonl")); err != nil || !strings.Contains(string(v), `"validated":true`) {
		t.Errorf("validator.jsonl %s (%v); want the live verdicts", v, err)
	}
	pool, err := eval.LoadPool(os.DirFS(dir), ".")
	if err != nil || pool != nil {
		t.Errorf("a recording holds the pool's answers, not the pool: %v, %v", pool, err)
	}
	items := poolItems(t)
	if v, err := os.ReadFile(filepath.Join(dir, "validator", "recorded", "answers.jsonl")); err != nil || strings.Count(string(v), `"validated":true`) != items {
		t.Errorf("validator/recorded/answers.jsonl %s (%v); want the %d pool verdicts", v, err, items)
	}
	// Next to the pool it replays, labelled with the model and the day.
	poolFile, err := fs.ReadFile(fixtures.FS, "eval/validator/pool.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "validator", "pool.jsonl"), poolFile, 0o644); err != nil {
		t.Fatal(err)
	}
	if pool, err = eval.LoadPool(os.DirFS(dir), "."); err != nil || pool == nil || len(pool.Answers) != items ||
		!strings.HasPrefix(pool.Source.Label(), "recorded from eval-model on ") {
		t.Errorf("recorded pool: %+v, %v; want %d answers recorded from eval-model", pool, err, items)
	}
	cases, err := eval.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	// Replayed, each case's recorded personas are those of the new
	// recording, not of the shipped one.
	for i, c := range cases {
		cases[i].Recorded = nil
		for p := range asked {
			if name, id, _ := strings.Cut(p, "/"); id == c.ID() {
				cases[i].Recorded = append(cases[i].Recorded, name)
			}
		}
	}
	rep, err := eval.Run(context.Background(), cases, eval.Options{Answerer: eval.Recorded{FS: os.DirFS(dir), Root: "."}, Concurrency: 4, NoPipeline: true})
	if err != nil {
		t.Fatal(err)
	}
	var replay bytes.Buffer
	if err := eval.WriteJSONL(&replay, rep); err != nil {
		t.Fatal(err)
	}
	pairLines := func(s string) (out []string) {
		for l := range strings.Lines(s) {
			if strings.HasPrefix(l, `{"kind":"pair"`) {
				out = append(out, l)
			}
		}
		return out
	}
	if got, want := pairLines(replay.String()), pairLines(string(b)); !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("replaying the recording gives other pair scores:\n%s\nwant:\n%s", got, want)
	}
}

// TestEvalLiveFailure: a persona whose call fails is a failed pair in the
// report, not a failed run.
func TestEvalLiveFailure(t *testing.T) {
	t.Parallel()
	m := llmtest.New()
	defer m.Close()
	m.SetDefault(truthAnswers(t))
	for _, p := range livePairs(t, eval.SuiteScripted) {
		if strings.HasPrefix(p, "security/") {
			m.Script("security", llmtest.BadRequest("model not found"))
		}
	}
	stdout, stderr, err := run(t, noEnv, "eval", "--live", "--suite", "scripted", "--personas", "security,performance", "--base-url", m.URL, "--api-key", "k", "--jsonl", "-")
	if err != nil {
		t.Fatalf("eval --live: %v\n%s", err, stderr)
	}
	_, jsonl, _ := strings.Cut(stdout, "\n\n{")
	for _, l := range parseJSONL(t, "{"+jsonl) {
		if l.Kind != "pair" {
			continue
		}
		failed := string(l.Failed) != "null"
		if want := l.Persona == "security"; failed != want {
			t.Errorf("pair %s/%s failed: got %t (%s); want %t", l.Persona, l.Case, failed, l.Failed, want)
		}
	}
	if !strings.Contains(stdout, "failed: ") {
		t.Errorf("table shows no failed pair:\n%s", stdout)
	}
}

// TestEvalCancelled: an interrupted run is not a usage error (exit 3, not 2).
func TestEvalCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	err := Main(ctx, []string{"eval"}, noEnv, &out, &out)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, action.ErrCannotRun) || errors.Is(err, ErrUsage) {
		t.Errorf("eval with a cancelled context: got %v; want ErrCannotRun wrapping context.Canceled, not a usage error", err)
	}
}

// TestEvalJudge: --judge-model asks the judge, with its strict schema and
// its own model, about every line-overlap match; a "different issue"
// answer removes the match.
func TestEvalJudge(t *testing.T) {
	t.Parallel()
	m := llmtest.New()
	defer m.Close()
	truth := truthAnswers(t)
	m.SetDefault(func(r llmtest.Request) llmtest.Reply {
		if r.Persona == prompt.Judge {
			// sec-2 (ORDER BY) is judged another issue, the rest the same.
			text := messagesOf(r)
			label, _, _ := strings.Cut(text[strings.Index(text, "# The labelled issue"):], "# The reviewer's finding")
			same := !strings.Contains(label, "allow-list")
			return llmtest.OK(fmt.Sprintf(`{"same_issue":%t,"reason":"judged by the test"}`, same))
		}
		return truth(r)
	})
	stdout, stderr, err := run(t, noEnv, "eval", "--live", "--suite", "scripted", "--personas", "security", "--base-url", m.URL, "--api-key", "k",
		"--model", "eval-model", "--judge-model", "judge-model", "--jsonl", "-")
	if err != nil {
		t.Fatalf("eval --judge-model: %v\n%s", err, stderr)
	}
	checkNoViolations(t, m)
	judged := m.RequestsFor(prompt.Judge)
	if len(judged) == 0 {
		t.Fatal("the judge was never asked")
	}
	for _, r := range judged {
		if r.Model != "judge-model" || r.SchemaName != prompt.Judge || !r.Strict {
			t.Errorf("judge request: model %q schema %q strict %t; want judge-model, judge, strict", r.Model, r.SchemaName, r.Strict)
		}
		if !strings.Contains(string(r.Schema), `"same_issue"`) {
			t.Errorf("judge schema %s; want same_issue", r.Schema)
		}
	}
	_, jsonl, _ := strings.Cut(stdout, "\n\n{")
	var rejected int
	for _, l := range parseJSONL(t, "{"+jsonl) {
		if l.Kind == "pair" && l.Case == "scripted/go-sql-injection-search" {
			if l.TP != 1 || l.FN != 1 {
				t.Errorf("security on the SQL case: tp %d fn %d; want 1, 1 (the judge rejected sec-2)", l.TP, l.FN)
			}
		}
		rejected += l.JudgeRejected
	}
	if rejected == 0 {
		t.Error("no JSONL line counts a judge rejection")
	}
}

// TestEvalRuns: --runs N asks the model N times and reports mean and
// spread; a model that answers differently per run shows a spread.
func TestEvalRuns(t *testing.T) {
	t.Parallel()
	m := llmtest.New()
	defer m.Close()
	truth := truthAnswers(t)
	var mu sync.Mutex
	seen := map[string]int{}
	m.SetDefault(func(r llmtest.Request) llmtest.Reply {
		if r.Persona != "security" {
			return truth(r)
		}
		key := evalRepo.FindString(messagesOf(r))
		mu.Lock()
		seen[key]++
		n := seen[key]
		mu.Unlock()
		if n == 2 { // the second run finds nothing
			return llmtest.OK(`{"reviewer":"security","findings":[],"residual_risks":[],"testing_gaps":[]}`)
		}
		return truth(r)
	})
	md := filepath.Join(t.TempDir(), "summary.md")
	stdout, stderr, err := run(t, noEnv, "eval", "--live", "--runs", "3", "--suite", "scripted", "--personas", "security",
		"--base-url", m.URL, "--api-key", "k", "--model", "eval-model", "--jsonl", "-", "--markdown", md)
	if err != nil {
		t.Fatalf("eval --runs 3: %v\n%s", err, stderr)
	}
	table, jsonl, _ := strings.Cut(stdout, "\n\n{")
	if !regexp.MustCompile(`(?m)^spread over 3 runs \(answers: live from eval-model on \d{4}-\d{2}-\d{2} \(25 cases\)\)$`).MatchString(table) {
		t.Errorf("no spread table naming the live source:\n%s", table[strings.Index(table, "spread"):])
	}
	if !regexp.MustCompile(`(?m)^persona recall \(all\) +0\.667  0\.471  0\.000  1\.000    3$`).MatchString(table) {
		t.Errorf("recall spread: want mean 0.667, stddev 0.471, min 0, max 1 over 3 runs:\n%s", table)
	}
	runsSeen := map[string]bool{}
	var spread []map[string]any
	for l := range strings.Lines("{" + jsonl) {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("JSONL line %q: %v", l, err)
		}
		if v["kind"] == "runs" {
			spread = append(spread, v)
			continue
		}
		runsSeen[fmt.Sprint(v["run"])] = true
	}
	if len(runsSeen) != 3 || !runsSeen["1"] || !runsSeen["3"] {
		t.Errorf("JSONL lines carry runs %v; want 1, 2 and 3", runsSeen)
	}
	if len(spread) == 0 || spread[0]["metric"] != "persona recall (all)" || spread[0]["mean"] != 0.6667 || spread[0]["min"] != 0.0 {
		t.Errorf("runs lines %v; want recall first, mean 0.6667, min 0", spread)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# anchor-review evaluation", "Answers: **live from eval-model on ", "## Spread over 3 runs", "| persona recall (all) | 0.667 | 0.471 | 0.000 | 1.000 | 3 |", "## Whole pipeline", "## Validator alone"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), eval.ScriptedNotice) {
		t.Error("a live run's Markdown carries the scripted notice")
	}
}

func TestEvalCheck(t *testing.T) {
	t.Parallel()
	stdout, stderr, err := run(t, noEnv, "eval", "--check")
	if err != nil {
		t.Fatalf("eval --check: %v\n%s", err, stderr)
	}
	for _, want := range []string{"scripted   25 cases (24 with bugs, 1 clean)", "real ", "validator  69 pool items: ok"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("eval --check output lacks %q:\n%s", want, stdout)
		}
	}
	if got := ExitCode(fmt.Errorf("%w: 2 problems", ErrCorpus)); got != 1 {
		t.Errorf("exit code of a broken corpus: %d; want 1", got)
	}
}

func TestEvalSuites(t *testing.T) {
	t.Parallel()
	all, _, err := run(t, noEnv, "eval")
	if err != nil {
		t.Fatal(err)
	}
	scripted, _, err := run(t, noEnv, "eval", "--suite", "scripted")
	if err != nil {
		t.Fatal(err)
	}
	real, _, err := run(t, noEnv, "eval", "--suite", "real")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(scripted, "answers: scripted by hand (25 cases)\n"+eval.ScriptedNotice+"\n") {
		t.Errorf("scripted suite output does not start with its source and the notice:\n%s", scripted)
	}
	if !strings.Contains(all, "scripted/") || strings.Contains(real, "scripted/") {
		t.Errorf("--suite real shows scripted cases, or the default shows none")
	}
	// The real suite's answers are a model's, recorded, and say whose and
	// when, with no scripted notice on them; the pool's hand-scripted
	// verdicts carry their own, beside the validator's figures.
	if !regexp.MustCompile(`^answers: recorded from claude \(answering through a file queue\) on \d{4}-\d\d-\d\d \(\d+ cases\)\n`).MatchString(real) ||
		strings.Contains(real, eval.ScriptedNotice) {
		t.Errorf("the real suite does not say its answers are a model's, recorded, and whose, or carries the scripted notice:\n%s", real)
	}
	// The pool's verdicts are a model's, recorded: they say whose, and
	// carry no scripted notice (the notice is for hand-written verdicts).
	if _, after, ok := strings.Cut(real, "validator alone ("); !ok || strings.Contains(after, eval.PoolScriptedNotice) ||
		!strings.Contains(after, "answers: recorded from claude (answering through a file queue)") {
		t.Errorf("the validator's figures on the model's recorded pool verdicts do not say whose, or carry the scripted notice:\n%s", real)
	}
}

// TestEvalWorkflow: .github/workflows/eval.yml is manual, keeps the key in
// a secret, runs the live evaluation with flags eval knows, and uploads the
// JSONL and the Markdown summary.
func TestEvalWorkflow(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../.github/workflows/eval.yml")
	if err != nil {
		t.Fatal(err)
	}
	wf := string(b)
	for _, want := range []string{"workflow_dispatch:", "model:", "base-url:", "runs:", "suite:", "secrets.EVAL_API_KEY",
		"eval --live", "--jsonl eval-results/eval.jsonl", "--markdown eval-results/summary.md", "actions/upload-artifact@", "go run . eval --check"} {
		if !strings.Contains(wf, want) {
			t.Errorf("eval.yml lacks %q", want)
		}
	}
	if strings.Contains(wf, "run: go run . eval --live ${{") || regexp.MustCompile(`(?m)^\s+go run .*\$\{\{`).MatchString(wf) {
		t.Error("eval.yml splices an input into the script; pass inputs through env")
	}
	help, _, err := run(t, noEnv, "eval", "--help") // help goes to stdout
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?:^|[\s(])--([a-z-]+)`).FindAllStringSubmatch(wf[strings.Index(wf, "args=("):], -1) {
		if !strings.Contains(help, "-"+m[1]+" ") && !strings.Contains(help, "-"+m[1]+"\n") {
			t.Errorf("eval.yml passes --%s, which eval does not know", m[1])
		}
	}
}

// requestModel captures the one request it is asked and answers nothing.
type requestModel struct{ req llm.Request }

func (m *requestModel) Complete(_ context.Context, r llm.Request) (llm.Response, error) {
	m.req = r
	return llm.Response{JSON: []byte(`{}`)}, nil
}

// TestLiveAnswererShowsHeadContext: the persona evaluated alone gets the
// prompt the review gives it, head context (SPEC 7.3) included when the
// case holds the file's head version.
func TestLiveAnswererShowsHeadContext(t *testing.T) {
	t.Parallel()
	team, err := persona.Load()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := eval.LoadSuite(fixtures.FS, eval.DefaultRoot, eval.SuiteScripted)
	if err != nil {
		t.Fatal(err)
	}
	// A modified file whose first hunk starts below line 1: line 1 is
	// context only the head version shows.
	var c eval.Case
	var f *diff.File
	for _, cc := range cases {
		for _, ff := range cc.Files {
			if f == nil && ff.Status == diff.Modified && ff.Hunks[0].NewStart > 1 {
				c, f = cc, ff
			}
		}
	}
	if f == nil {
		t.Fatal("no scripted case modifies a file below its first line")
	}
	const marker = "// a line only the head version holds, far from every hunk"
	var head strings.Builder
	for n := 1; n < f.Hunks[0].NewStart+f.Hunks[0].NewLines+20; n++ {
		if l, ok := f.NewLine(n); ok {
			head.WriteString(l.Text + "\n")
		} else if n == 1 {
			head.WriteString(marker + "\n")
		} else {
			head.WriteString("\n")
		}
	}
	c.Head = map[string]string{f.Path(): head.String()}
	m := &requestModel{}
	if _, err := (LiveAnswerer{Model: m, ModelName: "m", Personas: team}).Answer(context.Background(), c.Personas()[0], c); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, msg := range m.req.Messages {
		all.WriteString(msg.Content)
	}
	if !strings.Contains(all.String(), marker) {
		t.Errorf("the persona's prompt shows no head context of %s", f.Path())
	}
}

// TestEvalLiveRecordReal: `eval --live --suite real --record DIR`, the run
// that refreshes the real model's recordings, end to end against the fake
// model server: each case asks its labelled personas and those selection
// picks, once each (a persona with only an old recording behind it, such
// as testing on a small fix, is not asked); the validator is asked; every
// case's recording names the model and the day; the output carries the
// per-persona yield.
func TestEvalLiveRecordReal(t *testing.T) {
	t.Parallel()
	m := llmtest.New()
	defer m.Close()
	m.SetDefault(truthAnswers(t))
	dir := t.TempDir()
	stdout, stderr, err := run(t, noEnv, "eval", "--live", "--suite", "real", "--base-url", m.URL, "--api-key", "k", "--model", "eval-model",
		"--record", dir, "--jsonl", "-")
	if err != nil {
		t.Fatalf("eval --live --suite real: %v\n%s", err, stderr)
	}
	checkNoViolations(t, m)
	asked := map[string]int{}
	validations := 0
	for _, r := range m.Requests() {
		if r.Persona == llm.Validator {
			validations++
			continue
		}
		c := evalRepo.FindStringSubmatch(messagesOf(r))
		if c == nil {
			t.Fatalf("request for %s names no case", r.Persona)
		}
		asked[r.Persona+"/real/"+c[1]]++
	}
	want := livePairs(t, eval.SuiteReal)
	for _, p := range want {
		if asked[p] != 1 {
			t.Errorf("pair %s asked %d times; want once", p, asked[p])
		}
	}
	if len(asked) != len(want) {
		t.Errorf("asked %d (persona, case) pairs; want %d: a persona neither labelled nor selected was asked", len(asked), len(want))
	}
	if asked["testing/real/js-qs-proto-key"] != 0 {
		t.Error("testing asked on js-qs-proto-key, a small fix where it is neither labelled nor selected")
	}
	if validations == 0 {
		t.Error("the pipeline never asked the validator")
	}
	src, err := os.ReadFile(filepath.Join(dir, "real", "js-qs-proto-key", "recorded", "source.json"))
	if err != nil || !regexp.MustCompile(`"source": "recorded",\s*"model": "eval-model",\s*"date": "\d{4}-\d{2}-\d{2}"`).Match(src) {
		t.Errorf("source.json %s (%v); want recorded, eval-model, a date", src, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "real", "js-qs-proto-key", "recorded", "testing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a recording of testing on js-qs-proto-key: %v; want none", err)
	}
	if !strings.Contains(stdout, "per-persona yield in the whole pipeline (answers: live from eval-model on ") ||
		!strings.Contains(stdout, `{"kind":"yield"`) {
		t.Errorf("output lacks the per-persona yield table or its JSONL lines")
	}
}

// TestEvalLivePerFileThenValidatorOnly: a live run records the per-file
// validator's verdicts (the Action's default) in validator-per-file.jsonl
// and the pool's in recorded-per-file/; a --validator-only run then asks
// the validator alone, per finding, on the recorded answers, and records
// its verdicts beside them without touching the answers or the other
// mode's verdicts. Recording verdicts beside another model's answers is
// refused before any call.
func TestEvalLivePerFileThenValidatorOnly(t *testing.T) {
	t.Parallel()
	m := llmtest.New()
	defer m.Close()
	m.SetDefault(truthAnswers(t))
	dir := t.TempDir()
	_, stderr, err := run(t, noEnv, "eval", "--live", "--suite", "scripted", "--base-url", m.URL, "--api-key", "k", "--model", "eval-model",
		"--record", dir)
	if err != nil {
		t.Fatalf("eval --live: %v\n%s", err, stderr)
	}
	perFile := 0
	for _, r := range m.Requests() {
		if r.Persona == llm.Validator {
			if r.SchemaName != prompt.ValidationsSchema {
				t.Errorf("validator request with schema %q; want %q (per-file, the default)", r.SchemaName, prompt.ValidationsSchema)
			}
			perFile++
		}
	}
	if perFile == 0 {
		t.Fatal("no per-file validator request")
	}
	rec := filepath.Join(dir, "scripted", "go-sql-injection-search", "recorded")
	if v, err := os.ReadFile(filepath.Join(rec, "validator-per-file.jsonl")); err != nil || !strings.Contains(string(v), `"validated":true`) {
		t.Errorf("validator-per-file.jsonl %s (%v); want the live per-file verdicts", v, err)
	}
	if _, err := os.Stat(filepath.Join(rec, "validator.jsonl")); err == nil {
		t.Error("a per-file run wrote per-finding verdicts")
	}
	if v, err := os.ReadFile(filepath.Join(dir, "validator", "recorded-per-file", "answers.jsonl")); err != nil || strings.Count(string(v), `"validated":true`) != poolItems(t) {
		t.Errorf("validator/recorded-per-file/answers.jsonl %s (%v); want every pool item's per-file verdict", v, err)
	}

	// The shipped real recordings, copied: the answers a validator-only run
	// replays and records beside.
	real := t.TempDir()
	const model = "claude (answering through a file queue)"
	err = fs.WalkDir(fixtures.FS, "eval/real", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(p, "/recorded/") {
			return err
		}
		b, err := fs.ReadFile(fixtures.FS, p)
		if err != nil {
			return err
		}
		out := filepath.Join(real, strings.TrimPrefix(p, "eval/"))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	caseDir := filepath.Join(real, "real", "js-qs-proto-key", "recorded")
	answer, err := os.ReadFile(filepath.Join(caseDir, "security.json"))
	if err != nil {
		t.Fatal(err)
	}
	before := len(m.Requests())
	if _, stderr, err := run(t, noEnv, "eval", "--live", "--validator-only", "--validator-batching", "per-finding", "--suite", "real",
		"--base-url", m.URL, "--api-key", "k", "--model", "another-model", "--record", real); err == nil {
		t.Fatalf("validator-only verdicts of another model beside claude's answers: no error\n%s", stderr)
	}
	if n := len(m.Requests()); n != before {
		t.Fatalf("a refused validator-only run sent %d requests", n-before)
	}
	if _, stderr, err := run(t, noEnv, "eval", "--live", "--validator-only", "--validator-batching", "per-finding", "--suite", "real",
		"--base-url", m.URL, "--api-key", "k", "--model", model, "--record", real); err != nil {
		t.Fatalf("eval --live --validator-only: %v\n%s", err, stderr)
	}
	for _, r := range m.Requests()[before:] {
		if r.Persona != llm.Validator || r.SchemaName != prompt.ValidationSchema {
			t.Errorf("validator-only run asked %s (schema %s); want the per-finding validator alone", r.Persona, r.SchemaName)
		}
	}
	if got, err := os.ReadFile(filepath.Join(caseDir, "security.json")); err != nil || !bytes.Equal(got, answer) {
		t.Errorf("the recorded answer changed (%v)", err)
	}
	if v, err := os.ReadFile(filepath.Join(caseDir, "validator.jsonl")); err != nil || !strings.Contains(string(v), "confirmed by the test") {
		t.Errorf("validator.jsonl %s (%v); want the new per-finding verdicts", v, err)
	}
	if _, err := os.Stat(filepath.Join(caseDir, "source.json")); err != nil {
		t.Errorf("source.json: %v", err)
	}
}

// TestEvalLiveModelTime: --model-timeout and --deadline-minutes reach the
// live model client, as the Action's inputs do: a model that answers every
// call in 5 minutes (on a synctest bubble's clock, through memhttp) fails
// every call under --model-timeout 4m, and answers every one under 6m.
func TestEvalLiveModelTime(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		timeout string
		failed  bool
	}{{"4m", true}, {"6m", false}} {
		t.Run(tt.timeout, func(t *testing.T) {
			t.Parallel()
			m := llmtest.New()
			defer m.Close()
			answers := truthAnswers(t)
			m.SetDefault(func(r llmtest.Request) llmtest.Reply {
				reply := answers(r)
				reply.Delay = 5 * time.Minute
				return reply
			})
			client := memhttp.Client(map[string]http.Handler{"model.test": m.Handler()})
			var stdout bytes.Buffer
			synctest.Test(t, func(t *testing.T) {
				f := &Factory{Getenv: noEnv, Stdout: &stdout, Stderr: io.Discard, HTTPClient: client}
				err := Run(context.Background(), f, []string{"eval", "--live", "--suite", "scripted", "--personas", "security",
					"--base-url", "http://model.test/v1", "--api-key", "k", "--concurrency", "8",
					"--deadline-minutes", "360", "--model-timeout", tt.timeout, "--jsonl", "-"})
				if err != nil {
					t.Fatalf("eval: %v", err)
				}
			})
			_, jsonl, _ := strings.Cut(stdout.String(), "\n\n{")
			pairs := 0
			for _, l := range parseJSONL(t, "{"+jsonl) {
				if l.Kind != "pair" {
					continue
				}
				pairs++
				failed := string(l.Failed) != "null"
				if failed != tt.failed {
					t.Errorf("pair %s/%s failed: %s; want failed %v", l.Persona, l.Case, l.Failed, tt.failed)
				}
				if failed && !strings.Contains(string(l.Failed), "timed out") {
					t.Errorf("pair %s/%s failed with %s; want the call timed out", l.Persona, l.Case, l.Failed)
				}
			}
			if pairs == 0 {
				t.Fatal("no pair scored")
			}
		})
	}
}

// TestEvalPoolModes: --pool no scores the cases without the pool, --pool
// only the pool without a case.
func TestEvalPoolModes(t *testing.T) {
	t.Parallel()
	none, _, err := run(t, noEnv, "eval", "--suite", "real", "--pool", "no")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(none, "validator alone") || !strings.Contains(none, "whole pipeline") {
		t.Errorf("--pool no: want the pipeline and no validator alone:\n%s", none)
	}
	only, _, err := run(t, noEnv, "eval", "--pool", "only")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(only, "validator alone (per-file): 69 labelled candidate findings") || strings.Contains(only, "real/") || strings.Contains(only, "whole pipeline") {
		t.Errorf("--pool only: want the validator alone and no case:\n%s", only)
	}
}
