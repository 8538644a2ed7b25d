package synth

import (
	"slices"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// The code of the pairs below: the lines the real findings quote, at the
// line numbers they had.
var (
	// go-chi middleware/wrap_writer.go, the tee branch of ReadFrom (line 115).
	chiWrapWriter = modified("middleware/wrap_writer.go", 112,
		"func (f *httpFancyWriter) ReadFrom(r io.Reader) (int64, error) {",
		"\tif f.basicWriter.tee != nil {",
		"\t\tn, err := io.Copy(&f.basicWriter, r)",
		"+\t\tf.basicWriter.bytes += int(n)",
		"\t\treturn n, err",
		"\t}",
	)
	chiWrapWriterTest = modified("middleware/wrap_writer_test.go", 38,
		"\tn, _ := w.ReadFrom(strings.NewReader(\"hello\"))",
		"+\tif w.BytesWritten() != 10 {",
		"+\t\tt.Fatalf(\"got %d bytes\", w.BytesWritten())",
		"\t}",
	)
	// p-queue source/index.ts, the per-task options of add() (line 239) and
	// the new clear() two lines below it.
	pQueue = modified("source/index.ts", 237,
		"\tasync add(function_, options = {}) {",
		"+\t\tconst throwOnTimeout = options.throwOnTimout ?? this.#throwOnTimeout;",
		"+\t\tconst timeout = options.timeout ?? this.timeout;",
		"+\tclear() {",
		"+\t\tthis.#queue = new this.#queueClass();",
		"\t}",
	)
	// golang.org/x/net http2/server.go (the recorded go-xnet case, line 927).
	xnetServer = modified("http2/server.go", 925,
		"\tsc.setConnState(http.StateActive)",
		"+\tif sc.srv.IdleTimeout != 0 {",
		"\t\tsc.idleTimer = time.AfterFunc(sc.srv.IdleTimeout, sc.onIdleTimer)",
		"\t}",
	)
	// follow-redirects index.js (the recorded case, line 464).
	followRedirects = modified("index.js", 461,
		"\tif (redirectUrl.protocol !== \"https:\" ||",
		"\t\tredirectUrl.host !== currentHost && !isSubdomain(redirectUrl.host, currentHost)) {",
		"-\t\tremoveMatchingHeaders(/^(?:(?:proxy-)?authorization|cookie)$/i, this._options.headers);",
		"+\t\tremoveMatchingHeaders(/^(?:authorization|cookie)$/i, this._options.headers);",
		"\t}",
	)
)

func why(s string) func(*finding.Finding) { return func(f *finding.Finding) { f.WhyItMatters = s } }

// testGap is the testing persona's usual answer: P2, anchor 75, "manual"
// (models rarely say advisory).
func testGap(title, file string, line int, mods ...func(*finding.Finding)) finding.Finding {
	return fnd(title, file, line, finding.P2, 75, mods...)
}

// TestFold runs realistic pairs through Synthesize in comment mode: the
// issue's two examples and two pairs from the recorded real-model answers
// (fixtures/eval/real/*/recorded) must fold; a test gap for another
// function and a defect in a test file must stay apart.
func TestFold(t *testing.T) {
	tests := []struct {
		name    string
		files   []*diff.File
		results []PersonaResult
		// fold: the defect (by title) that carries the folded gap, or ""
		// when nothing folds.
		fold string
		// posted are the titles that pass the gate, in report order.
		posted []string
	}{
		{
			name:  "go-chi double count: defect and test gap on line 115",
			files: []*diff.File{chiWrapWriter},
			results: []PersonaResult{
				res("correctness", fnd("Tee branch of ReadFrom counts bytes again", "middleware/wrap_writer.go", 115, finding.P1, 100,
					why("io.Copy into basicWriter already counts every byte through Write; adding n again doubles BytesWritten for every tee'd ReadFrom."),
					evidence("f.basicWriter.bytes += int(n)"))),
				res("testing", testGap("Tee ReadFrom fix has no test; BytesWritten double-count goes uncaught", "middleware/wrap_writer.go", 115,
					why("No test calls ReadFrom with a tee set and checks BytesWritten, so the double count ships unnoticed."),
					evidence("f.basicWriter.bytes += int(n)"))),
			},
			fold:   "Tee branch of ReadFrom counts bytes again",
			posted: []string{"Tee branch of ReadFrom counts bytes again"},
		},
		{
			name:  "p-queue throwOnTimout typo: defect and test gap on line 239",
			files: []*diff.File{pQueue},
			results: []PersonaResult{
				res("correctness", fnd("Per-task throwOnTimeout is read from a misspelled key", "source/index.ts", 238, finding.P1, 100,
					why("options.throwOnTimout is never set by callers (the option is throwOnTimeout), so a per-task throwOnTimeout is ignored and the queue-wide value always wins."),
					evidence("const throwOnTimeout = options.throwOnTimout ?? this.#throwOnTimeout;"))),
				res("testing", testGap("Per-task timeout options ship without tests", "source/index.ts", 239,
					why("No test adds a task with its own timeout or throwOnTimeout, so the misspelled key is not caught."),
					evidence("const timeout = options.timeout ?? this.timeout;"))),
			},
			fold:   "Per-task throwOnTimeout is read from a misspelled key",
			posted: []string{"Per-task throwOnTimeout is read from a misspelled key"},
		},
		{
			name:  "recorded go-xnet negative timeouts (line 927)",
			files: []*diff.File{xnetServer},
			results: []PersonaResult{
				res("correctness", fnd("Negative IdleTimeout now arms an idle timer that fires immediately", "http2/server.go", 927, finding.P1, 75,
					why("A negative IdleTimeout was documented as 'no timeout'. With `!= 0` a negative value now reaches time.AfterFunc, whose timer fires immediately, so onIdleTimer runs as soon as each connection starts serving."),
					evidence("http2/server.go:927: if sc.srv.IdleTimeout != 0 {"))),
				res("testing", testGap("No test covers negative Idle/Read/WriteTimeout after guards changed to != 0", "http2/server.go", 927,
					why("The diff changes every timeout guard from `> 0` to `!= 0`, so negative IdleTimeout, ReadTimeout and WriteTimeout values now arm time.AfterFunc timers. The diff adds no test that serves a request with a negative timeout."),
					evidence("http2/server.go:927: if sc.srv.IdleTimeout != 0 {"))),
			},
			fold:   "Negative IdleTimeout now arms an idle timer that fires immediately",
			posted: []string{"Negative IdleTimeout now arms an idle timer that fires immediately"},
		},
		{
			name:  "recorded follow-redirects Proxy-Authorization leak (line 464)",
			files: []*diff.File{followRedirects},
			results: []PersonaResult{
				res("security", fnd("Proxy-Authorization no longer stripped on cross-host redirects, leaking proxy credentials", "index.js", 464, finding.P1, 100,
					why("The pattern no longer matches Proxy-Authorization, so when a response redirects to a different host the caller's proxy credentials are sent with the follow-up request to the new host."),
					evidence("index.js:464: removeMatchingHeaders(/^(?:authorization|cookie)$/i, this._options.headers);"))),
				res("testing", testGap("Narrowed cross-host header stripping has no test for Proxy-Authorization", "index.js", 464,
					why("The diff narrows the set of credential headers removed on cross-host redirects, but it adds or changes no test for either side of this behaviour."),
					evidence("index.js:464: removeMatchingHeaders(/^(?:authorization|cookie)$/i, this._options.headers);"))),
			},
			fold:   "Proxy-Authorization no longer stripped on cross-host redirects, leaking proxy credentials",
			posted: []string{"Proxy-Authorization no longer stripped on cross-host redirects, leaking proxy credentials"},
		},
		{
			name:  "a test gap for another function two lines away stays apart",
			files: []*diff.File{pQueue},
			results: []PersonaResult{
				res("correctness", fnd("Per-task throwOnTimeout is read from a misspelled key", "source/index.ts", 238, finding.P1, 100,
					why("options.throwOnTimout is never set by callers, so a per-task throwOnTimeout is ignored."),
					evidence("const throwOnTimeout = options.throwOnTimout ?? this.#throwOnTimeout;"))),
				// P1: demotion would drop a P2 gap whether it folded or not.
				res("testing", fnd("No test for the new clear() method", "source/index.ts", 240, finding.P1, 75,
					why("clear() replaces the queue, but nothing checks that pending tasks are dropped and that size reads 0 afterwards."),
					evidence("clear() {"))),
			},
			posted: []string{"Per-task throwOnTimeout is read from a misspelled key", "No test for the new clear() method"},
		},
		{
			name:  "a defect in a test file is no test gap",
			files: []*diff.File{chiWrapWriter, chiWrapWriterTest},
			results: []PersonaResult{
				res("correctness", fnd("Tee branch of ReadFrom counts bytes again", "middleware/wrap_writer.go", 115, finding.P1, 100,
					why("io.Copy into basicWriter already counts every byte; adding n again doubles BytesWritten."),
					evidence("f.basicWriter.bytes += int(n)"))),
				res("testing", fnd("Test expects the doubled BytesWritten count", "middleware/wrap_writer_test.go", 39, finding.P1, 100,
					why("The test pins 10 bytes for a 5-byte ReadFrom: it asserts the double count as correct, so fixing ReadFrom fails it."),
					evidence("if w.BytesWritten() != 10 {"))),
			},
			posted: []string{"Tee branch of ReadFrom counts bytes again", "Test expects the doubled BytesWritten count"},
		},
		{
			name:  "a test gap in another file of the window's lines stays apart",
			files: []*diff.File{chiWrapWriter, pQueue},
			results: []PersonaResult{
				res("correctness", fnd("Tee branch of ReadFrom counts bytes again", "middleware/wrap_writer.go", 115, finding.P1, 100,
					why("adding n again doubles BytesWritten"), evidence("f.basicWriter.bytes += int(n)"))),
				res("testing", fnd("ReadFrom byte count of the tee branch has no test", "source/index.ts", 239, finding.P1, 75,
					why("nothing checks BytesWritten after a tee'd ReadFrom"), evidence("const timeout = options.timeout ?? this.timeout;"))),
			},
			posted: []string{"Tee branch of ReadFrom counts bytes again", "ReadFrom byte count of the tee branch has no test"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Synthesize(Input{Files: tt.files, Results: tt.results, Mode: ModeComment})
			var titles []string
			for _, f := range out.Gated {
				titles = append(titles, f.Title)
			}
			if !slices.Equal(titles, tt.posted) {
				t.Fatalf("posted %q; want %q (drops %v)", titles, tt.posted, out.DroppedByReason)
			}
			wantFolded := 0
			if tt.fold != "" {
				wantFolded = 1
			}
			if out.Folded != wantFolded || out.DroppedByReason[ReasonFolded] != wantFolded {
				t.Errorf("folded %d (counted %d); want %d", out.Folded, out.DroppedByReason[ReasonFolded], wantFolded)
			}
			for _, f := range out.Gated {
				switch {
				case f.Title == tt.fold:
					gap := tt.results[1].Answer.Findings[0]
					if f.TestGap == nil || f.TestGap.Title != gap.Title || !slices.Equal(f.TestGap.Reviewers, []string{"testing"}) {
						t.Errorf("%q carries test gap %+v; want %q by testing", f.Title, f.TestGap, gap.Title)
					}
					// Folding is not promotion: the defect is what its own
					// reviewers said it was.
					def := tt.results[0].Answer.Findings[0]
					if f.Promoted || f.Confidence != def.Confidence || !slices.Equal(f.Reviewers, []string{tt.results[0].Persona}) {
						t.Errorf("defect anchor %d promoted %v reviewers %v; want %d, not promoted, %s alone",
							f.Confidence, f.Promoted, f.Reviewers, def.Confidence, tt.results[0].Persona)
					}
				case f.TestGap != nil:
					t.Errorf("%q carries test gap %q; want none", f.Title, f.TestGap.Title)
				}
			}
		})
	}
}

// TestFoldBeforeDemotion: in report-only mode a folded test gap does not
// also show up among the demoted findings, and one that folds nowhere does
// (P2, only testing, "manual").
func TestFoldBeforeDemotion(t *testing.T) {
	in := Input{Files: []*diff.File{pQueue}, Mode: ModeReportOnly, Results: []PersonaResult{
		res("correctness", fnd("Per-task throwOnTimeout is read from a misspelled key", "source/index.ts", 238, finding.P1, 100,
			evidence("const throwOnTimeout = options.throwOnTimout ?? this.#throwOnTimeout;"))),
		res("testing",
			testGap("Per-task timeout options ship without tests", "source/index.ts", 239, evidence("const timeout = options.timeout ?? this.timeout;")),
			testGap("No test for the new clear() method", "source/index.ts", 240, evidence("clear() {"))),
	}}
	out := Synthesize(in)
	if len(out.Gated) != 1 || out.Gated[0].TestGap == nil || out.Folded != 1 {
		t.Fatalf("gated %d, folded %d; want the defect with its test gap", len(out.Gated), out.Folded)
	}
	if len(out.Demoted) != 1 || out.Demoted[0].Title != "No test for the new clear() method" {
		t.Errorf("demoted %v; want only the clear() gap", out.Demoted)
	}
}

// TestFoldOrderFree: the fold does not depend on the order the answers
// arrived in, and two gaps on one defect make one line naming both
// personas.
func TestFoldOrderFree(t *testing.T) {
	defect := res("correctness", fnd("Tee branch of ReadFrom counts bytes again", "middleware/wrap_writer.go", 115, finding.P1, 100,
		evidence("f.basicWriter.bytes += int(n)")))
	gapT := res("testing", testGap("Tee ReadFrom fix has no test; BytesWritten double-count goes uncaught", "middleware/wrap_writer.go", 115,
		evidence("f.basicWriter.bytes += int(n)")))
	gapM := res("maintainability", testGap("ReadFrom tee byte counting is untested", "middleware/wrap_writer.go", 116,
		evidence("return n, err")))
	a := Synthesize(Input{Files: []*diff.File{chiWrapWriter}, Results: []PersonaResult{defect, gapT, gapM}})
	b := Synthesize(Input{Files: []*diff.File{chiWrapWriter}, Results: []PersonaResult{gapM, gapT, defect}})
	if len(a.Gated) != 1 || len(b.Gated) != 1 {
		t.Fatalf("gated %d and %d; want the defect alone", len(a.Gated), len(b.Gated))
	}
	ga, gb := a.Gated[0].TestGap, b.Gated[0].TestGap
	if ga == nil || gb == nil || ga.Title != gb.Title || !slices.Equal(ga.Reviewers, gb.Reviewers) {
		t.Fatalf("test gaps %+v and %+v; want the same whatever the order", ga, gb)
	}
	if !slices.Equal(ga.Reviewers, []string{"maintainability", "testing"}) || a.Folded+a.DroppedByReason[ReasonDuplicate] != 2 {
		t.Errorf("test gap by %v, folded %d, duplicates %d; want both gaps on the one line", ga.Reviewers, a.Folded, a.DroppedByReason[ReasonDuplicate])
	}
}

// TestFoldNeverLosesASevereFinding: a finding is a test gap by its words
// ("test" in the title), and the PR's author names the code those words
// come from (an X-Test-Mode header). Folded into a weaker finding nearby,
// it would share that finding's fate: dropped below the bar, or demoted
// as maintainability's P3, before the validator ever saw it. A gap folds
// only into a defect at least as severe and as sure, that demotion would
// not drop where it would keep the gap.
func TestFoldNeverLosesASevereFinding(t *testing.T) {
	handler := modified("auth/handler.go", 40,
		"func authenticate(r *http.Request) bool {",
		"+\tif r.Header.Get(\"X-Test-Mode\") == \"1\" {",
		"+\t\treturn true",
		"+\t}",
		"\treturn checkToken(r.Header.Get(\"Authorization\"))",
		"}",
	)
	bypass := fnd("Authentication bypassed when the test-mode header is set", "auth/handler.go", 41, finding.P0, 100,
		why("Any caller that sends X-Test-Mode: 1 skips the token check of the authentication header and is let in."),
		evidence(`if r.Header.Get("X-Test-Mode") == "1" {`))
	tests := []struct {
		name string
		host PersonaResult
	}{
		{"a maintainability P3 that demotion drops", res("maintainability", fnd("Authentication header check split in two places", "auth/handler.go", 42, finding.P3, 100,
			why("The authentication decision now reads the header in two places; keep it in one."),
			evidence("return true")))},
		{"a correctness P0 below the bar", res("correctness", fnd("Authentication header read before the token check", "auth/handler.go", 42, finding.P0, 50,
			why("The authentication header is consulted before the token; the order looks off."),
			evidence("return true")))},
		{"a correctness P2 that passes the gate", res("correctness", fnd("Authentication header check returns early", "auth/handler.go", 42, finding.P2, 100,
			why("The authentication header branch returns before logging."),
			evidence("return true")))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Synthesize(Input{Files: []*diff.File{handler}, Mode: ModeComment,
				Results: []PersonaResult{res("security", bypass), tt.host}})
			if out.Folded != 0 {
				t.Errorf("folded %d; want the P0 left a finding of its own", out.Folded)
			}
			if !slices.ContainsFunc(out.Gated, func(f finding.Finding) bool { return f.Title == bypass.Title && f.TestGap == nil }) {
				t.Errorf("gated %+v; want the P0 %q on its own, for the validator", out.Gated, bypass.Title)
			}
		})
	}
}
