package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
)

func TestExitCode(t *testing.T) {
	_, invalid := repoconfig.Parse([]byte("colour: blue\n"))
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, 0},
		{"blocking", fmt.Errorf("%w: 2 findings", action.ErrBlocking), 1},
		{"usage", fmt.Errorf("%w: bad flag", ErrUsage), 2},
		{"input", &action.ConfigError{Problems: []action.Problem{{Input: "fail-on", Message: "bad"}}}, 2},
		{"repository configuration", fmt.Errorf("scope: %w", invalid), 2},
		{"cannot run", errors.New("API down"), 3},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("%s: ExitCode(%v) = %d; want %d", tt.name, tt.err, got, tt.want)
		}
	}
}
