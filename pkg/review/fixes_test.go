package review_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/synth"
)

// The tests in this file pin behaviour that changed together: the
// max-llm-calls cap counting repairs, chunk-level failures, an empty team,
// a budget below one round, the validator's line check and diff scope, the
// standards exception to lint-ignore suppression, and what selects the
// previous-comments persona.

// alwaysOn is the always-on team, in SPEC order.
var alwaysOn = []string{"correctness", "testing", "maintainability"}

// personaRun returns the run of the named persona in res, or nil.
func personaRun(res review.Result, name string) *review.PersonaRun {
	for i := range res.Coverage.Personas {
		if res.Coverage.Personas[i].Name == name {
			return &res.Coverage.Personas[i]
		}
	}
	return nil
}

func personaNames(res review.Result) []string {
	var out []string
	for _, p := range res.Coverage.Personas {
		out = append(out, p.Name)
	}
	return out
}

// TestCapCountsRepairs: max-llm-calls caps the requests that reach the
// model, repair requests included. Every persona answers malformed, then
// well, so each needs two requests. Whatever the schedule, a persona that
// got both is fine, one whose repair the cap could not afford failed with
// llm.ErrMalformed after one request, and one that got none was not run.
// With max-concurrency 1 the schedule is fixed (team order, each call and
// its repair before the next), so the exact outcome is pinned too.
func TestCapCountsRepairs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		maxCalls, concurrency int
		// want is each always-on persona's request count (sequential rows).
		want []int
	}{
		{maxCalls: 3, concurrency: 1, want: []int{2, 1, 0}},
		{maxCalls: 4, concurrency: 1, want: []int{2, 2, 0}},
		{maxCalls: 5, concurrency: 1, want: []int{2, 2, 1}},
		{maxCalls: 6, concurrency: 1, want: []int{2, 2, 2}},
		{maxCalls: 3, concurrency: 8},
		{maxCalls: 4, concurrency: 8},
		{maxCalls: 5, concurrency: 8},
		{maxCalls: 7, concurrency: 8},
	} {
		t.Run(fmt.Sprintf("max-llm-calls=%d,max-concurrency=%d", tc.maxCalls, tc.concurrency), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.helpersPR(t, 30, "pkg/a/x.go")
			for _, p := range alwaysOn {
				e.model.Script(p, llmtest.Malformed(), llmtest.OK(answer(t, p, nil, nil, nil)))
			}
			o := options()
			o.Personas, o.MaxLLMCalls, o.MaxConcurrency = alwaysOn, tc.maxCalls, tc.concurrency
			o.Mode, o.Validate = review.ModeReportOnly, false

			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil && !errors.Is(err, review.ErrAllPersonasFailed) {
				t.Fatalf("ReviewPR: %v", err)
			}
			noViolations(t, e.model)
			// Every take of the cap sends a request, and a take fails only
			// once the cap is spent: the model sees exactly min(cap, demand).
			if got, want := len(e.model.Requests()), min(tc.maxCalls, 2*len(alwaysOn)); got != want {
				t.Errorf("model requests: got %d; want %d (max-llm-calls %d, repairs included)", got, want, tc.maxCalls)
			}
			calls := modelCalls(e.model)
			for i, p := range alwaysOn {
				run := personaRun(res, p)
				if run == nil {
					t.Fatalf("persona %s missing from Coverage: %q", p, personaNames(res))
				}
				switch calls[p] {
				case 2:
					if run.Failed != "" {
						t.Errorf("%s: 2 requests (repaired) but Failed %q; want none", p, run.Failed)
					}
				case 1:
					if !strings.Contains(run.Failed, llm.ErrMalformed.Error()) {
						t.Errorf("%s: repair skipped, Failed %q; want it to name %q", p, run.Failed, llm.ErrMalformed)
					}
				case 0:
					if !strings.Contains(run.Failed, "max-llm-calls") {
						t.Errorf("%s: not run, Failed %q; want the max-llm-calls cap named", p, run.Failed)
					}
				default:
					t.Errorf("%s: got %d requests; want at most 2 (one repair)", p, calls[p])
				}
				if tc.want != nil && calls[p] != tc.want[i] {
					t.Errorf("%s requests: got %d; want %d", p, calls[p], tc.want[i])
				}
			}
			if tc.maxCalls < 2*len(alwaysOn) && !res.Partial {
				t.Errorf("Partial: got false; want true (a persona failed or was not run)")
			}
		})
	}
}

// TestChunkFailures: a persona whose calls fail on some chunks but answer
// on others ran (Failed empty, ChunksFailed counted), its findings from the
// good chunks arrive, and the review is partial, not "every persona
// failed". Only a persona failing every chunk counts as failed.
func TestChunkFailures(t *testing.T) {
	t.Parallel()
	files := []string{"pkg/a/one.go", "pkg/a/two.go"}
	malformed := func(llmtest.Request) llmtest.Reply { return llmtest.Malformed() }
	serverError := func(llmtest.Request) llmtest.Reply { return llmtest.ServerError() }
	for _, tc := range []struct {
		name  string
		fault func(llmtest.Request) llmtest.Reply
		// fails says whether persona p's call on the chunk holding
		// two.go (second) or one.go fails.
		fails        func(p string, second bool) bool
		wantFailed   []string
		wantChunks   map[string]int // ChunksFailed by persona
		wantFindings []string       // personas whose finding arrives
		wantAll      bool
	}{
		{
			name: "every persona fails the second chunk, malformed twice", fault: malformed,
			fails:        func(_ string, second bool) bool { return second },
			wantChunks:   map[string]int{"correctness": 1, "testing": 1, "maintainability": 1},
			wantFindings: alwaysOn,
		},
		{
			name: "every persona fails the second chunk, HTTP 500 after retries", fault: serverError,
			fails:        func(_ string, second bool) bool { return second },
			wantChunks:   map[string]int{"correctness": 1, "testing": 1, "maintainability": 1},
			wantFindings: alwaysOn,
		},
		{
			name: "one persona fails both chunks", fault: malformed,
			fails:        func(p string, _ bool) bool { return p == "testing" },
			wantFailed:   []string{"testing"},
			wantFindings: []string{"correctness", "maintainability"},
		},
		{
			name: "every persona fails both chunks", fault: malformed,
			fails:      func(string, bool) bool { return true },
			wantFailed: alwaysOn,
			wantAll:    true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.helpersPR(t, 40, files...)
			// The reply depends on the chunk a request holds, not on the
			// order requests arrive in; a repair request repeats it.
			e.model.SetDefault(func(r llmtest.Request) llmtest.Reply {
				if r.Persona == llm.Validator {
					return e.verdicts.reply(r)
				}
				second := strings.Contains(r.Messages[1].Content, "diff --git a/"+files[1])
				if tc.fails(r.Persona, second) {
					return tc.fault(r)
				}
				if second {
					return llmtest.OK(answer(t, r.Persona, nil, nil, nil))
				}
				line := 5 + 5*slices.Index(alwaysOn, r.Persona)
				return llmtest.OK(answer(t, r.Persona, []finding.Finding{
					f("Overflow seen by "+r.Persona, finding.P2, files[0], line, 75),
				}, nil, nil))
			})
			o := options()
			o.Personas, o.MaxInputTokens = alwaysOn, diffBudget(t, 600, true, alwaysOn...)

			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if got := errors.Is(err, review.ErrAllPersonasFailed); got != tc.wantAll {
				t.Fatalf("ReviewPR error %v: ErrAllPersonasFailed %t; want %t", err, got, tc.wantAll)
			}
			if !tc.wantAll && err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			noViolations(t, e.model)
			var failed []string
			for _, p := range res.Coverage.Personas {
				if p.Failed != "" {
					failed = append(failed, p.Name)
				}
				if p.ChunksFailed != tc.wantChunks[p.Name] {
					t.Errorf("%s ChunksFailed: got %d; want %d", p.Name, p.ChunksFailed, tc.wantChunks[p.Name])
				}
				if p.Calls != 2 {
					t.Errorf("%s Calls: got %d; want 2 (one per chunk: the diff must split in two)", p.Name, p.Calls)
				}
			}
			if !slices.Equal(failed, tc.wantFailed) {
				t.Errorf("failed personas: got %q; want %q", failed, tc.wantFailed)
			}
			if res.AllFailed != tc.wantAll || !res.Partial {
				t.Errorf("AllFailed %t, Partial %t; want %t, true", res.AllFailed, res.Partial, tc.wantAll)
			}
			if res.Verdict != review.Degraded {
				t.Errorf("verdict: got %s; want degraded (partial, nothing blocking)", res.Verdict)
			}
			// Counted before synthesis: testing's and maintainability's P2
			// findings are then demoted, whatever their autofix_class.
			var got []string
			for _, p := range res.Coverage.Personas {
				if p.Findings > 0 {
					got = append(got, p.Name)
				}
			}
			want := slices.Clone(tc.wantFindings)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings: got %q; want %q", got, want)
			}
		})
	}
}

// handlerDiff adds a Go HTTP handler: security selects on it, the
// data-migrations persona does not.
var handlerDiff = addedFile("internal/api/health.go", []string{
	"package api",
	"",
	`import "net/http"`,
	"",
	"// Health answers the load balancer's probe.",
	"func Health(w http.ResponseWriter, r *http.Request) {",
	"\tw.WriteHeader(http.StatusOK)",
	`	_, _ = w.Write([]byte("ok"))`,
	"}",
})

// TestEmptyTeam: a personas restriction that no signal of the diff
// selects leaves nobody to look at the files: the review is partial and
// degraded (never a clean pass), and no model call is made.
func TestEmptyTeam(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		personas    []string
		wantTeam    []string
		wantPartial bool
		wantVerdict review.Verdict
	}{
		{personas: []string{"data-migrations"}, wantPartial: true, wantVerdict: review.Degraded},
		{personas: []string{"data-migrations", "previous-comments"}, wantPartial: true, wantVerdict: review.Degraded},
		// The contrast: a restriction the diff does select reviews it.
		{personas: []string{"data-migrations", "security"}, wantTeam: []string{"security"}, wantVerdict: review.Ready},
	} {
		t.Run(strings.Join(tc.personas, ","), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.addPR(t, handlerDiff, nil)
			o := options()
			o.Personas = tc.personas

			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if got := personaNames(res); !slices.Equal(got, tc.wantTeam) {
				t.Errorf("team: got %q; want %q", got, tc.wantTeam)
			}
			if res.Partial != tc.wantPartial || res.Verdict != tc.wantVerdict || res.AllFailed {
				t.Errorf("got partial %t, verdict %s, allFailed %t; want %t, %s, false", res.Partial, res.Verdict, res.AllFailed, tc.wantPartial, tc.wantVerdict)
			}
			if got, want := len(e.model.Requests()), len(tc.wantTeam); got != want {
				t.Errorf("model requests: got %d; want %d", got, want)
			}
		})
	}
}

// TestBudgetBelowOneRound: when max-llm-calls cannot pay for one call per
// selected persona, the first chunk goes to as many personas as it can, in
// SPEC order (always-on first); the others are listed as not reviewed with
// the over-budget reason, and the review is partial.
func TestBudgetBelowOneRound(t *testing.T) {
	t.Parallel()
	all := ordersTeam()
	for _, tc := range []struct {
		name        string
		validate    bool
		inputBudget int
		run         int // personas that run
	}{
		{name: "report-only", run: 3},
		// The validator's share, min(15, 3/2) = 1, comes off the persona calls.
		{name: "with validator", validate: true, run: 2},
		// The diff splits into chunks: only the first is reviewed.
		{name: "report-only, chunked", inputBudget: 450, run: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.addOrdersPR(t)
			o := options()
			o.MaxLLMCalls, o.Validate = 3, tc.validate
			if tc.inputBudget > 0 {
				o.MaxInputTokens = ordersBudget(t, tc.inputBudget)
			}
			if !tc.validate {
				o.Mode = review.ModeReportOnly
			}

			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			noViolations(t, e.model)
			if got, want := personaNames(res), all[:tc.run]; !slices.Equal(got, want) {
				t.Errorf("personas run: got %q; want %q", got, want)
			}
			calls := modelCalls(e.model)
			for _, p := range all[:tc.run] {
				if calls[p] != 1 {
					t.Errorf("%s requests: got %d; want 1", p, calls[p])
				}
			}
			if got := len(e.model.Requests()); got > o.MaxLLMCalls {
				t.Errorf("model requests: got %d; want at most %d", got, o.MaxLLMCalls)
			}
			reason := fmt.Sprintf("over the budget of %d model calls", o.MaxLLMCalls)
			var skipped []string
			var files []string
			for _, x := range res.Coverage.NotReviewed {
				if name, ok := strings.CutPrefix(x.Path, "(persona "); ok {
					skipped = append(skipped, strings.TrimSuffix(name, ")"))
				} else {
					files = append(files, x.Path)
				}
				if x.Reason != reason {
					t.Errorf("not reviewed %s: reason %q; want %q", x.Path, x.Reason, reason)
				}
			}
			if want := all[tc.run:]; !slices.Equal(skipped, want) {
				t.Errorf("personas listed as not run: got %q; want %q", skipped, want)
			}
			// Every request reviews the same, first, chunk; the files of the
			// later chunks are listed.
			reqs := e.model.Requests()
			for _, r := range reqs {
				if r.Messages[1].Content != reqs[0].Messages[1].Content {
					t.Errorf("%s reviewed a different chunk from %s", r.Persona, reqs[0].Persona)
				}
			}
			for _, p := range files {
				if strings.Contains(reqs[0].Messages[1].Content, "diff --git a/"+p+" ") {
					t.Errorf("%s is listed as not reviewed but was in the reviewed chunk", p)
				}
			}
			if chunked := tc.inputBudget > 0; chunked != (len(files) > 0) {
				t.Errorf("files not reviewed: got %q; want some only when the diff is chunked", files)
			}
			if !res.Partial || res.Verdict != review.Degraded {
				t.Errorf("got partial %t verdict %s; want true, degraded", res.Partial, res.Verdict)
			}
		})
	}
}

// modifiedFile is the unified diff of a modified file whose head version is
// head: line at (1-based) is added between its neighbours.
func modifiedFile(path string, head []string, at int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n", path, path, path, path)
	fmt.Fprintf(&b, "@@ -%d,2 +%d,3 @@\n", at-1, at-1)
	fmt.Fprintf(&b, " %s\n+%s\n %s\n", head[at-2], head[at-1], head[at])
	return b.String()
}

// TestValidatorLineOutsideModifiedFile: the diff cannot tell a modified
// file's length; the head version read for anchoring can, so synthesis
// drops a finding past its end as "line outside file", with no model call.
func TestValidatorLineOutsideModifiedFile(t *testing.T) {
	t.Parallel()
	const (
		path              = "pkg/a/x.go"
		tInside, tOutside = "Overflow in helper4", "Overflow past the end"
	)
	head := goLines("helpers", 30)
	e := newEnv(t, nil)
	e.addPR(t, modifiedFile(path, head, 4), map[string]string{path: strings.Join(head, "\n") + "\n"})
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
		f(tInside, finding.P1, path, 4, 100),
		f(tOutside, finding.P1, path, 31, 100),
	}, nil, nil)))
	o := options()
	o.Personas = []string{"correctness"}

	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	var asked []string
	for _, r := range e.model.RequestsFor(llm.Validator) {
		asked = append(asked, validatorTitle(r.Messages))
	}
	if want := []string{tInside}; !slices.Equal(asked, want) {
		t.Errorf("validator asked about %q; want only %q (the line check costs no call)", asked, want)
	}
	if len(res.Findings) != 1 || res.Findings[0].Title != tInside {
		t.Errorf("findings: got %+v; want only %q", res.Findings, tInside)
	}
	if len(res.Coverage.Rejections) != 0 || res.Coverage.DroppedByReason[synth.ReasonLineOutside] != 1 {
		t.Errorf("rejections %+v, synthesis drops %v; want none, and one %q", res.Coverage.Rejections, res.Coverage.DroppedByReason, synth.ReasonLineOutside)
	}
}

// TestValidatorDiffScope: with the finding's head file in hand, the
// validator sees that file whole and its own file's diff, never the other
// files' (context by need: they would be resent in every call); without
// it, the diff of the finding's part, which holds every file when it fits
// the input budget, and only the finding's own file when it does not.
func TestValidatorDiffScope(t *testing.T) {
	t.Parallel()
	files := []string{"pkg/a/one.go", "pkg/a/two.go"}
	for _, tc := range []struct {
		name        string
		inputBudget int // each file's diff is about 500 tokens
		noHead      bool
		wantOther   bool
	}{
		{name: "head read", inputBudget: 0, wantOther: false},
		{name: "no head, fits", inputBudget: 0, noHead: true, wantOther: true},
		{name: "no head, too large", inputBudget: 600, noHead: true, wantOther: false}, // a diff budget: one file a part
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			if tc.noHead {
				var d strings.Builder
				for _, p := range files {
					d.WriteString(addedFile(p, goLines("helpers", 40)))
				}
				e.addPR(t, d.String(), nil)
			} else {
				e.helpersPR(t, 40, files...)
			}
			e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
				f("Overflow in helper9", finding.P1, files[0], 9, 100),
			}, nil, nil)))
			o := options()
			o.Personas = []string{"correctness"}
			if tc.inputBudget > 0 {
				o.MaxInputTokens = diffBudget(t, tc.inputBudget, true, o.Personas...)
			}

			if _, _, err := e.rv.ReviewPR(context.Background(), o); err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			reqs := e.model.RequestsFor(llm.Validator)
			if len(reqs) != 1 {
				t.Fatalf("validator requests: got %d; want 1", len(reqs))
			}
			var text strings.Builder
			for _, m := range reqs[0].Messages {
				text.WriteString(m.Content)
			}
			if !strings.Contains(text.String(), "diff --git a/"+files[0]+" ") {
				t.Errorf("validator request lacks the finding's own file diff")
			}
			if got := strings.Contains(text.String(), "diff --git a/"+files[1]+" "); got != tc.wantOther {
				t.Errorf("validator request holds the other file's diff: got %t; want %t", got, tc.wantOther)
			}
		})
	}
}

// TestStandardsForbidSuppression: a finding on a //nolint line is dropped
// as lint-ignore, unless a standards file read at the BASE commit forbids
// lint suppression; a rule the PR adds at its head does not count.
func TestStandardsForbidSuppression(t *testing.T) {
	t.Parallel()
	const (
		path  = "pkg/a/files.go"
		rule  = "Never use //nolint or any lint suppression comment: fix the code instead."
		other = "# Rules\n\nWrap errors with %w.\n"
		// A P2 that names the rule: a directive the PR adds never hides a
		// P0 or P1, and covers only a finding about its own rule.
		title = "errcheck: Removal error discarded"
	)
	lines := []string{
		"package a",
		"",
		`import "os"`,
		"",
		"// Cleanup removes the scratch file.",
		"func Cleanup(path string) {",
		"\t_ = os.Remove(path) //nolint:errcheck",
		"}",
	}
	for _, tc := range []struct {
		name        string
		base, head  string // AGENTS.md at each commit ("" absent)
		wantSurvive bool
	}{
		{name: "rule at base", base: other + "\n" + rule + "\n", wantSurvive: true},
		{name: "no rule", base: other},
		{name: "no standards file"},
		{name: "rule only at head", base: other, head: other + "\n" + rule + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.addPR(t, addedFile(path, lines), map[string]string{path: strings.Join(lines, "\n") + "\n"})
			if tc.base != "" {
				e.gh.SetContent(baseSHA, "AGENTS.md", tc.base)
			}
			if tc.head != "" {
				e.gh.SetContent(headSHA, "AGENTS.md", tc.head)
			}
			e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
				f(title, finding.P2, path, 7, 100),
			}, nil, nil)))
			o := options()
			o.Personas = []string{"correctness"}

			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			survived := len(res.Findings) == 1 && res.Findings[0].Title == title
			if survived != tc.wantSurvive {
				t.Errorf("finding on the //nolint line survived: got %t; want %t (findings %+v)", survived, tc.wantSurvive, res.Findings)
			}
			wantDropped := 1
			if tc.wantSurvive {
				wantDropped = 0
			}
			if got := res.Coverage.DroppedByReason["lint-ignore"]; got != wantDropped {
				t.Errorf("lint-ignore drops: got %d; want %d", got, wantDropped)
			}
		})
	}
}

// TestPreviousCommentsSelection: the previous-comments persona selects on
// review comments from people, reads them, and ignores conversation
// (issue) comments and bots' review comments.
func TestPreviousCommentsSelection(t *testing.T) {
	t.Parallel()
	const remark = "Could the helper names say what they compute?"
	for _, tc := range []struct {
		name     string
		issue    [2]string // author, body of an issue comment
		review   [2]string // author, body of a review comment
		wantTeam bool
	}{
		{name: "no comments"},
		{name: "issue comment from a person", issue: [2]string{"lena", remark}},
		{name: "review comment from a person", review: [2]string{"lena", remark}, wantTeam: true},
		{name: "review comment from a bot", review: [2]string{"linter-app[bot]", remark}},
		{name: "review comment from our own identity", review: [2]string{"github-actions[bot]", remark}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.helpersPR(t, 30, "pkg/a/x.go")
			if tc.issue[0] != "" {
				e.gh.AddComment(prNum, tc.issue[0], tc.issue[1])
			}
			if tc.review[0] != "" {
				e.gh.AddReviewComment(prNum, tc.review[0], tc.review[1])
			}
			o := options()
			o.Mode, o.Validate = review.ModeReportOnly, false

			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if got := personaRun(res, "previous-comments") != nil; got != tc.wantTeam {
				t.Errorf("previous-comments selected: got %t; want %t (team %q)", got, tc.wantTeam, personaNames(res))
			}
			reqs := e.model.RequestsFor("previous-comments")
			if !tc.wantTeam {
				if len(reqs) != 0 {
					t.Errorf("previous-comments requests: got %d; want 0", len(reqs))
				}
				return
			}
			if len(reqs) != 1 {
				t.Fatalf("previous-comments requests: got %d; want 1", len(reqs))
			}
			if want := "lena: " + remark; !strings.Contains(reqs[0].Messages[1].Content, want) {
				t.Errorf("previous-comments request does not hold the review comment %q", want)
			}
		})
	}
}
