// Command anchor-review is the GitHub Action and its command line: with no
// arguments inside Actions it reviews the event's pull request; `demo`,
// `review` and `eval` are the local commands (see README.md).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Main(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode is the one place errors become exit codes (SPEC section 3):
// 0 success, neutral or skipped; 1 blocking findings; 2 usage or
// configuration error; 3 the review could not run.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	// One line: an error may quote untrusted text, which must not start a
	// workflow command of its own on a new line.
	fmt.Fprintf(stderr, "anchor-review: %s\n", strings.NewReplacer("\r", " ", "\n", " ").Replace(err.Error()))
	switch {
	case errors.Is(err, action.ErrBlocking):
		return 1
	case errors.Is(err, action.ErrUsage), errors.Is(err, action.ErrConfig), errors.Is(err, cli.ErrUsage):
		return 2
	default:
		return 3
	}
}
