package review_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/prompts"
)

// The repository and pull request every test reviews.
const (
	owner   = "shopfront"
	repo    = "orders"
	prNum   = 7
	headSHA = "4b1f0c0de5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0"
	baseSHA = "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b"
	// fence is fixed so request bodies, and with them token counts, are
	// the same on every run.
	fence = "0123456789abcdef"
)

// noSleep keeps retries and backoff instant.
func noSleep(context.Context, time.Duration) error { return nil }

// env is one test's fakes and the Reviewer wired to them through the real
// clients: go-github against githubtest, go-openai against llmtest.
type env struct {
	gh    *githubtest.Server
	model *llmtest.Server
	rv    review.Reviewer
	// verdicts answers the validator by finding title (see validatorReply).
	verdicts *verdicts
}

// newEnv starts both fakes. route, when not nil, is given the persona
// client and may return a different Completer (used to send validator calls
// to a client with a short call timeout).
func newEnv(t *testing.T, route func(personas *llm.Client) llm.Completer) *env {
	t.Helper()
	e := &env{gh: githubtest.New(), model: llmtest.New(), verdicts: &verdicts{m: map[string]string{}}}
	t.Cleanup(e.gh.Close)
	t.Cleanup(e.model.Close)
	gc, err := github.New(e.gh.HTTPClient(), e.gh.URL+"/", "gh-token", github.WithSleep(noSleep))
	if err != nil {
		t.Fatalf("github.New: %v", err)
	}
	mc := newModel(t, e.model, 0)
	all := releaseTwoTeam(t)
	var m llm.Completer = mc
	if route != nil {
		m = route(mc)
	}
	e.rv = review.Reviewer{GitHub: gc, Model: m, Personas: all}
	e.model.SetDefault(e.verdicts.reply)
	return e
}

// releaseTwoTeam is persona.Load with testing and maintainability always
// on, as they were before they became conditional: most tests here
// exercise dispatch, synthesis and the validator with the whole team.
// Their selection is tested in pkg/persona (team_test.go) and, through a
// review, by TestConditionalPersonasInReview (which uses persona.Load).
func releaseTwoTeam(t *testing.T) []persona.Persona {
	t.Helper()
	all, err := persona.Load()
	if err != nil {
		t.Fatalf("persona.Load: %v", err)
	}
	for i := range all {
		if all[i].Name == "testing" || all[i].Name == "maintainability" {
			all[i].AlwaysOn = true
		}
	}
	return all
}

// newModel is the real llm.Client pointed at the fake model server.
func newModel(t *testing.T, srv *llmtest.Server, callTimeout time.Duration) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "k", Schemas: prompts.Schemas(), Sleep: noSleep, CallTimeout: callTimeout})
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	return c
}

// router sends each request to the Completer its function picks.
type router func(req llm.Request) llm.Completer

func (r router) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	return r(req).Complete(ctx, req)
}

// options are the review options of the tests; each test changes what it
// needs.
func options() review.Options {
	return review.Options{
		Owner: owner, Repo: repo, PR: prNum, Mode: review.ModeComment, Validate: true,
		Model: "gpt-std", StrongModel: "gpt-strong", ValidatorModel: "gpt-validator",
		MaxValidations: review.DefaultMaxValidations, MaxConcurrency: 8, MaxLLMCalls: 60,
		Fence: fence,
	}
}

// addOrdersPR serves testdata/orders: a PR adding a search handler that
// builds SQL by concatenation, a delete handler, a migration and a test,
// with AGENTS.md at the base commit and one human review comment.
func (e *env) addOrdersPR(t *testing.T) {
	t.Helper()
	e.gh.AddPR(githubtest.PR{
		Number: prNum, Title: "Add order search and delete endpoints",
		Body:   "Adds `GET /orders?status=&sort=` and `DELETE /orders/{id}`, plus an index on orders.status.\n\nTested with the new handler test.",
		Author: "octodev", HeadSHA: headSHA, BaseSHA: baseSHA,
		HeadRepo: owner + "/" + repo, BaseRepo: owner + "/" + repo,
	})
	e.gh.SetDiff(prNum, readFile(t, "testdata/orders/pr.diff"))
	serveDir(t, e.gh, "testdata/orders/head", headSHA)
	serveDir(t, e.gh, "testdata/orders/base", baseSHA)
	e.gh.AddReviewComment(prNum, "lena", "Could the sort column be whitelisted?")
}

// addPR serves a PR made of the given diff, with head contents.
func (e *env) addPR(t *testing.T, diffText string, heads map[string]string) {
	t.Helper()
	e.gh.AddPR(githubtest.PR{Number: prNum, Title: "Add helpers", Body: "Small helpers.", HeadSHA: headSHA, BaseSHA: baseSHA})
	e.gh.SetDiff(prNum, diffText)
	for p, c := range heads {
		e.gh.SetContent(headSHA, p, c)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// serveDir serves every file under dir at ref (a ".txt" suffix, which keeps
// fixture sources out of the Go tool's way, is dropped).
func serveDir(t *testing.T, srv *githubtest.Server, dir, ref string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		srv.SetContent(ref, strings.TrimSuffix(filepath.ToSlash(rel), ".txt"), readFile(t, p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// f builds a schema-valid finding; the options adjust it.
func f(title string, sev finding.Severity, file string, line, conf int, opts ...func(*finding.Finding)) finding.Finding {
	x := finding.Finding{
		Title: title, Severity: sev, File: file, Line: line, Confidence: conf,
		WhyItMatters: "Observable consequence of " + strings.ToLower(title) + ".",
		AutofixClass: "manual", Owner: "human", RequiresVerification: true,
		Evidence: []string{fmt.Sprintf("%s:%d", file, line)},
	}
	for _, o := range opts {
		o(&x)
	}
	return x
}

func routing(autofix, owner string) func(*finding.Finding) {
	return func(x *finding.Finding) { x.AutofixClass, x.Owner = autofix, owner }
}

func preExisting(x *finding.Finding) { x.PreExisting = true }

// answer is a persona's schema-valid answer as the model would write it.
func answer(t testing.TB, name string, fs []finding.Finding, gaps, risks []string) string {
	t.Helper()
	if fs == nil {
		fs = []finding.Finding{}
	}
	if gaps == nil {
		gaps = []string{}
	}
	if risks == nil {
		risks = []string{}
	}
	b, err := json.Marshal(finding.Answer{Reviewer: name, Findings: fs, TestingGaps: gaps, ResidualRisks: risks})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// verdicts holds the validator's answers by finding title: "true",
// "false: <reason>", "lower: <severity>" (confirmed at a lower severity),
// "malformed" or "slow" (held back far longer than any
// test's call timeout). A title without an entry is confirmed.
type verdicts struct {
	mu sync.Mutex
	m  map[string]string
}

func (v *verdicts) set(title, verdict string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.m[title] = verdict
}

// titleRE finds the finding's title in a validator request.
var titleRE = regexp.MustCompile(`"title": "((?:[^"\\]|\\.)*)"`)

// reply is the fake model's default handler: the validator answers from v,
// unscripted personas with an empty answer.
func (v *verdicts) reply(r llmtest.Request) llmtest.Reply {
	if r.Persona != llm.Validator {
		return llmtest.OK(llmtest.DefaultContent(r))
	}
	return verdictReply(v.lookup(r))
}

// verdictReply turns a verdict of the verdicts map into the model's reply.
func verdictReply(verdict string) llmtest.Reply {
	switch {
	case verdict == "" || verdict == "true":
		return llmtest.OK(`{"validated":true,"reason":"Real in the code as written and introduced by this diff."}`)
	case verdict == "malformed":
		return llmtest.OK(`{"validated":"yes","reason":"It is real."}`)
	case strings.HasPrefix(verdict, "lower: "):
		b, _ := json.Marshal(finding.Validation{Validated: true, Reason: "Real, but minor.", Severity: finding.Severity(strings.TrimPrefix(verdict, "lower: "))})
		return llmtest.OK(string(b))
	case verdict == "slow":
		return llmtest.Reply{Delay: time.Minute, Content: `{"validated":true,"reason":"too late"}`}
	}
	reason, _ := strings.CutPrefix(verdict, "false: ")
	b, _ := json.Marshal(finding.Validation{Validated: false, Reason: reason})
	return llmtest.OK(string(b))
}

func (v *verdicts) lookup(r llmtest.Request) string {
	title := validatorTitle(r.Messages)
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.m[title]
}

// validatorTitle is the title of the finding a validator request checks.
func validatorTitle(msgs []llm.Message) string {
	// The finding is in the last data message (before the validator's
	// instructions, and before a repair round).
	var m []string
	for _, msg := range msgs {
		if x := titleRE.FindStringSubmatch(msg.Content); x != nil {
			m = x
		}
	}
	if m == nil {
		return ""
	}
	var s string
	if json.Unmarshal([]byte(`"`+m[1]+`"`), &s) != nil {
		return m[1]
	}
	return s
}

// ghCount counts GitHub requests whose method and path match (path
// matching by substring), and with ref, when not empty, in the query.
func ghCount(reqs []githubtest.Request, method, pathPart, ref string) int {
	n := 0
	for _, r := range reqs {
		if r.Method != method || !strings.Contains(r.Path, pathPart) {
			continue
		}
		if ref != "" {
			q, _ := url.ParseQuery(r.Query)
			if q.Get("ref") != ref {
				continue
			}
		}
		n++
	}
	return n
}

// modelCalls counts the fake model's requests by persona.
func modelCalls(srv *llmtest.Server) map[string]int {
	out := map[string]int{}
	for _, r := range srv.Requests() {
		out[r.Persona]++
	}
	return out
}

func noViolations(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("the client sent requests that break the protocol: %v", v)
	}
}

// addedFile is the unified diff of a new file holding lines.
func addedFile(path string, lines []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1234567\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// goLines is n lines of a plausible Go file.
func goLines(pkg string, n int) []string {
	out := []string{"package " + pkg, ""}
	for i := len(out); i < n; i++ {
		out = append(out, fmt.Sprintf("func helper%d(x int) int { return x*%d + 1 }", i, i))
	}
	return out
}

// helpersPR serves a PR adding one Go file of n lines per path, and
// returns the head contents.
func (e *env) helpersPR(t *testing.T, n int, paths ...string) {
	t.Helper()
	var d strings.Builder
	heads := map[string]string{}
	for _, p := range paths {
		lines := goLines("helpers", n)
		d.WriteString(addedFile(p, lines))
		heads[p] = strings.Join(lines, "\n") + "\n"
	}
	e.addPR(t, d.String(), heads)
}

// diffBudget is the max-input-tokens that leaves n tokens for the diff and
// context of a helpers PR (addPR's title and body, no standards) reviewed
// by team, with or without the validator: the fixed parts of its requests
// plus n.
func diffBudget(t *testing.T, n int, validate bool, team ...string) int {
	t.Helper()
	all, err := persona.Load()
	if err != nil {
		t.Fatal(err)
	}
	var members []persona.Persona
	for _, p := range all {
		if len(team) == 0 || slices.Contains(team, p.Name) {
			members = append(members, p)
		}
	}
	c := prompt.Context{Repo: owner + "/" + repo, PR: prNum, Title: "Add helpers", Body: "Small helpers.", Tests: map[string][]string{}, Fence: fence}
	return prompt.FixedTokens(c, members, validate) + n
}

// ordersBudget is diffBudget for addOrdersPR's PR and its whole team.
func ordersBudget(t *testing.T, n int) int {
	t.Helper()
	all, err := persona.Load()
	if err != nil {
		t.Fatal(err)
	}
	c := prompt.Context{
		Repo: owner + "/" + repo, PR: prNum, Title: "Add order search and delete endpoints",
		Body:             "Adds `GET /orders?status=&sort=` and `DELETE /orders/{id}`, plus an index on orders.status.\n\nTested with the new handler test.",
		Standards:        []prompt.Standards{{Path: "AGENTS.md", Content: readFile(t, "testdata/orders/base/AGENTS.md")}},
		PreviousComments: []string{"lena: Could the sort column be whitelisted?"},
		Tests:            map[string][]string{}, Fence: fence,
	}
	return prompt.FixedTokens(c, all, true) + n
}
