package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/cli"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{fmt.Errorf("%w: 2 findings", action.ErrBlocking), 1},
		{fmt.Errorf("%w: bad event", action.ErrUsage), 2},
		{fmt.Errorf("load: %w", action.ErrConfig), 2},
		{fmt.Errorf("%w: --pr 0", cli.ErrUsage), 2},
		{fmt.Errorf("%w: every persona failed", action.ErrCannotRun), 3},
		{errors.New("anything else"), 3},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		if got := exitCode(tt.err, &stderr); got != tt.want {
			t.Errorf("exitCode(%v) = %d; want %d", tt.err, got, tt.want)
		}
		if tt.err == nil && stderr.Len() != 0 {
			t.Errorf("exitCode(nil) printed %q", stderr.String())
		}
	}
}

// TestExitCodeOneLine: an error quoting untrusted text is printed on one
// line, so it cannot start a workflow command.
func TestExitCodeOneLine(t *testing.T) {
	var stderr bytes.Buffer
	exitCode(errors.New("bad path x\n::warning::INJECTED"), &stderr)
	if got := strings.TrimSuffix(stderr.String(), "\n"); strings.Contains(got, "\n") {
		t.Errorf("stderr %q spans lines: the quoted text could start a workflow command", stderr.String())
	}
}
