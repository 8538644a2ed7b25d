package synth

import (
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
			// hand): its text quotes the directive lines.
			text := strings.ToLower(tt.line + "\n" + tt.above)
			got := suppressedAt(tt.line, true, tt.above, tt.above != "", text, false)
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
	if suppressedAt("", false, "// eslint-disable-next-line", false, "", false) {
		t.Error("got suppressed for lines the diff does not show; want not suppressed")
	}
	if suppressedAt(`x := 1 //nolint`, false, "", false, "", false) {
		t.Error("got suppressed from an unknown line's text; want not suppressed")
	}
	if !suppressedAt("", false, "// eslint-disable-next-line", true, "", false) {
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
		gs := suppressLintIgnored(groupsOf(fnd("Error from os.Remove is ignored", "pkg/a.go", tt.line, finding.P2, 75)), ix, dropped)
		if got := len(gs) == 0; got != tt.want {
			t.Errorf("line %d: got suppressed=%v; want %v", tt.line, got, tt.want)
		}
		if want := map[bool]int{true: 1}[tt.want]; dropped[ReasonLintIgnore] != want {
			t.Errorf("line %d: got %d lint-ignore drops; want %d", tt.line, dropped[ReasonLintIgnore], want)
		}
	}
}

// TestSuppressionNeedsTheRuleAtHand: a directive naming rules covers only a
// finding about one of them (SPEC step 6: "for the rule at hand"), so a
// line-length waiver cannot hide an injection; a blanket one covers all.
func TestSuppressionNeedsTheRuleAtHand(t *testing.T) {
	sqli := "sql query built from user input"
	tests := []struct {
		name, line, above, text string
		want                    bool
	}{
		{"blanket nolint", `q := "SELECT " + id //nolint`, "", sqli, true},
		{"nolint for another rule", `q := "SELECT " + id //nolint:lll`, "", sqli, false},
		{"nolint errcheck, error finding", `json.NewEncoder(w).Encode(u) //nolint:errcheck // gone`, "", "error from encode is ignored", true},
		{"nolint errcheck, sql finding", `db.Exec(q) //nolint:errcheck`, "", sqli, false},
		{"nolint list naming the rule", `db.Exec(q) //nolint:errcheck,gosec`, "", "gosec g201: " + sqli, true},
		{"noqa code", `cur.execute("SELECT %s" % x)  # noqa: E501`, "", sqli, false},
		{"noqa code, long line finding", `x = 1  # noqa: E501`, "", "line length over 120", true},
		{"blanket noqa", `cur.execute("SELECT %s" % x)  # noqa`, "", sqli, true},
		{"type ignore with code", `x = f()  # type: ignore[attr-defined]`, "", sqli, false},
		{"eslint next line rule", "db.query(sql)", "// eslint-disable-next-line no-console -- debug", sqli, false},
		{"eslint next line blanket", "db.query(sql)", "// eslint-disable-next-line", sqli, true},
		{"rubocop cop", `User.where("name = '#{n}'") # rubocop:disable Rails/SquishedSQLHeredocs`, "", sqli, false},
		{"rubocop cop named", `x # rubocop:disable Style/StringLiterals`, "", "style: prefer string literals", true},
		{"java annotation", "List l = (List) o;", `@SuppressWarnings("unchecked")`, sqli, false},
		{"java annotation, unchecked cast", "List l = (List) o;", `@SuppressWarnings("unchecked")`, "unchecked cast to list", true},
		{"rust allow", "let x = v.unwrap();", "#[allow(clippy::unwrap_used)]", "unwrap used on a none value panics", true},
		{"rust allow other", "let x = v.unwrap();", "#[allow(dead_code)]", sqli, false},
		{"shellcheck", `rm -rf $DIR/*  # shellcheck disable=SC2086`, "", "unquoted variable: word splitting", true},
		{"csharp pragma other", "var x = Obsolete();", "#pragma warning disable CS0618", sqli, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := suppressedAt(tt.line, true, tt.above, tt.above != "", tt.text, false); got != tt.want {
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
		{"named rule still covers a P1", `json.NewEncoder(w).Encode(u) //nolint:errcheck`, "", finding.P1, []string{"correctness"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fnd(shell+" (error from encode)", "pkg/a.go", 1, tt.sev, 100)
			f.Reviewers = tt.reviewers
			text := strings.ToLower(shell + " error from encode")
			if got := suppressedAt(tt.line, true, tt.above, tt.above != "", text, severe(f)); got != tt.want {
				t.Errorf("got suppressed=%v; want %v", got, tt.want)
			}
		})
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
