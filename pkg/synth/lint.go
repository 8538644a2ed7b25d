package synth

import (
	"regexp"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/finding"
)

// reach says which lines a lint directive covers.
type reach uint8

const (
	// reachSame: only the line carrying it (eslint-disable-line, NOLINT).
	reachSame reach = 1 << iota
	// reachNext: only the line below (eslint-disable-next-line, @ts-ignore).
	reachNext
	// reachComment: the line carrying it; and the line below when it stands
	// on a comment line of its own (//nolint, # noqa, # rubocop:disable).
	reachComment
	// reachAttribute: an annotation or attribute covers its own line and the
	// declaration below (@SuppressWarnings, #[allow(...)]).
	reachAttribute
)

// directive is one recognised lint-disable form.
type directive struct {
	re    *regexp.Regexp
	reach reach
}

// directives are the lint-disable forms step 6 recognises. SPEC suppresses a
// finding under a directive "for the rule at hand": a blanket directive
// (no rule named) covers every finding on its lines, while one naming rules
// (//nolint:lll, # noqa: E501, @SuppressWarnings("unchecked")) covers only a
// finding whose text names one of those rules or a plain-words alias of it
// (errcheck ~ "error"), so a line-length waiver cannot hide an injection.
// Order does not matter; every match on a line counts.
var directives = []directive{
	// Go: golangci-lint, staticcheck.
	{regexp.MustCompile(`//\s*nolint\b`), reachComment},
	{regexp.MustCompile(`//\s*lint:(?:file-)?ignore\b`), reachComment},
	// C/C++: clang-tidy, cppcheck, GCC/clang pragmas.
	{regexp.MustCompile(`\bNOLINTNEXTLINE\b`), reachNext},
	{regexp.MustCompile(`\bNOLINT\b`), reachSame},
	{regexp.MustCompile(`cppcheck-suppress\b`), reachComment},
	{regexp.MustCompile(`#\s*pragma\s+(?:GCC|clang)\s+diagnostic\s+ignored\b`), reachComment},
	// JavaScript/TypeScript: ESLint, TSLint, Biome, tsc.
	{regexp.MustCompile(`\b(?:es|ts)lint[-:]disable-next-line\b`), reachNext},
	{regexp.MustCompile(`\b(?:es|ts)lint[-:]disable-line\b`), reachSame},
	{regexp.MustCompile(`\b(?:es|ts)lint[-:]disable(?:[^-\w]|$)`), reachComment},
	{regexp.MustCompile(`biome-ignore\b`), reachNext},
	{regexp.MustCompile(`@ts-(?:ignore|expect-error)\b`), reachNext},
	// Python: flake8/ruff, mypy, pyright, pylint, bandit.
	// noqa, type: ignore, pyright: ignore and nosec cover their own line
	// only: a standalone "# noqa" above a line waives nothing there.
	{regexp.MustCompile(`(?i)#\s*noqa\b`), reachSame},
	{regexp.MustCompile(`#\s*type:\s*ignore\b`), reachSame},
	{regexp.MustCompile(`#\s*pyright:\s*ignore\b`), reachSame},
	{regexp.MustCompile(`#\s*pylint:\s*disable-next\s*=`), reachNext},
	{regexp.MustCompile(`#\s*pylint:\s*disable\s*=`), reachComment},
	{regexp.MustCompile(`#\s*nosec\b`), reachSame},
	// Ruby: RuboCop.
	{regexp.MustCompile(`#\s*rubocop:\s*(?:disable|todo)\b`), reachComment},
	// Java/Kotlin: annotations, IntelliJ, Sonar.
	{regexp.MustCompile(`@SuppressWarnings\b`), reachAttribute},
	{regexp.MustCompile(`@(?:file:)?Suppress\s*\(`), reachAttribute},
	{regexp.MustCompile(`//\s*noinspection\b`), reachComment},
	{regexp.MustCompile(`\bNOSONAR\b`), reachSame},
	// Rust: lint attributes, outer and inner.
	{regexp.MustCompile(`#!?\[\s*(?:allow|expect)\s*\(`), reachAttribute},
	// C#: pragmas, attributes, ReSharper.
	{regexp.MustCompile(`#\s*pragma\s+warning\s+disable\b`), reachComment},
	{regexp.MustCompile(`\[\s*(?:[\w.]+\.)?SuppressMessage(?:Attribute)?\s*\(`), reachAttribute},
	{regexp.MustCompile(`ReSharper\s+disable\s+once\b`), reachNext},
	{regexp.MustCompile(`ReSharper\s+disable\b`), reachComment},
	// Shell, Dockerfile.
	{regexp.MustCompile(`#\s*shellcheck\s+disable\s*=`), reachComment},
	{regexp.MustCompile(`#\s*hadolint\s+ignore\s*=`), reachComment},
	// PHP: PHP_CodeSniffer, PHPStan, Psalm.
	{regexp.MustCompile(`phpcs:(?:ignore|disable)\b`), reachComment},
	{regexp.MustCompile(`@phpstan-ignore-next-line\b`), reachNext},
	{regexp.MustCompile(`@phpstan-ignore-line\b`), reachSame},
	{regexp.MustCompile(`@psalm-suppress\b`), reachComment},
	// Swift: SwiftLint.
	{regexp.MustCompile(`swiftlint:disable:next\b`), reachNext},
	{regexp.MustCompile(`swiftlint:disable:this\b`), reachSame},
	{regexp.MustCompile(`swiftlint:disable(?:[^:\w]|$)`), reachComment},
	// Terraform: TFLint.
	{regexp.MustCompile(`#\s*tflint-ignore:`), reachNext},
}

// directiveHints are cheap substrings at least one of which every directive
// contains, checked before any regular expression runs (most lines have none).
// Hints are lower-case and matched against the lower-cased line.
var directiveHints = []string{
	"lint", "cppcheck", "pragma", "biome", "@ts-", "noqa", "type:", "pyright",
	"nosec", "rubocop", "suppress", "noinspection", "nosonar", "allow", "expect",
	"resharper", "shellcheck", "hadolint", "phpcs", "phpstan",
}

// hit is one directive found on a line: its reach and the rules it names
// (none: a blanket directive).
type hit struct {
	reach reach
	rules []string
}

// hits returns every directive on line s.
func hits(s string) []hit {
	lower := strings.ToLower(s)
	hinted := false
	for _, h := range directiveHints {
		if strings.Contains(lower, h) {
			hinted = true
			break
		}
	}
	if !hinted {
		return nil
	}
	var out []hit
	for _, d := range directives {
		if loc := d.re.FindStringIndex(s); loc != nil {
			out = append(out, hit{reach: d.reach, rules: rulesAfter(s[loc[1]:])})
		}
	}
	return out
}

var (
	// listAfter matches a rule list attached to a directive: ":a,b", "=a, b",
	// "[a, b]", "(\"a\", \"b\")" or, after a space, "a, b" (ESLint, RuboCop,
	// pragma warning disable).
	listAttached = regexp.MustCompile(`^\s*[:=]\s*([\w./@-]+(?:\s*,\s*[\w./@-]+)*)`)
	listBracket  = regexp.MustCompile(`^\s*[\[(]\s*\{?([^\])}]*)`)
	listSpaced   = regexp.MustCompile(`^\s+([\w@][\w./@-]*(?:\s*,\s*[\w@][\w./@-]*)*)`)
	// listOpen: the directive's own pattern ended at "(" (allow(, Suppress().
	listOpen  = regexp.MustCompile(`^\s*\{?([\w"'./@:, -]+)[)\]}]`)
	ruleToken = regexp.MustCompile(`[A-Za-z@][\w./@:-]*\w`)
)

// rulesAfter reads the rule names written right after a directive; none
// means the directive is blanket. Free text after "//", "--" or "#" is a
// comment, not rules.
func rulesAfter(tail string) []string {
	var list string
	switch {
	case listAttached.MatchString(tail):
		list = listAttached.FindStringSubmatch(tail)[1]
	case listBracket.MatchString(tail):
		list = listBracket.FindStringSubmatch(tail)[1]
	case listOpen.MatchString(tail):
		list = listOpen.FindStringSubmatch(tail)[1]
	case listSpaced.MatchString(tail):
		list = listSpaced.FindStringSubmatch(tail)[1]
		if w := strings.ToLower(strings.TrimSpace(list)); w == "all" || strings.HasPrefix(w, "all ") {
			return nil
		}
	default:
		return nil
	}
	var rules []string
	for _, tok := range ruleToken.FindAllString(list, -1) {
		if t := strings.ToLower(tok); t != "all" && t != "file" && t != "next" {
			rules = append(rules, t)
			if split := strings.ToLower(camelWords(tok)); split != t {
				rules = append(rules, split) // StringLiterals ~ "string literals"
			}
		}
	}
	return rules
}

// camelWords splits CamelCase runs with spaces: "Style/StringLiterals" →
// "Style/String Literals".
func camelWords(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ruleAliases maps common lint rule names to words a finding about the same
// problem uses, so a rule-specific waiver still covers its own finding.
var ruleAliases = map[string][]string{
	"errcheck": {"error", "err "}, "wrapcheck": {"error"}, "err113": {"error"},
	"lll": {"line length", "long line"}, "e501": {"line length", "long line"},
	"unused": {"unused", "dead code"}, "dead_code": {"unused", "dead code"}, "deadcode": {"unused", "dead code"},
	"f401": {"unused import"}, "w0611": {"unused import"}, "no-unused-vars": {"unused"},
	"ineffassign": {"assignment", "never used"}, "staticcheck": {}, "govet": {"vet"},
	"gocyclo": {"complex"}, "cyclop": {"complex"}, "funlen": {"too long", "length"},
	"dupl": {"duplicat"}, "goconst": {"constant", "repeated string"},
	"unchecked": {"unchecked", "cast"}, "deprecation": {"deprecat"},
	"no-explicit-any": {"any"}, "ban-ts-comment": {"ts-ignore"},
	"sc2086": {"quot", "word splitting", "glob"}, "sc2046": {"quot", "word splitting"},
}

// covers reports whether a directive with these rules covers a finding
// whose lower-cased text is text.
func covers(rules []string, text string) bool {
	if len(rules) == 0 {
		return true
	}
	norm := func(s string) string { return strings.NewReplacer("_", " ", "-", " ").Replace(s) }
	ntext := norm(text)
	for _, r := range rules {
		short := r
		if i := strings.LastIndexAny(short, "/:"); i >= 0 && i < len(short)-1 {
			short = short[i+1:] // Style/StringLiterals, clippy::unwrap_used
		}
		for _, cand := range []string{r, short} {
			if len(cand) >= 3 && (strings.Contains(text, cand) || strings.Contains(ntext, norm(cand))) {
				return true
			}
		}
		for _, a := range ruleAliases[short] {
			if strings.Contains(text, a) {
				return true
			}
		}
	}
	return false
}

// commentOnly reports whether s is nothing but a comment (or a preprocessor
// line): a directive there is about the code below it.
func commentOnly(s string) bool {
	t := strings.TrimSpace(s)
	for _, p := range []string{"//", "#", "/*", "*", "--", "<!--", "{/*", ";"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// suppressedAt decides step 6 for one line, given the text of that line and
// of the line directly above it (ok false: the diff does not show it) and
// the finding's lower-cased text (for rule-specific directives). severe
// findings (P0, P1, or the security persona's) yield only to a directive
// that names their rule: a bare "# noqa" or "//nolint" is a linter's
// silence, not a reviewer's.
func suppressedAt(line string, lineOK bool, above string, aboveOK bool, text string, severe bool) bool {
	covers := func(rules []string, text string) bool {
		if severe && len(rules) == 0 {
			return false
		}
		return covers(rules, text)
	}
	if lineOK {
		for _, h := range hits(line) {
			if h.reach&(reachSame|reachComment|reachAttribute) != 0 && covers(h.rules, text) {
				return true
			}
		}
	}
	if !aboveOK {
		return false
	}
	for _, h := range hits(above) {
		if h.reach&(reachNext|reachAttribute) != 0 || (h.reach&reachComment != 0 && commentOnly(above)) {
			if covers(h.rules, text) {
				return true
			}
		}
	}
	return false
}

// findingText is what rule names are looked for in.
func findingText(g group) string {
	parts := []string{g.f.Title, g.f.WhyItMatters, g.f.SuggestedFix}
	parts = append(parts, g.f.Evidence...)
	return strings.ToLower(strings.Join(parts, " \n "))
}

// suppressLintIgnored is step 6: a finding whose line carries a lint-disable
// comment, or sits directly under one that covers the next line, is dropped
// as ReasonLintIgnore. Line text comes from the diff (context and added
// lines of the new version); a line the diff does not show is not
// suppressed, since the head file is not fetched at this stage.
func suppressLintIgnored(gs []group, files fileIndex, dropped map[string]int) []group {
	keep := gs[:0]
	for _, g := range gs {
		df, ok := files.lookup(g.f.File)
		if ok {
			line, lineOK := files.lineText(df, g.f.Line)
			above, aboveOK := files.lineText(df, g.f.Line-1)
			if suppressedAt(line, lineOK, above, aboveOK, findingText(g), severe(g.f)) {
				dropped[ReasonLintIgnore]++ // its merged members were counted as duplicates
				continue
			}
		}
		keep = append(keep, g)
	}
	return keep
}

// severe reports whether a bare lint directive must not suppress f: a P0
// or P1, or a finding any security reviewer reported.
func severe(f finding.Finding) bool {
	return f.Severity.Rank() <= finding.P1.Rank() || slices.Contains(f.Reviewers, "security")
}
