package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
)

// headWithConfig copies the invoice change's head version into a fresh
// directory holding config as .github/anchor-review.yml, for --dir.
func headWithConfig(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(headDir, invoicePath))
	if err != nil {
		t.Fatal(err)
	}
	for p, text := range map[string]string{invoicePath: string(b), repoconfig.Path: config} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestReviewAppliesRepoConfig: `review --diff` applies the repository
// configuration read from --dir as the Action applies it at the base
// commit: its settings (not only its instructions), validated the same
// way, with flags left at their defaults giving way to the file.
func TestReviewAppliesRepoConfig(t *testing.T) {
	t.Parallel()
	t.Run("settings apply", func(t *testing.T) {
		t.Parallel()
		m := llmtest.New()
		defer m.Close()
		m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P1", 75, whyDiscount)))
		dir := headWithConfig(t, "personas: [correctness]\nfail_on: never\n")
		stdout, stderr, err := run(t, noEnv, "review", "--diff", invoicePatch, "--dir", dir, "--base-url", m.URL, "--api-key", "k")
		if err != nil {
			t.Fatalf("review: %v (fail_on: never in the file; want exit 0)\n%s", err, stderr)
		}
		if !strings.Contains(stdout, findingRow) {
			t.Errorf("report lacks the finding:\n%s", stdout)
		}
		for _, p := range persona.Names() {
			if n := len(m.RequestsFor(p)); (p == "correctness") != (n == 1) || n > 1 {
				t.Errorf("%s: %d requests; want the file's team, correctness alone", p, n)
			}
		}
	})
	t.Run("a flag set to a non-default value wins", func(t *testing.T) {
		t.Parallel()
		m := llmtest.New()
		defer m.Close()
		m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P1", 75, whyDiscount)))
		dir := headWithConfig(t, "personas: [correctness]\nfail_on: never\n")
		_, stderr, err := run(t, noEnv, "review", "--diff", invoicePatch, "--dir", dir, "--base-url", m.URL, "--api-key", "k", "--fail-on", "P2")
		if !errors.Is(err, action.ErrBlocking) {
			t.Fatalf("review --fail-on P2: %v; want ErrBlocking (the flag beats the file)\n%s", err, stderr)
		}
	})
	for _, tt := range []struct {
		name, config string
		want         []string
	}{
		{"unknown persona", "personas: [secrity]\n", []string{"personas", `entry 1 is not a known persona`}},
		{"out of range", "max_concurrency: 1000\n", []string{"max_concurrency", "64"}},
		{"unknown key", "persona: [security]\n", []string{"persona"}},
	} {
		t.Run("invalid: "+tt.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.New()
			defer m.Close()
			dir := headWithConfig(t, tt.config)
			stdout, _, err := run(t, noEnv, "review", "--diff", invoicePatch, "--dir", dir, "--base-url", m.URL, "--api-key", "k")
			if ExitCode(err) != 2 || !errors.Is(err, repoconfig.ErrInvalid) {
				t.Fatalf("review: %v (exit %d); want exit 2 for an invalid %s", err, ExitCode(err), repoconfig.Path)
			}
			for _, w := range append(tt.want, repoconfig.Path, "working tree") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if n := len(m.Requests()); n != 0 || stdout != "" {
				t.Errorf("%d model requests, stdout %q; want none", n, stdout)
			}
		})
	}
}

// TestReviewGitBaseReadsConfigAtMergeBase: `review --base` reads the
// repository configuration where a pull request's is read, at the base of
// the change (the merge base), so the change cannot set its own review.
func TestReviewGitBaseReadsConfigAtMergeBase(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	write := func(text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(repoconfig.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The merge base (main's first commit) gets a configuration; the
	// feature branch, rebuilt on top of it, rewrites it.
	git("checkout", "-q", "main")
	git("checkout", "-q", "-b", "configured", "main~1")
	write("personas: [correctness]\nfail_on: never\n")
	git("add", ".")
	git("commit", "-q", "-m", "ci: review settings")
	git("checkout", "-q", "feature")
	git("rebase", "-q", "configured")
	write("personas: [secrity]\nfail_on: P3\n")
	git("commit", "-q", "-a", "-m", "ci: my own review settings")

	m := llmtest.New()
	defer m.Close()
	m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P1", 75, whyDiscount)))
	stdout, stderr, err := run(t, noEnv, "review", "--base", "configured", "--dir", dir, "--base-url", m.URL, "--api-key", "k")
	if err != nil {
		t.Fatalf("review --base: %v; want exit 0 under the merge base's fail_on: never (HEAD's file must not count)\n%s", err, stderr)
	}
	if !strings.Contains(stdout, invoiceTitle) {
		t.Errorf("report lacks the finding:\n%s", stdout)
	}
	if n := len(m.RequestsFor("testing")); n != 0 {
		t.Errorf("testing persona: %d requests; want none (the merge base's team is correctness alone)", n)
	}
	if !strings.Contains(stderr, "edits "+repoconfig.Path) {
		t.Errorf("stderr does not say the change edits %s:\n%s", repoconfig.Path, stderr)
	}
}

// TestReviewFlagsValidatedAsInputs: every flag that mirrors an action
// input is refused exactly as the Action refuses the input (one
// validator, the Action's), with the same message under the flag's name.
func TestReviewFlagsValidatedAsInputs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ input, value string }{
		{"max-concurrency", "1000"},
		{"max-concurrency", "0"},
		{"max-validations", "101"},
		{"max-llm-calls", "1001"},
		{"max-input-tokens", "1000"},
		{"fail-on", "P9"},
		{"personas", "secrity"},
		{"validator-batching", "batched"},
		{"on-new-commits", "sometimes"},
		{"exclude", "src/[a-"},
	} {
		t.Run(tt.input+"="+tt.value, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"INPUT_GITHUB-TOKEN": "t", "INPUT_API-KEY": "k", "INPUT_" + strings.ToUpper(tt.input): tt.value}
			_, aerr := action.LoadConfig(func(k string) string { return env[k] })
			var ce *action.ConfigError
			if !errors.As(aerr, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Input != tt.input {
				t.Fatalf("the Action: %v; want one problem with input %s", aerr, tt.input)
			}
			_, _, err := run(t, noEnv, "review", "--diff", invoicePatch, "--api-key", "k", "--"+tt.input, tt.value)
			want := "--" + tt.input + ": " + ce.Problems[0].Message
			if ExitCode(err) != 2 || !strings.Contains(err.Error(), want) {
				t.Errorf("review --%s %s: %v; want exit 2 with %q", tt.input, tt.value, err, want)
			}
		})
	}
}

// TestReviewPRAppliesRepoConfig: `review --repo --pr` reads the
// configuration at the PR's base commit, as the Action does, and refuses
// an invalid one before any model call.
func TestReviewPRAppliesRepoConfig(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, config string
		wantExit     int
	}{
		{"valid: its fail_on applies", "fail_on: never\npersonas: [correctness]\n", 0},
		{"invalid: refused", "personas: [secrity]\n", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh := fakePR(t)
			gh.SetContent(prBase, repoconfig.Path, tt.config)
			m := llmtest.New()
			defer m.Close()
			m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P1", 75, whyDiscount)))
			_, stderr, err := run(t, noEnv, "review", "--repo", "o/r", "--pr", "7", "--github-api-url", gh.URL+"/", "--github-token", "t", "--base-url", m.URL, "--api-key", "k")
			if ExitCode(err) != tt.wantExit {
				t.Fatalf("exit %d (%v); want %d\n%s", ExitCode(err), err, tt.wantExit, stderr)
			}
			if tt.wantExit == 2 {
				if !strings.Contains(err.Error(), `personas: entry 1 is not a known persona`) || !strings.Contains(err.Error(), "base commit") {
					t.Errorf("error %q does not name the persona and where the file was read", err)
				}
				if n := len(m.Requests()); n != 0 {
					t.Errorf("%d model requests; want none", n)
				}
				return
			}
			if n := len(m.RequestsFor("testing")); n != 0 {
				t.Errorf("testing persona: %d requests; want none (the file's team)", n)
			}
		})
	}
}
