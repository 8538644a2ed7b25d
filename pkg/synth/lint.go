package synth

import (
	"regexp"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
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
	re     *regexp.Regexp
	reach  reach
	family ruleFamily // whose single-word rule ids its list may name (ruleid.go)
}

// directives are the lint-disable forms step 6 recognises. SPEC suppresses a
// finding under a directive "for the rule at hand": a blanket directive
// (no rule named) covers every finding on its lines that is not severe,
// while one naming rules (//nolint:lll, # noqa: E501,
// @SuppressWarnings("unchecked")) covers only a finding that names one of
// those rules as a whole identifier in what it is about (ruleCovers). The
// same rule holds for every language below. Order does not matter; every
// match on a line counts.
var directives = []directive{
	// Go: golangci-lint, staticcheck.
	{regexp.MustCompile(`//\s*nolint\b`), reachComment, familyGo},
	{regexp.MustCompile(`//\s*lint:(?:file-)?ignore\b`), reachComment, familyGo},
	// C/C++: clang-tidy, cppcheck, GCC/clang pragmas.
	{regexp.MustCompile(`\bNOLINTNEXTLINE\b`), reachNext, familyClang},
	{regexp.MustCompile(`\bNOLINT\b`), reachSame, familyClang},
	{regexp.MustCompile(`cppcheck-suppress\b`), reachComment, familyNone},
	{regexp.MustCompile(`#\s*pragma\s+(?:GCC|clang)\s+diagnostic\s+ignored\b`), reachComment, familyNone},
	// JavaScript/TypeScript: ESLint, TSLint, Biome, tsc.
	{regexp.MustCompile(`\b(?:es|ts)lint[-:]disable-next-line\b`), reachNext, familyESLint},
	{regexp.MustCompile(`\b(?:es|ts)lint[-:]disable-line\b`), reachSame, familyESLint},
	{regexp.MustCompile(`\b(?:es|ts)lint[-:]disable(?:[^-\w]|$)`), reachComment, familyESLint},
	{regexp.MustCompile(`biome-ignore\b`), reachNext, familyNone},
	{regexp.MustCompile(`@ts-(?:ignore|expect-error)\b`), reachNext, familyFreeText},
	// Python: flake8/ruff, mypy, pyright, pylint, bandit.
	// noqa, type: ignore, pyright: ignore and nosec cover their own line
	// only: a standalone "# noqa" above a line waives nothing there.
	{regexp.MustCompile(`(?i)#\s*noqa\b`), reachSame, familyNone},
	{regexp.MustCompile(`#\s*type:\s*ignore\b`), reachSame, familyMypy},
	{regexp.MustCompile(`#\s*pyright:\s*ignore\b`), reachSame, familyMypy},
	{regexp.MustCompile(`#\s*pylint:\s*disable-next\s*=`), reachNext, familyNone},
	{regexp.MustCompile(`#\s*pylint:\s*disable\s*=`), reachComment, familyNone},
	{regexp.MustCompile(`#\s*nosec\b`), reachSame, familyNone},
	// Ruby: RuboCop.
	{regexp.MustCompile(`#\s*rubocop:\s*(?:disable|todo)\b`), reachComment, familyNone},
	// Java/Kotlin: annotations, IntelliJ, Sonar.
	{regexp.MustCompile(`@SuppressWarnings\b`), reachAttribute, familyJava},
	{regexp.MustCompile(`@(?:file:)?Suppress\s*\(`), reachAttribute, familyJava},
	{regexp.MustCompile(`//\s*noinspection\b`), reachComment, familyJava},
	{regexp.MustCompile(`\bNOSONAR\b`), reachSame, familyNone},
	// Rust: lint attributes, outer and inner.
	{regexp.MustCompile(`#!?\[\s*(?:allow|expect)\s*\(`), reachAttribute, familyRust},
	// C#: pragmas, attributes, ReSharper.
	{regexp.MustCompile(`#\s*pragma\s+warning\s+disable\b`), reachComment, familyNone},
	{regexp.MustCompile(`\[\s*(?:[\w.]+\.)?SuppressMessage(?:Attribute)?\s*\(`), reachAttribute, familyNone},
	{regexp.MustCompile(`ReSharper\s+disable\s+once\b`), reachNext, familyNone},
	{regexp.MustCompile(`ReSharper\s+disable\b`), reachComment, familyNone},
	// Shell, Dockerfile.
	{regexp.MustCompile(`#\s*shellcheck\s+disable\s*=`), reachComment, familyNone},
	{regexp.MustCompile(`#\s*hadolint\s+ignore\s*=`), reachComment, familyNone},
	// PHP: PHP_CodeSniffer, PHPStan, Psalm.
	{regexp.MustCompile(`phpcs:(?:ignore|disable)\b`), reachComment, familyNone},
	{regexp.MustCompile(`@phpstan-ignore-next-line\b`), reachNext, familyNone},
	{regexp.MustCompile(`@phpstan-ignore-line\b`), reachSame, familyNone},
	{regexp.MustCompile(`@psalm-suppress\b`), reachComment, familyNone},
	// Swift: SwiftLint.
	{regexp.MustCompile(`swiftlint:disable:next\b`), reachNext, familyNone},
	{regexp.MustCompile(`swiftlint:disable:this\b`), reachSame, familyNone},
	{regexp.MustCompile(`swiftlint:disable(?:[^:\w]|$)`), reachComment, familyNone},
	// Terraform: TFLint.
	{regexp.MustCompile(`#\s*tflint-ignore:`), reachNext, familyNone},
}

// directiveHints are cheap substrings at least one of which every directive
// contains, checked before any regular expression runs (most lines have none).
// Hints are lower-case and matched against the lower-cased line.
var directiveHints = []string{
	"lint", "cppcheck", "pragma", "biome", "@ts-", "noqa", "type:", "pyright",
	"nosec", "rubocop", "suppress", "noinspection", "nosonar", "allow", "expect",
	"resharper", "shellcheck", "hadolint", "phpcs", "phpstan",
}

// hit is one directive found on a line: its reach and the rule ids it
// names (none: a blanket directive, unless named).
type hit struct {
	reach reach
	rules []string
	// named: the directive has a rule list. With no rule id in it
	// (rules empty) it suppresses nothing.
	named bool
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
			var ids []string
			named := false
			if d.family != familyFreeText {
				ids, named = ruleIDs(rulesAfter(s[loc[1]:]), d.family)
			}
			out = append(out, hit{reach: d.reach, rules: ids, named: named})
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
	// listBare: the directive's own pattern ended at "=" or after the
	// space that follows it (pylint: disable=, eslint-disable ).
	listBare = regexp.MustCompile(`^([\w@][\w./@-]*(?:\s*,\s*[\w@][\w./@-]*)*)`)
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
	case listBare.MatchString(tail):
		list = listBare.FindStringSubmatch(tail)[1]
	default:
		return nil
	}
	var rules []string
	for _, tok := range ruleToken.FindAllString(list, -1) {
		if t := strings.ToLower(tok); t != "all" && t != "file" && t != "next" {
			rules = append(rules, tok) // as written: ruleIDs reads its case
		}
	}
	return rules
}

// identToken is one identifier in a finding's text, spelled the way rule
// names are (E501, no-unused-vars, Style/StringLiterals, clippy::unwrap_used,
// attr-defined): letters, digits and the joiners rule names use, starting
// and ending with a letter or digit.
var identToken = regexp.MustCompile(`[\pL\pN@](?:[\pL\pN_./@:-]*[\pL\pN])?`)

// identifiers returns the set of identifiers in lower-cased text, each
// also by its parts (gosec:g201 gives gosec and g201, clippy::unwrap_used
// gives unwrap_used), so a finding may name a rule qualified or not.
func identifiers(text string) map[string]bool {
	set := map[string]bool{}
	for _, t := range identToken.FindAllString(text, -1) {
		set[t] = true
		for _, p := range strings.FieldsFunc(t, func(r rune) bool { return r == '/' || r == ':' }) {
			set[p] = true
		}
	}
	return set
}

// lastPart is what follows the last "/" or ":" of a qualified name, or ""
// when there is none.
func lastPart(s string) string {
	if i := strings.LastIndexAny(s, "/:"); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return ""
}

// ruleCovers reports whether a directive naming rules covers a finding
// whose subject (what it is about, lower-cased: subjectOf) holds the
// identifiers ids. A rule covers a finding that names it as a whole
// identifier, in full (style/stringliterals, clippy::unwrap_used) or by
// its last part (stringliterals, unwrap_used). Never a substring ("sql"
// is not in "nosql"), never a plain-words alias (errcheck is not
// "error"): the rule at hand is the one the finding names.
func ruleCovers(rules []string, ids map[string]bool) bool {
	for _, r := range rules {
		if ids[r] {
			return true
		}
		if p := lastPart(r); p != "" && ids[p] {
			return true
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

// site is what the diff shows about a finding's line and the line above
// it: their text (ok false: the diff does not show the line) and whether
// the pull request's whole change added them.
type site struct {
	line, above           string
	lineOK, aboveOK       bool
	lineAdded, aboveAdded bool
}

// subject is what a directive's rule is compared with: the identifiers of
// the finding's title, reason and category (never its evidence, which
// quotes the line and so the directive itself), and whether it is severe
// (P0, P1, or a security finding).
type subject struct {
	ids    map[string]bool
	severe bool
}

// suppressedAt decides step 6 for one finding at s. A directive whose rule
// list holds no rule id (ruleid.go) suppresses nothing. A directive already
// in the base suppresses only while the code it covers is unchanged: not
// on a line the PR added under it. A severe finding yields only to a
// directive that names its rule and that the pull request did not add:
// neither the directive's line nor the finding's line is among the lines
// the PR added. A bare "# noqa" or "//nolint" is a
// linter's silence, not a reviewer's; and a waiver the author writes, or
// moves new code under, is the author's word about their own code.
func suppressedAt(s site, sub subject) bool {
	allows := func(h hit, directiveAdded bool) bool {
		switch {
		case h.named && len(h.rules) == 0:
			return false // a list of words that are no rule ids waives nothing
		case sub.severe && (len(h.rules) == 0 || directiveAdded || s.lineAdded):
			return false
		case !directiveAdded && s.lineAdded:
			// A directive already in the base covers the code it was
			// written over; the PR rewrote that code.
			return false
		}
		return len(h.rules) == 0 || ruleCovers(h.rules, sub.ids)
	}
	if s.lineOK {
		for _, h := range hits(s.line) {
			if h.reach&(reachSame|reachComment|reachAttribute) != 0 && allows(h, s.lineAdded) {
				return true
			}
		}
	}
	if !s.aboveOK {
		return false
	}
	for _, h := range hits(s.above) {
		if h.reach&(reachNext|reachAttribute) != 0 || (h.reach&reachComment != 0 && commentOnly(s.above)) {
			if allows(h, s.aboveAdded) {
				return true
			}
		}
	}
	return false
}

// subjectOf is what a finding is about, for step 6: its title, its reason
// (why_it_matters) and its category (the personas that reported it),
// lower-cased. Not its evidence, nor its suggested fix: both quote code,
// and the code carries the directive.
func subjectOf(g group) subject {
	parts := append([]string{g.f.Title, g.f.WhyItMatters}, g.f.Reviewers...)
	return subject{ids: identifiers(strings.ToLower(strings.Join(parts, " \n "))), severe: severe(g.f)}
}

// addedLines tells which new-side lines the pull request's whole change
// added: for an incremental re-review that is the PR's change since its
// base, not the one push under review, so a directive added by an earlier
// push still counts as the PR's own.
type addedLines map[string]*diff.File

func newAddedLines(files []*diff.File) addedLines {
	m := make(addedLines, len(files))
	for _, f := range files {
		if f != nil {
			m[f.Path()] = f
		}
	}
	return m
}

// added reports whether new-side line n of path is one the PR added; a
// file the PR's change does not list, or lists without lines, counts as
// added throughout.
func (a addedLines) added(path string, n int) bool {
	f, ok := a[path]
	if !ok || len(f.Hunks) == 0 {
		return true // not listed, or no patch (binary): nothing shows the base had it
	}
	l, ok := f.NewLine(n)
	return ok && l.Kind == diff.Add
}

// suppressLintIgnored is step 6: a finding whose line carries a lint-disable
// comment, or sits directly under one that covers the next line, is dropped
// as ReasonLintIgnore. Line text comes from the diff (context and added
// lines of the new version); a line the diff does not show is not
// suppressed, since the head file is not fetched at this stage. pr is the
// pull request's whole change, which says what the PR added.
func suppressLintIgnored(gs []group, files fileIndex, pr addedLines, dropped map[string]int) []group {
	keep := gs[:0]
	for _, g := range gs {
		df, ok := files.lookup(g.f.File)
		if ok {
			var s site
			s.line, s.lineOK = files.lineText(df, g.f.Line)
			s.above, s.aboveOK = files.lineText(df, g.f.Line-1)
			s.lineAdded, s.aboveAdded = pr.added(df.Path(), g.f.Line), pr.added(df.Path(), g.f.Line-1)
			if suppressedAt(s, subjectOf(g)) {
				dropped[ReasonLintIgnore]++ // its merged members were counted as duplicates
				continue
			}
		}
		keep = append(keep, g)
	}
	return keep
}

// severe reports whether f is one a bare or PR-added lint directive must
// not suppress: a P0 or P1, or a finding any security reviewer reported.
func severe(f finding.Finding) bool {
	return f.Severity.Rank() <= finding.P1.Rank() || slices.Contains(f.Reviewers, "security")
}
