// Package cli is anchor-review's command line: the Action entry point (no
// arguments), `demo`, `review`, `eval` and `stats`. deps.go is the one place that
// builds the real GitHub and model clients; every command receives what it
// needs from there, so tests substitute fakes through the same seams.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
	"github.com/anchor-review/anchor-review/pkg/version"
)

// ErrUsage marks a command-line mistake (exit code 2).
var ErrUsage = errors.New("usage")

const usageText = `anchor-review reviews pull requests with a team of LLM reviewer personas.

Usage:
  anchor-review                  run as the GitHub Action (inside Actions)
  anchor-review demo [--pr NAME] run the whole pipeline offline on a fixture PR (demo --help)
  anchor-review review ...       review a PR or a local diff (review --help)
  anchor-review eval ...         score each persona against ground truth (eval --help)
  anchor-review stats ...        which personas' findings get acted on, and what each costs (stats --help)
  anchor-review version          print the version (also --version)
  anchor-review help             print this help (also --help, -h)
`

// Main runs one invocation with the real dependencies. getenv reads the
// environment, stdout and stderr are the terminal.
func Main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return Run(ctx, &Factory{Getenv: getenv, Stdout: stdout, Stderr: stderr}, args)
}

// Run runs one invocation with the dependencies f gives.
func Run(ctx context.Context, f *Factory, args []string) error {
	if len(args) == 0 {
		if f.Getenv("GITHUB_ACTIONS") != "true" && f.Getenv("GITHUB_EVENT_NAME") == "" {
			fmt.Fprint(f.Stderr, usageText)
			return fmt.Errorf("%w: no command given and not running inside GitHub Actions", ErrUsage)
		}
		return runAction(ctx, f)
	}
	switch args[0] {
	case "demo":
		return runDemo(ctx, f, args[1:])
	case "review":
		return runReview(ctx, f, args[1:])
	case "eval":
		return runEval(ctx, f, args[1:])
	case "stats":
		return runStats(ctx, f, args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(f.Stdout, usageText)
		return nil
	case "version", "--version", "-version":
		fmt.Fprintf(f.Stdout, "anchor-review %s\n", version.String())
		return nil
	}
	fmt.Fprint(f.Stderr, usageText)
	return fmt.Errorf("%w: unknown command %q", ErrUsage, args[0])
}

// ExitCode is the one place errors become exit codes (SPEC section 3):
// 0 success, neutral or skipped; 1 blocking findings; 2 usage or
// configuration error; 3 the review could not run.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, action.ErrBlocking), errors.Is(err, action.ErrIncomplete), errors.Is(err, ErrCorpus):
		return 1
	case errors.Is(err, action.ErrUsage), errors.Is(err, action.ErrConfig), errors.Is(err, ErrUsage),
		errors.Is(err, repoconfig.ErrInvalid):
		return 2
	}
	return 3
}

// parseFlags parses a command's flags. help is true when the user asked
// for --help: the usage went to stdout and the command returns nil (exit
// 0). A bad flag, or an argument when the command takes none, is a usage
// error: the flag package's message and the usage go to stderr (exit 2).
// The command's fl.Usage writes to fl.Output().
func parseFlags(fl *flag.FlagSet, args []string, takesArgs bool, stdout, stderr io.Writer) (help bool, err error) {
	usage := fl.Usage
	fl.Usage = func() {} // printed below, once the destination is known
	fl.SetOutput(stderr)
	err = fl.Parse(args)
	fl.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fl.SetOutput(stdout)
			fl.Usage()
			return true, nil
		}
		fl.Usage()
		return false, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if !takesArgs && fl.NArg() > 0 {
		return false, fmt.Errorf("%w: %s takes no arguments, got %q", ErrUsage, fl.Name(), fl.Args())
	}
	return false, nil
}

// listFlag collects a repeatable or comma-separated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// firstNonEmpty returns the first non-empty value.
func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// configProblems reads an action.ReviewConfig error as the flags the CLI
// spells its inputs as: "--model-timeout: ..." for each problem the check
// found; the error's text for any other error, nil for none.
func configProblems(err error) []string {
	var ce *action.ConfigError
	if !errors.As(err, &ce) {
		if err != nil {
			return []string{err.Error()}
		}
		return nil
	}
	out := make([]string, 0, len(ce.Problems))
	for _, p := range ce.Problems {
		out = append(out, fmt.Sprintf("--%s: %s", p.Input, p.Message))
	}
	return out
}
