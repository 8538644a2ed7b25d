package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/eval"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/prompt"
)

// runEval is `eval`: each persona alone, with its own prompt, against the
// ground truth of fixtures/eval (section 5 of SPEC.md).
func runEval(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("eval", flag.ContinueOnError)
	var personas listFlag
	fl.Var(&personas, "personas", "evaluate only these personas (comma-separated)")
	live := fl.Bool("live", false, "call the configured model endpoint instead of the recorded answers")
	record := fl.String("record", "", "with --live: write each answer to `DIR`/<case>/recorded/<persona>.json (use fixtures/eval to refresh the recordings)")
	jsonl := fl.String("jsonl", "", "also write the JSONL results to `FILE` (- for stdout, after the table)")
	concurrency := fl.Int("concurrency", 4, "pairs evaluated at once")
	model := fl.String("model", action.DefaultModel, "model for --live")
	baseURL := fl.String("base-url", "", "OpenAI-compatible endpoint for --live (default $OPENAI_BASE_URL or OpenAI)")
	apiKey := fl.String("api-key", "", "API key for --live (default $OPENAI_API_KEY)")
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "Usage: anchor-review eval [--personas a,b] [--jsonl FILE] [--live [--record DIR]]\n\nScores each persona alone against the ground truth under fixtures/eval/:\nrecall, precision, F1 and calibration per anchor. Offline by default.\n\nFlags:")
		fl.PrintDefaults()
	}
	if help, err := parseFlags(fl, args, false, stdout, stderr); help || err != nil {
		return err
	}
	if *record != "" && !*live {
		return fmt.Errorf("%w: --record needs --live", ErrUsage)
	}
	for _, p := range personas {
		if !eval.KnownPersona(p) {
			return fmt.Errorf("%w: --personas: unknown persona %q (known: %s)", ErrUsage, p, strings.Join(persona.Names(), ", "))
		}
	}
	cases, err := eval.LoadDefault()
	if err != nil {
		return err
	}
	var ans eval.Answerer = eval.Recorded{}
	if *live {
		mc := modelConfig{BaseURL: firstNonEmpty(*baseURL, getenv("OPENAI_BASE_URL"), action.DefaultBaseURL), APIKey: firstNonEmpty(*apiKey, getenv("OPENAI_API_KEY"))}
		if mc.APIKey == "" && !localEndpoint(mc.BaseURL) {
			return fmt.Errorf("%w: --live needs OPENAI_API_KEY or --api-key", ErrUsage)
		}
		m, err := newModel(mc)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrUsage, err)
		}
		team, err := persona.Load()
		if err != nil {
			return err
		}
		ans = LiveAnswerer{Model: m, ModelName: *model, Personas: team}
		if *record != "" {
			ans = eval.Recorder{Next: ans, Dir: *record}
		}
	}
	rep, err := eval.Run(ctx, cases, personas, ans, *concurrency)
	if err != nil {
		// The personas are checked above: what is left is a cancelled run.
		return fmt.Errorf("%w: %w", action.ErrCannotRun, err)
	}
	if err := eval.WriteTable(stdout, rep); err != nil {
		return err
	}
	switch *jsonl {
	case "":
	case "-":
		fmt.Fprintln(stdout)
		return eval.WriteJSONL(stdout, rep)
	default:
		f, err := os.Create(*jsonl)
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		if err := eval.WriteJSONL(f, rep); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

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
	req := prompt.ForPersona(prompt.Context{Repo: "eval/" + c.Name, Title: c.Title, Body: c.Body, Files: c.Files, Fence: prompt.NewFence()}, *p, l.ModelName)
	resp, err := l.Model.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.JSON, nil
}
