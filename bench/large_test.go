package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// Size of the large PR (SPEC section 6).
const (
	largeFiles = 3000
	largeLines = 100_000
)

// codeLines are the added Go lines the generator cycles through (# is
// replaced by the line's index): ordinary
// service code, with the loops, queries, HTTP calls and error handling
// that make the conditional personas select on a real PR.
var codeLines = []string{
	"\tfor _, item := range items {",
	"\t\tif err := s.store.Save(ctx, item); err != nil {",
	"\t\t\treturn fmt.Errorf(\"save item %d: %w\", item.ID, err)",
	"\t\t}",
	"\t}",
	"\trows, err := s.db.QueryContext(ctx, \"SELECT id, name FROM users WHERE org = $1\", org)",
	"\tresp, err := s.client.Do(req.WithContext(ctx))",
	"\tdefer resp.Body.Close()",
	"\ttotal += len(batch) * weight#",
	"\tlog.Printf(\"processed %d records in %s\", n, time.Since(start))",
	"\tcache[key#] = value",
	"\treturn result, nil",
}

// genDiff writes a unified diff of files files with lines changed lines in
// total (added plus deleted): modified Go files with two hunks each, and
// among them tests, docs and lock files, as a large refactoring PR has.
func genDiff(files, lines int) string {
	var b strings.Builder
	b.Grow(lines * 60)
	per, extra := lines/files, lines%files
	for i := range files {
		changed := per
		if i < extra {
			changed++
		}
		var p string
		switch {
		case i%10 == 0:
			p = fmt.Sprintf("internal/mod%03d/sub%d/file%d_test.go", i%97, i%7, i)
		case i%25 == 1:
			p = fmt.Sprintf("docs/guide/page%d.md", i)
		case i%150 == 2:
			p = fmt.Sprintf("web/app%d/package-lock.json", i)
		default:
			p = fmt.Sprintf("internal/mod%03d/sub%d/file%d.go", i%97, i%7, i)
		}
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n", p, p, p, p)
		// Two hunks; a quarter of the changed lines deleted.
		first := changed / 2
		for h, n := range []int{first, changed - first} {
			del := n / 4
			add := n - del
			start := 10 + h*200
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@ func handler%d(ctx context.Context) error {\n", start, del+6, start, add+6, h)
			b.WriteString(" \tstart := time.Now()\n \tvar total int\n \tn := 0\n")
			for k := range del {
				fmt.Fprintf(&b, "-\told%d := legacy(ctx, %d)\n", k, i)
			}
			for k := range add {
				b.WriteString("+" + strings.ReplaceAll(codeLines[(i+k)%len(codeLines)], "#", strconv.Itoa(k)) + "\n")
			}
			b.WriteString(" \t_ = total\n \t_ = n\n \treturn nil\n")
		}
	}
	return b.String()
}

// instantModel is an in-process llm.Completer that answers at once: each
// persona call with a fixed set of findings, each validator call with a
// confirmation. It counts the calls of each kind.
type instantModel struct {
	answers             map[string][]byte
	persona, validation atomic.Int64
}

// newInstantModel scripts perPersona findings for every persona on added
// lines of d's executable files: distinct titles per persona, anchors 50,
// 75 and 100, severities P0..P3.
func newInstantModel(tb testing.TB, team []persona.Persona, d *diff.Diff, perPersona int) *instantModel {
	tb.Helper()
	type spot struct {
		file string
		line int
	}
	var spots []spot
	for _, f := range d.Files {
		if !scope.Executable(f.Path()) {
			continue
		}
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Kind == diff.Add {
					spots = append(spots, spot{f.Path(), l.NewNo})
				}
			}
		}
	}
	m := &instantModel{answers: map[string][]byte{}}
	for k, p := range team {
		a := finding.Answer{Reviewer: p.Name, ResidualRisks: []string{}, TestingGaps: []string{"no test for the new batch path"}}
		for j := range perPersona {
			sp := spots[(k*perPersona*13+j*101)%len(spots)]
			a.Findings = append(a.Findings, finding.Finding{
				Title:        fmt.Sprintf("%s: unchecked result of call %d", p.Name, j),
				Severity:     []finding.Severity{finding.P0, finding.P1, finding.P2, finding.P3}[j%4],
				File:         sp.file,
				Line:         sp.line,
				WhyItMatters: "A failure here is silently ignored, so callers see partial data as complete.",
				AutofixClass: "manual", Owner: "human", RequiresVerification: true,
				Confidence: []int{50, 75, 100}[j%3],
				Evidence:   []string{fmt.Sprintf("%s:%d", sp.file, sp.line)},
			})
		}
		b, err := json.Marshal(a)
		if err != nil {
			tb.Fatal(err)
		}
		m.answers[p.Name] = b
	}
	return m
}

// Complete implements llm.Completer.
func (m *instantModel) Complete(_ context.Context, r llm.Request) (llm.Response, error) {
	if r.Persona == llm.Validator {
		m.validation.Add(1)
		return llm.Response{JSON: []byte(`{"validated":true,"reason":"confirmed"}`), Attempts: 1}, nil
	}
	m.persona.Add(1)
	if a, ok := m.answers[r.Persona]; ok {
		return llm.Response{JSON: a, Attempts: 1}, nil
	}
	return llm.Response{}, fmt.Errorf("no answer for persona %q", r.Persona)
}

// heapPeak samples the heap's live-object bytes every millisecond until
// stopped, and returns the highest value seen.
type heapPeak struct {
	stop chan struct{}
	done chan uint64
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{}), done: make(chan uint64)}
	go func() {
		s := []metrics.Sample{{Name: heapMetric}}
		var peak uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-h.stop:
				h.done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return h
}

// Stop ends sampling and returns the peak in bytes.
func (h *heapPeak) Stop() uint64 {
	close(h.stop)
	return <-h.done
}

// headFile stands in for every head file of the large PR.
var headFile = "package mod\n" + strings.Repeat("// generated line\n", 2000)

// largeRun is one run of the large PR through everything but the model:
// parse, scope, select, chunk, prompt building for every persona call,
// synthesis, validation bookkeeping and rendering the comment.
func largeRun(tb testing.TB, text []byte, team []persona.Persona, model llm.Completer) (review.Result, string) {
	tb.Helper()
	d, err := diff.Parse(text)
	if err != nil {
		tb.Fatalf("parse: %v", err)
	}
	rv := review.Reviewer{Model: model, Personas: team}
	// Head files long enough for every finding's line: the validator
	// stage drops a finding past the end of its file without a call.
	// No repository configuration, standards files or .gitattributes:
	// the head reader also serves those for a local diff.
	head := func(_ context.Context, p string) (string, bool, error) {
		switch path.Base(p) {
		case "AGENTS.md", "CLAUDE.md", ".gitattributes":
			return "", false, nil
		}
		if p == repoconfig.Path {
			return "", false, nil
		}
		return headFile, true, nil
	}
	res, err := rv.ReviewDiff(context.Background(), review.Options{
		Owner: owner, Repo: repo, Mode: review.ModeComment, Validate: true,
		Model: "gpt-4.1-mini", MaxValidations: -1, MaxConcurrency: 8, MaxLLMCalls: 60,
	}, d, "Refactor every service onto the batch store", "Mechanical change across the tree.", head)
	if err != nil {
		tb.Fatalf("ReviewDiff: %v", err)
	}
	body := report.Comment(res, report.Options{ServerURL: "https://github.com", Repo: owner + "/" + repo, HeadSHA: strings.Repeat("a", 40), FailOn: "P1"})
	return res, body
}

// BenchmarkLargePR pushes a 3,000-file, 100,000-changed-line PR through the
// pipeline.
//
// pipeline: an in-process model that answers instantly with 80 findings
// per persona call, so the figures are the pipeline's own: ns/op, B/op,
// allocs/op, peak-heap-MB (highest live heap sampled every ms, after a GC
// before the run), findings-in (synthesis input), llm-calls (against
// max-llm-calls 60).
//
// llm-calls: the real model client against the fake model server, which
// answers every persona with no findings: the calls a full run makes
// (llm-calls), how many chunks each persona reviewed (chunks) of those the
// whole diff needs at the default input budget (chunks-needed), and the
// files left unreviewed by the budget (files-not-reviewed).
func BenchmarkLargePR(b *testing.B) {
	text := []byte(genDiff(largeFiles, largeLines))
	team, err := persona.Load()
	if err != nil {
		b.Fatal(err)
	}
	d, err := diff.Parse(text)
	if err != nil {
		b.Fatal(err)
	}
	needed := chunksNeeded(b, d)
	b.Logf("large PR: %d files, %d bytes of diff, %d chunks at the default input budget", len(d.Files), len(text), needed)

	b.Run("pipeline", func(b *testing.B) {
		const perPersona = 80
		var peak uint64
		var res review.Result
		var model *instantModel
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			model = newInstantModel(b, team, d, perPersona)
			runtime.GC()
			h := startHeapPeak()
			b.StartTimer()
			res, _ = largeRun(b, text, team, model)
			b.StopTimer()
			peak = max(peak, h.Stop())
			b.StartTimer()
		}
		calls := model.persona.Load() + model.validation.Load()
		if calls > 60 {
			b.Fatalf("got %d model calls; want at most 60", calls)
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(model.persona.Load()*perPersona), "findings-in")
		b.ReportMetric(float64(calls), "llm-calls")
		b.ReportMetric(float64(len(res.Findings)), "findings-posted")
	})

	b.Run("llm-calls", func(b *testing.B) {
		var res review.Result
		var requests int
		for b.Loop() {
			srv := llmtest.New()
			res, _ = largeRun(b, text, team, newModel(b, srv))
			requests = len(srv.Requests())
			if v := srv.Violations(); len(v) > 0 {
				b.Fatalf("protocol violations: %v", v[:1])
			}
			srv.Close()
		}
		notReviewed := 0
		for _, e := range res.Coverage.NotReviewed {
			if strings.HasPrefix(e.Reason, "over the budget") {
				notReviewed++
			}
		}
		chunks := 0
		for _, p := range res.Coverage.Personas {
			chunks = max(chunks, p.Calls)
		}
		b.ReportMetric(float64(requests), "llm-calls")
		b.ReportMetric(float64(len(res.Coverage.Personas)), "personas")
		b.ReportMetric(float64(chunks), "chunks")
		b.ReportMetric(float64(needed), "chunks-needed")
		b.ReportMetric(float64(notReviewed), "files-not-reviewed")
	})
}

// chunksNeeded is how many persona calls per persona the whole diff would
// need at the default max-input-tokens (the fixed parts of every persona's
// request taken off), before max-llm-calls cuts it down.
func chunksNeeded(tb testing.TB, d *diff.Diff) int {
	tb.Helper()
	sc, err := scope.Apply(d, nil)
	if err != nil {
		tb.Fatal(err)
	}
	all, err := persona.Load()
	if err != nil {
		tb.Fatal(err)
	}
	c := prompt.Context{Files: sc.Files}
	parts, _ := prompt.Fit(c, review.DefaultMaxInputTokens-prompt.FixedTokens(c, all, true))
	return len(parts)
}
