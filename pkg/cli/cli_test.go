package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/version"
)

func TestMainCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		wantUsage  bool   // ErrUsage; otherwise nil
		wantMsg    string // in the error
		wantStdout bool   // the usage text on stdout (else on stderr)
	}{
		{name: "help", args: []string{"help"}, wantStdout: true},
		{name: "-h", args: []string{"-h"}, wantStdout: true},
		{name: "--help", args: []string{"--help"}, wantStdout: true},
		{name: "no args outside Actions", wantUsage: true, wantMsg: "not running inside GitHub Actions"},
		{name: "no args, GITHUB_ACTIONS false", env: map[string]string{"GITHUB_ACTIONS": "false"}, wantUsage: true, wantMsg: "not running inside GitHub Actions"},
		{name: "unknown command", args: []string{"reveiw"}, wantUsage: true, wantMsg: `unknown command "reveiw"`},
		{name: "flag as command", args: []string{"--repo"}, wantUsage: true, wantMsg: `unknown command "--repo"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, err := run(t, envOf(tt.env), tt.args...)
			if tt.wantUsage {
				if !errors.Is(err, ErrUsage) {
					t.Fatalf("Main(%q): got %v; want a usage error", tt.args, err)
				}
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("got message %q; want it to mention %q", err, tt.wantMsg)
				}
			} else if err != nil {
				t.Fatalf("Main(%q): got %v; want nil", tt.args, err)
			}
			usage, other := stderr, stdout
			if tt.wantStdout {
				usage, other = stdout, stderr
			}
			if usage != usageText {
				t.Errorf("got usage output %q; want the usage text", usage)
			}
			if other != "" {
				t.Errorf("got unexpected output %q", other)
			}
		})
	}
}

// TestUsageTextNamesCommands: the top-level help lists every command Main
// dispatches.
func TestUsageTextNamesCommands(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"demo", "review", "eval"} {
		if !strings.Contains(usageText, "anchor-review "+cmd) {
			t.Errorf("usage text does not list %q", cmd)
		}
	}
}

// TestCommandHelp: a command's --help goes to stdout and exits 0 (it is
// what the user asked for); a bad flag is a usage error whose message and
// usage go to stderr, and ExitCode makes it 2.
func TestCommandHelp(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"demo", "review", "eval"} {
		for _, help := range []string{"--help", "-h", "-help"} {
			t.Run(cmd+" "+help, func(t *testing.T) {
				t.Parallel()
				stdout, stderr, err := run(t, noEnv, cmd, help)
				if err != nil || ExitCode(err) != 0 {
					t.Fatalf("%s %s: got %v; want nil (exit 0)", cmd, help, err)
				}
				if !strings.Contains(stdout, "anchor-review "+cmd) || !strings.Contains(stdout, "Flags:") || !strings.Contains(stdout, "-personas") && cmd != "demo" {
					t.Errorf("%s %s: stdout %q lacks the command's usage and flags", cmd, help, stdout)
				}
				if stderr != "" {
					t.Errorf("%s %s: got stderr %q; want nothing", cmd, help, stderr)
				}
			})
		}
		t.Run(cmd+" bad flag", func(t *testing.T) {
			t.Parallel()
			stdout, stderr, err := run(t, noEnv, cmd, "--no-such-flag")
			if !errors.Is(err, ErrUsage) || ExitCode(err) != 2 {
				t.Fatalf("%s --no-such-flag: got %v (exit %d); want a usage error, exit 2", cmd, err, ExitCode(err))
			}
			if !strings.Contains(stderr, "no-such-flag") || !strings.Contains(stderr, "anchor-review "+cmd) {
				t.Errorf("stderr %q lacks the flag error and the usage", stderr)
			}
			if stdout != "" {
				t.Errorf("got stdout %q; want nothing", stdout)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"version", "--version", "-version"} {
		stdout, stderr, err := run(t, noEnv, arg)
		if err != nil {
			t.Fatalf("%s: got %v; want nil", arg, err)
		}
		if want := "anchor-review " + version.String() + "\n"; stdout != want {
			t.Errorf("%s: got stdout %q; want %q", arg, stdout, want)
		}
		if stderr != "" {
			t.Errorf("%s: got stderr %q; want nothing", arg, stderr)
		}
	}
	if !strings.Contains(usageText, "--version") {
		t.Error("the usage text does not mention --version")
	}
}

func TestListFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sets []string
		want string
	}{
		{[]string{"a"}, "a"},
		{[]string{"a,b", "c"}, "a,b,c"},
		{[]string{" a , ,b ", ""}, "a,b"},
		{nil, ""},
	}
	for _, tt := range tests {
		var l listFlag
		for _, s := range tt.sets {
			if err := l.Set(s); err != nil {
				t.Fatal(err)
			}
		}
		if got := l.String(); got != tt.want {
			t.Errorf("Set(%q): got %q; want %q", tt.sets, got, tt.want)
		}
	}
}
