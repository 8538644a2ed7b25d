package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// realPR is a realistic mid-sized pull request: nine Go files of this
// repository (frozen under testdata/realpr, 150 to 390 lines each) each
// changed in two places, 324 changed lines in all, with the head versions
// served by the fake GitHub, and four findings the personas report on
// added lines (so four validations, in three files).
type realPR struct {
	number      int
	title, body string
	diff        string
	head        map[string]string
	base        map[string]string
	// others are the head tree's other paths, served with placeholder
	// content so the tree listing is the real one (the testing persona's
	// test-file list); nil serves a _test.go beside each .go file.
	others   []string
	findings map[string][]finding.Finding // by persona
	// personas is the personas input of the measured configurations; nil
	// runs the team the diff selects.
	personas []string
}

const realPRNumber = 77

// loadRealPR builds the PR. Each file's two hunks replace 4 lines with 14
// (the head's lines; the deleted ones are the same lines as they read
// before: "err" spelled "e", a word of a comment changed).
func loadRealPR(tb testing.TB) realPR {
	tb.Helper()
	root := filepath.Join("testdata", "realpr")
	p := realPR{
		number: realPRNumber, title: "Tighten retries, sanitizing and cassette handling",
		body: "Follow-ups from the last review round: retry bookkeeping, link filtering, cassette writes, and smaller clean-ups across the pipeline.",
		head: map[string]string{}, base: map[string]string{}, findings: map[string][]finding.Finding{},
		// The five personas of the measured PR.
		personas: []string{"correctness", "testing", "maintainability", "security", "reliability"},
	}
	var paths []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		paths = append(paths, strings.TrimSuffix(filepath.ToSlash(rel), ".txt"))
		return nil
	})
	if err != nil || len(paths) != 9 {
		tb.Fatalf("testdata/realpr: %d files, %v; want 9", len(paths), err)
	}
	slices.Sort(paths)
	var d strings.Builder
	for _, path := range paths {
		b, err := os.ReadFile(filepath.Join(root, path+".txt"))
		if err != nil {
			tb.Fatal(err)
		}
		head := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		p.head[path] = string(b)
		var base []string
		fmt.Fprintf(&d, "diff --git a/%s b/%s\nindex 1234567..89abcde 100644\n--- a/%s\n+++ b/%s\n", path, path, path, path)
		next, delta := 0, 0 // next head line (0-based) to copy; old minus new
		for _, at := range []int{len(head) / 3, 2 * len(head) / 3} {
			const ctx, added, deleted = 3, 14, 4
			start := at - ctx // first context line, 0-based
			base = append(base, head[next:start]...)
			fmt.Fprintf(&d, "@@ -%d,%d +%d,%d @@\n", start+1+delta, 2*ctx+deleted, start+1, 2*ctx+added)
			for _, l := range head[start:at] {
				d.WriteString(" " + l + "\n")
				base = append(base, l)
			}
			for _, l := range head[at : at+deleted] {
				old := strings.ReplaceAll(l, "err", "e")
				if old == l {
					old = l + " // was"
				}
				d.WriteString("-" + old + "\n")
				base = append(base, old)
			}
			for _, l := range head[at : at+added] {
				d.WriteString("+" + l + "\n")
			}
			for _, l := range head[at+added : at+added+ctx] {
				d.WriteString(" " + l + "\n")
				base = append(base, l)
			}
			next = at + added + ctx
			delta += deleted - added
		}
		base = append(base, head[next:]...)
		p.base[path] = strings.Join(base, "\n") + "\n"
	}
	p.diff = d.String()

	// Four findings on added lines: evidence is the line itself.
	add := func(who, path string, nth int, title string, sev finding.Severity) {
		lines := strings.Split(p.head[path], "\n")
		line := len(lines)/3 + 1 + nth // 1-based, inside the first hunk's added lines
		p.findings[who] = append(p.findings[who], finding.Finding{
			Title: title, Severity: sev, File: path, Line: line,
			WhyItMatters: "A caller relying on the old behaviour gets a wrong result.",
			AutofixClass: "manual", Owner: "human", RequiresVerification: true, Confidence: 75,
			Evidence: []string{strings.TrimSpace(lines[line-1])},
		})
	}
	add("correctness", "pkg/github/retry.go", 2, "Retry count off by one", finding.P1)
	add("correctness", "pkg/github/retry.go", 8, "Backoff ignores the context", finding.P2)
	add("security", "pkg/report/sanitize.go", 3, "Link filter misses uppercase schemes", finding.P1)
	add("reliability", "pkg/llm/cassette.go", 4, "Cassette write error is dropped", finding.P2)
	return p
}

// costConfig is one way of running the validator and the persona round.
// defaults runs the action's default inputs (no personas restriction, the
// default batching and warm-up) instead of the fields below.
type costConfig struct {
	name      string
	batching  string
	warmCache bool
	// wideContext is release 2's context, before context by need (see
	// review.Options.WideContext).
	wideContext bool
	defaults    bool
	// personas, when set, is the personas input (the team lever
	// simulated: the personas the team's selection would keep).
	personas []string
	// noWarmup turns the warm-up off in a defaults configuration.
	noWarmup bool
	// suggestions asks for committable suggestions (the inline input;
	// release 2 always did).
	suggestions bool
}

func costConfigs() []costConfig {
	return []costConfig{
		{name: "per-finding", batching: review.ValidatePerFinding},
		{name: "per-file", batching: review.ValidatePerFile},
		{name: "per-finding+warmup", batching: review.ValidatePerFinding, warmCache: true},
		{name: "per-file+warmup", batching: review.ValidatePerFile, warmCache: true},
		{name: "defaults", defaults: true},
	}
}

// firstTokenShare is the model latency over its time to first token in
// the cost benchmarks: a streamed answer's first chunk comes at L/10. A
// provider reads a prompt of 10 to 15 thousand tokens in well under a
// second, while writing a findings answer takes several seconds.
const firstTokenShare = 10

// costRun is what one review of the real PR cost.
type costRun struct {
	wall                        time.Duration
	personaCalls, validatorCall int
	prompt, cached              int // tokens, every call
	personaPrompt               int // tokens, persona calls
	shape                       promptShape
	calls                       []callCost // every call, in arrival order
	// chars is the raw prompt: the characters of every message of every
	// call (the response schema not counted).
	chars int
	team  []string // the personas that ran
}

// callCost is what one model call cost: who made it, its prompt tokens
// (as the fake server counts them) and the cached part.
type callCost struct {
	who            string
	prompt, cached int
	schema         int   // tokens of the response schema
	messages       []int // tokens of each message's content
}

// billed is the call's billed-equivalent input.
func (c callCost) billed() float64 { return float64(c.prompt-c.cached) + float64(c.cached)/4 }

// billed is the billed-equivalent input: uncached tokens plus cached
// tokens at a quarter (the discount of the common providers).
func (c costRun) billed() float64 {
	return float64(c.prompt-c.cached) + float64(c.cached)/4
}

// runCost reviews the real PR once, comment mode, through the real
// clients against fake GitHub and a fake model answering after latency
// with a simulated provider prompt cache.
func runCost(tb testing.TB, p realPR, cfg costConfig, latency time.Duration) costRun {
	tb.Helper()
	gh := githubtest.New()
	defer gh.Close()
	const headSHA, baseSHA = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	gh.AddPR(githubtest.PR{
		Number: p.number, Title: p.title, Body: p.body,
		Author: "octodev", HeadSHA: headSHA, BaseSHA: baseSHA,
		HeadRepo: owner + "/" + repo, BaseRepo: owner + "/" + repo,
	})
	gh.SetDiff(p.number, p.diff)
	for _, f := range p.others {
		gh.SetContent(headSHA, f, "placeholder\n")
		gh.SetContent(baseSHA, f, "placeholder\n")
	}
	for f, c := range p.head {
		gh.SetContent(headSHA, f, c)
		if strings.HasSuffix(f, ".go") && p.others == nil {
			gh.SetContent(headSHA, strings.TrimSuffix(f, ".go")+"_test.go", "package x\n")
		}
	}
	for f, c := range p.base {
		gh.SetContent(baseSHA, f, c)
	}
	m := llmtest.New()
	defer m.Close()
	m.SimulatePromptCache(true)
	m.SetDefault(func(r llmtest.Request) llmtest.Reply {
		switch {
		case r.SchemaName == "validations":
			var vs []map[string]any
			for i := range strings.Count(r.Messages[3].Content, "\n### F") {
				vs = append(vs, map[string]any{"finding": fmt.Sprintf("F%d", i+1), "validated": true, "reason": "Real and introduced here."})
			}
			b, _ := json.Marshal(map[string]any{"verdicts": vs})
			return llmtest.Reply{Content: string(b), Delay: latency, FirstToken: latency / firstTokenShare}
		case r.Persona == llm.Validator:
			return llmtest.Reply{Content: `{"validated":true,"reason":"Real and introduced here."}`, Delay: latency, FirstToken: latency / firstTokenShare}
		}
		fs := p.findings[r.Persona]
		if fs == nil {
			fs = []finding.Finding{}
		}
		b, _ := json.Marshal(finding.Answer{Reviewer: r.Persona, Findings: fs, ResidualRisks: []string{}, TestingGaps: []string{}})
		return llmtest.Reply{Content: string(b), Delay: latency, FirstToken: latency / firstTokenShare}
	})
	team, err := persona.Load()
	if err != nil {
		tb.Fatal(err)
	}
	rv := review.Reviewer{GitHub: newGitHub(tb, gh), Model: newModel(tb, m), Personas: team}
	o := review.Options{
		Owner: owner, Repo: repo, PR: p.number, Mode: review.ModeComment, Validate: true,
		Model: "gpt-4.1-mini", MaxValidations: -1, MaxConcurrency: 8, BotLogin: botName,
		Personas: p.personas, ValidatorBatching: cfg.batching, WarmCache: cfg.warmCache,
	}
	o.WideContext, o.Suggestions = cfg.wideContext, cfg.suggestions
	if cfg.defaults {
		// The action's defaults.
		o.Personas, o.ValidatorBatching, o.WarmCache = nil, action.DefaultValidatorBatching, action.DefaultCacheWarmup
	}
	if cfg.personas != nil {
		o.Personas = cfg.personas
	}
	if cfg.defaults && cfg.batching != "" {
		o.ValidatorBatching = cfg.batching // one lever off the defaults
	}
	if cfg.noWarmup {
		o.WarmCache = false
	}
	start := time.Now()
	res, _, err := rv.ReviewPR(context.Background(), o)
	wall := time.Since(start)
	if err != nil {
		tb.Fatalf("ReviewPR: %v", err)
	}
	want := 0
	for _, fs := range p.findings {
		want += len(fs)
	}
	if res.Coverage.Validated != want || len(res.Findings) != want || res.Partial {
		tb.Fatalf("validated %d, posted %d, partial %t (not reviewed %v, rejections %v); want %d and a complete review", res.Coverage.Validated, len(res.Findings), res.Partial, res.Coverage.NotReviewed, res.Coverage.Rejections, want)
	}
	c := costRun{wall: wall, shape: shapeOf(m.Requests())}
	for _, pr := range res.Coverage.Personas {
		c.team = append(c.team, pr.Name)
	}
	for _, pr := range res.Coverage.Personas {
		c.personaCalls += pr.Calls
		c.personaPrompt += pr.Usage.PromptTokens
	}
	u := res.Coverage.Usage
	c.prompt, c.cached = u.PromptTokens, u.CachedTokens
	c.validatorCall = len(m.RequestsFor(llm.Validator))
	for _, r := range m.Requests() {
		k := callCost{who: r.Persona, prompt: r.PromptTokens, cached: r.CachedTokens, schema: len(r.Schema) / 4}
		for _, m := range r.Messages {
			k.messages = append(k.messages, len(m.Content)/4)
			c.chars += len(m.Content)
		}
		c.calls = append(c.calls, k)
	}
	return c
}

// BenchmarkReviewCost reviews the realistic Go PR (9 files, 324 changed
// lines, 4 findings) and the express change (9 files, +179/-143, 3 seeded
// defects) against a fake model answering after L = 100 ms (a streamed
// answer's first chunk at L/10) with a simulated provider prompt cache,
// and reports per configuration: prompt and cached tokens,
// billed-equivalent input (uncached + cached/4), raw prompt characters,
// persona prompt tokens per call and their shared-prefix share, persona
// and validator calls, and wall time in units of L. Every run fails unless
// all its findings were validated and posted.
func BenchmarkReviewCost(b *testing.B) {
	const latency = 100 * time.Millisecond
	for _, pc := range costPRs(b) {
		p := pc.pr
		for _, cfg := range pc.configs {
			b.Run(pc.name+"/"+cfg.name, func(b *testing.B) {
				var c costRun
				var wall time.Duration
				n := 0
				for b.Loop() {
					c = runCost(b, p, cfg, latency)
					wall += c.wall
					n++
				}
				b.ReportMetric(float64(c.prompt), "prompt-tok")
				b.ReportMetric(float64(c.cached), "cached-tok")
				b.ReportMetric(c.billed(), "billed-tok")
				b.ReportMetric(float64(c.personaPrompt)/float64(c.personaCalls), "persona-tok/call")
				b.ReportMetric(c.shape.share()*100, "shared-%")
				b.ReportMetric(float64(c.personaCalls), "persona-calls")
				b.ReportMetric(float64(c.validatorCall), "validator-calls")
				b.ReportMetric(float64(wall)/float64(n)/float64(latency), "wall-L")
				b.ReportMetric(float64(c.chars), "prompt-chars")
				b.Logf("team: %s", strings.Join(c.team, ", "))
			})
		}
	}
}

// costPR is one measured PR with the configurations it is measured in.
type costPR struct {
	name    string
	pr      realPR
	configs []costConfig
}

// costPRs are the measured PRs: the realistic Go PR in every
// configuration, and the express change with the default inputs.
func costPRs(tb testing.TB) []costPR {
	return []costPR{
		{"realpr", loadRealPR(tb), costConfigs()},
		{"express", loadExpressPR(tb), expressConfigs()},
	}
}

// TestReviewCostBreakdown logs, per configuration, where the billed input
// of the real PR goes: every call with its prompt, cached and billed
// tokens, and the persona and validator totals (go test -v -run
// TestReviewCostBreakdown ./bench/). It checks that the totals add up.
func TestReviewCostBreakdown(t *testing.T) {
	if testing.Short() {
		t.Skip("reviews the real PR four times")
	}
	for _, pc := range costPRs(t) {
		p := pc.pr
		for _, cfg := range pc.configs {
			t.Run(pc.name+"/"+cfg.name, func(t *testing.T) {
				c := runCost(t, p, cfg, 20*time.Millisecond)
				var persona, validator, sum float64
				for i, k := range c.calls {
					t.Logf("call %d %-15s prompt %6d cached %6d billed %8.0f (schema %d, messages %v)", i+1, k.who, k.prompt, k.cached, k.billed(), k.schema, k.messages)
					if k.who == llm.Validator {
						validator += k.billed()
					} else {
						persona += k.billed()
					}
					sum += k.billed()
				}
				t.Logf("persona %.0f, validator %.0f, total %.0f billed-equivalent", persona, validator, sum)
				if int(sum) != int(c.billed()) {
					t.Errorf("calls add up to %.0f billed, the run's usage to %.0f", sum, c.billed())
				}
			})
		}
	}
}
