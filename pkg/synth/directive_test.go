package synth

import (
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// TestDirectiveAttacks: issue 30's directive attacks, through Synthesize.
// Each P2 (correctness, not severe) was suppressed before; each must now
// pass the gate.
func TestDirectiveAttacks(t *testing.T) {
	tests := []struct {
		name  string
		file  *diff.File
		title string
		line  int
	}{
		{
			// The words of the title are no rule ids.
			name: "noqa naming the title's words",
			file: modified("app/pages.py", 10,
				"def paginate(rows, size):",
				"+    return [rows[i:i + size] for i in range(0, len(rows) - size, size)]  # noqa: every,page,drops",
			),
			title: "Every page drops the last partial page", line: 11,
		},
		{
			name: "nolint naming English words",
			file: modified("store/rows.go", 20,
				"func load(rows *sql.Rows) {",
				"+\trows.Scan(&x) //nolint:scan,error,ignored",
			),
			title: "Scan error ignored", line: 21,
		},
		{
			// The waiver is in the base (a context line); the PR rewrote
			// the line under it.
			name: "a base eslint waiver over a rewritten line",
			file: modified("routes/calc.js", 30,
				"  // eslint-disable-next-line no-eval",
				"-  const v = eval(CONSTANT_EXPR)",
				"+  const v = eval(req.query.expr)",
			),
			title: "no-eval: the request's expression is evaluated", line: 31,
		},
		{
			name: "a base nolint comment over a rewritten line",
			file: modified("store/rows.go", 40,
				"\t//nolint:errcheck // closing a read-only file",
				"-\tf.Close()",
				"+\tdb.Exec(\"DELETE FROM sessions\")",
			),
			title: "errcheck: the session purge's error is dropped", line: 41,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fnd(tt.title, tt.file.Path(), tt.line, finding.P2, 100)
			out := Synthesize(Input{Files: []*diff.File{tt.file}, Mode: ModeReportOnly, Results: []PersonaResult{res("correctness", f)}})
			if n := out.DroppedByReason[ReasonLintIgnore]; n != 0 || len(out.Gated) != 1 {
				t.Errorf("suppressed %d, gated %v; want the P2 through the gate", n, titles(out.Gated))
			}
		})
	}
}

// TestDirectivesThatStillHold: real rule ids, and a base waiver over
// unchanged code, suppress as before.
func TestDirectivesThatStillHold(t *testing.T) {
	tests := []struct {
		name  string
		file  *diff.File
		title string
		line  int
	}{
		{"noqa with a code", modified("app/x.py", 10, "def f():", "+    return long_line  # noqa: E501"), "E501 line too long", 11},
		{"nolint with a linter", modified("a/b.go", 10, "func f() {", "+\trows.Scan(&x) //nolint:errcheck"), "errcheck: Scan error ignored", 11},
		{"SuppressWarnings with a known id", modified("A.java", 10, "+  @SuppressWarnings(\"unchecked\")", "+  List<String> xs = (List<String>) o;"), "unchecked cast of o", 11},
		{"cppcheck with a camelCase id", modified("a.c", 10, "+  // cppcheck-suppress nullPointer", "+  *p = 1;"), "nullPointer dereference of p", 11},
		{"a base waiver over an unchanged line", modified("routes/calc.js", 30,
			"  // eslint-disable-next-line no-eval",
			"  const v = eval(CONSTANT_EXPR)",
			"+  log(v)",
		), "no-eval: a constant is evaluated", 31},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fnd(tt.title, tt.file.Path(), tt.line, finding.P2, 100)
			out := Synthesize(Input{Files: []*diff.File{tt.file}, Mode: ModeReportOnly, Results: []PersonaResult{res("correctness", f)}})
			if n := out.DroppedByReason[ReasonLintIgnore]; n != 1 {
				t.Errorf("suppressed %d, gated %v; want the directive to hold", n, titles(out.Gated))
			}
		})
	}
}

func TestIsRuleID(t *testing.T) {
	for _, id := range []string{"E501", "G101", "SA1019", "SC2086", "no-eval", "attr-defined", "dead_code", "Style/StringLiterals", "clippy::unwrap_used", "nullPointer", "1591"} {
		if !isRuleID(id, familyNone) {
			t.Errorf("isRuleID(%q) = false", id)
		}
	}
	for _, w := range []string{"every", "page", "drops", "error", "sql", "injection", "unused"} {
		if isRuleID(w, familyNone) {
			t.Errorf("isRuleID(%q) = true; an English word is no rule id", w)
		}
	}
	if !isRuleID("errcheck", familyGo) || !isRuleID("unchecked", familyJava) || isRuleID("errcheck", familyJava) {
		t.Error("single-word ids are their own tool's")
	}
}
