package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/version"
	"github.com/anchor-review/anchor-review/prompts"
)

// The local change under review: testdata/review holds the base and head
// versions of internal/billing/invoice.go and the patch `git diff` made of
// them. Line 46 of the head version divides the percentage by 100 in
// integer arithmetic, so no discount below 100% is ever applied.
const (
	invoicePath  = "internal/billing/invoice.go"
	invoiceLine  = 46
	invoiceTitle = "Discount percentage truncated to zero by integer division"
	// headOnly is a head-version line outside every hunk: it reaches a
	// request only when the validator is given the whole head file.
	headOnly = "Quantity  int"
	// findingRow starts the finding's row in the report's table.
	findingRow = "| 1 | `internal/billing/invoice.go:46` |"
)

var (
	invoicePatch = filepath.Join("testdata", "review", "invoice.patch")
	headDir      = filepath.Join("testdata", "review", "head")
	baseDir      = filepath.Join("testdata", "review", "base")
)

func noEnv(string) string { return "" }

// envOf returns a getenv over a fixed map.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// invoiceAnswer is a persona's answer with one finding on the invoice bug.
func invoiceAnswer(t *testing.T, persona, severity string, confidence int, why string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"reviewer": persona,
		"findings": []any{map[string]any{
			"title":                 invoiceTitle,
			"severity":              severity,
			"file":                  invoicePath,
			"line":                  invoiceLine,
			"why_it_matters":        why,
			"autofix_class":         "manual",
			"owner":                 "human",
			"requires_verification": true,
			"confidence":            confidence,
			"evidence":              []string{"internal/billing/invoice.go:46: off := sum * int64(d.Percent/100)"},
			"pre_existing":          false,
			"suggested_fix":         "off := sum * int64(d.Percent) / 100",
		}},
		"residual_risks": []string{},
		"testing_gaps":   []string{},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const whyDiscount = "Every discount below 100% computes 0 off, so customers are charged the full price."

// verdict is the validator's answer on the one finding these tests
// report: a per-file call's (validator-batching's default), its verdict
// tagged F1.
func verdict(ok bool, reason string) llmtest.Reply {
	b, _ := json.Marshal(map[string]any{"verdicts": []any{map[string]any{"finding": "F1", "validated": ok, "reason": reason}}})
	return llmtest.OK(string(b))
}

// run calls Main and returns what it printed.
func run(t *testing.T, getenv func(string) string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = Main(context.Background(), args, getenv, &out, &errOut)
	return out.String(), errOut.String(), err
}

func checkNoViolations(t *testing.T, m *llmtest.Server) {
	t.Helper()
	if v := m.Violations(); len(v) > 0 {
		t.Errorf("the model server saw protocol violations: %q", v)
	}
}

// messagesOf joins a request's messages.
func messagesOf(r llmtest.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

func TestReviewLocalDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		flags      []string
		severity   string
		verdicts   []llmtest.Reply
		wantErr    error // nil: success
		wantValid  int   // validator requests
		wantFound  bool  // the finding is in the report
		wantInText []string
		wantPrompt string // in the correctness persona's prompt
	}{
		{name: "report", severity: "P2", wantFound: true},
		{name: "P1 blocks", severity: "P1", wantErr: action.ErrBlocking, wantFound: true},
		{name: "fail-on never", flags: []string{"--fail-on", "never"}, severity: "P1", wantFound: true},
		{name: "fail-on P3 blocks a P2", flags: []string{"--fail-on", "p3"}, severity: "P2", wantErr: action.ErrBlocking, wantFound: true},
		{
			name: "validate keeps", flags: []string{"--validate"}, severity: "P1",
			verdicts: []llmtest.Reply{verdict(true, "Integer division truncates every percent below 100 to zero.")},
			wantErr:  action.ErrBlocking, wantValid: 1, wantFound: true,
		},
		{
			name: "validate drops", flags: []string{"--validate"}, severity: "P1",
			verdicts:   []llmtest.Reply{verdict(false, "Percent is a fraction already.")},
			wantValid:  1,
			wantInText: []string{"Percent is a fraction already."},
		},
		{
			name: "title and body", flags: []string{"--title", "Invoice discounts", "--body", "Adds percentage discounts for partners."},
			severity: "P2", wantFound: true, wantPrompt: "Adds percentage discounts for partners.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.New()
			defer m.Close()
			m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", tt.severity, 75, whyDiscount)))
			m.Script(llm.Validator, tt.verdicts...)

			args := append([]string{"review", "--diff", invoicePatch, "--dir", headDir, "--base-url", m.URL, "--api-key", "k"}, tt.flags...)
			stdout, stderr, err := run(t, noEnv, args...)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("review: got error %v; want %v\nstderr:\n%s", err, tt.wantErr, stderr)
			}
			if first, _, _ := strings.Cut(stdout, "\n"); !strings.HasPrefix(first, "## anchor-review: ") || strings.Contains(stdout, "<!--") {
				t.Errorf("first line: got %q; want the heading, and no hidden line anywhere\n%s", first, stdout)
			}
			if got := strings.Contains(stdout, findingRow); got != tt.wantFound {
				t.Errorf("report lists %q: got %t; want %t\n%s", invoiceTitle, got, tt.wantFound, stdout)
			}
			if tt.wantPrompt != "" {
				for _, r := range m.RequestsFor("correctness") {
					if !strings.Contains(messagesOf(r), tt.wantPrompt) {
						t.Errorf("persona prompt lacks %q", tt.wantPrompt)
					}
				}
			}
			for _, w := range tt.wantInText {
				if !strings.Contains(stdout, w) {
					t.Errorf("report lacks %q:\n%s", w, stdout)
				}
			}

			vs := m.RequestsFor(llm.Validator)
			if len(vs) != tt.wantValid {
				t.Errorf("validator requests: got %d; want %d", len(vs), tt.wantValid)
			}
			for _, v := range vs {
				// --dir is where the validator reads the head version.
				if !strings.Contains(messagesOf(v), headOnly) {
					t.Errorf("validator request lacks the head file's line %q", headOnly)
				}
			}
			if n := len(m.RequestsFor("correctness")); n != 1 {
				t.Errorf("requests for always-on persona correctness: got %d; want 1", n)
			}
			// A small change: testing and maintainability are not selected,
			// so never asked.
			for _, p := range []string{"testing", "maintainability"} {
				if n := len(m.RequestsFor(p)); n != 0 {
					t.Errorf("requests for %s on a small local diff: got %d; want 0 (not selected)", p, n)
				}
			}
			checkNoViolations(t, m)
		})
	}
}

func TestReviewLocalDiffJSON(t *testing.T) {
	t.Parallel()
	m := llmtest.New()
	defer m.Close()
	m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P2", 75, whyDiscount)))
	m.Script("go", llmtest.OK(invoiceAnswer(t, "go", "P2", 50, "A discount above the total makes the invoice negative.")))

	stdout, stderr, err := run(t, noEnv, "review", "--json", "--diff", invoicePatch, "--base-url", m.URL, "--api-key", "k")
	if err != nil {
		t.Fatalf("review --json: %v\n%s", err, stderr)
	}
	var res review.Result
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("stdout is not a JSON Result: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Errorf("stdout holds more than one JSON value:\n%s", stdout)
	}
	if len(res.Findings) != 1 {
		t.Fatalf("findings: got %d; want 1\n%s", len(res.Findings), stdout)
	}
	f := res.Findings[0]
	// Two personas on the same line: promoted one anchor step, both listed.
	if f.File != invoicePath || f.Line != invoiceLine || f.Confidence != 100 || f.Number != 1 {
		t.Errorf("finding: got %s:%d at %d numbered %d; want %s:%d at 100 numbered 1", f.File, f.Line, f.Confidence, f.Number, invoicePath, invoiceLine)
	}
	if res.Mode != review.ModeReportOnly || res.Verdict != review.ReadyWithFixes || res.PR != 0 {
		t.Errorf("result: got mode %q verdict %q pr %d; want %q %q 0", res.Mode, res.Verdict, res.PR, review.ModeReportOnly, review.ReadyWithFixes)
	}
	if got := len(m.RequestsFor(llm.Validator)); got != 0 {
		t.Errorf("validator requests without --validate: got %d; want 0", got)
	}
	if res.Coverage.Usage.Calls != len(m.Requests()) {
		t.Errorf("usage calls: got %d; want %d (the requests the server saw)", res.Coverage.Usage.Calls, len(m.Requests()))
	}
	checkNoViolations(t, m)
}

// TestReviewRedactsFlagKey: a key given with --api-key never reaches the
// printed report, even when the model echoes it.
func TestReviewRedactsFlagKey(t *testing.T) {
	t.Parallel()
	const key = "model-key-do-not-print"
	m := llmtest.New()
	defer m.Close()
	m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P2", 75, "Leaks "+key+" to customers.")))
	stdout, stderr, err := run(t, noEnv, "review", "--diff", invoicePatch, "--base-url", m.URL, "--api-key", key)
	if err != nil {
		t.Fatalf("review: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, invoiceTitle) {
		t.Fatalf("report lacks the finding:\n%s", stdout)
	}
	if strings.Contains(stdout, key) {
		t.Errorf("report prints the --api-key value:\n%s", stdout)
	}
}

// gitRepo makes a repository with a base commit (branch main), a feature
// branch holding the head version, and a later commit on main that the
// three-dot diff must not show. It returns the repository's directory.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	put := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(to))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	git("symbolic-ref", "HEAD", "refs/heads/main")
	put(filepath.Join(baseDir, invoicePath), invoicePath)
	git("add", ".")
	git("commit", "-q", "-m", "billing: totals")
	git("checkout", "-q", "-b", "feature")
	put(filepath.Join(headDir, invoicePath), invoicePath)
	git("commit", "-q", "-a", "-m", "billing: discounts")
	git("checkout", "-q", "main")
	if err := os.WriteFile(filepath.Join(dir, "UNRELATED.md"), []byte("landed on main after the branch point\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "docs")
	git("checkout", "-q", "feature")
	return dir
}

func TestReviewGitBase(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	m := llmtest.New()
	defer m.Close()
	m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P1", 75, whyDiscount)))
	m.Script(llm.Validator, verdict(true, "Integer division truncates."))

	stdout, stderr, err := run(t, noEnv, "review", "--base", "main", "--dir", dir, "--validate", "--base-url", m.URL, "--api-key", "k")
	if !errors.Is(err, action.ErrBlocking) {
		t.Fatalf("review --base: got error %v; want ErrBlocking\n%s", err, stderr)
	}
	if !strings.Contains(stdout, invoiceTitle) {
		t.Errorf("report lacks the finding:\n%s", stdout)
	}
	// The local commit is on no server: the report names the file and
	// line as text, and links nowhere.
	if strings.Contains(stdout, "](http") || !strings.Contains(stdout, "| `internal/billing/invoice.go:46` |") {
		t.Errorf("a local report links a file, or lacks its path:line:\n%s", stdout)
	}
	reqs := m.RequestsFor("correctness")
	if len(reqs) != 1 {
		t.Fatalf("correctness requests: got %d; want 1", len(reqs))
	}
	prompt := messagesOf(reqs[0])
	if !strings.Contains(prompt, "d.Percent/100") {
		t.Errorf("persona prompt lacks the feature branch's change")
	}
	if strings.Contains(prompt, "UNRELATED.md") {
		t.Errorf("persona prompt holds a file changed on main after the branch point: got a two-dot diff; want REF...HEAD")
	}
	vs := m.RequestsFor(llm.Validator)
	if len(vs) != 1 {
		t.Fatalf("validator requests: got %d; want 1", len(vs))
	}
	if !strings.Contains(messagesOf(vs[0]), headOnly) {
		t.Errorf("validator request lacks HEAD's version of %s", invoicePath)
	}
	checkNoViolations(t, m)
}

func TestReviewGitBaseUnknownRef(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	m := llmtest.New()
	defer m.Close()
	_, _, err := run(t, noEnv, "review", "--base", "no-such-ref", "--dir", dir, "--base-url", m.URL, "--api-key", "k")
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "no-such-ref") {
		t.Errorf("review --base no-such-ref: got %v; want a usage error naming the ref", err)
	}
	if n := len(m.Requests()); n != 0 {
		t.Errorf("model requests: got %d; want 0", n)
	}
}

const (
	prHead = "1f0e2d3c4b5a69788796a5b4c3d2e1f00112233a"
	prBase = "aa00bb11cc22dd33ee44ff5566778899aabbccdd"
)

// fakePR serves PR o/r#7 with the invoice change until the test ends.
func fakePR(t *testing.T) *githubtest.Server {
	t.Helper()
	patch, err := os.ReadFile(invoicePatch)
	if err != nil {
		t.Fatal(err)
	}
	head, err := os.ReadFile(filepath.Join(headDir, invoicePath))
	if err != nil {
		t.Fatal(err)
	}
	gh := githubtest.New()
	t.Cleanup(gh.Close)
	gh.AddPR(githubtest.PR{Number: 7, Title: "Invoice discounts", Body: "Adds percentage discounts.", HeadSHA: prHead, BaseSHA: prBase, HeadRepo: "o/r", BaseRepo: "o/r"})
	gh.SetDiff(7, string(patch))
	gh.SetContent(prHead, invoicePath, string(head))
	return gh
}

func TestReviewPR(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		flags     []string
		env       map[string]string
		post      bool
		wantValid int
	}{
		{name: "print", flags: []string{"--github-token", "gh-token-flag"}},
		{name: "token from env", env: map[string]string{"GITHUB_TOKEN": "gh-token-env"}},
		{name: "post", flags: []string{"--post", "--github-token", "gh-token-flag"}, post: true, wantValid: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh := fakePR(t)
			m := llmtest.New()
			defer m.Close()
			m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P1", 75, whyDiscount)))
			m.Script(llm.Validator, verdict(true, "Integer division truncates."))

			args := append([]string{"review", "--repo", "o/r", "--pr", "7", "--github-api-url", gh.URL + "/", "--base-url", m.URL, "--api-key", "k"}, tt.flags...)
			stdout, stderr, err := run(t, envOf(tt.env), args...)
			if !errors.Is(err, action.ErrBlocking) {
				t.Fatalf("review: got error %v; want ErrBlocking (a P1 finding)\n%s", err, stderr)
			}
			if first, _, _ := strings.Cut(stdout, "\n"); !strings.HasPrefix(first, "## anchor-review: ") || strings.Contains(stdout, "<!--") {
				t.Errorf("first line: got %q; want the heading, and no hidden line anywhere\n%s", first, stdout)
			}
			if !strings.Contains(stdout, invoiceTitle) {
				t.Errorf("report lacks the finding:\n%s", stdout)
			}

			token := firstNonEmpty(tt.env["GITHUB_TOKEN"], "gh-token-flag")
			var writes []string
			for _, r := range gh.Requests() {
				if r.Method != "GET" {
					writes = append(writes, r.Method+" "+r.Path)
				}
				if got := r.Header.Get("Authorization"); !strings.Contains(got, token) {
					t.Errorf("%s %s: Authorization %q; want the token %q", r.Method, r.Path, got, token)
				}
			}
			comments, checks := gh.Comments(7), gh.CheckRuns()
			if !tt.post {
				if len(writes) > 0 || len(comments) > 0 || len(checks) > 0 {
					t.Errorf("without --post: got writes %q, %d comments, %d check runs; want none", writes, len(comments), len(checks))
				}
			} else {
				if len(comments) != 1 {
					t.Fatalf("comments: got %d; want 1", len(comments))
				}
				if !strings.HasPrefix(comments[0].Body, marker.Report) || !strings.Contains(comments[0].Body, invoiceTitle) {
					t.Errorf("posted comment: got %q; want the report with the finding", comments[0].Body)
				}
				if len(checks) != 1 {
					t.Fatalf("check runs: got %d; want 1", len(checks))
				}
				if c := checks[0]; c.HeadSHA != prHead || c.Conclusion != "failure" || len(c.Annotations) != 1 {
					t.Errorf("check run: got head %s conclusion %q with %d annotations; want %s failure with 1", c.HeadSHA, c.Conclusion, len(c.Annotations), prHead)
				}
				if !strings.Contains(stderr, "posted: ") {
					t.Errorf("stderr lacks the comment URL:\n%s", stderr)
				}
			}
			if got := len(m.RequestsFor(llm.Validator)); got != tt.wantValid {
				t.Errorf("validator requests: got %d; want %d", got, tt.wantValid)
			}
			checkNoViolations(t, m)
		})
	}
}

func TestReviewUsage(t *testing.T) {
	t.Parallel()
	pr := []string{"--repo", "o/r", "--pr", "7"}
	tests := []struct {
		name  string
		args  []string
		local bool // no --base-url/--api-key defaults
		want  string
	}{
		{name: "unknown flag", args: []string{"--frobnicate"}, want: "-frobnicate"},
		{name: "nothing to review", want: "name a pull request"},
		{name: "diff and repo", args: append([]string{"--diff", invoicePatch}, pr...), want: "exclusive"},
		{name: "diff and base", args: []string{"--diff", invoicePatch, "--base", "main"}, want: "--diff and --base are exclusive"},
		{name: "post with diff", args: []string{"--post", "--diff", invoicePatch}, want: "--post needs a pull request"},
		{name: "repo without slash", args: []string{"--repo", "or", "--pr", "7"}, want: "OWNER/NAME"},
		{name: "repo with two slashes", args: []string{"--repo", "o/r/x", "--pr", "7"}, want: "OWNER/NAME"},
		{name: "repo without owner", args: []string{"--repo", "/r", "--pr", "7"}, want: "OWNER/NAME"},
		{name: "pr 0", args: []string{"--repo", "o/r", "--pr", "0"}, want: "positive number"},
		{name: "pr without repo", args: []string{"--pr", "7"}, want: "OWNER/NAME"},
		{name: "pr not a number", args: []string{"--repo", "o/r", "--pr", "seven"}, want: "-pr"},
		{name: "fail-on P9", args: append([]string{"--fail-on", "P9"}, pr...), want: `--fail-on: "P9" is not one of`},
		{name: "max-concurrency 0", args: append([]string{"--max-concurrency", "0"}, pr...), want: "--max-concurrency"},
		{name: "max-input-tokens too small", args: append([]string{"--max-input-tokens", "1000"}, pr...), want: "--max-input-tokens"},
		{name: "validator-batching unknown", args: append([]string{"--validator-batching", "batched"}, pr...), want: `--validator-batching: "batched" is not one of`},
		{name: "extra argument", args: append([]string{"extra"}, pr...), want: "unexpected arguments"},
		{name: "model-timeout without a unit", args: append([]string{"--model-timeout", "300"}, pr...), want: `--model-timeout: "300" has no unit`},
		{name: "model-timeout past the deadline", args: append([]string{"--model-timeout", "20m"}, pr...), want: "--model-timeout: 20m0s is longer than the run's deadline (deadline-minutes 15)"},
		{name: "model-timeout too short", args: append([]string{"--model-timeout", "1s"}, pr...), want: "--model-timeout: 1s is not within 10s..6h0m0s"},
		{name: "deadline-minutes 0", args: append([]string{"--deadline-minutes", "0"}, pr...), want: "--deadline-minutes"},
		// The value is not echoed: a mistyped URL may carry a password.
		{name: "ftp base-url", args: append([]string{"--base-url", "ftp://u:secret-pw@x/v1", "--api-key", "k"}, pr...), local: true, want: `--base-url (or $OPENAI_BASE_URL): a "ftp" URL is not an http(s) URL`},
		{name: "unknown persona", args: append([]string{"--personas", "correctness,nosuch"}, pr...), want: `unknown persona "nosuch"`},
		{name: "bad exclude glob", args: append([]string{"--exclude", "src/[a-"}, pr...), want: "src/[a-"},
		{name: "default endpoint without key", args: pr, local: true, want: "no model API key"},
		{name: "api-version before JSON schema", args: append([]string{"--api-version", "2024-02-01"}, pr...), want: "api-version"},
		{name: "no GitHub token", args: []string{"--repo", "o/r", "--pr", "7", "--github-token", ""}, want: "no GitHub token"},
		{name: "not a diff", args: []string{"--diff", filepath.Join(headDir, invoicePath)}, want: "not a unified diff"},
		{name: "missing diff file", args: []string{"--diff", filepath.Join("testdata", "review", "nonexistent.patch")}, want: "nonexistent.patch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh := fakePR(t)
			m := llmtest.New()
			defer m.Close()
			args := []string{"review", "--github-api-url", gh.URL + "/", "--github-token", "t"}
			if !tt.local {
				args = append(args, "--base-url", m.URL, "--api-key", "k")
			}
			stdout, _, err := run(t, noEnv, append(args, tt.args...)...)
			if !errors.Is(err, ErrUsage) {
				t.Fatalf("got error %v; want a usage error", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got message %q; want it to mention %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "secret-pw") {
				t.Errorf("the message %q echoes the URL's password", err)
			}
			if stdout != "" {
				t.Errorf("stdout: got %q; want nothing", stdout)
			}
			if n, k := len(gh.Requests()), len(m.Requests()); n+k > 0 {
				t.Errorf("requests: got %d to GitHub, %d to the model; want none", n, k)
			}
		})
	}
}

func TestReviewHelp(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--help", "-h"} {
		stdout, stderr, err := run(t, noEnv, "review", arg)
		if err != nil {
			t.Fatalf("review %s: got %v; want nil", arg, err)
		}
		help := stdout + stderr
		// The CLI counterparts of action.yml's inputs, and the local modes.
		for _, name := range []string{
			"repo", "pr", "post", "diff", "base", "dir", "title", "body", "json", "validate", "quiet",
			"github-token", "github-api-url", "server-url", "api-key", "base-url", "model", "strong-model",
			"validator-model", "fail-on", "bot-login", "exclude", "personas", "max-validations",
			"max-concurrency", "max-llm-calls", "max-input-tokens", "validator-batching", "cache-warmup",
		} {
			if !strings.Contains(help, "-"+name+" ") && !strings.Contains(help, "-"+name+"\n") {
				t.Errorf("review %s does not document -%s", arg, name)
			}
		}
		for _, env := range []string{"GITHUB_TOKEN", "OPENAI_API_KEY"} {
			if !strings.Contains(help, env) {
				t.Errorf("review %s does not mention $%s", arg, env)
			}
		}
	}
}

// TestReviewRecordReplays: `review --record FILE` writes a cassette of the
// live answers, and replaying it answers the same review with no server.
func TestReviewRecordReplays(t *testing.T) {
	t.Parallel()
	m := llmtest.New()
	defer m.Close()
	m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P2", 75, whyDiscount)))
	cassette := filepath.Join(t.TempDir(), "rec.jsonl")

	live, stderr, err := run(t, noEnv, "review", "--json", "--diff", invoicePatch, "--base-url", m.URL, "--api-key", "k", "--record", cassette)
	if err != nil {
		t.Fatalf("review --record: %v\n%s", err, stderr)
	}
	rp, err := llm.LoadCassette(os.DirFS(filepath.Dir(cassette)), filepath.Base(cassette))
	if err != nil {
		t.Fatalf("LoadCassette: %v", err)
	}
	if rp.Len() != len(m.Requests()) || rp.Len() == 0 {
		t.Fatalf("cassette entries: got %d; want one per request (%d)", rp.Len(), len(m.Requests()))
	}
	rp, err = rp.WithSchemas(prompts.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	team, err := persona.Load()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	cfg, err := action.ReviewConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	f := reviewFlags{diffFile: invoicePatch, dir: ".", asJSON: true, cfg: cfg}
	if err := reviewWith(context.Background(), reviewOptions{Factory: &Factory{Getenv: noEnv, Stdout: &out, Stderr: &errOut}, Flags: f, Team: team, Model: rp}); err != nil {
		t.Fatalf("replayed review: %v\n%s", err, errOut.String())
	}
	var a, b review.Result
	if err := json.Unmarshal([]byte(live), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out.String()), &b); err != nil {
		t.Fatal(err)
	}
	if len(a.Findings) != 1 || len(b.Findings) != 1 || a.Findings[0].Title != b.Findings[0].Title {
		t.Errorf("replayed findings %+v; want the live ones %+v", b.Findings, a.Findings)
	}
}

// TestReviewHeadFilesStayInDir: file paths come from the untrusted diff; the
// validator never gets a file from outside --dir.
func TestReviewHeadFilesStayInDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secret := filepath.Join(filepath.Dir(dir), "outside-secret.txt")
	if err := os.WriteFile(secret, []byte("TOP-SECRET-CANARY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(secret) })
	patch := filepath.Join(dir, "evil.patch")
	evil := "diff --git a/../outside-secret.txt b/../outside-secret.txt\n--- a/../outside-secret.txt\n+++ b/../outside-secret.txt\n@@ -1 +1 @@\n-x\n+TOP-SECRET-CANARY\n"
	if err := os.WriteFile(patch, []byte(evil), 0o644); err != nil {
		t.Fatal(err)
	}
	f := reviewFlags{diffFile: patch, dir: dir}
	lc, err := f.readLocal(context.Background())
	if err != nil {
		t.Fatalf("readLocal: %v", err)
	}
	got, found, err := lc.head(context.Background(), "../outside-secret.txt")
	if err != nil || found || got != "" {
		t.Errorf("head(../outside-secret.txt) = %q, %v, %v; want nothing read", got, found, err)
	}
}

// TestReviewNothingToReview: an empty change is not a usage error: the
// command says "nothing to review" and exits 0, before asking for a key.
func TestReviewNothingToReview(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	blank := filepath.Join(t.TempDir(), "blank.patch")
	if err := os.WriteFile(blank, []byte("\n  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"empty file", []string{"--diff", os.DevNull}, "is empty"},
		{"blank file", []string{"--diff", blank}, "is empty"},
		{"no commits since the base", []string{"--base", "HEAD", "--dir", dir}, "no changes since its merge base with HEAD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// No key and no endpoint: an empty change needs neither.
			stdout, stderr, err := run(t, noEnv, append([]string{"review"}, tt.args...)...)
			if err != nil || ExitCode(err) != 0 {
				t.Fatalf("got %v (exit %d); want nil (exit 0)", err, ExitCode(err))
			}
			if !strings.Contains(stderr, "nothing to review") || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q; want \"nothing to review\" and %q", stderr, tt.want)
			}
			if stdout != "" {
				t.Errorf("stdout %q; want nothing", stdout)
			}
		})
	}
}

// TestReviewGitBaseDescribesChange: --base takes the title and body from
// the commits REF..HEAD (flags win) and HEAD's SHA into the report's meta.
func TestReviewGitBaseDescribesChange(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	sha, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(string(sha))
	tests := []struct {
		name      string
		flags     []string
		wantTitle string
	}{
		{"from the commit", nil, "billing: discounts"},
		{"--title wins", []string{"--title", "Partner discounts"}, "Partner discounts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := llmtest.New()
			defer m.Close()
			m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P2", 75, whyDiscount)))
			args := append([]string{"review", "--base", "main", "--dir", dir, "--base-url", m.URL, "--api-key", "k"}, tt.flags...)
			stdout, stderr, err := run(t, noEnv, args...)
			if err != nil {
				t.Fatalf("review --base: %v\n%s", err, stderr)
			}
			reqs := m.RequestsFor("correctness")
			if len(reqs) != 1 || !strings.Contains(messagesOf(reqs[0]), tt.wantTitle) {
				t.Errorf("the persona prompt lacks the title %q", tt.wantTitle)
			}
			if strings.Contains(stdout, "<!--") {
				t.Errorf("the printed report has a hidden line:\n%s", stdout)
			}
			js, _, err := run(t, noEnv, append(args, "--json")...)
			if err != nil {
				t.Fatalf("review --base --json: %v", err)
			}
			var res review.Result
			if err := json.Unmarshal([]byte(js), &res); err != nil {
				t.Fatalf("the JSON result: %v\n%s", err, js)
			}
			if res.HeadSHA != head {
				t.Errorf("head_sha %q; want HEAD %q", res.HeadSHA, head)
			}
			if strings.Contains(stderr, "could not be read") {
				t.Errorf("unexpected unread-file warning: %s", stderr)
			}
		})
	}
}

// TestReviewDiffOutsideRepoWarns: a --diff whose files are not under --dir
// still reviews, but the user is told which files the validator saw no
// head version of, and how to fix it.
func TestReviewDiffOutsideRepoWarns(t *testing.T) {
	t.Parallel()
	m := llmtest.New()
	defer m.Close()
	m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P2", 75, whyDiscount)))
	m.Script(llm.Validator, verdict(true, "Integer division truncates."))
	_, stderr, err := run(t, noEnv, "review", "--diff", invoicePatch, "--dir", t.TempDir(), "--validate", "--base-url", m.URL, "--api-key", "k")
	if err != nil {
		t.Fatalf("review: %v\n%s", err, stderr)
	}
	for _, want := range []string{"warning:", "1 changed file(s)", invoicePath, "--dir"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// With the right --dir there is nothing to warn about.
	m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P2", 75, whyDiscount)))
	m.Script(llm.Validator, verdict(true, "Integer division truncates."))
	_, stderr, err = run(t, noEnv, "review", "--diff", invoicePatch, "--dir", headDir, "--validate", "--base-url", m.URL, "--api-key", "k")
	if err != nil || strings.Contains(stderr, "could not be read") {
		t.Errorf("review with --dir %s: got %v, stderr %q; want no warning", headDir, err, stderr)
	}
}

// TestReviewPostTwice: the second `review --post` of an unchanged PR is
// skipped by rule 4; its check run carries the earlier failure forward, so,
// as in the Action for the same outcome, it exits 0 and names the report.
func TestReviewPostTwice(t *testing.T) {
	t.Parallel()
	gh := fakePR(t)
	m := llmtest.New()
	defer m.Close()
	m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P1", 75, whyDiscount)))
	m.Script(llm.Validator, verdict(true, "Integer division truncates."))
	args := []string{"review", "--repo", "o/r", "--pr", "7", "--post", "--github-api-url", gh.URL + "/", "--github-token", "t", "--base-url", m.URL, "--api-key", "k"}

	_, stderr, err := run(t, noEnv, args...)
	if !errors.Is(err, action.ErrBlocking) || ExitCode(err) != 1 {
		t.Fatalf("first run: got %v; want blocking findings (exit 1)\n%s", err, stderr)
	}
	calls := len(m.Requests())
	_, stderr, err = run(t, noEnv, args...)
	if err != nil || ExitCode(err) != 0 {
		t.Fatalf("second run: got %v (exit %d); want exit 0, the Action's for a carried failure on a written check\n%s", err, ExitCode(err), stderr)
	}
	if got := len(m.Requests()); got != calls {
		t.Errorf("second run: %d model requests; want none", got-calls)
	}
	checks := gh.CheckRuns()
	if len(checks) != 2 || checks[1].Conclusion != "failure" {
		t.Fatalf("check runs %+v; want two, the second carrying failure", checks)
	}
	comments := gh.Comments(7)
	if len(comments) != 1 {
		t.Fatalf("comments: got %d; want 1", len(comments))
	}
	if !strings.Contains(stderr, "report (carried forward): ") || !strings.Contains(stderr, "#issuecomment-") {
		t.Errorf("second run's stderr does not name the carried report:\n%s", stderr)
	}
}

// TestUserAgents: the clients deps.go builds name the tool and its version
// (anchor-review/VERSION) on every request to GitHub and to the model.
func TestUserAgents(t *testing.T) {
	t.Parallel()
	gh := fakePR(t)
	m := llmtest.New()
	defer m.Close()
	m.Script("correctness", llmtest.OK(invoiceAnswer(t, "correctness", "P2", 75, whyDiscount)))
	_, stderr, err := run(t, noEnv, "review", "--repo", "o/r", "--pr", "7", "--github-api-url", gh.URL+"/", "--github-token", "t", "--base-url", m.URL, "--api-key", "k")
	if err != nil {
		t.Fatalf("review: %v\n%s", err, stderr)
	}
	want := version.UserAgent()
	if !strings.HasPrefix(want, "anchor-review/") {
		t.Fatalf("version.UserAgent() = %q; want anchor-review/VERSION", want)
	}
	if len(gh.Requests()) == 0 || len(m.Requests()) == 0 {
		t.Fatalf("requests: %d to GitHub, %d to the model; want some of each", len(gh.Requests()), len(m.Requests()))
	}
	for _, r := range gh.Requests() {
		if got := r.Header.Get("User-Agent"); got != want {
			t.Errorf("GitHub %s %s: User-Agent %q; want %q", r.Method, r.Path, got, want)
		}
	}
	for _, r := range m.Requests() {
		if got := r.Header.Get("User-Agent"); got != want {
			t.Errorf("model %s: User-Agent %q; want %q", r.Path, got, want)
		}
	}
}

// TestReviewErrorsNameThingsOnce: an error is wrapped once per layer, each
// adding only what the layer below did not say: the PR appears once, the
// "github:" prefix once.
func TestReviewErrorsNameThingsOnce(t *testing.T) {
	t.Parallel()
	gh := fakePR(t)
	gh.Inject(githubtest.Fault{PathContains: "/pulls/7", Accept: "diff", Status: 422, Body: `{"message":"diff unavailable"}`})
	m := llmtest.New()
	defer m.Close()
	_, _, err := run(t, noEnv, "review", "--repo", "o/r", "--pr", "7", "--github-api-url", gh.URL+"/", "--github-token", "t", "--base-url", m.URL, "--api-key", "k")
	if ExitCode(err) != 3 {
		t.Fatalf("got %v (exit %d); want the review could not run (exit 3)", err, ExitCode(err))
	}
	msg := err.Error()
	for _, once := range []string{"github:", "#7", "scope:"} {
		if n := strings.Count(msg, once); n != 1 {
			t.Errorf("error %q holds %q %d times; want once", msg, once, n)
		}
	}
	if !strings.Contains(msg, "diff unavailable") {
		t.Errorf("error %q lacks GitHub's message", msg)
	}
}
