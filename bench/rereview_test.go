package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// The re-review rig: a large PR adding files of Go code, fully reviewed at
// headA, then a push to headB that changes a few lines of one file.
const (
	rereviewPR = 9
	headA      = "aaaa000000000000000000000000000000000001"
	headB      = "bbbb000000000000000000000000000000000002"
	baseRR     = "cccc000000000000000000000000000000000003"
	botRR      = "github-actions[bot]"
)

// rrFile is the content of the PR's i-th file: lines lines of service code.
func rrFile(i, lines int) []string {
	out := []string{fmt.Sprintf("package mod%d", i), "", fmt.Sprintf("func handler%d(ctx context.Context) error {", i)}
	for k := len(out); k < lines-1; k++ {
		out = append(out, strings.ReplaceAll(codeLines[(i+k)%len(codeLines)], "#", fmt.Sprint(k)))
	}
	return append(out, "}")
}

// rrAdded is the PR diff of a new file.
func rrAdded(path string, lines []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

func rrPath(i int) string { return fmt.Sprintf("internal/mod%02d/service%d.go", i%20, i) }

// rrRig is one measured pair of runs on its own fakes.
type rrRig struct {
	gh    *githubtest.Server
	model *llmtest.Server
	team  []persona.Persona
	files int
}

// shownFile finds the files a persona request shows.
var shownFile = regexp.MustCompile(`\+\+\+ b/(\S+)`)

// reporting is how many personas (the first of the team: correctness,
// testing, maintainability) report findings: two each on the first file a
// request shows, so a full review stays within max-validations (an
// over-budget finding would make it incomplete, and an incomplete review
// is never the base of an incremental one).
const reporting = 3

// newRRRig serves the PR at headA: files files of lines lines each. The
// first personas report two findings each on the first file their request
// shows (lines that depend on the persona, so they do not merge); the
// validator confirms every finding.
func newRRRig(tb testing.TB, files, lines int) *rrRig {
	tb.Helper()
	team, err := persona.Load()
	if err != nil {
		tb.Fatal(err)
	}
	r := &rrRig{gh: githubtest.New(), model: llmtest.New(), team: team, files: files}
	var d strings.Builder
	for i := range files {
		content := rrFile(i, lines)
		d.WriteString(rrAdded(rrPath(i), content))
		r.gh.SetContent(headA, rrPath(i), strings.Join(content, "\n")+"\n")
	}
	r.gh.AddPR(githubtest.PR{Number: rereviewPR, Title: "Move every service onto the batch store", Body: "A mechanical change across the services.",
		HeadSHA: headA, BaseSHA: baseRR, Author: "octodev"})
	r.gh.SetDiff(rereviewPR, d.String())
	r.model.SetDefault(func(req llmtest.Request) llmtest.Reply {
		if req.Persona == llm.Validator {
			return llmtest.OK(`{"validated":true,"reason":"Real in the code as written."}`)
		}
		text := ""
		for _, m := range req.Messages {
			text += m.Content
		}
		m := shownFile.FindStringSubmatch(text)
		a := finding.Answer{Reviewer: req.Persona, Findings: []finding.Finding{}, ResidualRisks: []string{}, TestingGaps: []string{}}
		idx := slices.IndexFunc(team, func(p persona.Persona) bool { return p.Name == req.Persona })
		if m != nil && idx < reporting {
			for j := range 2 {
				line := 4 + (idx*2+j)*4%(lines-6)
				a.Findings = append(a.Findings, finding.Finding{
					Title: fmt.Sprintf("%s: unchecked result %d", req.Persona, j), Severity: finding.P2,
					File: m[1], Line: line, WhyItMatters: "A failure here is silently ignored.",
					AutofixClass: "manual", Owner: "human", RequiresVerification: true, Confidence: 75,
					Evidence: []string{fmt.Sprintf("%s:%d", m[1], line)},
				})
			}
		}
		b, _ := json.Marshal(a)
		return llmtest.OK(string(b))
	})
	return r
}

func (r *rrRig) close() {
	r.gh.Close()
	r.model.Close()
}

// rrCost is what one run cost.
type rrCost struct {
	modelCalls, validatorCalls, promptTokens, githubRequests int
	res                                                      review.Result
}

// run reviews and publishes the PR as the Action does, and returns what
// this run cost (the fakes' requests since the last run).
func (r *rrRig) run(tb testing.TB, rerun bool) rrCost {
	tb.Helper()
	gh, model := newGitHub(tb, r.gh), newModel(tb, r.model)
	m0, g0 := len(r.model.Requests()), len(r.gh.Requests())
	rv := review.Reviewer{GitHub: gh, Model: model, Personas: r.team}
	res, pr, err := rv.ReviewPR(context.Background(), review.Options{
		Owner: owner, Repo: repo, PR: rereviewPR, Mode: review.ModeComment, Validate: true, Rerun: rerun,
		Model: "gpt-4.1-mini", MaxValidations: 15, MaxConcurrency: 8, MaxLLMCalls: 60, BotLogin: botRR,
	})
	if err != nil {
		tb.Fatalf("ReviewPR: %v", err)
	}
	ro := report.Options{Repo: owner + "/" + repo, HeadSHA: res.HeadSHA, FailOn: "P1"}
	action.Publish(context.Background(), action.PublishOptions{
		GitHub: gh, Notifier: nopNotifier{},
		Owner: owner, Repo: repo, PR: rereviewPR, BotLogin: botRR, Mode: review.ModeComment, FailOn: "P1",
	}, res, pr, ro)
	c := rrCost{githubRequests: len(r.gh.Requests()) - g0, res: res}
	for _, q := range r.model.Requests()[m0:] {
		c.modelCalls++
		if q.Persona == llm.Validator {
			c.validatorCalls++
		}
		for _, m := range q.Messages {
			c.promptTokens += prompt.EstimateTokens(m.Content)
		}
	}
	return c
}

// push moves the PR to headB: file 0 gets changed lines changed from line
// 23 on; the compare API answers headA...headB with that one patch.
func (r *rrRig) push(tb testing.TB, lines, changed int) {
	tb.Helper()
	old := rrFile(0, lines)
	cur := append([]string(nil), old...)
	// Near the findings on lines 20 and 24 (see newRRRig): they are
	// carried, but re-checked by the validator.
	mid := min(22, lines/2)
	var patch strings.Builder
	fmt.Fprintf(&patch, "@@ -%d,%d +%d,%d @@\n", mid, changed+2, mid, changed+2)
	patch.WriteString(" " + old[mid-1] + "\n")
	for k := range changed {
		patch.WriteString("-" + old[mid+k] + "\n")
	}
	for k := range changed {
		cur[mid+k] = fmt.Sprintf("\tretried%d, err := s.retry(ctx, item) // was: %s", k, strings.TrimSpace(old[mid+k]))
		patch.WriteString("+" + cur[mid+k] + "\n")
	}
	patch.WriteString(" " + old[mid+changed])
	var d strings.Builder
	for i := range r.files {
		content := rrFile(i, lines)
		if i == 0 {
			content = cur
		}
		d.WriteString(rrAdded(rrPath(i), content))
		r.gh.SetContent(headB, rrPath(i), strings.Join(content, "\n")+"\n")
	}
	r.gh.AddPR(githubtest.PR{Number: rereviewPR, Title: "Move every service onto the batch store", Body: "A mechanical change across the services.",
		HeadSHA: headB, BaseSHA: baseRR, Author: "octodev"})
	r.gh.SetDiff(rereviewPR, d.String())
	r.gh.SetCompare(headA, headB, githubtest.Compare{Commits: []string{headB},
		Files: []githubtest.File{{Filename: rrPath(0), Status: "modified", Patch: patch.String(), Additions: changed, Deletions: changed}}})
}

type nopNotifier struct{}

func (nopNotifier) Warningf(string, ...any)                           {}
func (nopNotifier) Errorf(string, ...any)                             {}
func (nopNotifier) AddStepSummary(string)                             {}
func (nopNotifier) Annotate(string, string, int, int, string, string) {}

// rereviewPair runs the full review at headA, pushes, and then reviews
// headB incrementally (or in full, when full is set: the baseline).
func rereviewPair(tb testing.TB, files, lines, changed int, full bool) (first, second rrCost) {
	tb.Helper()
	r := newRRRig(tb, files, lines)
	defer r.close()
	first = r.run(tb, false)
	r.push(tb, lines, changed)
	second = r.run(tb, full)
	if v := r.model.Violations(); len(v) > 0 {
		tb.Fatalf("protocol violations: %v", v[:1])
	}
	return first, second
}

// BenchmarkIncrementalReview: a large PR (120 files, 9,600 added lines)
// fully reviewed, then a push changing 4 lines of one file, re-reviewed
// incrementally and, as the baseline, in full. Figures: model calls,
// prompt tokens (estimated from the requests the fake model received) and
// GitHub requests of each, and the incremental run's share of the full
// run's prompt tokens (target: at most 15%).
func BenchmarkIncrementalReview(b *testing.B) {
	const files, lines, changed = 120, 80, 4
	var full, inc rrCost
	for b.Loop() {
		_, full = rereviewPair(b, files, lines, changed, true)
		_, inc = rereviewPair(b, files, lines, changed, false)
	}
	if inc.res.Rereview == nil || !inc.res.Rereview.Incremental {
		b.Fatalf("the second run was not incremental: %+v", inc.res.Rereview)
	}
	if full.res.Partial || inc.res.Partial {
		b.Fatalf("a review was partial (full %v, incremental %v): the comparison needs complete reviews", full.res.Partial, inc.res.Partial)
	}
	ratio := float64(inc.promptTokens) / float64(full.promptTokens)
	if ratio > 0.15 {
		b.Errorf("incremental prompt tokens are %.1f%% of the full review's; want at most 15%%", 100*ratio)
	}
	b.ReportMetric(float64(full.modelCalls), "full-llm-calls")
	b.ReportMetric(float64(inc.modelCalls), "incr-llm-calls")
	b.ReportMetric(float64(full.validatorCalls), "full-validator-calls")
	b.ReportMetric(float64(inc.validatorCalls), "incr-validator-calls")
	b.ReportMetric(float64(full.promptTokens), "full-prompt-tokens")
	b.ReportMetric(float64(inc.promptTokens), "incr-prompt-tokens")
	b.ReportMetric(100*ratio, "incr-token-%")
	b.ReportMetric(float64(full.githubRequests), "full-gh-requests")
	b.ReportMetric(float64(inc.githubRequests), "incr-gh-requests")
	b.ReportMetric(float64(len(inc.res.Findings)), "incr-findings")
	b.ReportMetric(float64(inc.res.Rereview.Carried), "carried")
	b.ReportMetric(float64(inc.res.Rereview.Rechecked), "rechecked")
}

// TestRereviewRig runs the re-review rig once, small, so CI catches a
// broken benchmark: the incremental run must be incremental, complete and
// cheaper than the full one.
func TestRereviewRig(t *testing.T) {
	t.Parallel()
	_, full := rereviewPair(t, 12, 40, 2, true)
	_, inc := rereviewPair(t, 12, 40, 2, false)
	if inc.res.Rereview == nil || !inc.res.Rereview.Incremental || inc.res.Partial {
		t.Fatalf("second run: rereview %+v, partial %v; want a complete incremental review", inc.res.Rereview, inc.res.Partial)
	}
	if full.res.Rereview == nil || full.res.Rereview.Incremental {
		t.Fatalf("baseline: rereview %+v; want a whole-PR review", full.res.Rereview)
	}
	if inc.promptTokens >= full.promptTokens || inc.modelCalls > full.modelCalls {
		t.Errorf("incremental %d tokens / %d calls; full %d / %d: want the incremental run cheaper",
			inc.promptTokens, inc.modelCalls, full.promptTokens, full.modelCalls)
	}
}
