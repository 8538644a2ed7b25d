package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/prompts"
)

var update = flag.Bool("update", false, "rewrite golden files and the demo cassettes")

// authored answers a demo's model calls from fixtures/demo/NAME/answers.json:
// each persona's answer by name (an empty answer when none is written), and
// the validator's verdicts by "file:line" (a missing verdict is an error, so
// every finding that reaches the validator has a written verdict).
type authored struct {
	personas map[string]json.RawMessage
	verdicts map[string]json.RawMessage
	schemas  *llm.Schemas
}

func loadAuthored(t *testing.T, name string) *authored {
	t.Helper()
	b, err := fs.ReadFile(fixtures.FS, path.Join("demo", name, "answers.json"))
	if err != nil {
		t.Fatalf("answers: %v", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("answers.json: %v", err)
	}
	a := &authored{personas: map[string]json.RawMessage{}, verdicts: map[string]json.RawMessage{}}
	for k, v := range raw {
		if k == llm.Validator {
			if err := json.Unmarshal(v, &a.verdicts); err != nil {
				t.Fatalf("answers.json validator: %v", err)
			}
			continue
		}
		a.personas[k] = v
	}
	a.schemas, err = llm.NewSchemas(prompts.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (a *authored) Complete(_ context.Context, r llm.Request) (llm.Response, error) {
	var ans json.RawMessage
	switch {
	case r.Persona == llm.Validator:
		// answers.json holds a verdict per finding, by "file:line"; a
		// per-file request (the default) gets each of its findings'.
		var missing error
		reply := llmtest.Verdicts(llmtest.Request{SchemaName: r.Schema, Messages: r.Messages}, func(f string) string {
			var ref struct {
				File string `json:"file"`
				Line int    `json:"line"`
			}
			_ = json.Unmarshal([]byte(f), &ref)
			v, ok := a.verdicts[fmt.Sprintf("%s:%d", ref.File, ref.Line)]
			if !ok {
				missing = fmt.Errorf("answers.json has no validator verdict for %s:%d (%s)", ref.File, ref.Line, r.Label)
				return `{"validated":false,"reason":"no verdict"}`
			}
			return string(v)
		})
		if missing != nil {
			return llm.Response{}, missing
		}
		ans = json.RawMessage(reply.Content)
	case a.personas[r.Persona] != nil:
		ans = a.personas[r.Persona]
	default:
		ans = json.RawMessage(fmt.Sprintf(`{"reviewer":%q,"findings":[],"residual_risks":[],"testing_gaps":[]}`, r.Persona))
	}
	js, err := a.schemas.Check(r.Schema, string(ans))
	if err != nil {
		return llm.Response{}, fmt.Errorf("answers.json answer for %s (%s): %w", r.Persona, r.Label, err)
	}
	return llm.Response{JSON: js}, nil
}

// TestDemoCassettes keeps fixtures/cassettes/demo-NAME.jsonl in step with
// the authored answers and the current prompts: the recording is what the
// demo replays, so a prompt change that alters a request key shows up here
// (run with -update to re-record).
func TestDemoCassettes(t *testing.T) {
	names, err := demoNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		_, answersErr := fs.Stat(fixtures.FS, path.Join("demo", name, "answers.json"))
		_, cassetteErr := fs.Stat(fixtures.FS, path.Join("cassettes", "demo-"+name+".jsonl"))
		if answersErr != nil {
			if cassetteErr == nil {
				t.Errorf("demo %s has a cassette but no answers.json to record it from", name)
			}
			continue // a fixture the pre-check skips needs no model answers
		}
		t.Run(name, func(t *testing.T) {
			var rec bytes.Buffer
			model := llm.NewRecorder(loadAuthored(t, name), &rec)
			var out bytes.Buffer
			if err := demoWith(context.Background(), name, model, false, &out); err != nil {
				t.Fatalf("demo with authored answers: %v\n%s", err, out.String())
			}
			lines := strings.SplitAfter(rec.String(), "\n")
			slices.Sort(lines)
			got := strings.Join(lines, "")
			file := filepath.Join("..", "..", "fixtures", "cassettes", "demo-"+name+".jsonl")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("read cassette (run with -update to create it): %v", err)
			}
			if got != string(want) {
				t.Errorf("%s is stale: the prompts or answers.json changed; run go test ./pkg/cli -run TestDemoCassettes -update", file)
			}
		})
	}
}

// TestDemoGolden runs `demo` on every fixture PR, offline, and compares the
// printed report with testdata/demo-NAME.golden.
func TestDemoGolden(t *testing.T) {
	names, err := demoNames()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 3 {
		t.Fatalf("got %d demo PRs; want at least 3", len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := Main(context.Background(), []string{"demo", "--pr", name}, func(string) string { return "" }, &out, &out); err != nil {
				t.Fatalf("demo: %v\n%s", err, out.String())
			}
			checkGolden(t, "demo-"+name+".golden", out.String())
		})
	}
}

// TestDemoInlineGolden: `demo --inline` prints the review it posted, with
// its committable suggestion blocks, and the report links each comment.
func TestDemoInlineGolden(t *testing.T) {
	var out bytes.Buffer
	if err := Main(context.Background(), []string{"demo", "--inline"}, func(string) string { return "" }, &out, &out); err != nil {
		t.Fatalf("demo --inline: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"== The inline review (posted to the fake GitHub): event COMMENT on ef47c2c",
		"```suggestion\n\t\tquery, perPage, (page-1)*perPage,\n```",
		"--- internal/notify/webhook.go:21 (RIGHT)",
		"[On the line](https://github.com/octo-shop/shopfront/pull/42#discussion_r",
		"**Inline comments:** 5 of 5 findings on their lines.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo --inline output lacks %q", want)
		}
	}
	checkGolden(t, "demo-buggy-inline.golden", got)
}

func TestDemoOutcomes(t *testing.T) {
	tests := []struct {
		pr   string
		want []string
	}{
		{"buggy", []string{"conclusion=failure", "verdict=not-ready", "SQL query built by string formatting", "OFFSET skips the first page", "Webhook HTTP client has no timeout", "Exported method Searched has no doc comment"}},
		{"clean", []string{"conclusion=success", "verdict=ready", "No findings reached confidence anchor 75"}},
		{"dependabot", []string{"Skipped by rule 3", "0 model calls", "skipped — Review skipped: trivial automated pull request", "cost: 3 GitHub requests"}},
		{"reviewed", []string{"Skipped by rule 4", "0 model calls", "failure"}},
		// A push after the buggy review: the delta reviewed, the untouched
		// webhook findings carried, the two fixed SQL findings gone, the
		// one report edited in place.
		{"followup", []string{"rereview: ef47c2c..f169ac3, 1 commit", "scope: 1 files to review",
			"edited the report comment", "the earlier report, edited in place",
			"Carried from the review of `ef47c2c`", "Webhook HTTP client has no timeout",
			"Fixed by the new commit", "2 no longer confirmed", "**Reviewed range:** the new commits only",
			"on f169ac3: failure", "conclusion=failure"}},
	}
	for _, tt := range tests {
		t.Run(tt.pr, func(t *testing.T) {
			var out bytes.Buffer
			if err := Main(context.Background(), []string{"demo", "--pr", tt.pr}, func(string) string { return "" }, &out, &out); err != nil {
				t.Fatalf("demo: %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("demo --pr %s output lacks %q", tt.pr, w)
				}
			}
			if tt.pr == "followup" && strings.Contains(out.String(), "| **SQL query built by string formatting") {
				t.Errorf("demo --pr followup still lists the fixed finding")
			}
		})
	}
}

func TestDemoBadFlags(t *testing.T) {
	for _, args := range [][]string{{"demo", "--pr", "nope"}, {"demo", "--frobnicate"}, {"demo", "extra"}} {
		var out bytes.Buffer
		err := Main(context.Background(), args, func(string) string { return "" }, &out, &out)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("Main(%q) = %v; want a usage error", args, err)
		}
	}
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update to accept):\n%s", file, got)
	}
}

// TestDemoExitsZero: the demo always exits 0, and says what the Action's
// step would exit with: 1 for the buggy PR (its check run is failure).
func TestDemoExitsZero(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"buggy": "would exit 1 (blocking findings)",
		"clean": "would exit 0 (success, neutral or skipped)",
	} {
		stdout, _, err := run(t, noEnv, "demo", "--pr", name)
		if err != nil || ExitCode(err) != 0 {
			t.Errorf("demo --pr %s: got %v; want exit 0", name, err)
		}
		if !strings.Contains(stdout, want) {
			t.Errorf("demo --pr %s does not say the Action %s", name, want)
		}
	}
}

// TestDemoShowsEstimatedCost: the demo's fake endpoint reports usage, so
// Coverage shows tokens and a cost at gpt-4.1's built-in price, and the
// closing lines say whose estimate the counts are.
func TestDemoShowsEstimatedCost(t *testing.T) {
	t.Parallel()
	stdout, _, err := run(t, noEnv, "demo")
	if err != nil {
		t.Fatalf("demo: %v", err)
	}
	for _, re := range []string{
		`\*\*Tokens:\*\* [1-9][0-9,]* prompt \([1-9][0-9,]* cached\), [1-9][0-9,]* completion, 12 calls\.`,
		`\*\*Estimated cost:\*\* \$[0-9]+\.[0-9]+: gpt-4\.1 at \$2\.00 input, \$0\.50 cached input, \$8\.00 output per million tokens \(the built-in list prices of `,
		`(?s)token counts, and so the\s+estimated cost, are the demo's estimate .*not a provider's\)\n$`,
	} {
		if !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("demo output does not match %q", re)
		}
	}
}

// TestDemoCachedTokensIgnoreTiming keeps the demo's goldens byte-stable:
// a request's simulated cached prefix is the same whichever of the other
// requests had finished before it arrived. The calls of a phase (persona
// dispatch, then validation) wait only for the phase's first call (the
// warm-up) and for the earlier phases; the test asks that those alone
// give each request as long a prefix as every other request of the run
// would, so no ordering of the rest can change a count.
func TestDemoCachedTokensIgnoreTiming(t *testing.T) {
	names, err := demoNames()
	if err != nil {
		t.Fatal(err)
	}
	cachedSome := false
	for _, name := range names {
		p := path.Join("cassettes", "demo-"+name+".jsonl")
		if _, err := fs.Stat(fixtures.FS, p); err != nil {
			continue
		}
		r, err := llm.LoadCassette(fixtures.FS, p)
		if err == nil {
			r, err = r.WithSchemas(prompts.Schemas())
		}
		if err != nil {
			t.Fatal(err)
		}
		e, srv, err := newReplayEndpoint(r)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		err = demoWith(context.Background(), name, e, false, &out)
		srv.Close()
		if err != nil {
			t.Fatalf("demo %s: %v", name, err)
		}
		reqs := srv.Requests()
		texts := make([]string, len(reqs))
		phase := make([]int, len(reqs)) // index of the phase's first request
		for i, q := range reqs {
			// As llmtest caches a prompt: the response schema, then the messages.
			texts[i] = q.SchemaName + "\n" + string(q.Schema) + "\n" + llmtest.PromptText(q.Messages)
			phase[i] = i
			if i > 0 && q.SchemaName == reqs[i-1].SchemaName {
				phase[i] = phase[i-1]
			}
		}
		for i, q := range reqs {
			// What must have been read before i arrived, and what may have.
			sure := texts[:phase[i]]
			could := append([]string(nil), sure...)
			if phase[i] != i {
				sure = texts[:phase[i]+1]
				for j := phase[i]; j < len(reqs) && phase[j] == phase[i]; j++ {
					if j != i {
						could = append(could, texts[j])
					}
				}
			}
			least, most := llmtest.CachedTokens(sure, texts[i]), llmtest.CachedTokens(could, texts[i])
			if q.CachedTokens != least || least != most {
				t.Errorf("demo %s request %d (%s): cached %d; %d from the calls it waits for, up to %d from any: the count depends on timing",
					name, i, q.Persona, q.CachedTokens, least, most)
			}
			cachedSome = cachedSome || q.CachedTokens > 0
		}
	}
	if !cachedSome {
		t.Error("no demo request had a cached prefix; the test checks nothing")
	}
}

// TestDemoPrintsNoHiddenLines: the demo prints the posted comment as
// GitHub shows it, not the hidden marker and metadata lines at its top.
func TestDemoPrintsNoHiddenLines(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := Main(context.Background(), []string{"demo"}, func(string) string { return "" }, &out, &out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "<!--") || !strings.Contains(out.String(), "(2 hidden lines for the next run, not shown)\n## anchor-review: ") {
		t.Errorf("the demo prints hidden lines, or does not say it left them out:\n%s", out.String())
	}
}
