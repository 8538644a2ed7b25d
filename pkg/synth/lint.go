package synth

import (
	"regexp"
	"strings"
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

// directives are the lint-disable forms step 6 recognises. They are matched
// with or without rule names: a persona's title cannot be mapped to a lint
// rule by code, and the author has already chosen to silence that line.
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
	{regexp.MustCompile(`(?i)#\s*noqa\b`), reachComment},
	{regexp.MustCompile(`#\s*type:\s*ignore\b`), reachComment},
	{regexp.MustCompile(`#\s*pyright:\s*ignore\b`), reachComment},
	{regexp.MustCompile(`#\s*pylint:\s*disable-next\s*=`), reachNext},
	{regexp.MustCompile(`#\s*pylint:\s*disable\s*=`), reachComment},
	{regexp.MustCompile(`#\s*nosec\b`), reachComment},
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

// reaches returns the union of the reaches of every directive on line s.
func reaches(s string) reach {
	lower := strings.ToLower(s)
	hinted := false
	for _, h := range directiveHints {
		if strings.Contains(lower, h) {
			hinted = true
			break
		}
	}
	if !hinted {
		return 0
	}
	return matchDirectives(s)
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
// of the line directly above it (ok false: the diff does not show it).
func suppressedAt(line string, lineOK bool, above string, aboveOK bool) bool {
	if lineOK && reaches(line)&(reachSame|reachComment|reachAttribute) != 0 {
		return true
	}
	if !aboveOK {
		return false
	}
	r := reaches(above)
	if r&(reachNext|reachAttribute) != 0 {
		return true
	}
	return r&reachComment != 0 && commentOnly(above)
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
			if suppressedAt(line, lineOK, above, aboveOK) {
				dropped[ReasonLintIgnore]++ // its merged members were counted as duplicates
				continue
			}
		}
		keep = append(keep, g)
	}
	return keep
}
