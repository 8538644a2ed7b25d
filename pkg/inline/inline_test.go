package inline

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/report"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

const head = "0123456789abcdef0123456789abcdef01234567"

// sample is a two-hunk change of one Go file: new lines 10-18 (14 and 15
// added) and 40-44 (43 added).
const sample = `diff --git a/billing/charge.go b/billing/charge.go
--- a/billing/charge.go
+++ b/billing/charge.go
@@ -10,8 +10,9 @@ func Charge(c *Customer, cents int) error {
 	defer trace()
 	if c == nil {
 		return errNoCustomer
 	}
-	total := cents * c.Rate
+	total := cents * c.Rate / 100
+	log.Printf("charging %s", c.CardNumber)
 	if total < 0 {
 		return errNegative
 	}
@@ -39,4 +40,5 @@ func Refund(c *Customer, cents int) error {
 	if cents <= 0 {
 		return nil
 	}
+	c.Balance -= cents
 	return store.Save(c)
`

func sug(start, end int, replacement string) finding.Suggestion {
	return finding.Suggestion{StartLine: start, EndLine: end, Replacement: replacement}
}

func parse(t *testing.T, text string) []*diff.File {
	t.Helper()
	d, err := diff.Parse([]byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return d.Files
}

func mustParse(text string) []*diff.File {
	d, err := diff.Parse([]byte(text))
	if err != nil {
		panic(err)
	}
	return d.Files
}

var testOptions = report.Options{ServerURL: "https://github.com"}

func fnd(n int, line int, title string) finding.Finding {
	return finding.Finding{
		Number: n, Title: title, Severity: finding.P1, File: "billing/charge.go", Line: line,
		WhyItMatters: "Customers are charged the wrong amount.", Confidence: 100,
		Reviewers: []string{"correctness"}, Evidence: []string{"billing/charge.go:14: total := cents * c.Rate / 100"},
	}
}

func TestFingerprintStableUnderLineShifts(t *testing.T) {
	before := parse(t, sample)
	// The same change after a push that added 20 lines above it: every
	// line number moves, the code does not.
	shifted := parse(t, strings.NewReplacer("@@ -10,8 +10,9 @@", "@@ -30,8 +30,9 @@", "@@ -39,4 +40,5 @@", "@@ -59,4 +60,5 @@").Replace(sample))
	f := fnd(1, 14, "Rate divided by 100 twice")
	text, ok := lineText(before[0], 14)
	if !ok {
		t.Fatal("line 14 not on the diff")
	}
	moved := f
	moved.Line = 34
	text2, ok := lineText(shifted[0], 34)
	if !ok {
		t.Fatal("line 34 not on the shifted diff")
	}
	a, b := Fingerprint(f.File, f.Title, text), Fingerprint(moved.File, moved.Title, text2)
	if a != b {
		t.Fatalf("fingerprint moved with the line: %s vs %s", a, b)
	}
	// Title case and punctuation do not matter; file, problem and code do.
	if got := Fingerprint(f.File, "rate DIVIDED by 100, twice!", "  "+text+"\t"); got != a {
		t.Errorf("normalized title or trimmed line changed the fingerprint: %s vs %s", got, a)
	}
	for name, other := range map[string]string{
		"file":  Fingerprint("billing/refund.go", f.Title, text),
		"title": Fingerprint(f.File, "Card number logged", text),
		"code":  Fingerprint(f.File, f.Title, "total := cents * c.Rate"),
	} {
		if other == a {
			t.Errorf("a different %s kept the fingerprint %s", name, a)
		}
	}
	if len(a) != 16 {
		t.Errorf("fingerprint %q: want 16 hex digits", a)
	}

	// Through Build: the earlier comment (written against the first diff)
	// is recognised after the shift, not posted again, not resolved.
	first := Build(Input{Findings: []finding.Finding{f}, Files: before, HeadSHA: head, BotLogin: "github-actions[bot]", Complete: true})
	if len(first.Comments) != 1 {
		t.Fatalf("first run: %d comments; want 1", len(first.Comments))
	}
	existing := []github.Comment{{ID: 7, Author: "github-actions[bot]", Body: first.Comments[0].Body, HTMLURL: "https://github.com/o/r/pull/1#discussion_r7"}}
	second := Build(Input{Findings: []finding.Finding{moved}, Files: shifted, HeadSHA: strings.Repeat("b", 40), BotLogin: "github-actions[bot]", Existing: existing, Complete: true})
	if len(second.Comments) != 0 || len(second.Resolve) != 0 {
		t.Fatalf("rerun after a line shift: %d comments, %d resolved; want 0, 0", len(second.Comments), len(second.Resolve))
	}
	if second.Kept[1] != existing[0].HTMLURL {
		t.Errorf("rerun links %q; want the earlier comment %q", second.Kept[1], existing[0].HTMLURL)
	}
}

func TestCheckSuggestion(t *testing.T) {
	files := parse(t, sample)
	f := files[0]
	long := strings.Repeat("x", MaxSuggestionBytes+1)
	many := strings.Repeat("a\n", MaxSuggestionLines+1)
	tests := []struct {
		name string
		s    finding.Suggestion
		line int
		file *diff.File
		want string // replacement; "" with wantErr
		err  string // substring of the reason
	}{
		{"one line", sug(14, 14, "\ttotal := cents * c.Rate"), 14, f, "\ttotal := cents * c.Rate", ""},
		{"range on context and added lines", sug(13, 15, "\t}\n\ttotal := cents * c.Rate\n"), 14, f, "\t}\n\ttotal := cents * c.Rate", ""},
		{"CRLF normalized", sug(14, 14, "\ttotal := cents * c.Rate\r\n"), 14, f, "\ttotal := cents * c.Rate", ""},
		{"deletion", sug(15, 15, ""), 15, f, "", ""},
		{"start after end", sug(15, 14, "x"), 14, f, "", "after end_line"},
		{"zero line", sug(0, 14, "x"), 14, f, "", "1 or more"},
		{"does not cover the finding", sug(10, 11, "x"), 14, f, "", "do not cover"},
		{"across two hunks", sug(14, 41, "x"), 14, f, "", "not inside one hunk"},
		{"over 40 lines", sug(14, 54, "x"), 14, f, "", "more than 40 lines"},
		{"across two hunks, short", sug(16, 40, "x"), 16, f, "", "not inside one hunk"},
		{"past the hunk", sug(17, 20, "x"), 17, f, "", "not inside one hunk"},
		{"outside every hunk", sug(25, 25, "x"), 25, f, "", "not inside one hunk"},
		{"no file", sug(14, 14, "x"), 14, nil, "", "not in the diff"},
		{"unchanged", sug(14, 14, "\ttotal := cents * c.Rate / 100\n"), 14, f, "", "equals the current code"},
		{"too many bytes", sug(14, 14, long), 14, f, "", "larger than"},
		{"too many lines", sug(14, 14, many), 14, f, "", "more than 40 lines"},
		{"bidi override", sug(14, 14, "\ttotal := cents /*\u202e*/ * c.Rate"), 14, f, "", "bidi"},
		{"zero width", sug(14, 14, "\ttot\u200bal := 1"), 14, f, "", "invisible"},
		{"control character", sug(14, 14, "\ttotal := 1\x1b[2J"), 14, f, "", "control"},
		{"invalid UTF-8", sug(14, 14, "\ttotal := \xff"), 14, f, "", "UTF-8"},
		{"marker", sug(14, 14, "// <!-- anchor-review:inline fp=0000000000000000 -->"), 14, f, "", "marker"},
		{"secret shaped", sug(14, 14, `key := "ghp_0123456789abcdefghijABCDEFGHIJ012345"`), 14, f, "", "secret"},
		{"named secret", sug(14, 14, `key := "hunter2-very-secret"`), 14, f, "", "secret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckSuggestion(tc.s, tc.line, tc.file, []string{"hunter2-very-secret"})
			if tc.err != "" {
				if err == nil || !errors.Is(err, ErrSuggestion) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %q, %v; want an ErrSuggestion naming %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q, nil", got, err, tc.want)
			}
		})
	}
}

func TestFence(t *testing.T) {
	for code, want := range map[string]string{
		"x := 1":                     "```",
		"s := `raw`":                 "```",
		"doc := \"```go\"":           "````",
		"a := \"````\"\nb := \"``\"": "`````",
	} {
		if got := fence(code); got != want {
			t.Errorf("fence(%q) = %q; want %q", code, got, want)
		}
	}
}

func TestBuild(t *testing.T) {
	files := parse(t, sample)
	bot := "github-actions[bot]"
	onDiff := fnd(1, 14, "Rate divided by 100 twice")
	onDiff.Suggestion = ptr(sug(14, 14, "\ttotal := cents * c.Rate"))
	badSug := fnd(2, 15, "Card number logged")
	badSug.Suggestion = ptr(sug(15, 15, "\tlog.Printf(\"charging %s\", c.CardNumber)")) // unchanged
	offDiff := fnd(3, 30, "Refund path unchecked")
	otherFile := fnd(4, 3, "Missing test")
	otherFile.File = "billing/charge_test.go"

	t.Run("first run", func(t *testing.T) {
		p := Build(Input{Findings: []finding.Finding{onDiff, badSug, offDiff, otherFile}, Files: files, HeadSHA: head, BotLogin: bot, Complete: true})
		if len(p.Comments) != 2 || p.Comments[0].Number != 1 || p.Comments[1].Number != 2 {
			t.Fatalf("comments %+v; want findings 1 and 2", p.Comments)
		}
		if !p.Comments[0].Suggestion || p.Comments[1].Suggestion {
			t.Errorf("suggestion flags %v, %v; want true, false", p.Comments[0].Suggestion, p.Comments[1].Suggestion)
		}
		if len(p.DroppedSuggestions) != 1 || p.DroppedSuggestions[0].Number != 2 {
			t.Errorf("dropped suggestions %+v; want finding 2's", p.DroppedSuggestions)
		}
		want := []NotPosted{{3, ReasonOutsideDiff}, {4, ReasonOutsideDiff}}
		if fmt.Sprint(p.NotPosted) != fmt.Sprint(want) {
			t.Errorf("not posted %v; want %v", p.NotPosted, want)
		}
		if p.CommitID != head || !strings.HasPrefix(p.Body, ReviewMarker+"\n") {
			t.Errorf("review commit %q body %q", p.CommitID, p.Body)
		}
		for _, c := range p.Comments {
			if c.Side != SideRight {
				t.Errorf("comment %d side %q; want RIGHT", c.Number, c.Side)
			}
			if m, ok := ParseMarker(c.Body); !ok || m.Fingerprint != c.Fingerprint {
				t.Errorf("comment %d marker %+v, %v; want fingerprint %s", c.Number, m, ok, c.Fingerprint)
			}
		}
	})

	t.Run("multi-line suggestion spans its range", func(t *testing.T) {
		f := fnd(1, 14, "Rate divided by 100 twice")
		f.Suggestion = ptr(sug(14, 15, "\ttotal := cents * c.Rate"))
		p := Build(Input{Findings: []finding.Finding{f}, Files: files, HeadSHA: head, BotLogin: bot})
		if c := p.Comments[0]; c.StartLine != 14 || c.Line != 15 || !c.Suggestion {
			t.Fatalf("comment lines %d-%d suggestion %v; want 14-15 with the suggestion", c.StartLine, c.Line, c.Suggestion)
		}
		keep, left := p.Fallback()
		if len(keep) != 1 || len(left) != 0 || keep[0].StartLine != 0 || keep[0].Line != 14 || keep[0].Suggestion || strings.Contains(keep[0].Body, "```suggestion") {
			t.Fatalf("fallback %+v left %+v; want the finding's own line without the multi-line suggestion", keep, left)
		}
	})

	t.Run("fallback keeps added lines only", func(t *testing.T) {
		ctx := fnd(2, 11, "Nil check returns early") // a context line
		p := Build(Input{Findings: []finding.Finding{onDiff, ctx}, Files: files, HeadSHA: head, BotLogin: bot})
		keep, left := p.Fallback()
		if len(keep) != 1 || keep[0].Number != 1 || !keep[0].Suggestion || len(left) != 1 || left[0].Number != 1+1 {
			t.Fatalf("fallback keep %+v left %+v; want #1 (one-line suggestion kept) and #2 left", keep, left)
		}
	})

	t.Run("at most 30 comments", func(t *testing.T) {
		var fs []finding.Finding
		for i := 1; i <= 35; i++ {
			f := fnd(i, 14, fmt.Sprintf("Problem number %d", i))
			fs = append(fs, f)
		}
		p := Build(Input{Findings: fs, Files: files, HeadSHA: head, BotLogin: bot})
		if len(p.Comments) != MaxComments || p.Comments[29].Number != 30 {
			t.Fatalf("%d comments; want the first %d", len(p.Comments), MaxComments)
		}
		if len(p.NotPosted) != 5 || p.NotPosted[0].Number != 31 || p.NotPosted[0].Reason != ReasonOverLimit {
			t.Fatalf("not posted %v; want 31..35 over the limit", p.NotPosted)
		}
	})

	t.Run("same fingerprint twice in one run", func(t *testing.T) {
		p := Build(Input{Findings: []finding.Finding{onDiff, fnd(2, 14, "Rate divided by 100 twice!")}, Files: files, HeadSHA: head, BotLogin: bot})
		if len(p.Comments) != 1 || len(p.NotPosted) != 1 || !strings.HasPrefix(p.NotPosted[0].Reason, ReasonDuplicate) {
			t.Fatalf("comments %d, not posted %v; want one comment and one duplicate", len(p.Comments), p.NotPosted)
		}
	})

	t.Run("rerun: kept, resolved, others untouched", func(t *testing.T) {
		first := Build(Input{Findings: []finding.Finding{onDiff, badSug}, Files: files, HeadSHA: head, BotLogin: bot})
		gone := first.Comments[1] // finding 2 is fixed in the rerun
		existing := []github.Comment{
			{ID: 10, Author: bot, Body: first.Comments[0].Body, HTMLURL: "https://github.com/o/r/pull/1#discussion_r10"},
			{ID: 11, Author: bot, Body: gone.Body, HTMLURL: "https://github.com/o/r/pull/1#discussion_r11"},
			// A human reply, quoting our marker on its first line: not ours.
			{ID: 12, Author: "octocat", Body: gone.Body, HTMLURL: "u12"},
			// Our comment without a marker (someone else's tool on the same token).
			{ID: 13, Author: bot, Body: "LGTM", HTMLURL: "u13"},
			// Already resolved earlier: left alone.
			{ID: 14, Author: bot, Body: RenderResolved(gone.Body, "00000000000000aa", head), HTMLURL: "u14"},
		}
		next := strings.Repeat("c", 40)
		p := Build(Input{Findings: []finding.Finding{onDiff}, Files: files, HeadSHA: next, BotLogin: "GitHub-Actions[bot]", Existing: existing, Complete: true})
		if len(p.Comments) != 0 {
			t.Fatalf("rerun posts %d comments; want 0 (already commented)", len(p.Comments))
		}
		if p.Kept[1] != existing[0].HTMLURL {
			t.Errorf("kept %v; want #1 → %s", p.Kept, existing[0].HTMLURL)
		}
		if len(p.Resolve) != 1 || p.Resolve[0].ID != 11 {
			t.Fatalf("resolve %+v; want only our comment 11", p.Resolve)
		}
		m, ok := ParseMarker(p.Resolve[0].Body)
		if !ok || m.ResolvedIn != next || m.Fingerprint != gone.Fingerprint || !strings.Contains(p.Resolve[0].Body, "Resolved in "+next) {
			t.Errorf("resolved body %q", p.Resolve[0].Body)
		}
		// The resolved comment is not resolved again, and a finding that
		// comes back gets a new comment.
		existing[1].Body = p.Resolve[0].Body
		again := Build(Input{Findings: []finding.Finding{onDiff, badSug}, Files: files, HeadSHA: next, BotLogin: bot, Existing: existing, Complete: true})
		if len(again.Resolve) != 0 || len(again.Comments) != 1 || again.Comments[0].Number != 2 {
			t.Errorf("after resolution: resolve %+v comments %+v; want none resolved and #2 posted anew", again.Resolve, again.Comments)
		}
	})

	t.Run("an incomplete review resolves nothing", func(t *testing.T) {
		first := Build(Input{Findings: []finding.Finding{onDiff}, Files: files, HeadSHA: head, BotLogin: bot})
		existing := []github.Comment{{ID: 10, Author: bot, Body: first.Comments[0].Body}}
		p := Build(Input{Files: files, HeadSHA: head, BotLogin: bot, Existing: existing, Complete: false})
		if len(p.Resolve) != 0 {
			t.Fatalf("incomplete review resolved %+v", p.Resolve)
		}
		if p.Body != "" || len(p.Comments) != 0 {
			t.Errorf("nothing to post, yet body %q", p.Body)
		}
	})
}

func TestParseMarker(t *testing.T) {
	for body, want := range map[string]Marker{
		"<!-- anchor-review:inline fp=0123456789abcdef -->\n**P1**":                        {Fingerprint: "0123456789abcdef"},
		"<!-- anchor-review:inline fp=0123456789abcdef resolved=" + head + " -->\r\nx":     {Fingerprint: "0123456789abcdef", ResolvedIn: head},
		"text\n<!-- anchor-review:inline fp=0123456789abcdef -->":                          {},
		"<!-- anchor-review:inline fp=0123456789ABCDEF -->":                                {},
		"<!-- anchor-review:inline fp=0123456789abcdef --> trailing":                       {},
		" <!-- anchor-review:inline fp=0123456789abcdef -->":                               {},
		"<!-- anchor-review:inline fp=0123456789abcdef resolved=<script> -->":              {},
		"<!-- anchor-review:report -->\n<!-- anchor-review:inline fp=0123456789abcdef -->": {},
	} {
		got, ok := ParseMarker(body)
		if got != want || ok != (want.Fingerprint != "") {
			t.Errorf("ParseMarker(%q) = %+v, %v; want %+v", body, got, ok, want)
		}
	}
	m := Marker{Fingerprint: "0123456789abcdef", ResolvedIn: head}
	if got, ok := ParseMarker(FormatMarker(m)); !ok || got != m {
		t.Errorf("round trip: %+v, %v", got, ok)
	}
}

func FuzzParseMarker(f *testing.F) {
	f.Add("<!-- anchor-review:inline fp=0123456789abcdef -->\nbody")
	f.Add("<!-- anchor-review:inline fp=0123456789abcdef resolved=abcdef1 -->")
	f.Fuzz(func(t *testing.T, body string) {
		m, ok := ParseMarker(body)
		if !ok {
			return
		}
		// Whatever parses formats back to the same first line.
		first, _, _ := strings.Cut(body, "\n")
		if FormatMarker(m) != strings.TrimRight(first, "\r") {
			t.Fatalf("marker %q parsed as %+v, formats as %q", first, m, FormatMarker(m))
		}
	})
}

// TestRenderGolden holds the rendered comments: a suggestion whose code
// holds a triple-backtick run (the fence grows), hostile prose (mentions,
// HTML, a foreign image, a secret), a comment without a suggestion, the
// resolved form and the review body.
func TestRenderGolden(t *testing.T) {
	files := parse(t, sample)
	o := report.Options{ServerURL: "https://github.com", Secrets: []string{"sk-live-0123456789abcdef"}}
	withFence := fnd(1, 15, "Card number logged in <b>clear</b> @security-team")
	withFence.Severity = finding.P0
	withFence.Reviewers = []string{"correctness", "security"}
	withFence.WhyItMatters = "Card numbers reach the log ![x](https://evil.example/p.png) with key sk-live-0123456789abcdef."
	withFence.SuggestedFix = "Log the customer id instead."
	withFence.Suggestion = ptr(sug(15, 15, "\tlog.Printf(\"charging ```%s```\", c.ID)"))
	multi := fnd(2, 14, "Rate divided by 100 twice")
	multi.Suggestion = ptr(sug(13, 14, "\t}\n\ttotal := cents * c.Rate\n"))
	plain := fnd(3, 43, "Balance updated before the save can fail")
	plain.Severity = finding.P2
	plain.Confidence = 75
	p := Build(Input{Findings: []finding.Finding{withFence, multi, plain}, Files: files, HeadSHA: head, BotLogin: "github-actions[bot]", Render: o})
	var b strings.Builder
	b.WriteString("== review body\n" + p.Body + "\n")
	for _, c := range p.Comments {
		start := ""
		if c.StartLine > 0 {
			start = fmt.Sprintf("%d-", c.StartLine)
		}
		fmt.Fprintf(&b, "== comment #%d %s:%s%d %s\n%s", c.Number, c.Path, start, c.Line, c.Side, c.Body)
	}
	b.WriteString("== resolved #1\n" + RenderResolved(p.Comments[0].Body, p.Comments[0].Fingerprint, strings.Repeat("d", 40)))
	got := b.String()
	if strings.Contains(got, "sk-live-0123456789abcdef") || strings.Contains(got, "evil.example") || strings.Contains(got, "<b>") {
		t.Fatalf("unsanitized text in the rendering:\n%s", got)
	}
	golden(t, "comments.golden", got)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update and review the diff):\n%s", path, got)
	}
}

func ptr[T any](v T) *T { return &v }

// TestRenderCommentTestGap: the inline comment of a finding with a folded
// test gap carries its one line; one without carries none.
func TestRenderCommentTestGap(t *testing.T) {
	f := fnd(1, 10, "Charge rounds down")
	if strings.Contains(RenderComment(f, "0123456789abcdef", nil, testOptions), "No test covers this") {
		t.Fatal("a finding without a test gap shows one")
	}
	f.TestGap = &finding.TestGap{Title: "Rounding of charges is untested", Reviewers: []string{"testing"}}
	body := RenderComment(f, "0123456789abcdef", nil, testOptions)
	if strings.Count(body, "No test covers this: Rounding of charges is untested\n") != 1 {
		t.Errorf("inline comment lacks the test-gap line:\n%s", body)
	}
}
