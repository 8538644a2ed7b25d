package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/eval"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/prompts"
)

// ErrCorpus is returned by `eval --check` when a case is broken.
var ErrCorpus = errors.New("eval: the corpus has broken cases")

// runEval is `eval` (SPEC sections 5 and 7.6): each persona alone, with its
// own prompt, and the whole pipeline, against the ground truth of
// fixtures/eval; and the validator alone on its labelled pool.
func runEval(ctx context.Context, f *Factory, args []string) error {
	getenv, stdout := f.Getenv, f.Stdout
	fl := flag.NewFlagSet("eval", flag.ContinueOnError)
	var personas listFlag
	fl.Var(&personas, "personas", "evaluate only these personas (comma-separated)")
	suite := fl.String("suite", "all", "cases to score: scripted (hand-written), real (real bugs and clean changes) or all")
	check := fl.Bool("check", false, "check the corpus's integrity (diffs parse, labels on added lines, provenance, licence) and exit")
	live := fl.Bool("live", false, "call the configured model endpoint instead of the recorded answers")
	record := fl.String("record", "", "with --live: save every answer and validator verdict under `DIR`/<suite>/<case>/recorded/, with the model and date (use fixtures/eval to refresh the recordings)")
	jsonl := fl.String("jsonl", "", "also write the JSONL results to `FILE` (- for stdout, after the table)")
	markdown := fl.String("markdown", "", "also write a Markdown summary to `FILE`")
	runs := fl.Int("runs", 1, "with --live: repeat the evaluation `N` times and report mean and spread")
	judgeModel := fl.String("judge-model", "", "with --live: ask `MODEL` whether each line-overlap match is the same issue")
	concurrency := fl.Int("concurrency", 4, "pairs evaluated at once")
	model := fl.String("model", action.DefaultModel, "model for --live")
	baseURL := fl.String("base-url", "", "OpenAI-compatible endpoint for --live (default $OPENAI_BASE_URL or OpenAI)")
	apiKey := fl.String("api-key", "", "API key for --live (default $OPENAI_API_KEY)")
	apiType := fl.String("api-type", action.APITypeAuto, "the endpoint's request shape for --live: auto (Azure by host name), openai or azure")
	apiVersion := fl.String("api-version", llm.DefaultAzureAPIVersion, "Azure OpenAI api-version for --live")
	deadline := fl.Int("deadline-minutes", action.DefaultDeadlineMinutes, "with --live: minutes all model work of the run may take (1..360), as the Action's input")
	modelTimeout := fl.String("model-timeout", "", "with --live: how long one model call may take, as 90s or 5m (default: a quarter of the review's time, --deadline-minutes less the publishing reserve, at least 2m), as the Action's input")
	poolMode := fl.String("pool", "yes", "the validator alone on its labelled pool: yes (with the cases), no (the cases alone) or only (the pool alone)")
	batching := fl.String("validator-batching", action.DefaultValidatorBatching, "the validator's calls in the pipeline and on the pool: per-file (as the Action ships) or per-finding")
	validatorOnly := fl.Bool("validator-only", false, "with --live: the personas answer from the recordings and only the validator is asked; with --record, only that mode's verdicts are recorded, next to the recorded answers (same --model)")
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "Usage: anchor-review eval [--suite scripted|real|all] [--check] [--personas a,b] [--jsonl FILE] [--markdown FILE]\n"+
			"                         [--validator-batching per-file|per-finding] [--pool yes|no|only]\n"+
			"                         [--live [--validator-only] [--record DIR] [--runs N] [--judge-model M]]\n\n"+
			"Scores each persona alone and the whole pipeline (synthesis, gate, validator) against the\n"+
			"labelled cases under fixtures/eval/, and the validator alone on its labelled pool.\n"+
			"Offline by default: hand-scripted answers test the scorer, not a model.\n\nFlags:")
		fl.PrintDefaults()
	}
	if help, err := parseFlags(fl, args, false, stdout, f.Stderr); help || err != nil {
		return err
	}
	var suites []string
	switch *suite {
	case "all":
		suites = eval.Suites()
	case eval.SuiteScripted, eval.SuiteReal:
		suites = []string{*suite}
	default:
		return fmt.Errorf("%w: --suite must be scripted, real or all, got %q", ErrUsage, *suite)
	}
	switch {
	case *record != "" && !*live:
		return fmt.Errorf("%w: --record needs --live", ErrUsage)
	case *judgeModel != "" && !*live:
		return fmt.Errorf("%w: --judge-model needs --live", ErrUsage)
	case *batching != review.ValidatePerFile && *batching != review.ValidatePerFinding:
		return fmt.Errorf("%w: --validator-batching must be %s or %s, got %q", ErrUsage, review.ValidatePerFile, review.ValidatePerFinding, *batching)
	case *poolMode != "yes" && *poolMode != "no" && *poolMode != "only":
		return fmt.Errorf("%w: --pool must be yes, no or only, got %q", ErrUsage, *poolMode)
	case *validatorOnly && !*live:
		return fmt.Errorf("%w: --validator-only needs --live (offline, every answer is a recording)", ErrUsage)
	case *runs < 1:
		return fmt.Errorf("%w: --runs must be at least 1", ErrUsage)
	case *runs > 1 && !*live:
		return fmt.Errorf("%w: --runs needs --live (recorded answers are the same every run)", ErrUsage)
	case *runs > 1 && *record != "":
		return fmt.Errorf("%w: --record keeps one run's answers; use it with --runs 1", ErrUsage)
	}
	if msg := action.UnknownPersonas(personas, slices.DeleteFunc(persona.Names(), func(p string) bool { return !eval.KnownPersona(p) })); msg != "" {
		return fmt.Errorf("%w: --personas: %s", ErrUsage, msg)
	}
	if *check {
		return checkCorpus(suites, stdout)
	}

	pool, err := eval.LoadPool(fixtures.FS, eval.DefaultRoot)
	if err != nil {
		return err
	}
	if *poolMode == "no" {
		pool = nil
	}
	if *poolMode == "only" && pool == nil {
		return fmt.Errorf("%w: --pool only: the corpus has no validator pool", ErrUsage)
	}
	// The pool names cases of any suite: with a pool, every suite is
	// loaded (once), and the run scores the requested ones.
	load := suites
	if pool != nil {
		load = eval.Suites()
	}
	var cases, poolCases []eval.Case
	for _, s := range load {
		cs, err := eval.LoadSuite(fixtures.FS, eval.DefaultRoot, s)
		if err != nil {
			return fmt.Errorf("%w (run `eval --check` for every problem)", err)
		}
		if slices.Contains(suites, s) {
			cases = append(cases, cs...)
		}
		poolCases = append(poolCases, cs...)
	}
	if pool == nil {
		poolCases = nil
	}
	if *poolMode == "only" {
		// The pool alone: no persona is asked, no pipeline runs.
		cases = nil
	}
	team, err := persona.Load()
	if err != nil {
		return err
	}
	o := eval.Options{Personas: personas, Answerer: eval.Recorded{}, Team: team, Concurrency: *concurrency, Pool: pool, PoolCases: poolCases,
		ValidatorBatching: *batching, ValidatorOnly: *validatorOnly, NoPipeline: *poolMode == "only"}
	// The model's time limits follow the Action's inputs, with the same
	// checks, whether or not this run calls a model (a typo is refused,
	// not ignored): a self-hosted model, or a person answering through a
	// file queue, may take minutes a call.
	times, err := evalTimes(*deadline, *modelTimeout)
	if err != nil {
		return err
	}
	if *live {
		mc := modelConfig{BaseURL: firstNonEmpty(*baseURL, getenv("OPENAI_BASE_URL"), action.DefaultBaseURL), APIKey: firstNonEmpty(*apiKey, getenv("OPENAI_API_KEY")), HTTPClient: f.HTTPClient}
		if err := action.CheckBaseURL(mc.BaseURL); err != nil {
			return fmt.Errorf("%w: --base-url (or $OPENAI_BASE_URL): %w", ErrUsage, err)
		}
		if mc.APIKey == "" && action.NeedsKey(mc.BaseURL) {
			return fmt.Errorf("%w: --live needs OPENAI_API_KEY or --api-key", ErrUsage)
		}
		if mc.APIType, mc.APIVersion, err = action.ParseAPI(*apiType, *apiVersion); err != nil {
			return fmt.Errorf("%w: %w", ErrUsage, err)
		}
		mc.Schemas = prompts.Schemas()
		mc.Schemas[prompt.Judge] = []byte(prompt.JudgeSchema)
		mc.CallTimeout, mc.Budget = times.ModelTime()
		if note := times.ModelTimeNote(); note != "" {
			fmt.Fprintln(f.Stderr, note)
		}
		m, err := newModel(mc)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrUsage, err)
		}
		date := f.now().UTC().Format(time.DateOnly)
		o.Model, o.ModelName = m, *model
		o.Source = eval.Source{Kind: eval.SourceLive, Model: *model, Date: date}
		if !*validatorOnly {
			o.Answerer = LiveAnswerer{Model: m, ModelName: *model, Personas: team}
		}
		if *judgeModel != "" {
			o.Judge = eval.ModelJudge{Model: m, ModelName: *judgeModel}
		}
		if *record != "" {
			o.Recorder = &eval.Recorder{Dir: *record, Source: eval.Source{Kind: eval.SourceRecorded, Model: *model, Date: date}}
			if *validatorOnly {
				o.Recorder.VerdictsOnly = *batching
			}
		}
	}

	var reports []eval.Report
	for range *runs {
		rep, err := eval.Run(ctx, cases, o)
		if err != nil {
			// The personas are checked above: what is left is a cancelled run.
			return fmt.Errorf("%w: %w", action.ErrCannotRun, err)
		}
		reports = append(reports, rep)
	}
	if err := eval.WriteTable(stdout, reports[0]); err != nil {
		return err
	}
	var spread []eval.Metric
	if len(reports) > 1 {
		spread = eval.Spread(reports)
		if err := eval.WriteSpreadTable(stdout, spread, reports[0].SourceLabel()); err != nil {
			return err
		}
	}
	writeJSONL := func(w io.Writer) error {
		if err := eval.WriteRunsJSONL(w, reports); err != nil {
			return err
		}
		if spread != nil {
			return eval.WriteSpreadJSONL(w, spread, reports[0].SourceLabel())
		}
		return nil
	}
	if *markdown != "" {
		if err := writeFile(*markdown, func(w io.Writer) error { return eval.WriteMarkdown(w, reports) }); err != nil {
			return err
		}
	}
	switch *jsonl {
	case "":
	case "-":
		fmt.Fprintln(stdout)
		return writeJSONL(stdout)
	default:
		return writeFile(*jsonl, writeJSONL)
	}
	return nil
}

// writeFile creates name and writes it with write.
func writeFile(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return nil
}

// checkCorpus is `eval --check`: every suite's integrity, every problem
// listed; ErrCorpus when there is any.
func checkCorpus(suites []string, stdout io.Writer) error {
	checks, err := eval.CheckCorpus(fixtures.FS, eval.DefaultRoot, suites...)
	if err != nil {
		return err
	}
	problems := 0
	for _, c := range checks {
		if c.Suite == eval.PoolDir {
			fmt.Fprintf(stdout, "%-9s %3d pool items", c.Suite, c.Cases)
		} else {
			fmt.Fprintf(stdout, "%-9s %3d cases (%d with bugs, %d clean), %d labels", c.Suite, c.Cases, c.Bug, c.Clean, c.Issues)
		}
		if len(c.Problems) == 0 {
			fmt.Fprintln(stdout, ": ok")
			continue
		}
		fmt.Fprintf(stdout, ": %d %s\n", len(c.Problems), map[bool]string{true: "problem", false: "problems"}[len(c.Problems) == 1])
		for _, p := range c.Problems {
			fmt.Fprintf(stdout, "  %s\n", oneLineText(p))
		}
		problems += len(c.Problems)
	}
	if problems > 0 {
		return fmt.Errorf("%w: %d problems", ErrCorpus, problems)
	}
	return nil
}

// oneLineText keeps one problem on one line.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// LiveAnswerer asks the model as the persona, alone, with its own prompt:
// the same prompt building the review uses, on the case's diff.
type LiveAnswerer struct {
	Model     llm.Completer
	ModelName string
	Personas  []persona.Persona
}

// Answer implements eval.Answerer.
func (l LiveAnswerer) Answer(ctx context.Context, name string, c eval.Case) ([]byte, error) {
	var p *persona.Persona
	for i := range l.Personas {
		if l.Personas[i].Name == name {
			p = &l.Personas[i]
		}
	}
	if p == nil {
		return nil, fmt.Errorf("eval: no persona %q", name)
	}
	// The head versions the case holds are the context the review would
	// show (SPEC 7.3); a file without one gets none, as in the review.
	heads := make(map[string]prompt.Head, len(c.Head))
	for path, text := range c.Head {
		heads[path] = prompt.Head{Content: text, Found: true}
	}
	pc := prompt.Context{Repo: "eval/" + c.Name, Title: c.Title, Body: c.Body, Files: c.Files, Heads: heads, Fence: prompt.NewFence()}
	req := prompt.ForPersona(pc, *p, l.ModelName)
	resp, err := l.Model.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.JSON, nil
}

// evalTimes checks --deadline-minutes and --model-timeout as the Action
// checks its inputs of those names.
func evalTimes(deadline int, modelTimeout string) (action.Config, error) {
	cfg, err := action.ReviewConfig(map[string]string{"deadline-minutes": strconv.Itoa(deadline), "model-timeout": modelTimeout})
	if problems := configProblems(err); len(problems) > 0 {
		return cfg, fmt.Errorf("%w: %s", ErrUsage, strings.Join(problems, "; "))
	}
	return cfg, nil
}
