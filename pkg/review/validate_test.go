package review_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// twentyFindings are 20 gating findings over four files: most severe first
// they are 2 P0@75, 3 P1@100, 3 P1@75, 3 P2@100, 5 P2@75, 2 P3@100 and
// 2 P3@75. The answer lists them in an order unlike the sorted one, so the
// test sees the orchestrator's own ordering. w.go holds only findings past
// the budget of 15.
func twentyFindings() (all []finding.Finding, validated, overBudget []string) {
	type spec struct {
		sev  finding.Severity
		conf int
		file string
		line int
	}
	specs := []spec{
		{finding.P3, 75, "pkg/a/w.go", 5}, {finding.P2, 75, "pkg/a/z.go", 9}, {finding.P0, 75, "pkg/a/x.go", 3},
		{finding.P1, 100, "pkg/a/y.go", 4}, {finding.P2, 100, "pkg/a/x.go", 20}, {finding.P1, 75, "pkg/a/z.go", 2},
		{finding.P3, 100, "pkg/a/w.go", 9}, {finding.P2, 75, "pkg/a/x.go", 11}, {finding.P1, 100, "pkg/a/x.go", 14},
		{finding.P2, 75, "pkg/a/y.go", 17}, {finding.P1, 75, "pkg/a/x.go", 25}, {finding.P0, 75, "pkg/a/y.go", 21},
		{finding.P2, 100, "pkg/a/y.go", 12}, {finding.P3, 75, "pkg/a/w.go", 15}, {finding.P2, 75, "pkg/a/x.go", 6},
		{finding.P1, 100, "pkg/a/z.go", 7}, {finding.P2, 100, "pkg/a/z.go", 15}, {finding.P1, 75, "pkg/a/y.go", 8},
		{finding.P2, 75, "pkg/a/z.go", 22}, {finding.P3, 100, "pkg/a/w.go", 20},
	}
	for i, s := range specs {
		all = append(all, f(fmt.Sprintf("Finding %02d (%s@%d %s:%d)", i+1, s.sev, s.conf, s.file, s.line), s.sev, s.file, s.line, s.conf))
	}
	// Most severe, then higher anchor, then the sorted order (file, line):
	// of the five P2@75 the budget keeps x.go:6, x.go:11, y.go:17, z.go:9
	// and drops z.go:22.
	ranked := slices.Clone(all)
	slices.SortStableFunc(ranked, func(a, b finding.Finding) int {
		if c := a.Severity.Rank() - b.Severity.Rank(); c != 0 {
			return c
		}
		if c := b.Confidence - a.Confidence; c != 0 {
			return c
		}
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	for i, x := range ranked {
		if i < 15 {
			validated = append(validated, x.Title)
		} else {
			overBudget = append(overBudget, x.Title)
		}
	}
	return all, validated, overBudget
}

func TestValidatorBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.helpersPR(t, 30, "pkg/a/w.go", "pkg/a/x.go", "pkg/a/y.go", "pkg/a/z.go")
	all, wantValidated, wantOver := twentyFindings()
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", all, nil, nil)))
	o := options()
	o.Personas = []string{"correctness"}

	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	noViolations(t, e.model)
	if got := modelCalls(e.model)["validator"]; got != 15 {
		t.Errorf("validator calls: got %d; want 15", got)
	}
	var asked []string
	for _, r := range e.model.RequestsFor(llm.Validator) {
		asked = append(asked, validatorTitle(r.Messages))
	}
	slices.Sort(asked)
	want := slices.Sorted(slices.Values(wantValidated))
	if !slices.Equal(asked, want) {
		t.Errorf("validated findings:\ngot  %q\nwant %q", asked, want)
	}
	var over []string
	for _, r := range res.Coverage.OverBudget {
		over = append(over, r.Title)
		if r.Reason != "over the validation budget of 15" {
			t.Errorf("over-budget reason: got %q; want %q", r.Reason, "over the validation budget of 15")
		}
	}
	slices.Sort(over)
	if want := slices.Sorted(slices.Values(wantOver)); !slices.Equal(over, want) {
		t.Errorf("over budget:\ngot  %q\nwant %q", over, want)
	}
	if len(res.Findings) != 15 || res.Coverage.Validated != 15 {
		t.Errorf("posted %d, validated %d; want 15, 15", len(res.Findings), res.Coverage.Validated)
	}
	for i, x := range res.Findings {
		if x.Number != i+1 {
			t.Errorf("finding %d numbered %d; want %d", i, x.Number, i+1)
		}
	}
	// Each head file a finding names is fetched once, however many findings
	// point into it, for anchoring and the validator alike (w.go holds only
	// over-budget findings, and is still read to anchor them).
	reqs := e.gh.Requests()
	for _, tc := range []struct {
		path string
		want int
	}{{"pkg/a/w.go", 1}, {"pkg/a/x.go", 1}, {"pkg/a/y.go", 1}, {"pkg/a/z.go", 1}} {
		if got := ghCount(reqs, "GET", "/contents/"+tc.path, headSHA); got != tc.want {
			t.Errorf("head %s fetched %d times; want %d", tc.path, got, tc.want)
		}
	}
}

// TestValidatorVerdicts: true keeps a finding unchanged; false, malformed
// (also after repair) and timed out each drop it with the right reason.
func TestValidatorVerdicts(t *testing.T) {
	t.Parallel()
	const (
		tTrue, tFalse, tMalformed, tSlow = "Confirmed overflow", "Refuted overflow", "Unreadable verdict", "Slow verdict"
		falseReason                      = "The caller clamps x to 100 before the call."
	)
	e := newEnv(t, nil)
	// The slow verdict goes through a client with a short call timeout; the
	// others through the usual one, so a loaded machine cannot time them out.
	short := newModel(t, e.model, time.Second)
	normal := e.rv.Model
	e.rv.Model = router(func(req llm.Request) llm.Completer {
		if req.Persona == llm.Validator && validatorTitle(req.Messages) == tSlow {
			return short
		}
		return normal
	})
	e.helpersPR(t, 30, "pkg/a/x.go")
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
		f(tTrue, finding.P1, "pkg/a/x.go", 3, 100),
		f(tFalse, finding.P1, "pkg/a/x.go", 8, 100),
		f(tMalformed, finding.P1, "pkg/a/x.go", 13, 100),
		f(tSlow, finding.P1, "pkg/a/x.go", 18, 100),
	}, nil, nil)))
	e.verdicts.set(tFalse, "false: "+falseReason)
	e.verdicts.set(tMalformed, "malformed")
	e.verdicts.set(tSlow, "slow")
	o := options()
	o.Personas = []string{"correctness"}

	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Title != tTrue || res.Findings[0].Number != 1 ||
		res.Findings[0].Confidence != 100 || res.Findings[0].Validation == nil || !res.Findings[0].Validation.Validated {
		t.Fatalf("findings: got %+v; want only %q, unchanged, with its verdict", res.Findings, tTrue)
	}
	reasons := map[string]string{}
	for _, r := range res.Coverage.Rejections {
		reasons[r.Title] = r.Reason
	}
	for _, tc := range []struct{ title, want string }{
		{tFalse, falseReason},
		{tMalformed, "validator failed"},
		{tSlow, "validator failed"},
	} {
		got, ok := reasons[tc.title]
		if !ok || !strings.HasPrefix(got, tc.want) {
			t.Errorf("rejection of %q: got %q (present %t); want %q", tc.title, got, ok, tc.want)
		}
	}
	if got := reasons[tSlow]; !strings.Contains(got, "timed out") {
		t.Errorf("rejection of %q: got %q; want the call timeout named", tSlow, got)
	}
	if len(res.Coverage.Rejections) != 3 {
		t.Errorf("rejections: got %d; want 3: %+v", len(res.Coverage.Rejections), res.Coverage.Rejections)
	}
	var malformed, slow int
	for _, r := range e.model.RequestsFor(llm.Validator) {
		switch validatorTitle(r.Messages) {
		case tMalformed:
			malformed++
		case tSlow:
			slow++
		}
	}
	// The slow call may time out before its request reaches the server on
	// a loaded machine (30 ms); what matters is that it is never retried.
	if malformed != 2 || slow > 1 {
		t.Errorf("validator requests: malformed %d, slow %d; want 2 (one repair), at most 1 (timeouts are not retried)", malformed, slow)
	}
	if res.Verdict != review.NotReady {
		t.Errorf("verdict: got %s; want not-ready (a confirmed P1)", res.Verdict)
	}
}

// TestReportOnlySkipsValidator: with Validate false no validator call is
// made, the coverage says so, and the gated findings are kept as they are.
func TestReportOnlySkipsValidator(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.helpersPR(t, 30, "pkg/a/x.go")
	e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
		f("Off by one", finding.P2, "pkg/a/x.go", 4, 75),
		f("Overflow", finding.P1, "pkg/a/x.go", 9, 100),
	}, nil, nil)))
	o := options()
	o.Personas = []string{"correctness"}
	o.Mode, o.Validate = review.ModeReportOnly, false

	res, _, err := e.rv.ReviewPR(context.Background(), o)
	if err != nil {
		t.Fatalf("ReviewPR: %v", err)
	}
	if n := modelCalls(e.model)["validator"]; n != 0 {
		t.Errorf("validator calls: got %d; want 0", n)
	}
	if res.Coverage.ValidatorRan || res.Coverage.Validated != 0 || len(res.Coverage.Rejections) != 0 {
		t.Errorf("coverage: ran %t validated %d rejections %d; want false, 0, 0", res.Coverage.ValidatorRan, res.Coverage.Validated, len(res.Coverage.Rejections))
	}
	// The findings' one file is read once, to anchor them (synthesis step 1).
	if n := ghCount(e.gh.Requests(), "GET", "/contents/", headSHA); n != 1 {
		t.Errorf("head files fetched: got %d; want 1", n)
	}
	var got []string
	for _, x := range res.Findings {
		got = append(got, fmt.Sprintf("%d %s %v", x.Number, x.Title, x.Validation))
	}
	if want := []string{"1 Overflow <nil>", "2 Off by one <nil>"}; !slices.Equal(got, want) {
		t.Errorf("findings: got %q; want %q", got, want)
	}
}

// TestDemotionsCountedInBothModes: a P3 advisory testing finding is
// demoted in either mode (dropped in comment mode, moved aside in
// report-only mode), and Coverage.Demotions counts it both times.
func TestDemotionsCountedInBothModes(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{review.ModeComment, review.ModeReportOnly} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.helpersPR(t, 30, "pkg/a/x.go")
			e.model.Script("testing", llmtest.OK(answer(t, "testing", []finding.Finding{
				f("No test for the new helper", finding.P3, "pkg/a/x.go", 4, 75, routing("advisory", "downstream-resolver")),
			}, nil, nil)))
			o := options()
			o.Personas = []string{"testing"}
			o.Mode, o.Validate = mode, mode == review.ModeComment

			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if res.Coverage.Demotions != 1 || len(res.Findings) != 0 {
				t.Errorf("demotions %d, findings %d; want 1, 0", res.Coverage.Demotions, len(res.Findings))
			}
			if wantMoved := mode == review.ModeReportOnly; (len(res.Demoted) == 1) != wantMoved {
				t.Errorf("demoted kept aside: %d; want %v", len(res.Demoted), wantMoved)
			}
		})
	}
}

// TestUnreadableHeadIsIncomplete: a finding whose head file could not be
// read is neither posted nor counted as refuted: synthesis keeps it (it
// cannot refute a quote of unchanged code without the head), the validator
// gets no head to judge it by, and the review is incomplete (SPEC 7.1:
// every head file a finding needs was read).
func TestUnreadableHeadIsIncomplete(t *testing.T) {
	t.Parallel()
	const path = "pkg/a/x.go"
	head := goLines("a", 40)
	d := fmt.Sprintf("diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n@@ -10,3 +10,3 @@\n %s\n-%s\n+%s\n %s\n",
		path, path, path, path, head[9], strings.Replace(head[10], "+ 1", "+ 2", 1), head[10], head[11])
	for _, batching := range []string{review.ValidatePerFinding, review.ValidatePerFile} {
		t.Run(batching, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			e.addPR(t, d, map[string]string{path: strings.Join(head, "\n") + "\n"})
			e.gh.Inject(githubtest.Fault{PathContains: "/contents/" + path, Status: http.StatusInternalServerError},
				githubtest.Fault{PathContains: "/git/blobs/", Status: http.StatusInternalServerError})
			// The finding quotes line 30, which the diff does not show.
			e.model.Script("correctness", llmtest.OK(answer(t, "correctness", []finding.Finding{
				f("Caller of helper11 overflows", finding.P2, path, 30, 100, func(x *finding.Finding) { x.Evidence = []string{head[29]} }),
			}, nil, nil)))
			o := options()
			o.Personas, o.ValidatorBatching = []string{"correctness"}, batching
			res, _, err := e.rv.ReviewPR(context.Background(), o)
			if err != nil {
				t.Fatalf("ReviewPR: %v", err)
			}
			if len(res.Findings) != 0 || len(e.model.RequestsFor(llm.Validator)) != 0 {
				t.Errorf("posted %v after %d validator calls; want nothing posted, no call without the head", titles(res.Findings), len(e.model.RequestsFor(llm.Validator)))
			}
			if !res.Partial || res.Verdict != review.Degraded || len(res.Coverage.Rejections) != 1 || !strings.Contains(res.Coverage.Rejections[0].Reason, "head file unavailable") {
				t.Errorf("partial %t, verdict %s, rejections %+v; want an incomplete review saying the head file was unavailable", res.Partial, res.Verdict, res.Coverage.Rejections)
			}
		})
	}
}
