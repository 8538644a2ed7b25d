package synth

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// anchorFixture is a real `git diff` of an HTTP handler (three hunks: a
// replaced query line plus a new log line, a deleted permission check, and
// a deleted error check) and the file's head version.
func anchorFixture(t testing.TB) (*diff.File, string) {
	t.Helper()
	patch, err := os.ReadFile(filepath.Join("testdata", "anchor", "handler.patch"))
	if err != nil {
		t.Fatal(err)
	}
	head, err := os.ReadFile(filepath.Join("testdata", "anchor", "handler.head.txt"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := diff.Parse(patch)
	if err != nil {
		t.Fatal(err)
	}
	return d.Files[0], string(head)
}

// TestAnchor runs findings shaped like real model answers through step 1:
// lines off by one, lines counted from the wrong hunk header or the old
// side, evidence in every form models write it.
func TestAnchor(t *testing.T) {
	df, head := anchorFixture(t)
	const dropped = -1
	tests := []struct {
		name     string
		line     int
		evidence []string
		want     int // the anchored line, or dropped
		diffOnly int // the result without the head file (0: same as want)
	}{
		{"exact line kept", 19, []string{`handler.go:19: row := h.db.QueryRow("SELECT name, email FROM users WHERE id = '" + id + "'")`}, 19, 0},
		{"off by one snaps back", 20, []string{`handler.go:19: row := h.db.QueryRow("SELECT name, email FROM users WHERE id = '" + id + "'")`}, 19, 0},
		{"old-side number snaps to the new line", 18, []string{`handler.go:18: row := h.db.QueryRow("SELECT name, email FROM users WHERE id = '" + id + "'")`}, 19, 0},
		{"quoted with the diff marker and tabs as spaces, counted from the wrong hunk", 52, []string{"+        rows.Scan(&n)"}, 49, 0},
		{"backtick span in prose", 55, []string{"`rows.Scan(&n)` drops the scan error, so a bad row is appended as an empty name"}, 49, 0},
		{"code that runs on into prose", 47, []string{"rows.Scan(&n) ignores the error"}, 49, 0},
		{"L-prefixed span with an ellipsis", 21, []string{"L19: `h.db.QueryRow(\"SELECT ... WHERE id = '\" + id + \"'\")`"}, 19, 0},
		{"fenced block", 17, []string{"```go\nlog.Printf(\"get user %s token=%s\", id, r.Header.Get(\"Authorization\"))\n```"}, 18, 0},
		{"deleted permission check anchors where it stood", 30, []string{`-	if r.Header.Get("X-Admin") != "1" {`}, 31, 0},
		{"deleted line at its old number stays", 31, []string{`handler.go:31 if r.Header.Get("X-Admin") != "1" {`}, 31, 0},
		{"ambiguous quote prefers the changed occurrence", 47, []string{`http.Error(w, err.Error(), http.StatusInternalServerError)`}, 49, 0},
		{"line already on one of two quotes stays", 40, []string{"handler.go:49: rows.Scan(&n)", "handler.go:40: rows, err := h.db.Query(\"SELECT name FROM users\")"}, 40, 49},
		{"first matching quote decides the snap", 10, []string{"handler.go:49: rows.Scan(&n)", "handler.go:40: rows, err := h.db.Query(\"SELECT name FROM users\")"}, 49, 0},
		// Without the head file a quote of unchanged code cannot be refuted:
		// the finding stays where it is, for the validator (green means
		// reviewed: an unreadable head never drops a finding silently).
		{"context outside every hunk needs the head file", 44, []string{"handler.go:45: defer rows.Close()"}, 45, 44},
		{"invented code is dropped (only the head file can prove it)", 19, []string{`handler.go:19: db.Query(fmt.Sprintf("SELECT * FROM users WHERE id=%s", id))`}, dropped, 19},
		{"one real quote among invented ones anchors", 22, []string{`db.Query(fmt.Sprintf("SELECT * WHERE id=%s", id))`, `row := h.db.QueryRow("SELECT name, email FROM users WHERE id = '" + id + "'")`}, 19, 0},
		{"prose only is kept where it is", 18, []string{"The log line writes the caller's bearer token to the service logs."}, 18, 0},
		{"location only is kept where it is", 18, []string{"handler.go:18", "handler.go lines 18-19"}, 18, 0},
		{"identifiers in prose that match nothing do not drop", 18, []string{"`Authorization` values must never reach `log.Printf`; see `redact` in logging.go"}, 18, 0},
		{"prose naming a matching identifier anchors it", 3, []string{"the `log.Printf` call leaks the token"}, 18, 0},
		{"line past the head's end with prose is outside", 80, []string{"the handler leaks tokens"}, dropped, 80},
		{"line past the head's end with a quote snaps back", 80, []string{"`json.NewEncoder(w).Encode(names)` writes a partial list"}, 52, 52},
		{"a case label is code, not a location", 19, []string{"handler.go:19: row := h.db.QueryRow(\"SELECT name, email FROM users WHERE id = '\" + id + \"'\")", "case 1: return x"}, 19, 0},
		{"too short to prove anything", 25, []string{"`err`", "}"}, 25, 0},
		{"two joined lines snap to the long statement, not a short line they also hold", 19, []string{"var name, email string; if err := row.Scan(&name, &email); err != nil {"}, 21, 0},
		{"copied from the numbered diff, number and marker included", 21, []string{"49 +\t\trows.Scan(&n)"}, 49, 0},
		{"a deleted line copied from the numbered diff", 33, []string{"   -\tif r.Header.Get(\"X-Admin\") != \"1\" {"}, 31, 0},
	}
	for _, tc := range tests {
		for _, withHead := range []bool{true, false} {
			name := tc.name
			want := tc.want
			heads := map[string]string{"handler.go": head}
			if !withHead {
				name += "/diff only"
				heads = nil
				if tc.diffOnly != 0 {
					want = tc.diffOnly
				}
			}
			t.Run(name, func(t *testing.T) {
				f := fnd("problem", "handler.go", tc.line, finding.P1, 75, evidence(tc.evidence...))
				got := Synthesize(Input{Files: []*diff.File{df}, Heads: heads, Results: []PersonaResult{res("security", f)}})
				kept := append(append(got.Gated, got.BelowBar...), got.PreExisting...)
				switch {
				case want == dropped && len(kept) != 0:
					t.Errorf("got kept at line %d; want dropped", kept[0].Line)
				case want == dropped:
					if got.DroppedByReason[ReasonUnanchored]+got.DroppedByReason[ReasonLineOutside] != 1 {
						t.Errorf("got dropped %v; want one unanchored or line-outside drop", got.DroppedByReason)
					}
				case len(kept) != 1:
					t.Errorf("got dropped %v; want kept at line %d", got.DroppedByReason, want)
				case kept[0].Line != want:
					t.Errorf("got line %d; want %d", kept[0].Line, want)
				}
			})
		}
	}
}

// TestAnchorHiddenCharacter: the prompt shows a zero-width space as
// <U+200B>; a finding quoting that form anchors on the raw character.
func TestAnchorHiddenCharacter(t *testing.T) {
	df := added("auth.go", "package auth", "", "func admin(u string) bool {", "\treturn u == \"root\u200b\"", "}")
	f := fnd("Zero-width space in the admin name", "auth.go", 3, finding.P0, 100,
		evidence("auth.go:4: `return u == \"root<U+200B>\"`"))
	out := Synthesize(Input{Files: []*diff.File{df}, Results: []PersonaResult{res("security", f)}})
	if len(out.Gated) != 1 || out.Gated[0].Line != 4 {
		t.Fatalf("got gated %+v, drops %v; want the finding snapped to line 4", out.Gated, out.DroppedByReason)
	}
}

// TestAnchorIgnoresAStaleHead: a head that does not match the diff (a local
// --diff reviewed against a working tree that moved on) is not searched:
// the diff's own lines are, so a quote of a changed line still anchors.
func TestAnchorIgnoresAStaleHead(t *testing.T) {
	df, head := anchorFixture(t)
	stale := strings.Replace(head, "rows.Scan(&n)", "if err := rows.Scan(&n); err != nil { return err }", 1)
	f := fnd("Scan error ignored", "handler.go", 50, finding.P1, 75, evidence("handler.go:49: rows.Scan(&n)"))
	out := Synthesize(Input{Files: []*diff.File{df}, Heads: map[string]string{"handler.go": stale}, Results: []PersonaResult{res("correctness", f)}})
	if len(out.Gated) != 1 || out.Gated[0].Line != 49 {
		t.Fatalf("got gated %+v, drops %v; want the finding anchored at 49 from the diff", out.Gated, out.DroppedByReason)
	}
	if !agrees(df, head) || agrees(df, stale) {
		t.Errorf("agrees: got %v for the real head, %v for the stale one; want true, false", agrees(df, head), agrees(df, stale))
	}
}

// TestAnchorDropReason: a made-up quote is counted as unanchored, a line
// past the head's end as outside.
func TestAnchorDropReason(t *testing.T) {
	df, head := anchorFixture(t)
	heads := map[string]string{"handler.go": head}
	out := Synthesize(Input{Files: []*diff.File{df}, Heads: heads, Results: []PersonaResult{res("correctness",
		fnd("made up", "handler.go", 19, finding.P1, 75, evidence("handler.go:19: return db.Exec(query)")),
		fnd("past the end", "handler.go", 90, finding.P1, 75, evidence("the handler never closes the body")),
		fnd("real", "handler.go", 49, finding.P1, 75, evidence("handler.go:49: rows.Scan(&n)")),
	)}})
	if got := out.DroppedByReason[ReasonUnanchored]; got != 1 {
		t.Errorf("got %d unanchored; want 1", got)
	}
	if got := out.DroppedByReason[ReasonLineOutside]; got != 1 {
		t.Errorf("got %d line outside; want 1", got)
	}
	if len(out.Gated) != 1 || out.Gated[0].Title != "real" {
		t.Errorf("got gated %+v; want the real finding", out.Gated)
	}
	if out.Snapped != 0 {
		t.Errorf("got %d snapped; want 0 (the real finding was on its line)", out.Snapped)
	}
	moved := Synthesize(Input{Files: []*diff.File{df}, Heads: heads, Results: []PersonaResult{res("correctness",
		fnd("off by one", "handler.go", 50, finding.P1, 75, evidence("handler.go:49: rows.Scan(&n)")))}})
	if moved.Snapped != 1 || len(moved.Gated) != 1 || moved.Gated[0].Line != 49 {
		t.Errorf("got %d snapped, gated %+v; want 1, the finding on line 49", moved.Snapped, moved.Gated)
	}
}

func TestParseEvidence(t *testing.T) {
	tests := []struct {
		in   string
		want []quote
	}{
		{"api/users.go:42: query := \"SELECT\" + id", []quote{{variants: []string{`query := "SELECT" + id`, `api/users.go:42: query := "SELECT" + id`}, code: true}}},
		{"L42-L45: if err != nil {", []quote{{variants: []string{"if err != nil {", "L42-L45: if err != nil {"}, code: true}}},
		{"line 42: the error is dropped", []quote{{variants: []string{"the error is dropped", "line 42: the error is dropped"}, wholeLine: true}}},
		{"`x := f()`", []quote{{variants: []string{"x := f()"}, code: true}}},
		{"L7: `x := f()` ignores the error", []quote{{variants: []string{"x := f()"}, code: true}}},
		{"calls `os.Open` and `f.Close()` late", []quote{{variants: []string{"os.Open"}}, {variants: []string{"f.Close()"}}}},
		{"+\treturn nil, err", []quote{{variants: []string{"+ return nil, err", "return nil, err"}, wholeLine: true}}},
		{"+\treturn nil, fmt.Errorf(\"read: %w\", err)", []quote{{variants: []string{`+ return nil, fmt.Errorf("read: %w", err)`, `return nil, fmt.Errorf("read: %w", err)`}, code: true}}},
		{`"x := f()"`, []quote{{variants: []string{`"x := f()"`, "x := f()"}, code: true}}},
		{"handler.go:18", nil},
		{"```\na := 1\n\nb := 2\n```", []quote{{variants: []string{"a := 1"}, code: true}, {variants: []string{"b := 2"}, code: true}}},
		{"the error from os.Open() is ignored here", []quote{{variants: []string{"the error from os.Open() is ignored here"}, wholeLine: true}}},
	}
	for _, tc := range tests {
		got := parseEvidence(tc.in)
		if len(got) != len(tc.want) {
			t.Errorf("parseEvidence(%q): got %+v; want %+v", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			g, w := got[i], tc.want[i]
			if g.code != w.code || g.wholeLine != w.wholeLine || len(g.variants) != len(w.variants) {
				t.Errorf("parseEvidence(%q)[%d]: got %+v; want %+v", tc.in, i, g, w)
				continue
			}
			for j := range g.variants {
				if g.variants[j] != w.variants[j] {
					t.Errorf("parseEvidence(%q)[%d]: got %+v; want %+v", tc.in, i, g, w)
					break
				}
			}
		}
	}
}

func TestLooksLikeCode(t *testing.T) {
	tests := map[string]bool{
		`if err != nil {`: true,
		`query := "SELECT * FROM users WHERE id = " + id`: true,
		`def get(self, url, params=None):`:                true,
		`session.headers["Authorization"] = token`:        true,
		`return nil`:                          false, // no punctuation: matched as a whole line only
		`the error from os.Open() is ignored`: false,
		`The handler never checks the result of rows.Scan(&n) before use.`: false,
		`Token compared with == leaks timing`:                              false,
		`if x is not None and y in (1, 2):`:                                true,
		`if err != nil { return err }`:                                     true,
		`Missing check (see handler)`:                                      false,
		`Parse(b []byte) returns early`:                                    true, // a capitalized identifier call is code
		`Called from main() on every request`:                              false,
		`with open(path) as f:`:                                            true,
	}
	for in, want := range tests {
		if got := looksLikeCode(in); got != want {
			t.Errorf("looksLikeCode(%q) = %v; want %v", in, got, want)
		}
	}
}

// FuzzAnchor: evidence is model text; reading it never panics, and a kept
// finding always ends on a line of the file.
func FuzzAnchor(f *testing.F) {
	for _, s := range []string{"handler.go:19: row := h.db.QueryRow(", "L42-L45: `x := f()`", "```go\nrows.Scan(&n)\n```", "…", "``", "line 1-999999999999999999999: x", "+-", `"'"`} {
		f.Add(s, 19)
	}
	df, head := anchorFixture(f)
	f.Fuzz(func(t *testing.T, ev string, line int) {
		if line < 1 {
			line = 1
		}
		for _, q := range parseEvidence(ev) {
			if len(q.variants) == 0 || q.span < 0 || q.span > maxSpan {
				t.Fatalf("parseEvidence(%q): bad quote %+v", ev, q)
			}
		}
		fnd := fnd("x", "handler.go", line, finding.P1, 75, evidence(ev))
		a := newAnchorer(map[string]string{"handler.go": head})
		ok, quoted := a.anchor(&fnd, df, quotesOf(fnd.Evidence))
		if ok && fnd.Line != line && (fnd.Line < 1 || fnd.Line > 53) {
			t.Fatalf("evidence %q moved line %d to %d, outside the file", ev, line, fnd.Line)
		}
		if !ok && quoted != nil || !slices.IsSorted(quoted) {
			t.Fatalf("evidence %q: got quoted lines %v (ok %v); want sorted, none when dropped", ev, quoted, ok)
		}
	})
}

// TestAnchorBackslashesAsWritten: a quote that matches a line as written
// goes there, never to a line it matches only with its backslashes
// collapsed (`split("\n")` on line 8 beside `split("\\n")` on line 40);
// a quote that matches no line as written (one backslash lost) finds its
// line loosely. Each finding is reported at line 12, nearer line 8.
func TestAnchorBackslashesAsWritten(t *testing.T) {
	lines := make([]string, 50)
	for i := range lines {
		lines[i] = "const filler" + strconv.Itoa(i+1) + " = 0;"
	}
	lines[7] = `const rows = text.split("\n");`
	lines[39] = `const escaped = text.split("\\n");`
	df := added("parse.js", lines...)
	for _, tc := range []struct {
		quote string
		want  int
	}{
		{`parse.js:40: text.split("\\n")`, 40}, // as written: line 40 alone
		{`parse.js:8: text.split("\n")`, 8},
		{`escaped = text.split("\n")`, 40}, // one backslash lost: loosely, line 40 alone
	} {
		f := fnd("Split on the wrong separator", "parse.js", 12, finding.P2, 75, by("correctness"), evidence(tc.quote))
		out := Synthesize(Input{Files: []*diff.File{df}, Results: []PersonaResult{res("correctness", f)}})
		if len(out.Gated) != 1 || out.Gated[0].Line != tc.want {
			var got []int
			for _, g := range out.Gated {
				got = append(got, g.Line)
			}
			t.Errorf("quote %s: lines %v; want %d", tc.quote, got, tc.want)
		}
	}
}
