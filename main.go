// Command anchor-review is the GitHub Action and its command line: with no
// arguments inside Actions it reviews the event's pull request; `demo`,
// `review` and `eval` are the local commands (see README.md).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/anchor-review/anchor-review/pkg/cli"
	"github.com/anchor-review/anchor-review/pkg/report"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Main(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode prints a failed run's error on one line (an error may quote
// untrusted text, which must not start a workflow command of its own) and
// returns cli.ExitCode's mapping.
func exitCode(err error, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintf(stderr, "anchor-review: %s\n", report.LogLine(err.Error()))
	}
	return cli.ExitCode(err)
}
