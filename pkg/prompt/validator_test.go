package prompt

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/prompts"
)

func TestBaseRegion(t *testing.T) {
	files := parse(t, usersDiff)
	users, added := files[0], files[1]
	tests := []struct {
		name     string
		f        *diff.File
		head     string
		lines    [][2]int
		want     string
		whyMatch string
	}{
		{"added line maps to the deleted lines it replaced", users, usersHead, [][2]int{{17, 17}},
			"    ...\n 8  // Server serves users.\n 9  type Server struct {\n10  \tstore *Store\n11  \ttenant string\n12  \tdb *sql.DB\n13  }\n14  \n15  func (s *Server) handleUser(w http.ResponseWriter, r *http.Request) {\n16  \tu, err := s.store.User(r.Context(), r.URL.Query().Get(\"id\"))\n", ""},
		{"unchanged line before the hunk maps to itself", users, usersHead, [][2]int{{2, 2}},
			" 1  package api\n 2  \n 3  import (\n 4  \t\"database/sql\"\n 5  \t\"net/http\"\n 6  )\n 7  \n 8  // Server serves users.\n 9  type Server struct {\n10  \tstore *Store\n    ...\n", ""},
		{"CRLF head file", users, strings.ReplaceAll(usersHead, "\n", "\r\n"), [][2]int{{2, 2}},
			" 1  package api\n 2  \n 3  import (\n 4  \t\"database/sql\"\n 5  \t\"net/http\"\n 6  )\n 7  \n 8  // Server serves users.\n 9  type Server struct {\n10  \tstore *Store\n    ...\n", ""},
		{"new file", added, "package api\n", [][2]int{{1, 1}}, "", "new in this pull request"},
		{"head does not match the diff", users, "package api\n", [][2]int{{17, 17}}, "", "does not match"},
		{"not in the diff", nil, usersHead, [][2]int{{1, 1}}, "", "not in the diff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := BaseRegion(tt.f, tt.head, tt.lines)
			if got != tt.want {
				t.Errorf("BaseRegion =\n%q\nwant\n%q", got, tt.want)
			}
			if (tt.whyMatch == "") != (why == "") || !strings.Contains(why, tt.whyMatch) {
				t.Errorf("why = %q; want one containing %q", why, tt.whyMatch)
			}
		})
	}
}

func TestRebuildBaseAcrossHunks(t *testing.T) {
	text := "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -2,2 +2,3 @@\n b\n-c\n+C\n+C2\n@@ -9,0 +11,1 @@ \n+new\n"
	d, err := diff.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	head := splitLines("a\nb\nC\nC2\nd\ne\nf\ng\nh\ni\nnew\nj\n")
	base, ok := rebuildBase(d.Files[0], head)
	if want := "a b c d e f g h i j"; !ok || strings.Join(base, " ") != want {
		t.Errorf("rebuildBase = %q, %v; want %q", strings.Join(base, " "), ok, want)
	}
	for n, want := range map[int]int{1: 1, 3: 3, 4: 3, 5: 4, 11: 9, 12: 10} {
		if got := oldLine(d.Files[0], n); got != want {
			t.Errorf("oldLine(%d) = %d; want %d", n, got, want)
		}
	}
}

func TestForValidatorFile(t *testing.T) {
	c := testContext(t)
	fs := []finding.Finding{
		{Title: "SQL injection", Severity: finding.P0, File: "api/users.go", Line: 17, Confidence: 100, WhyItMatters: "w", Evidence: []string{"e"}},
		{Title: "Error text leaks", Severity: finding.P2, File: "api/users.go", Line: 21, Confidence: 75, WhyItMatters: "w", Evidence: []string{"e"}},
	}
	r := ForValidatorFile(fs, c, usersHead, "v")
	one := ForValidator(fs[0], c, usersHead, "v")
	if r.Schema != ValidationsSchema || r.Persona != llm.Validator {
		t.Errorf("Schema, Persona = %q, %q; want validations, validator", r.Schema, r.Persona)
	}
	// The batch shares the per-finding requests' system message and the
	// start of their PR message (the intent: the whole diff is not needed);
	// its third message is the findings' file whole, with its diff in
	// place: every head line numbered, the deleted lines where they were.
	if r.Messages[0] != one.Messages[0] || !strings.HasPrefix(one.Messages[1].Content, r.Messages[1].Content) ||
		!strings.Contains(r.Messages[1].Content, "Title: Look users up by id directly") || strings.Contains(r.Messages[1].Content, "## The diff") {
		t.Errorf("messages 1-2: want the per-finding system message and its PR intent, without the diff")
	}
	view := r.Messages[2].Content
	for _, want := range []string{
		"@@ -1,16 +1,25 @@", " 1  package api\n", "   -func (s *Server) handleUser(w http.ResponseWriter, r *http.Request) {\n",
		"   -\tu, err := s.store.User(", "15 +func (s *Server) handleUser(", "25 +}\n",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("file view lacks %q:\n%s", want, view)
		}
	}
	last := r.Messages[3].Content
	if strings.Contains(last, "## The base version") {
		t.Errorf("last message repeats the base region the file view already shows")
	}
	for _, want := range []string{"### F1", "### F2", "SQL injection", "Error text leaks", "Judge each"} {
		if !strings.Contains(last, want) {
			t.Errorf("last message lacks %q", want)
		}
	}
	if final := r.Messages[4].Content; !strings.Contains(final, "each on its own") || strings.Contains(final, "SQL injection") {
		t.Errorf("final message: want the per-file answer turn and no data")
	}
	if strings.Contains(last, `"confidence"`) {
		t.Errorf("last message carries a confidence; want none")
	}
	// A head that does not match the diff gives no file view: the request
	// falls back to the per-finding layout (the diff, the head file, the
	// base region saying why it cannot be rebuilt).
	stale := ForValidatorFile(fs, c, strings.Replace(usersHead, "var u User", "var u *User", 1), "v")
	if !strings.Contains(stale.Messages[1].Content, "## The diff") || !strings.Contains(stale.Messages[2].Content, "The whole head version") ||
		!strings.Contains(stale.Messages[3].Content, "does not match the diff") {
		t.Errorf("stale head: want the diff, the head file and the base region's reason")
	}
	// A file whose change the diff does not show (no patch) has no view
	// either: the per-finding layout, never a listing without changes.
	patchless := c
	patchless.Files = []*diff.File{{OldPath: "api/users.go", NewPath: "api/users.go", Status: diff.Modified, NoPatch: true}}
	if r := ForValidatorFile(fs, patchless, usersHead, "v"); strings.Contains(r.Messages[2].Content, "with the diff in place") ||
		!strings.Contains(r.Messages[1].Content, "## The diff") {
		t.Errorf("no patch: want the per-finding layout, got a file view")
	}
	if FindingID(1) != "F2" {
		t.Errorf("FindingID(1) = %q; want F2", FindingID(1))
	}
}

func TestValidatorRequestFits(t *testing.T) {
	c := testContext(t)
	// A big second file makes the whole diff too large for a small budget.
	big := gen("pkg/big.go", 80, 300)
	c.Files = append(c.Files, big)
	f := finding.Finding{Title: "t", Severity: finding.P1, File: "api/users.go", Line: 17, Confidence: 75, WhyItMatters: "w", Evidence: []string{"e"}}
	own := c
	own.Files, own.Levels = c.Files[:1], []Level{LevelNone}
	ownTokens := RequestTokens(ForValidator(f, own, usersHead, "v")) + EstimateTokens(string(prompts.ValidationSchema()))

	r, err := ValidatorRequest([]finding.Finding{f}, c, usersHead, "v", 0, false)
	if err != nil || !strings.Contains(r.Messages[1].Content, "pkg/big.go") {
		t.Fatalf("no budget: err %v, whole diff shown %v; want the whole diff", err, err == nil)
	}
	r, err = ValidatorRequest([]finding.Finding{f}, c, usersHead, "v", ownTokens, false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Messages[1].Content, "pkg/big.go") || !strings.Contains(r.Messages[1].Content, "api/users.go") {
		t.Errorf("tight budget: want only the finding's file in the diff")
	}
	if got := RequestTokens(r); got > ownTokens {
		t.Errorf("request is %d tokens; want at most %d", got, ownTokens)
	}
	if _, err := ValidatorRequest([]finding.Finding{f}, c, usersHead, "v", 500, false); !errors.Is(err, ErrTooLarge) {
		t.Errorf("budget 500: err = %v; want ErrTooLarge", err)
	}
}

func TestFit(t *testing.T) {
	c := testContext(t)
	wholeCost := pieceTokens(c, c.Files[0], LevelWhole)
	noneCost := pieceTokens(c, c.Files[0], LevelNone)
	if wholeCost <= noneCost {
		t.Fatalf("context adds nothing: whole %d, none %d", wholeCost, noneCost)
	}
	tests := []struct {
		name   string
		budget int
		levels []Level
		left   int
	}{
		{"room for context", 10_000, []Level{LevelWhole, LevelWhole}, 0},
		{"whole file dropped to its blocks to fit", noneCost + 5, []Level{LevelBlocks, LevelWhole}, 0},
		{"nothing fits", 0, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts, left := Fit(c, tt.budget)
			var levels []Level
			for _, p := range parts {
				levels = append(levels, p.Levels...)
				used := 0
				for i, f := range p.Files {
					used += pieceTokens(c, f, p.Levels[i])
				}
				if used > tt.budget {
					t.Errorf("part uses %d tokens; want at most %d", used, tt.budget)
				}
			}
			if len(left) != tt.left || (tt.levels != nil && !equalLevels(levels, tt.levels)) {
				t.Errorf("levels %v, left %v; want %v, %d left", levels, left, tt.levels, tt.left)
			}
		})
	}
}

func equalLevels(a, b []Level) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The validator judges the claim alone: nothing of the pipeline's own
// (confidence, reviewers, the commit a carried finding was found on).
func TestValidatorFindingIsModelFacing(t *testing.T) {
	f := finding.Finding{Title: "Nil map write", File: "a.go", Line: 3, Severity: finding.P1, Confidence: 100,
		Evidence: []string{"m[k] = v"}, Reviewers: []string{"correctness"}, FoundOn: "0123456789abcdef0123456789abcdef01234567"}
	got := modelFacingJSON(f)
	for _, leak := range []string{"found_on", "0123456789abcdef", "confidence", "reviewers", "owner", "autofix_class"} {
		if strings.Contains(got, leak) {
			t.Errorf("validator's finding holds %q:\n%s", leak, got)
		}
	}
	// The claim reads in the order the reviewer wrote it: where, the
	// evidence, the consequence, then the title and severity.
	order := []string{`"file"`, `"line"`, `"evidence"`, `"why_it_matters"`, `"title"`, `"severity"`}
	for i := 1; i < len(order); i++ {
		if strings.Index(got, order[i-1]) > strings.Index(got, order[i]) {
			t.Errorf("%s comes after %s:\n%s", order[i-1], order[i], got)
		}
	}
}

// The severity section is found however the embedded file is checked out
// (CRLF, trailing blanks), and a heading-like line inside a code block
// does not end it.
func TestMarkdownSection(t *testing.T) {
	md := "# Top\r\n\r\n## Severity \r\n\r\n- P0\r\n```\r\n# not a heading\r\n```\r\n- P3\r\n### Deeper\r\nstill in\r\n## Next\r\nout\r\n"
	got := markdownSection(strings.ReplaceAll(md, "\r\n", "\n"), "## Severity")
	if !strings.HasPrefix(got, "## Severity") || !strings.Contains(got, "- P3") || !strings.Contains(got, "still in") || strings.Contains(got, "out") {
		t.Errorf("section:\n%s", got)
	}
	if !strings.Contains(validatorSystem(), "**P3**") {
		t.Errorf("validator system message lacks the severity scale")
	}
}

// A head with CR runs before its newlines (\r\r\n) splits into the
// lines the diff parser reads, so the per-file view still lines up.
func TestSplitLinesMatchesTheDiffParser(t *testing.T) {
	if got := splitLines("a\r\r\nb\r\nc"); strings.Join(got, "|") != "a|b|c" {
		t.Errorf("splitLines = %q; want a, b, c", got)
	}
	if got := splitLines(""); got != nil {
		t.Errorf("splitLines(\"\") = %q; want no lines", got)
	}
}

// TestValidatorRequestLargeHead: a head file too large for the budget on
// its own is shown as its blocks, per finding and per file alike.
func TestValidatorRequestLargeHead(t *testing.T) {
	var head strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&head, "\tstep%d := compute(ctx, items[%d]) // line %d of a long function\n", i+1, i, i+1)
	}
	const at = 1500
	df := &diff.File{OldPath: "big.go", NewPath: "big.go", Status: diff.Modified, Hunks: []diff.Hunk{{
		OldStart: at, OldLines: 1, NewStart: at, NewLines: 1,
		Lines: []diff.Line{
			{Kind: diff.Delete, OldNo: at, Text: "\told := 1"},
			{Kind: diff.Add, NewNo: at, Text: fmt.Sprintf("\tstep%d := compute(ctx, items[%d]) // line %d of a long function", at, at-1, at)},
		},
	}}}
	c := testContext(t)
	c.Files, c.Levels = []*diff.File{df}, nil
	f := finding.Finding{Title: "t", Severity: finding.P1, File: "big.go", Line: at, Confidence: 75, WhyItMatters: "w", Evidence: []string{"e"}}
	budget := EstimateTokens(head.String()) / 2
	for _, batch := range []bool{false, true} {
		r, err := ValidatorRequest([]finding.Finding{f}, c, head.String(), "v", budget, batch)
		if err != nil {
			t.Fatalf("batch %v: %v", batch, err)
		}
		file := r.Messages[2].Content
		if !strings.Contains(file, "too large to show whole") || strings.Contains(file, "line 10 of a long function") {
			t.Errorf("batch %v: want the head's blocks, got %.300s", batch, file)
		}
	}
}

// TestValidatorHeadCRLF: the validator's whole head view numbers the lines
// as the diff and the context read them, without their carriage returns.
func TestValidatorHeadCRLF(t *testing.T) {
	c := testContext(t)
	f := finding.Finding{Title: "t", Severity: finding.P1, File: "api/users.go", Line: 17, Confidence: 75, WhyItMatters: "w", Evidence: []string{"e"}}
	r := ForValidator(f, c, strings.ReplaceAll(usersHead, "\n", "\r\n"), "v")
	if head := r.Messages[2].Content; strings.Contains(head, "\r") || !strings.Contains(head, "The whole head version") {
		t.Errorf("head message: want the whole file without carriage returns, got %q", head)
	}
}
