package synth

import (
	"slices"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// TestTestGapByClaim: a finding is a test gap by what it claims, never by
// a word such as "test" or "cover" in its title (issue 30).
func TestTestGapByClaim(t *testing.T) {
	gaps := []string{
		"Tee ReadFrom fix has no test; BytesWritten double-count goes uncaught",
		"Per-task timeout options ship without tests",
		"No test covers negative Idle/Read/WriteTimeout after guards changed to != 0",
		"Narrowed cross-host header stripping has no test for Proxy-Authorization",
		"Open-redirect guard rewritten with no tests for host-changing or protocol-relative Location URLs",
		"Removed frame-length overflow rejection has no test sending a 64-bit length with the top bit set",
		"inline=1 branch is untested",
		"The new test only checks the zero value",
		"Document UserByID's error contract and add a first store test",
		"Refund rounding is not tested",
		"Retry path never covered by any test",
		"Missing regression tests for the parser",
		"Test coverage gap in the session store",
		"Tests do not cover the empty body",
	}
	defects := []string{
		"X-Test-Mode header skips authentication",
		"Authentication bypassed when the test-mode header is set",
		"Auth skipped when the test header is present",
		"Path traversal in the cover image upload",
		"Cover image path joins user input unchecked",
		"Windows device-name check only tests the whole path, not each path segment",
		"http2: only test timeouts for non-zero",
		"No authentication in test mode",
		"Coverage report endpoint leaks file paths",
		"TestLoad is skipped",
	}
	for _, s := range gaps {
		if !claimsTestGap(s) {
			t.Errorf("claimsTestGap(%q) = false; it claims a missing or weak test", s)
		}
	}
	for _, s := range defects {
		if claimsTestGap(s) {
			t.Errorf("claimsTestGap(%q) = true; it claims a defect", s)
		}
	}
}

// TestWordsDoNotMakeADefectAGap: a P0 whose title says "test" or "cover"
// is a defect: never folded into a finding nearby, posted on its own.
func TestWordsDoNotMakeADefectAGap(t *testing.T) {
	upload := modified("media/cover.go", 20,
		"func SaveCover(r *http.Request) error {",
		"+\tname := r.FormValue(\"cover\")",
		"+\tp := filepath.Join(coverDir, name)",
		"\treturn os.WriteFile(p, body, 0o644)",
		"}",
	)
	p0 := fnd("Path traversal in cover image upload lets a caller write any file", "media/cover.go", 22, finding.P0, 100,
		why("The cover image name reaches filepath.Join unchecked; ../ writes outside the cover directory."),
		evidence("p := filepath.Join(coverDir, name)"))
	host := fnd("Uploaded image file is never closed", "media/cover.go", 23, finding.P0, 100,
		why("The upload handler leaks one file descriptor per image until the server runs out."),
		evidence("return os.WriteFile(p, body, 0o644)"))
	out := Synthesize(Input{Files: []*diff.File{upload}, Mode: ModeComment,
		Results: []PersonaResult{res("security", p0), res("correctness", host)}})
	if isTestGap(p0) || out.Folded != 0 {
		t.Errorf("folded %d; a path traversal in a cover image feature is no test gap", out.Folded)
	}
	if !slices.ContainsFunc(out.Gated, func(f finding.Finding) bool { return f.Title == p0.Title }) {
		t.Errorf("gated %v; want the P0 on its own", titles(out.Gated))
	}
}

// The folding attacks of issue 30: a P0 test gap folds into a P0 host on
// nearby lines; the host then leaves the review before the validator.
var (
	bypassHandler = modified("auth/handler.go", 40,
		"func authenticate(r *http.Request) bool {",
		"\tif r.Header.Get(\"X-Debug\") == \"1\" { return true } // nolint:gosec-G101 waived in the base",
		"+\tif r.Header.Get(\"X-Test-Mode\") == \"1\" {",
		"+\t\treturn true",
		"+\t}",
		"\treturn checkToken(r.Header.Get(\"Authorization\"))",
		"}",
	)
	// The gap: P0, on the PR's own line 42, claiming a missing test.
	bypassGap = fnd("No test for the authentication bypass through the X-Test-Mode header", "auth/handler.go", 42, finding.P0, 100,
		why("Nothing tests that a request with the X-Test-Mode header still needs a token: the authentication bypass ships."),
		evidence(`if r.Header.Get("X-Test-Mode") == "1" {`))
)

func bypassHost(mods ...func(*finding.Finding)) finding.Finding {
	return fnd("Authentication bypass through a debug header", "auth/handler.go", 41, finding.P0, 100,
		append([]func(*finding.Finding){why("A request with the X-Debug header skips the authentication token check: an authentication bypass.")}, mods...)...)
}

func TestFoldedGapOutlivesItsHost(t *testing.T) {
	pre := func(f *finding.Finding) { f.PreExisting = true }
	tests := []struct {
		name string
		host finding.Finding
		// where the host ends
		hostIn func(Output) []finding.Finding
	}{
		{"the host is pre-existing", bypassHost(pre), func(o Output) []finding.Finding { return o.PreExisting }},
		{"the host is suppressed by a base directive naming its rule",
			bypassHost(func(f *finding.Finding) { f.Title = "gosec-G101: authentication bypass through a debug header" }),
			func(Output) []finding.Finding { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Synthesize(Input{Files: []*diff.File{bypassHandler}, Mode: ModeComment,
				Results: []PersonaResult{res("correctness", tt.host), res("testing", bypassGap)}})
			i := slices.IndexFunc(out.Gated, func(f finding.Finding) bool { return f.Title == bypassGap.Title })
			if i < 0 {
				t.Fatalf("gated %v; want the P0 gap %q on its own", titles(out.Gated), bypassGap.Title)
			}
			if g := out.Gated[i]; g.Severity != finding.P0 || g.Confidence != 100 || g.TestGap != nil {
				t.Errorf("gap posted as %s at %d (test gap %v); want its own P0 at 100", g.Severity, g.Confidence, g.TestGap)
			}
			if out.Folded != 0 || out.DroppedByReason[ReasonFolded] != 0 {
				t.Errorf("folded %d (%v); an unfolded gap is not counted as folded", out.Folded, out.DroppedByReason)
			}
			for _, h := range tt.hostIn(out) {
				if h.TestGap != nil {
					t.Errorf("host %q still carries the gap's line", h.Title)
				}
			}
			accounted(t, out, 2)
		})
	}
}

// TestFoldedGapKeptForTheValidator: a gap that folds into a gated host is
// kept whole on it (TestGap.Findings) when it would post on its own, and
// Unfold gives it back when the validator refutes or lowers the host.
func TestFoldedGapKeptForTheValidator(t *testing.T) {
	out := Synthesize(Input{Files: []*diff.File{bypassHandler}, Mode: ModeComment,
		Results: []PersonaResult{res("security", bypassHost()), res("testing", bypassGap)}})
	if len(out.Gated) != 1 || out.Gated[0].TestGap == nil || len(out.Gated[0].TestGap.Findings) != 1 {
		t.Fatalf("gated %+v; want the host carrying the gap whole", out.Gated)
	}
	host := out.Gated[0]
	tests := []struct {
		name      string
		confirmed bool
		severity  finding.Severity
		want      int // gaps unfolded
	}{
		{"refuted", false, finding.P0, 1},
		{"confirmed at P0", true, finding.P0, 0},
		{"confirmed but lowered to P2", true, finding.P2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := host
			tg := *host.TestGap
			h.TestGap, h.Severity = &tg, tt.severity
			gated, below := Unfold(&h, tt.confirmed)
			if len(gated) != tt.want || len(below) != 0 {
				t.Fatalf("unfolded %v, below %v; want %d", titles(gated), titles(below), tt.want)
			}
			if tt.want == 1 && (gated[0].Severity != finding.P0 || gated[0].Title != bypassGap.Title || h.TestGap != nil) {
				t.Errorf("unfolded %+v, host line %v; want the P0 gap as it was, the host without its line", gated[0], h.TestGap)
			}
			if tt.want == 0 && h.TestGap == nil {
				t.Error("a confirmed host lost its test-gap line")
			}
		})
	}
	// A gap below the gate alone never comes out: it is only a line.
	weak := bypassGap
	weak.Confidence, weak.Severity = 25, finding.P2
	out = Synthesize(Input{Files: []*diff.File{bypassHandler}, Mode: ModeReportOnly,
		Results: []PersonaResult{res("security", bypassHost()), res("testing", weak)}})
	if len(out.Gated) == 1 && out.Gated[0].TestGap != nil {
		if gated, below := Unfold(&out.Gated[0], false); len(gated)+len(below) != 0 {
			t.Errorf("a gap that would not post alone came out: %v %v", titles(gated), titles(below))
		}
	}
}

func titles(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Title)
	}
	return out
}

// accounted checks that every finding that went in is in exactly one place.
func accounted(t *testing.T, out Output, in int) {
	t.Helper()
	n := len(out.Gated) + len(out.BelowBar) + len(out.PreExisting) + len(out.Demoted)
	for _, c := range out.DroppedByReason {
		n += c
	}
	if n != in {
		t.Errorf("accounted for %d findings (%+v); %d went in", n, out, in)
	}
}
