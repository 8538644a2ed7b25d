package bench

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/inline"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/stats"
)

const statsBot = "github-actions[bot]"

// statsRepo is a fake repository of n pull requests as a busy team's would
// look after a month with anchor-review: every PR reviewed, a third of
// them re-reviewed after a push that fixed one finding (so their reports
// carry the running totals of two reviews and a resolved finding), two
// inline comments per PR with reactions on some, a human comment on each,
// half of them merged. The reports are rendered by the report stage from
// realistic results (eight personas, the validator, two findings).
func statsRepo(tb testing.TB, n int) *githubtest.Server {
	tb.Helper()
	gh := githubtest.New()
	team := persona.Names()[:8]
	for i := 1; i <= n; i++ {
		head := fmt.Sprintf("%040x", 0xabc0000+i)
		gh.AddPR(githubtest.PR{Number: i, HeadSHA: head, State: map[bool]string{true: "closed", false: "open"}[i%2 == 0], Merged: i%2 == 0})
		res := review.Result{Repo: "octocat/Hello-World", HeadSHA: head, Verdict: review.NotReady, Coverage: review.Coverage{ValidatorRan: true, ValidatorModel: "gpt-4.1-mini"}}
		for _, p := range team {
			u := review.Usage{Calls: 1, PromptTokens: 12_000, CachedTokens: 9_000, CompletionTokens: 700}
			res.Coverage.Personas = append(res.Coverage.Personas, review.PersonaRun{Name: p, Model: "gpt-4.1-mini", Calls: 1, Usage: u})
			res.Coverage.Usage.Calls += 1
			res.Coverage.Usage.PromptTokens += u.PromptTokens
			res.Coverage.Usage.CachedTokens += u.CachedTokens
			res.Coverage.Usage.CompletionTokens += u.CompletionTokens
		}
		res.Coverage.Usage.Calls += 2
		res.Coverage.Usage.PromptTokens += 6_000
		fs := []finding.Finding{
			{Title: fmt.Sprintf("Loop %d reads past n", i), Severity: finding.P1, File: "a.go", Line: 3, Confidence: 100, Reviewers: []string{team[0]}, Number: 1},
			{Title: fmt.Sprintf("Handler %d has no timeout", i), Severity: finding.P2, File: "b.go", Line: 9, Confidence: 75, Reviewers: []string{team[i%8]}, Number: 2},
		}
		fps := map[int]string{}
		for _, f := range fs {
			fps[f.Number] = inline.Fingerprint(f.File, f.Title, "line")
			id := gh.AddLineComment(i, statsBot, f.File, f.Line, 0, inline.RenderComment(f, fps[f.Number], nil, report.Options{}))
			switch i % 5 {
			case 1:
				gh.React(id, "+1")
			case 2:
				gh.React(id, "-1")
			}
		}
		res.Findings = fs
		ro := report.Options{Inline: &report.InlineStatus{Fingerprints: fps}}
		if i%3 == 0 {
			// A first review at an older head, then the re-review after a
			// push that fixed the first finding.
			first := res
			first.HeadSHA = fmt.Sprintf("%040x", 0xdef0000+i)
			prev, err := marker.ParseReport(report.Comment(first, report.Options{HeadSHA: first.HeadSHA, Inline: ro.Inline}))
			if err != nil {
				tb.Fatal(err)
			}
			res.Findings = fs[1:]
			res.Findings[0].FoundOn = first.HeadSHA
			res.Rereview = &review.Rereview{Incremental: true, From: first.HeadSHA, To: head, Heads: []string{first.HeadSHA, head}, Previous: &prev}
		}
		gh.AddComment(i, "octodev", "Thanks, fixed in the next push.")
		gh.AddReport(i, statsBot, report.Comment(res, ro))
	}
	return gh
}

// collectStats runs stats over gh through the real client and returns the
// report and the requests it took.
func collectStats(tb testing.TB, gh *githubtest.Server, progress func(string, ...any)) (*stats.Report, int) {
	tb.Helper()
	c, err := github.New(gh.HTTPClient(), gh.URL, "ghs_bench")
	if err != nil {
		tb.Fatal(err)
	}
	r, err := stats.Collect(context.Background(), c, stats.Options{
		Repos: []string{"octocat/Hello-World"}, BotLogin: statsBot,
		Since: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC),
		Progress: progress,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return r, c.Requests()
}

// TestStatsRepo checks the benchmark's repository reads back as built.
func TestStatsRepo(t *testing.T) {
	t.Parallel()
	gh := statsRepo(t, 30)
	defer gh.Close()
	r, requests := collectStats(t, gh, nil)
	tot := r.Totals
	// 30 PRs: 10 re-reviewed (one finding acted on each), 40 reviews.
	if tot.Reviewed != 30 || tot.Reviews != 40 || tot.Posted != 60 || tot.ActedOn != 10 || tot.Cost == nil || !tot.CostComplete {
		t.Errorf("totals %+v", tot)
	}
	if requests != 3+30 {
		t.Errorf("%d requests for 30 PRs; want 33 (a page each of PRs, issue comments, review comments, and the check runs of each PR's head: is its report ours)", requests)
	}
}

// BenchmarkStats2000 reads a fake repository of 2,000 reviewed pull
// requests: requests, time and memory of one `anchor-review stats`. The
// fake answers in process, so the time is stats' own work plus the fake's;
// against api.github.com each request adds its latency. peak-MiB is the
// most heap stats holds while it reads (sampled, after a collection, at
// each progress line), above what the fake itself holds.
func BenchmarkStats2000(b *testing.B) {
	gh := statsRepo(b, 2000)
	defer gh.Close()
	b.ReportAllocs()
	var requests int
	for b.Loop() {
		var r *stats.Report
		r, requests = collectStats(b, gh, nil)
		if r.Totals.Reviewed != 2000 {
			b.Fatalf("%d reviewed; want 2000", r.Totals.Reviewed)
		}
	}
	b.StopTimer()
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base := heap()
	var peak uint64
	collectStats(b, gh, func(string, ...any) { peak = max(peak, heap()) })
	b.ReportMetric(float64(requests), "requests/op")
	b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-MiB")
}
