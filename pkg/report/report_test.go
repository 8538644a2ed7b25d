package report

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/pricing"
	"github.com/anchor-review/anchor-review/pkg/review"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

const headSHA = "9c27eed0d7b1a3c5e2f4a6b8c0d2e4f6a8b0c2d4"

// canary is a planted secret: it must never reach any output.
const canary = "canary-5ecr3t-T0KEN-value"

func opts() Options {
	// gpt-test is priced by the pricing input; gpt-strong has no price.
	prices, err := pricing.Parse("gpt-test = 0.40, 0.10, 1.60")
	if err != nil {
		panic(err)
	}
	return Options{Secrets: []string{canary, "ab"}, Pricing: prices} // "ab" is too short to redact
}

func fnd(sev finding.Severity, conf int, file string, line int, title string, reviewers ...string) finding.Finding {
	return finding.Finding{
		Title: title, Severity: sev, File: file, Line: line, Confidence: conf,
		WhyItMatters: "Callers get " + strings.ToLower(title) + ".",
		AutofixClass: "manual", Owner: "human", Evidence: []string{"line " + fmt.Sprint(line)},
		Reviewers: reviewers,
	}
}

func basePersonas() []review.PersonaRun {
	return []review.PersonaRun{
		{Name: "correctness", Reason: "always on", Model: "gpt-test", Calls: 1, Findings: 3, Usage: review.Usage{Calls: 1, PromptTokens: 30000, CachedTokens: 25000, CompletionTokens: 900}},
		{Name: "testing", Reason: "always on", Model: "gpt-test", Calls: 1, Findings: 1, Usage: review.Usage{Calls: 1, PromptTokens: 28000, CachedTokens: 24000, CompletionTokens: 500}},
		{Name: "maintainability", Reason: "always on", Model: "gpt-test", Calls: 1, Findings: 2, Usage: review.Usage{Calls: 1, PromptTokens: 28000, CachedTokens: 24000, CompletionTokens: 600}},
		{Name: "security", Reason: "changes an HTTP handler in api/login.go", Model: "gpt-strong", Calls: 1, Findings: 2, Usage: review.Usage{Calls: 1, PromptTokens: 30000, CachedTokens: 20000, CompletionTokens: 800}},
	}
}

func baseCoverage() review.Coverage {
	return review.Coverage{
		Personas:        basePersonas(),
		DroppedByAnchor: map[int]int{50: 3, 25: 1, 0: 0},
		DroppedByReason: map[string]int{"duplicate": 2, "invalid": 1, "lint-ignore": 1, "below gate": 4},
		Demotions:       1,
		ValidatorRan:    true,
		ValidatorModel:  "gpt-test",
		Validated:       5,
		Rejections: []review.Rejection{
			{Title: "Nil map write", File: "store/cache.go", Line: 12, Reason: "the map is initialised in New, line 8."},
		},
		OverBudget: []review.Rejection{{Title: "Slow loop", File: "store/scan.go", Line: 40}},
		NotReviewed: []review.Excluded{
			{Path: "go.sum", Reason: "lock file"},
			{Path: "assets/logo.png", Reason: "binary"},
		},
		Usage: review.Usage{Calls: 10, PromptTokens: 123456, CachedTokens: 98000, CompletionTokens: 4321},
	}
}

// fullResult has findings in every severity, promoted ones, a below-bar P0
// and hostile model text.
func fullResult() review.Result {
	fs := []finding.Finding{
		fnd(finding.P0, 100, "api/login.go", 42, "Password compared with ==", "correctness", "security"),
		fnd(finding.P1, 75, "store/cache.go", 1, "Cache never evicts", "correctness"),
		fnd(finding.P1, 100, "store/user repo.go", 88, "Error | dropped", "maintainability", "correctness"),
		fnd(finding.P2, 75, "web/handler.go", 7, "Unbounded <body> read", "security"),
		fnd(finding.P3, 75, "docs/üñí/ok.go", 3, "Typo in log @here", "maintainability"),
	}
	fs[0].Promoted = true
	fs[2].Promoted = true
	fs[0].SuggestedFix = "Use subtle.ConstantTimeCompare."
	fs[3].WhyItMatters = "A client can send 10 GB; see [docs](https://evil.example/x) and ![x](https://evil.example/p.png) <script>alert(1)</script>"
	fs[4].WhyItMatters = "Pings @octocat and @org/team; key " + canary + " and ghp_abcdefghijklmnopqrstuvwxyz0123456789."
	for i := range fs {
		fs[i].Number = i + 1
	}
	below := fnd(finding.P0, 50, "api/token.go", 9, "Token may leak in logs", "security")
	return review.Result{
		Repo: "octo/widgets", PR: 12, HeadSHA: headSHA, Title: "Add login", Mode: "comment",
		Findings:      fs,
		BelowBar:      []finding.Finding{below},
		TestingGaps:   []string{"No test for the lockout path."},
		ResidualRisks: []string{"Rate limiting is untested."},
		Coverage:      baseCoverage(),
		Verdict:       review.NotReady,
	}
}

func noFindings() review.Result {
	r := fullResult()
	r.Findings, r.BelowBar, r.TestingGaps, r.ResidualRisks = nil, nil, nil, nil
	r.Verdict = review.Ready
	return r
}

func noFindingsPartial() review.Result {
	r := noFindings()
	r.Partial = true
	r.Incomplete = []string{"persona security failed", "2 files not reviewed: over the budget of 60 model calls"}
	r.Verdict = review.Degraded
	r.Coverage.Personas[3].Failed = "malformed answer after one repair"
	r.Coverage.NotReviewed = append(r.Coverage.NotReviewed, review.Excluded{Path: "big/gen.go", Reason: "over the max-llm-calls budget"})
	return r
}

func allFailed() review.Result {
	r := noFindings()
	r.AllFailed, r.Partial, r.Verdict = true, true, review.Degraded
	for i := range r.Coverage.Personas {
		r.Coverage.Personas[i].Failed = "HTTP 503 after 4 attempts"
		r.Coverage.Personas[i].Findings = 0
	}
	r.Coverage.ValidatorRan, r.Coverage.Validated, r.Coverage.Rejections, r.Coverage.OverBudget = false, 0, nil, nil
	r.Coverage.DroppedByAnchor, r.Coverage.DroppedByReason, r.Coverage.Demotions = nil, nil, 0
	return r
}

func reportOnly() review.Result {
	r := fullResult()
	r.Mode = "report-only"
	r.Coverage.ValidatorRan, r.Coverage.Validated, r.Coverage.Rejections, r.Coverage.OverBudget = false, 0, nil, nil
	r.Demoted = []finding.Finding{fnd(finding.P3, 75, "util/strings.go", 5, "Helper lacks a test", "testing")}
	return r
}

func successResult() review.Result {
	r := fullResult()
	r.Findings = r.Findings[3:]
	for i := range r.Findings {
		r.Findings[i].Number = i + 1
	}
	r.BelowBar = nil
	r.Verdict = review.ReadyWithFixes
	return r
}

func neutralResult() review.Result {
	r := successResult()
	r.Partial, r.Verdict = true, review.Degraded
	r.Incomplete = []string{"persona security failed"}
	r.IncompleteConclusion = review.IncompleteNeutral
	r.Coverage.Personas[3].Failed = "timeout"
	return r
}

func carried() review.Result {
	return review.Result{
		Repo: "octo/widgets", PR: 12, HeadSHA: headSHA, Mode: "comment",
		Skipped: true, SkipRule: 4, SkipReason: "pull request already has an anchor-review report",
		Carried: &marker.Meta{Version: 1, HeadSHA: "0123456789abcdef0123456789abcdef01234567", Verdict: "not-ready", Conclusion: "failure", Blocking: 2},
	}
}

// huge has far more findings than fit in the small MaxLen the golden uses.
func huge(n int) review.Result {
	r := fullResult()
	r.Findings = nil
	sevs := []finding.Severity{finding.P0, finding.P1, finding.P2, finding.P3}
	for i := range n {
		f := fnd(sevs[i*4/n], 75, fmt.Sprintf("pkg/m%03d/file.go", i), 10+i, fmt.Sprintf("Finding number %d", i+1), "correctness")
		f.WhyItMatters = strings.Repeat("Long consequence text. ", 8)
		f.Number = i + 1
		r.Findings = append(r.Findings, f)
	}
	r.Coverage.NotReviewed = nil
	for i := range 80 {
		r.Coverage.NotReviewed = append(r.Coverage.NotReviewed, review.Excluded{Path: fmt.Sprintf("vendor/x/%d.go", i), Reason: "vendored"})
	}
	return r
}

func formatCheck(c CheckOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "conclusion: %s\ntitle: %s\nannotations: %d\n", c.Conclusion, c.Title, len(c.Annotations))
	for _, a := range c.Annotations {
		fmt.Fprintf(&b, "- %s %s:%d-%d %q\n  %q\n", a.Level, a.Path, a.StartLine, a.EndLine, a.Title, a.Message)
	}
	b.WriteString("---- summary ----\n" + c.Summary)
	return b.String()
}

func TestGolden(t *testing.T) {
	ghes := opts()
	ghes.ServerURL = "https://ghe.example.com/"
	ghesResult := fullResult()
	ghesResult.Findings[3].WhyItMatters = "See [the guide](https://ghe.example.com/octo/widgets/wiki/Limits) and [github](https://github.com/x) and https://ghe.example.com/octo/widgets/issues."
	small := opts()
	small.MaxLen = 6000

	tests := []struct {
		name   string
		render func() string
	}{
		{"comment_findings", func() string { return Comment(fullResult(), opts()) }},
		{"comment_no_findings", func() string { return Comment(noFindings(), opts()) }},
		{"comment_no_findings_partial", func() string { return Comment(noFindingsPartial(), opts()) }},
		{"comment_all_failed", func() string { return Comment(allFailed(), opts()) }},
		{"comment_report_only", func() string { return Comment(reportOnly(), opts()) }},
		{"comment_trimmed", func() string { return Comment(huge(40), small) }},
		{"comment_ghes", func() string { return Comment(ghesResult, ghes) }},
		{"check_failure", func() string { return formatCheck(Check(fullResult(), opts())) }},
		{"check_neutral", func() string { return formatCheck(Check(neutralResult(), opts())) }},
		{"check_success", func() string { return formatCheck(Check(successResult(), opts())) }},
		{"check_all_failed", func() string { return formatCheck(Check(allFailed(), opts())) }},
		{"check_carried", func() string { return formatCheck(Check(carried(), opts())) }},
		{"job_summary", func() string { return JobSummary(fullResult(), opts()) }},
		{"job_summary_skipped", func() string { return JobSummary(carried(), opts()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkGolden(t, tt.name, tt.render())
		})
	}
}

// checkGolden compares got with testdata/name.golden (rewritten under
// -update) and checks that it does not leak the planted secret.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run go test -update and review the diff)\ngot:\n%s", path, got)
	}
	if strings.Contains(got, canary) {
		t.Errorf("output leaks the planted secret")
	}
}

func TestConclusion(t *testing.T) {
	withSev := func(sevs ...finding.Severity) review.Result {
		var r review.Result
		for _, s := range sevs {
			r.Findings = append(r.Findings, finding.Finding{Severity: s, Confidence: 75})
		}
		return r
	}
	belowBarOnly := review.Result{BelowBar: []finding.Finding{{Severity: finding.P0, Confidence: 50}}}
	partialP2 := withSev(finding.P2)
	partialP2.Partial = true
	failedAll := review.Result{AllFailed: true, Partial: true}
	badCarry := carried()
	badCarry.Carried.Conclusion = "success; evil"
	noCarry := carried()
	noCarry.Carried = nil
	draft := review.Result{Skipped: true, SkipRule: 2}

	tests := []struct {
		name         string
		r            review.Result
		failOn       string
		want         string
		wantBlocking int
	}{
		{"clean", review.Result{}, "P1", "success", 0},
		{"P1 at default", withSev(finding.P1, finding.P2), "", "failure", 1},
		{"P2 below P1 bar", withSev(finding.P2, finding.P3), "P1", "success", 0},
		{"P2 bar counts P0..P2", withSev(finding.P0, finding.P2, finding.P3), "p2", "failure", 2},
		{"P3 bar counts all", withSev(finding.P1, finding.P3), "P3", "failure", 2},
		{"P0 bar", withSev(finding.P1), "P0", "success", 0},
		{"never", withSev(finding.P0), "never", "success", 0},
		{"unknown fail-on is P1", withSev(finding.P1), "bogus", "failure", 1},
		{"below-bar P0 never blocks", belowBarOnly, "P0", "success", 0},
		{"incomplete fails by default", partialP2, "P1", "failure", 0},
		{"incomplete, input neutral", func() review.Result { r := partialP2; r.IncompleteConclusion = review.IncompleteNeutral; return r }(), "P1", "neutral", 0},
		{"incomplete, input failure", func() review.Result { r := partialP2; r.IncompleteConclusion = review.IncompleteFailure; return r }(), "P1", "failure", 0},
		{"incomplete and never: still not green", partialP2, "never", "failure", 0},
		{"partial and blocking", func() review.Result { r := withSev(finding.P0); r.Partial = true; return r }(), "P1", "failure", 1},
		{"all failed", failedAll, "never", "failure", 0},
		{"carried", carried(), "P1", "failure", 2},
		{"carried bad conclusion", badCarry, "P1", "failure", 2},
		{"rule 4 without metadata", noCarry, "P1", "failure", 0},
		{"draft", draft, "P1", "skipped", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, blocking := Conclusion(tt.r, tt.failOn)
			if got != tt.want || blocking != tt.wantBlocking {
				t.Errorf("Conclusion = %q, %d; want %q, %d", got, blocking, tt.want, tt.wantBlocking)
			}
		})
	}
}

func TestCommentContract(t *testing.T) {
	r := fullResult()
	body := Comment(r, opts())
	lines := strings.Split(body, "\n")
	if lines[0] != marker.Report {
		t.Fatalf("first line = %q; want the marker", lines[0])
	}
	meta, err := marker.ParseMeta(lines[1])
	if err != nil {
		t.Fatalf("second line: %v", err)
	}
	want := marker.Meta{Version: marker.Version, HeadSHA: headSHA, Verdict: "not-ready", Conclusion: "failure", Blocking: 3, Heads: []string{headSHA}}
	got := meta
	got.Findings = nil
	// The running totals stats reads are tested in cost_test.go.
	got.Reviews, got.Usage, got.ValidatorUsage, got.Resolved = 0, nil, nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("meta = %+v; want %+v", got, want)
	}
	if len(meta.Findings) != len(r.Findings) {
		t.Fatalf("meta records %d findings; want the %d posted", len(meta.Findings), len(r.Findings))
	}
	for i, f := range r.Findings {
		mf := meta.Findings[i]
		if mf.File != f.File || mf.Line != max(f.Line, 1) || mf.Severity != string(f.Severity) || mf.Anchor != f.Confidence ||
			mf.Title != f.Title || mf.Commit != headSHA || mf.Fingerprint != finding.Fingerprint(f) {
			t.Errorf("meta finding %d = %+v; want the posted %+v found on the head", i, mf, f)
		}
	}
	if strings.Contains(lines[1], "@") {
		t.Errorf("the meta line holds a raw @ (a hidden mention): %s", lines[1])
	}
	if got := strings.Count(body, "anchor-review:report"); got != 1 {
		t.Errorf("marker appears %d times; want 1", got)
	}
	if last := lines[len(lines)-2]; last != "**Verdict: Not ready**" {
		t.Errorf("last line = %q; want the verdict", last)
	}
	if strings.Contains(body, "Token may leak") {
		t.Error("a P0 below the comment bar reached the comment")
	}
	// Numbers run 1..N across tables, in order.
	next := 1
	for _, l := range lines {
		if n, ok := strings.CutPrefix(l, "| "); ok && n[0] >= '0' && n[0] <= '9' {
			if want := fmt.Sprintf("%d |", next); !strings.HasPrefix(n, want) {
				t.Errorf("row %q; want number %d", l, next)
			}
			next++
		}
	}
	if next != len(r.Findings)+1 {
		t.Errorf("saw %d numbered rows; want %d", next-1, len(r.Findings))
	}
	for _, link := range []string{
		"[`api/login.go:42`](https://github.com/octo/widgets/blob/" + headSHA + "/api/login.go#L41-L43)",
		"[`store/cache.go:1`](https://github.com/octo/widgets/blob/" + headSHA + "/store/cache.go#L1-L2)",
		"(https://github.com/octo/widgets/blob/" + headSHA + "/store/user%20repo.go#L87-L89)",
		"(https://github.com/octo/widgets/blob/" + headSHA + "/docs/%C3%BC%C3%B1%C3%AD/ok.go#L2-L4)",
	} {
		if !strings.Contains(body, link) {
			t.Errorf("comment lacks permalink %s", link)
		}
	}
	if strings.Count(body, "<details>") != strings.Count(body, "</details>") {
		t.Error("<details> not balanced")
	}
}

func TestCommentVerdicts(t *testing.T) {
	withFindings := func(v review.Verdict, partial bool) review.Result {
		r := successResult()
		r.Verdict, r.Partial = v, partial
		return r
	}
	tests := []struct {
		name        string
		r           review.Result
		wantVerdict string
		wantLines   []string
		notLines    []string
	}{
		{"not ready", fullResult(), "Not ready", nil, []string{incompleteLine, noFindingsLine}},
		{"with fixes", withFindings(review.ReadyWithFixes, false), "Ready with fixes", nil, []string{incompleteLine}},
		{"ready", noFindings(), "Ready to merge", []string{noFindingsLine}, []string{incompleteLine}},
		// Issue 12: an incomplete review never reads "Ready to merge".
		{"degraded no findings", noFindingsPartial(), "Review incomplete", []string{incompleteLine, noFindingsLine}, []string{"Ready to merge"}},
		{"degraded with findings", withFindings(review.Degraded, true), "Review incomplete", []string{incompleteLine}, []string{"Ready to merge", "Ready with fixes"}},
		{"all failed", allFailed(), "Review incomplete", []string{couldNotRun}, []string{noFindingsLine, incompleteLine, "Ready to merge"}},
		{"verdict left empty", withFindings("", false), "Ready with fixes", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := Comment(tt.r, opts())
			if want := "**Verdict: " + tt.wantVerdict + "**\n"; !strings.HasSuffix(body, want) {
				t.Errorf("body ends %q; want %q", body[max(0, len(body)-40):], want)
			}
			for _, l := range tt.wantLines {
				if !strings.Contains(body, l) {
					t.Errorf("body lacks %q", l)
				}
			}
			for _, l := range tt.notLines {
				if strings.Contains(body, l) {
					t.Errorf("body has %q", l)
				}
			}
		})
	}
}

func TestCommentEmpty(t *testing.T) {
	quiet := opts()
	quiet.Quiet = true
	tests := []struct {
		name      string
		r         review.Result
		o         Options
		wantEmpty bool
	}{
		{"skipped", carried(), opts(), true},
		{"quiet without findings", noFindings(), quiet, true},
		{"quiet with findings", fullResult(), quiet, false},
		{"quiet never hides a failed review", allFailed(), quiet, false},
		{"not quiet without findings", noFindings(), opts(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Comment(tt.r, tt.o); (got == "") != tt.wantEmpty {
				t.Errorf("Comment empty = %v; want %v", got == "", tt.wantEmpty)
			}
		})
	}
	if got := JobSummary(noFindings(), quiet); got == "" {
		t.Error("JobSummary is empty with quiet; want the report")
	}
}

func TestCommentLocalDiffHasNoLinks(t *testing.T) {
	r := successResult()
	r.Repo, r.HeadSHA = "", ""
	body := Comment(r, opts())
	if strings.Contains(body, "/blob/") {
		t.Error("a local-diff report links to a blob")
	}
	if !strings.Contains(body, "| `web/handler.go:7` |") {
		t.Errorf("plain file cell missing:\n%s", body)
	}
}

// TestCommentLocalCommitHasNoLinks: `review --base` knows its head commit,
// but no server has it: the report names files without linking them.
func TestCommentLocalCommitHasNoLinks(t *testing.T) {
	o := opts()
	o.Local = true
	body := Comment(successResult(), o)
	if strings.Contains(body, "/blob/") {
		t.Errorf("a local review's report links to a blob:\n%s", body)
	}
}

// TestPathsKeepTheirAt: a path with '@' (an npm scope) is shown exactly as
// written, in code, with no zero-width space; an '@' in model text is
// still defused.
func TestPathsKeepTheirAt(t *testing.T) {
	r := successResult()
	r.Findings[0].File = "packages/@scope/pkg/index.ts"
	r.Findings[0].WhyItMatters = "ask @octocat"
	body := Comment(r, opts())
	if !strings.Contains(body, "[`packages/@scope/pkg/index.ts:") || !strings.Contains(body, "/packages/@scope/pkg/index.ts#L") {
		t.Errorf("the path is not shown and linked as written:\n%s", body)
	}
	if strings.Contains(body, "@\u200bscope") {
		t.Error("a zero-width space was put into the path")
	}
	if !strings.Contains(body, "ask @\u200boctocat") {
		t.Errorf("the mention in model text is live:\n%s", body)
	}
}

func TestCommentTrimsToLimit(t *testing.T) {
	tests := []struct {
		name        string
		n, max      int
		wantDropped bool
	}{
		{"default limit", 3000, 0, true},
		{"coverage only", 40, -1, false}, // -1: just under the full size
		{"tiny limit", 40, 1200, true},
		{"below the structural minimum", 40, 400, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := opts()
			r := huge(tt.n)
			o.MaxLen = tt.max
			if tt.max < 0 {
				o.MaxLen = utf8.RuneCountInString(Comment(r, Options{MaxLen: 1 << 30})) - 10
				tt.max = o.MaxLen
			}
			body := Comment(r, o)
			limit := tt.max
			if limit == 0 {
				limit = DefaultMaxLen
			}
			if got := utf8.RuneCountInString(body); got > limit {
				t.Fatalf("body is %d runes; want <= %d", got, limit)
			}
			if !strings.HasPrefix(body, marker.Report+"\n") {
				t.Error("body does not start with the marker")
			}
			if strings.Count(body, "<details") != strings.Count(body, "</details>") {
				t.Error("<details> not balanced")
			}
			if !strings.Contains(body, "rimmed") {
				t.Error("body does not say it was trimmed")
			}
			dropped := !strings.Contains(body, fmt.Sprintf("Finding number %d**", tt.n))
			if dropped != tt.wantDropped {
				t.Errorf("last finding dropped = %v; want %v", dropped, tt.wantDropped)
			}
			if meta, err := marker.ParseMeta(body); err != nil || meta.Blocking != tt.n/2 {
				t.Errorf("meta = %+v, %v; want blocking %d counted before trimming", meta, err, tt.n/2)
			}
		})
	}
}

func TestCheckAnnotations(t *testing.T) {
	o := opts()
	o.FailOn = "P2"
	c := Check(fullResult(), o)
	if len(c.Annotations) != 5 {
		t.Fatalf("got %d annotations; want 5 (posted findings only)", len(c.Annotations))
	}
	wantLevels := []string{"failure", "failure", "failure", "failure", "warning"}
	for i, a := range c.Annotations {
		if a.Level != wantLevels[i] {
			t.Errorf("annotation %d level = %q; want %q", i, a.Level, wantLevels[i])
		}
		if a.StartLine != a.EndLine || a.StartLine < 1 {
			t.Errorf("annotation %d lines = %d-%d; want one line >= 1", i, a.StartLine, a.EndLine)
		}
		if strings.Contains(a.Message, canary) || strings.Contains(a.Message, "ghp_abc") {
			t.Errorf("annotation %d leaks a secret: %q", i, a.Message)
		}
		if strings.Contains(a.Message, "@octocat") {
			t.Errorf("annotation %d has a live mention", i)
		}
	}
	if c.Title != "4 blocking findings" {
		t.Errorf("title = %q; want %q", c.Title, "4 blocking findings")
	}
	if !strings.Contains(c.Summary, "P0 below the comment bar") || !strings.Contains(c.Summary, "Token may leak") {
		t.Error("check summary lacks the P0 below the comment bar")
	}
	if strings.Contains(c.Summary, marker.Report) {
		t.Error("check summary carries the comment marker")
	}
}

func TestCheckSummaryLimit(t *testing.T) {
	c := Check(huge(3000), opts())
	if got := len(c.Summary); got > CheckSummaryMax {
		t.Errorf("summary is %d bytes; want <= %d", got, CheckSummaryMax)
	}
	if len(c.Annotations) != 3000 {
		t.Errorf("got %d annotations; want 3000 (the client batches them)", len(c.Annotations))
	}
}

// TestCheckSummaryLimitInBytes (issue 12): GitHub counts a check run's
// summary in BYTES; a review written in CJK or emoji is three or four bytes
// a character, so a rune-counted summary drew a 422 and no check at all.
func TestCheckSummaryLimitInBytes(t *testing.T) {
	for name, text := range map[string]string{"CJK": "空指针解引用导致崩溃。", "emoji": "🔥💥🧨🚨"} {
		t.Run(name, func(t *testing.T) {
			r := huge(400)
			for i := range r.Findings {
				r.Findings[i].Title = strings.Repeat(text, 3)
				r.Findings[i].WhyItMatters = strings.Repeat(text, 40)
			}
			c := Check(r, opts())
			if got := len(c.Summary); got > CheckSummaryMax {
				t.Errorf("summary is %d bytes; want <= %d", got, CheckSummaryMax)
			}
			if !utf8.ValidString(c.Summary) {
				t.Error("summary was cut inside a character")
			}
			if utf8.RuneCountInString(c.Summary) < CheckSummaryMax/8 {
				t.Errorf("summary kept only %d characters; the byte budget was wasted", utf8.RuneCountInString(c.Summary))
			}
		})
	}
	long := strings.Repeat("界", 30_000) // 90,000 bytes, 30,000 characters
	if got := TruncateBytes(long, CheckSummaryMax); len(got) > CheckSummaryMax || !utf8.ValidString(got) {
		t.Errorf("TruncateBytes: %d bytes, valid %t; want <= %d and valid UTF-8", len(got), utf8.ValidString(got), CheckSummaryMax)
	}
}

func TestFmtInt(t *testing.T) {
	for in, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 123456: "123,456", 1234567: "1,234,567", -4321: "-4,321"} {
		if got := fmtInt(in); got != want {
			t.Errorf("fmtInt(%d) = %q; want %q", in, got, want)
		}
	}
}

func BenchmarkComment3000(b *testing.B) {
	r := huge(3000)
	o := opts()
	b.ReportAllocs()
	for b.Loop() {
		Comment(r, o)
	}
}

func BenchmarkCheck3000(b *testing.B) {
	r := huge(3000)
	o := opts()
	b.ReportAllocs()
	for b.Loop() {
		Check(r, o)
	}
}

// FuzzComment feeds hostile model text through the whole comment and checks
// what must hold whatever a model writes.
func FuzzComment(f *testing.F) {
	f.Add("Nil map write", "Callers panic.", "correctness", 600)
	f.Add("<!-- anchor-review:report -->", "@octocat "+canary, "x|y", 300)
	f.Add("[a](https://evil.example)", "![i](https://evil.example/i.png) <details>", "@org/team", 2000)
	f.Fuzz(func(t *testing.T, title, why, reviewer string, maxLen int) {
		r := fullResult()
		for i := range r.Findings {
			r.Findings[i].Title = title
			r.Findings[i].WhyItMatters = why
			r.Findings[i].Reviewers = []string{reviewer}
		}
		r.Coverage.Rejections[0].Reason = why
		o := opts()
		o.MaxLen = 200 + abs(maxLen)%20000
		body := Comment(r, o)
		if n := utf8.RuneCountInString(body); n > o.MaxLen {
			t.Fatalf("body is %d runes; want <= %d", n, o.MaxLen)
		}
		if !strings.HasPrefix(body, marker.Report+"\n") {
			t.Fatalf("body does not start with the marker line")
		}
		if n := strings.Count(strings.ToLower(body), "anchor-review:report"); n != 1 {
			t.Fatalf("marker appears %d times; want 1", n)
		}
		if strings.Contains(body, canary) {
			t.Fatal("body leaks the planted secret")
		}
		if liveMention.MatchString(body) {
			t.Fatalf("live mention in %q", body)
		}
		if strings.Count(body, "<details") != strings.Count(body, "</details>") {
			t.Fatal("<details> not balanced")
		}
		// The meta line survives trimming whenever the marker and meta lines
		// fit the limit with room for a line of report (meta v2 records
		// the posted findings, so at tiny limits it cannot).
		full := o
		full.MaxLen = 1 << 30
		head := strings.SplitAfterN(Comment(r, full), "\n", 3)
		if utf8.RuneCountInString(head[0]+head[1])+200 <= o.MaxLen {
			if _, err := marker.ParseMeta(body); err != nil {
				t.Fatalf("meta: %v (limit %d, meta line %d runes)", err, o.MaxLen, utf8.RuneCountInString(head[1]))
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestNotesDroppedCount: Coverage says how many testing gaps and residual
// risks the review dropped as repeats or over its cap, and says nothing
// when none were.
func TestNotesDroppedCount(t *testing.T) {
	t.Parallel()
	r := fullResult()
	body := Comment(r, Options{})
	if strings.Contains(body, "not shown.)") {
		t.Errorf("a report with no dropped notes mentions dropped notes:\n%s", body)
	}
	r.Coverage.TestingGapsDropped, r.Coverage.ResidualRisksDropped = 49, 3
	body = Comment(r, Options{})
	for _, want := range []string{
		"- No test for the lockout path.\n\n(49 repeated or over the cap of 20 not shown.)",
		"- Rate limiting is untested.\n\n(3 repeated or over the cap of 20 not shown.)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the comment lacks %q:\n%s", want, body)
		}
	}
}

func TestVersionInCoverage(t *testing.T) {
	t.Parallel()
	if body := Comment(fullResult(), Options{}); strings.Contains(body, "Reviewed by:") {
		t.Errorf("a report without Options.Version names a version:\n%s", body)
	}
	body := Comment(fullResult(), Options{Version: "v1.4.0"})
	if !strings.Contains(body, "**Reviewed by:** anchor-review v1.4.0.") {
		t.Errorf("the comment does not name the version:\n%s", body)
	}
}
