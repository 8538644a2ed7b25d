package synth

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

func TestSuppressedAt(t *testing.T) {
	const code = "x := compute(a, b)"
	tests := []struct {
		name, line, above string
		want              bool
	}{
		{"plain code", code, "y := 1", false},
		{"ordinary comment above", code, "// compute the total", false},
		{"prose mentioning lint", "total++ // the linter is happy", "", false},

		// Go
		{"go trailing nolint", code + " //nolint", "", true},
		{"go trailing nolint with rule", code + " //nolint:errcheck // reason", "", true},
		{"go nolint with space", code + " // nolint:gosec", "", true},
		{"go standalone nolint above", code, "\t//nolint:errcheck", true},
		{"go trailing nolint above does not reach", code, "y := f() //nolint", false},
		{"go nolintfoo is not nolint", code + " //nolintfoo", "", false},
		{"go staticcheck lint:ignore above", code, "//lint:ignore SA1019 still needed", true},
		// C/C++
		{"clang-tidy NOLINT", "int x = f(); // NOLINT(bugprone-*)", "", true},
		{"clang-tidy NOLINT above is same-line only", code, "// NOLINT", false},
		{"clang-tidy NOLINTNEXTLINE", code, "// NOLINTNEXTLINE(cert-err58-cpp)", true},
		{"cppcheck-suppress above", code, "// cppcheck-suppress nullPointer", true},
		{"gcc pragma above", code, "#pragma GCC diagnostic ignored \"-Wunused\"", true},
		// JS/TS
		{"eslint-disable-line", "foo(); // eslint-disable-line no-console", "", true},
		{"eslint-disable-line above does not reach", code, "// eslint-disable-line", false},
		{"eslint-disable-next-line above", code, "// eslint-disable-next-line no-unused-vars", true},
		{"eslint-disable-next-line trailing above", code, "foo(); // eslint-disable-next-line", true},
		{"eslint-disable-next-line on the line itself", code + " // eslint-disable-next-line", "", false},
		{"eslint block disable above", code, "/* eslint-disable no-console */", true},
		{"eslint disable in jsx", code, "{/* eslint-disable-next-line react/no-danger */}", true},
		{"tslint disable-next-line", code, "// tslint:disable-next-line:no-any", true},
		{"ts-ignore above", code, "// @ts-ignore", true},
		{"ts-expect-error above", code, "  // @ts-expect-error wrong type on purpose", true},
		{"ts-ignore on the line does not cover it", code + " // @ts-ignore", "", false},
		{"biome-ignore above", code, "// biome-ignore lint/style: reason", true},
		// Python
		{"python noqa", "import os  # noqa", "", true},
		{"python noqa with code", "x = 1  # noqa: E501", "", true},
		{"python NOQA upper", "x = 1  # NOQA", "", true},
		{"python noqa trailing above does not reach", code, "import os  # noqa", false},
		{"python standalone noqa above does not reach", code, "# noqa", false},
		{"python standalone type ignore above does not reach", code, "# type: ignore", false},
		{"python type ignore", "x: int = f()  # type: ignore[assignment]", "", true},
		{"python pylint disable", "x = f()  # pylint: disable=broad-except", "", true},
		{"python pylint disable standalone above", code, "# pylint: disable=too-many-locals", true},
		{"python pylint disable-next", code, "foo()  # pylint: disable-next=unused-import", true},
		{"python pyright ignore", "x = f()  # pyright: ignore[reportGeneralTypeIssues]", "", true},
		{"python nosec", "subprocess.call(cmd, shell=True)  # nosec", "", true},
		// Ruby
		{"rubocop trailing", "def x; end # rubocop:disable Style/Foo", "", true},
		{"rubocop standalone above", code, "# rubocop:disable Metrics/MethodLength", true},
		// Java/Kotlin
		{"java annotation above", "public List raw() {", "@SuppressWarnings(\"unchecked\")", true},
		{"java annotation inline", "@SuppressWarnings(\"rawtypes\") List l = x;", "", true},
		{"java annotation after code above", "return raw;", "List x = y; @SuppressWarnings(\"a\")", true},
		{"kotlin Suppress above", "fun f() {", "@Suppress(\"UNCHECKED_CAST\")", true},
		{"kotlin file Suppress above", "package x", "@file:Suppress(\"unused\")", true},
		{"intellij noinspection above", code, "//noinspection unchecked", true},
		{"NOSONAR", code + " // NOSONAR", "", true},
		// Rust
		{"rust allow above", "fn f() {", "#[allow(dead_code)]", true},
		{"rust inner allow above", "use x;", "#![allow(unused)]", true},
		{"rust expect above", "fn f() {", "#[expect(clippy::needless_return)]", true},
		{"rust derive is not a lint attribute", "struct S;", "#[derive(Debug)]", false},
		// C#
		{"csharp pragma above", code, "#pragma warning disable CS0618", true},
		{"csharp SuppressMessage above", "public void M() {", "[SuppressMessage(\"Style\", \"IDE0001\")]", true},
		{"csharp qualified SuppressMessage", "void M() {", "[System.Diagnostics.CodeAnalysis.SuppressMessage(\"a\", \"b\")]", true},
		{"resharper disable once", code, "// ReSharper disable once InconsistentNaming", true},
		// Shell, Docker, PHP, Swift, Terraform
		{"shellcheck above", "echo $x", "# shellcheck disable=SC2086", true},
		{"hadolint above", "RUN apt-get install curl", "# hadolint ignore=DL3008", true},
		{"phpcs ignore", "$x = 1; // phpcs:ignore Generic.Foo", "", true},
		{"phpstan next line", code, "/** @phpstan-ignore-next-line */", true},
		{"swiftlint next", code, "// swiftlint:disable:next force_cast", true},
		{"swiftlint this", "let x = y as! Z // swiftlint:disable:this force_cast", "", true},
		{"tflint above", "resource \"x\" \"y\" {", "# tflint-ignore: aws_instance_invalid_type", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The finding is about the rule the directive names (the rule at
			// hand): it names every rule the two lines' directives name.
			var rules []string
			for _, h := range append(hits(tt.line), hits(tt.above)...) {
				rules = append(rules, h.rules...)
			}
			sub := subject{ids: identifiers(strings.Join(rules, " "))}
			got := suppressedAt(site{line: tt.line, lineOK: true, above: tt.above, aboveOK: tt.above != ""}, sub)
			if got != tt.want {
				t.Errorf("line %q under %q: got suppressed=%v; want %v", tt.line, tt.above, got, tt.want)
			}
			if got := reaches(tt.line) | reaches(tt.above); got != matchDirectives(tt.line)|matchDirectives(tt.above) {
				t.Errorf("pre-check changed the answer for %q / %q", tt.line, tt.above)
			}
		})
	}
}

func TestSuppressedAtUnknownLines(t *testing.T) {
	none := subject{ids: map[string]bool{}}
	if suppressedAt(site{above: "// eslint-disable-next-line"}, none) {
		t.Error("got suppressed for lines the diff does not show; want not suppressed")
	}
	if suppressedAt(site{line: `x := 1 //nolint`}, none) {
		t.Error("got suppressed from an unknown line's text; want not suppressed")
	}
	if !suppressedAt(site{above: "// eslint-disable-next-line", aboveOK: true}, none) {
		t.Error("got not suppressed under a known next-line directive; want suppressed")
	}
}

func TestSuppressLintIgnored(t *testing.T) {
	f := modified("pkg/a.go", 10,
		"func f() {",                   // 10
		"+\t_ = os.Remove(p) //nolint", // 11
		"-\told := 1 //nolint",         // deleted, no new line number
		"+\t//nolint:errcheck",         // 12
		"+\tos.Remove(q)",              // 13
		"\treturn",                     // 14
	)
	ix := newFileIndex([]*diff.File{f})
	tests := []struct {
		line int
		want bool
	}{
		{10, false},
		{11, true},  // trailing on its own line
		{12, true},  // the directive line itself
		{13, true},  // under a standalone directive
		{14, false}, // not directly under
		{9, false},  // outside the hunk
		{40, false}, // outside the hunk
	}
	for _, tt := range tests {
		dropped := map[string]int{}
		gs := suppressLintIgnored(groupsOf(fnd("errcheck: error from os.Remove is ignored", "pkg/a.go", tt.line, finding.P2, 75)), ix, newAddedLines([]*diff.File{f}), dropped)
		if got := len(gs) == 0; got != tt.want {
			t.Errorf("line %d: got suppressed=%v; want %v", tt.line, got, tt.want)
		}
		if want := map[bool]int{true: 1}[tt.want]; dropped[ReasonLintIgnore] != want {
			t.Errorf("line %d: got %d lint-ignore drops; want %d", tt.line, dropped[ReasonLintIgnore], want)
		}
	}
}

// TestSuppressionNeedsTheRuleAtHand: a directive naming rules covers only a
// finding that names one of them, as a whole identifier (SPEC step 6: "for
// the rule at hand"), so a line-length waiver cannot hide an injection; a
// blanket one covers every finding that is not severe.
func TestSuppressionNeedsTheRuleAtHand(t *testing.T) {
	sqli := "sql query built from user input"
	tests := []struct {
		name, line, above, text string
		want                    bool
	}{
		{"blanket nolint", `q := "SELECT " + id //nolint`, "", sqli, true},
		{"nolint for another rule", `q := "SELECT " + id //nolint:lll`, "", sqli, false},
		{"nolint errcheck, finding names errcheck", `json.NewEncoder(w).Encode(u) //nolint:errcheck // gone`, "", "errcheck: error from encode is ignored", true},
		// Issue 24, attack 3: no alias table maps errcheck to "error".
		{"nolint errcheck, finding says error", `json.NewEncoder(w).Encode(u) //nolint:errcheck // gone`, "", "error from encode is ignored", false},
		{"nolint errcheck, sql finding", `db.Exec(q) //nolint:errcheck`, "", sqli, false},
		{"nolint list naming the rule", `db.Exec(q) //nolint:errcheck,gosec`, "", "gosec g201: " + sqli, true},
		{"nolint rule qualified in the finding", `db.Exec(q) //nolint:gosec`, "", "gosec:G201 " + sqli, true},
		// Issue 24, attack 2: a rule is an identifier, never a substring.
		{"nolint sql, finding about nosql", `db.Find(q) //nolint:sql`, "", "nosql query built from user input", false},
		{"nolint sq, finding about sql", `db.Exec(q) //nolint:sq`, "", sqli, false},
		{"nolint:zq9 names no rule of the finding", `db.Exec("SELECT " + id) //nolint:zq9`, "", sqli, false},
		{"lint:ignore names the check", "x := strings.Title(s)", "//lint:ignore SA1019 still needed", "sa1019: strings.title is deprecated", true},
		{"lint:ignore another check", "x := strings.Title(s)", "//lint:ignore SA1019 still needed", sqli, false},
		{"noqa code", `cur.execute("SELECT %s" % x)  # noqa: E501`, "", sqli, false},
		{"noqa code, finding names it", `x = 1  # noqa: E501`, "", "e501 line too long (130 > 120)", true},
		{"noqa code, long line in words", `x = 1  # noqa: E501`, "", "line length over 120", false},
		{"blanket noqa", `cur.execute("SELECT %s" % x)  # noqa`, "", sqli, true},
		{"type ignore with code", `x = f()  # type: ignore[attr-defined]`, "", sqli, false},
		{"type ignore with code, finding names it", `x = f()  # type: ignore[attr-defined]`, "", "mypy attr-defined: module has no attribute", true},
		{"pylint disable names the check", `except Exception:  # pylint: disable=broad-except`, "", "broad-except swallows keyboardinterrupt", true},
		{"pylint disable, another check", `os.system(cmd)  # pylint: disable=broad-except`, "", sqli, false},
		{"eslint next line rule", "db.query(sql)", "// eslint-disable-next-line no-console -- debug", sqli, false},
		{"eslint next line, finding names the rule", "console.log(token)", "// eslint-disable-next-line no-console -- debug", "no-console left in production code", true},
		{"eslint next line, rule only as words", "console.log(token)", "// eslint-disable-next-line no-console -- debug", "console output left in production code", false},
		{"eslint next line blanket", "db.query(sql)", "// eslint-disable-next-line", sqli, true},
		{"rubocop cop", `User.where("name = '#{n}'") # rubocop:disable Rails/SquishedSQLHeredocs`, "", sqli, false},
		{"rubocop cop named", `x # rubocop:disable Style/StringLiterals`, "", "style/stringliterals: prefer single quotes", true},
		{"rubocop cop named by its last part", `x # rubocop:disable Style/StringLiterals`, "", "stringliterals: prefer single quotes", true},
		{"rubocop cop only in words", `x # rubocop:disable Style/StringLiterals`, "", "style: prefer string literals", false},
		{"java annotation", "List l = (List) o;", `@SuppressWarnings("unchecked")`, sqli, false},
		{"java annotation, unchecked cast", "List l = (List) o;", `@SuppressWarnings("unchecked")`, "unchecked cast to list", true},
		{"rust allow", "let x = v.unwrap();", "#[allow(clippy::unwrap_used)]", "clippy::unwrap_used on a none value panics", true},
		{"rust allow, finding names the last part", "let x = v.unwrap();", "#[allow(clippy::unwrap_used)]", "unwrap_used on a none value panics", true},
		{"rust allow other", "let x = v.unwrap();", "#[allow(dead_code)]", sqli, false},
		{"shellcheck", `rm -rf $DIR/*  # shellcheck disable=SC2086`, "", "sc2086: unquoted variable, word splitting", true},
		{"shellcheck in words only", `rm -rf $DIR/*  # shellcheck disable=SC2086`, "", "unquoted variable: word splitting", false},
		{"csharp pragma other", "var x = Obsolete();", "#pragma warning disable CS0618", sqli, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := site{line: tt.line, lineOK: true, above: tt.above, aboveOK: tt.above != ""}
			if got := suppressedAt(s, subject{ids: identifiers(strings.ToLower(tt.text))}); got != tt.want {
				t.Errorf("line %q under %q, finding %q: got suppressed=%v; want %v", tt.line, tt.above, tt.text, got, tt.want)
			}
		})
	}
}

// TestBareDirectiveNeverSuppressesSevere (issue 12): a directive that
// names no rule never drops a P0 or P1, nor a security persona's finding.
func TestBareDirectiveNeverSuppressesSevere(t *testing.T) {
	shell := "shell command built from user input"
	tests := []struct {
		name, line, above string
		sev               finding.Severity
		reviewers         []string
		want              bool
	}{
		{"standalone noqa above a P0", `os.system("convert " + name)`, "# noqa", finding.P0, []string{"security", "correctness"}, false},
		{"trailing bare noqa on a P0", `os.system("convert " + name)  # noqa`, "", finding.P0, []string{"correctness"}, false},
		{"type ignore on a P1", `os.system("convert " + name)  # type: ignore`, "", finding.P1, []string{"correctness"}, false},
		{"bare nolint on a P1", `exec.Command("sh", "-c", "convert "+name) //nolint`, "", finding.P1, []string{"correctness"}, false},
		{"bare nolint above a P0", `exec.Command("sh", "-c", "convert "+name)`, "//nolint", finding.P0, []string{"correctness"}, false},
		{"bare nosec on a security P2", `subprocess.call(cmd, shell=True)  # nosec`, "", finding.P2, []string{"security"}, false},
		{"bare noqa on a P2 style nit", `x = 1  # noqa`, "", finding.P2, []string{"maintainability"}, true},
		{"named rule at the base still covers a P1", `json.NewEncoder(w).Encode(u) //nolint:errcheck`, "", finding.P1, []string{"correctness"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fnd(shell+" (errcheck)", "pkg/a.go", 1, tt.sev, 100)
			f.Reviewers = tt.reviewers
			// The lines are the base's (context): the PR added neither.
			s := site{line: tt.line, lineOK: true, above: tt.above, aboveOK: tt.above != ""}
			if got := suppressedAt(s, subjectOf(group{f: f})); got != tt.want {
				t.Errorf("got suppressed=%v; want %v", got, tt.want)
			}
		})
	}
}

// TestAddedDirectiveNeverSuppressesSevere (issue 24): a directive the pull
// request adds, or one it moves new code under, never drops a P0 or P1 nor
// a security finding, even when it names the finding's rule; the same rule
// for Go, JavaScript, Python and Ruby. A finding that is not severe still
// yields to it.
func TestAddedDirectiveNeverSuppressesSevere(t *testing.T) {
	type where struct{ directiveAdded, lineAdded bool }
	tests := []struct {
		name, line, above, title string
	}{
		{"go nolint", `db.Query("SELECT * FROM u WHERE id=" + id) //nolint:gosec`, "", "gosec G202: SQL built from user input"},
		{"go lint:ignore above", `db.Query("SELECT * FROM u WHERE id=" + id)`, "//lint:ignore SA1019 legacy", "SA1019: deprecated driver call builds SQL from input"},
		{"js eslint next line", "eval(req.query.code)", "// eslint-disable-next-line no-eval", "no-eval: request text is evaluated"},
		{"js eslint line", "eval(req.query.code) // eslint-disable-line no-eval", "", "no-eval: request text is evaluated"},
		{"python noqa", `cur.execute("SELECT %s" % uid)  # noqa: S608`, "", "S608: SQL built with % formatting"},
		{"python type ignore", `run(cmd)  # type: ignore[arg-type]`, "", "arg-type: a None command reaches run"},
		{"python pylint", `eval(data)  # pylint: disable=eval-used`, "", "eval-used on request data"},
		{"ruby rubocop", `eval(params[:code]) # rubocop:disable Security/Eval`, "", "Security/Eval: params are evaluated"},
	}
	for _, tt := range tests {
		for _, w := range []where{{true, true}, {true, false}, {false, true}, {false, false}} {
			for _, sev := range []finding.Severity{finding.P0, finding.P1, finding.P2} {
				name := fmt.Sprintf("%s/%s/directive added %v/line added %v", tt.name, sev, w.directiveAdded, w.lineAdded)
				t.Run(name, func(t *testing.T) {
					f := fnd(tt.title, "a", 2, sev, 100)
					f.Reviewers = []string{"correctness"}
					s := site{line: tt.line, lineOK: true, above: tt.above, aboveOK: tt.above != "", lineAdded: w.lineAdded}
					if tt.above != "" {
						s.aboveAdded = w.directiveAdded
					} else if w.directiveAdded != w.lineAdded {
						return // a trailing directive shares its line's fate
					}
					severeSev := sev != finding.P2
					// Unchanged code under a base directive, or (not
					// severe) a directive the PR wrote; never a base
					// directive over code the PR rewrote (issue 30).
					want := (!w.directiveAdded && !w.lineAdded) || (!severeSev && w.directiveAdded)
					if got := suppressedAt(s, subjectOf(group{f: f})); got != want {
						t.Errorf("got suppressed=%v; want %v", got, want)
					}
					f.Reviewers = []string{"security"} // a security finding of any severity
					if got := suppressedAt(s, subjectOf(group{f: f})); got != (!w.directiveAdded && !w.lineAdded) {
						t.Errorf("security finding: got suppressed=%v; want %v", got, !w.directiveAdded && !w.lineAdded)
					}
				})
			}
		}
	}
}

// TestEvidenceNeverNamesTheRule (issue 24, attack 1): the evidence quotes
// the line, and the line carries the directive, so a rule looked for in
// the evidence "matches" whatever it is. Step 6 reads the title, reason
// and category only.
func TestEvidenceNeverNamesTheRule(t *testing.T) {
	line := `	rows, err := db.Query("SELECT * FROM users WHERE name = '" + name + "'") //nolint:zq9`
	f := modified("pkg/users.go", 10, "func find(name string) {", "+"+line, "}")
	ix := newFileIndex([]*diff.File{f})
	for _, sev := range []finding.Severity{finding.P0, finding.P2} {
		g := fnd("Query concatenates the user's name into SQL", "pkg/users.go", 11, sev, 100, func(f *finding.Finding) {
			f.Evidence = []string{"pkg/users.go:11: " + line}
			f.SuggestedFix = "Use a placeholder instead of " + line
			f.WhyItMatters = "Anyone who controls name reads or rewrites the users table."
		})
		dropped := map[string]int{}
		if got := suppressLintIgnored(groupsOf(g), ix, newAddedLines([]*diff.File{f}), dropped); len(got) != 1 {
			t.Errorf("%s finding under //nolint:zq9: suppressed (%v); want kept: zq9 is no rule the finding is about", sev, dropped)
		}
	}
}

// TestIncrementalDirectiveIsStillThePRs: in an incremental re-review the
// directive an earlier push added is a context line of the new commits'
// diff; judged on the PR's whole change it is still the PR's own.
func TestIncrementalDirectiveIsStillThePRs(t *testing.T) {
	directive := "\t// eslint-disable-next-line no-eval"
	delta := modified("web/run.js", 20, directive, "+\teval(req.query.code)")
	whole := modified("web/run.js", 20, "+"+directive, "+\teval(req.query.code)")
	out := Synthesize(Input{
		Files:   []*diff.File{delta},
		Changed: []*diff.File{whole},
		Results: []PersonaResult{{Persona: "correctness", Answer: finding.Answer{Findings: []finding.Finding{
			fnd("no-eval: request text is evaluated", "web/run.js", 21, finding.P1, 100, func(f *finding.Finding) {
				f.Evidence = []string{"eval(req.query.code)"}
			}),
		}}}},
	})
	if len(out.Gated) != 1 {
		t.Errorf("gated %d findings (dropped %v); want the P1 kept: the PR added its directive in an earlier push", len(out.Gated), out.DroppedByReason)
	}
}

// FuzzReaches holds the substring pre-check to its promise: it never hides a
// directive the regular expressions would find.
func FuzzReaches(f *testing.F) {
	for _, s := range []string{
		"x := 1 //nolint:errcheck", "# NoQA: E501", "@SuppressWarnings(\"x\")",
		"#![allow(dead_code)]", "// eslint-disable-next-line", "[SuppressMessage(\"a\")]",
		"# ReSharper disable once X", "plain code", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := reaches(s), matchDirectives(s); got != want {
			t.Fatalf("reaches(%q) = %b; want %b", s, got, want)
		}
	})
}

// The two helpers below exist for the tests: reaches is what hits gives a
// line, and matchDirectives the same without the substring pre-check, so
// FuzzReaches can hold the pre-check to its promise.

// reaches returns the union of the reaches of every directive on line s.
func reaches(s string) reach {
	var r reach
	for _, h := range hits(s) {
		r |= h.reach
	}
	return r
}

// matchDirectives is reaches without the substring pre-check.
func matchDirectives(s string) reach {
	var r reach
	for _, d := range directives {
		if d.re.MatchString(s) {
			r |= d.reach
		}
	}
	return r
}

// FuzzDirectives holds the directive parser to its promises on any line:
// every rule it reads is one lower-cased identifier; a severe finding is
// never suppressed by a directive on a line the pull request added, nor by
// one that names no rule; and a finding that names nothing is suppressed
// only by a blanket directive.
func FuzzDirectives(f *testing.F) {
	for _, s := range []string{
		"x := 1 //nolint:errcheck,gosec // why", "# noqa: E501, W291", "x  # type: ignore[attr-defined]",
		"# pylint: disable=broad-except,eval-used", "// eslint-disable-next-line no-eval, no-console -- x",
		"/* eslint-disable no-console */", "eval(x) # rubocop:disable Security/Eval, Style/Foo",
		"#[allow(clippy::unwrap_used)]", "//lint:ignore SA1019 reason", "@SuppressWarnings({\"a\", \"b\"})",
		"# shellcheck disable=SC2086", "plain code", "",
	} {
		f.Add(s, "")
		f.Add("db.Exec(q)", s)
	}
	f.Fuzz(func(t *testing.T, line, above string) {
		for _, h := range append(hits(line), hits(above)...) {
			for _, r := range h.rules {
				if r == "" || r != strings.ToLower(r) || ruleToken.FindString(r) != r {
					t.Fatalf("rule %q read from %q / %q is not one lower-cased identifier", r, line, above)
				}
			}
		}
		s := site{line: line, lineOK: true, above: above, aboveOK: true, lineAdded: true, aboveAdded: true}
		every := subject{ids: identifiers(strings.ToLower(line + " " + above)), severe: true}
		if suppressedAt(s, every) {
			t.Fatalf("a severe finding on a PR-added line was suppressed by %q / %q", line, above)
		}
		s.lineAdded, s.aboveAdded = false, false
		if suppressedAt(s, subject{ids: map[string]bool{}, severe: true}) {
			t.Fatalf("a severe finding naming no rule was suppressed by %q / %q", line, above)
		}
		if suppressedAt(s, subject{ids: map[string]bool{}}) {
			blanket := false
			for _, h := range append(hits(line), hits(above)...) {
				blanket = blanket || len(h.rules) == 0
			}
			if !blanket {
				t.Fatalf("a finding naming no rule was suppressed by rule-naming directives only: %q / %q", line, above)
			}
		}
	})
}
