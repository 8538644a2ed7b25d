package synth

import (
	"strings"
)

// A lint directive's rule list is compared with what a finding is about
// (ruleCovers), so every name in it must be a lint rule's identifier,
// never an English word: "# noqa: every,page,drops" names the words of a
// finding's title, and no linter has such rules. A name is a rule id when
// it has a rule id's shape:
//
//   - letters and digits together: E501, G101, SA1019, SC2086, CA1822,
//     W0612 (a code);
//   - joined words: no-eval, unused-import, attr-defined, dead_code,
//     Style/StringLiterals, clippy::unwrap_used, @typescript-eslint/x;
//
// or is a single-word id the directive's own tool knows (ruleFamily):
// errcheck for golangci-lint, unchecked for @SuppressWarnings, eqeqeq for
// ESLint, override for mypy. A list in which nothing is a rule id names no
// rule: the directive suppresses nothing (it is not a blanket directive
// either; a typo'd or invented list is no waiver).

// ruleFamily names the single-word rule ids a directive's tool has.
type ruleFamily uint8

const (
	familyNone   ruleFamily = iota
	familyGo                // golangci-lint linters, staticcheck
	familyJava              // @SuppressWarnings, @Suppress, noinspection
	familyESLint            // ESLint / TSLint core rules
	familyMypy              // type: ignore[...], pyright
	familyRust              // #[allow(...)] lint groups
	familyClang             // clang-tidy check groups (NOLINT(bugprone-*))
	// familyFreeText: what follows the directive is a description, never
	// a rule list (@ts-ignore, @ts-expect-error): a blanket directive.
	familyFreeText
)

// singleWordIDs are the single-word rule ids of each family.
var singleWordIDs = map[ruleFamily]map[string]bool{
	familyGo: wordSet(`errcheck gosec govet vet staticcheck stylecheck gosimple unused ineffassign typecheck deadcode
		varcheck structcheck lll gocyclo gocognit dupl misspell unparam gocritic revive golint goconst gofmt gofumpt
		goimports nakedret prealloc unconvert bodyclose noctx errorlint exhaustive exhaustruct funlen cyclop nestif
		depguard forbidigo wrapcheck goerr113 err113 contextcheck rowserrcheck sqlclosecheck exportloopref
		copyloopvar nilerr nilnil gomnd mnd dogsled whitespace wsl godot godox testpackage paralleltest thelper
		tparallel maligned interfacer scopelint gochecknoglobals gochecknoinits asciicheck makezero predeclared
		ireturn varnamelen nlreturn musttag perfsprint protogetter sloglint spancheck tagliatelle usestdlibvars
		errname errchkjson execinquery dupword decorder durationcheck containedctx canonicalheader fatcontext
		intrange nonamedreturns promlinter reassign recvcheck tenv testifylint wastedassign asasalint bidichk
		forcetypeassert goheader gomoddirectives gomodguard importas interfacebloat loggercheck maintidx
		nolintlint nosprintfhostport gosmopolitan mirror inamedparam gochecksumtype zerologlint errchkjson`),
	familyJava: wordSet(`unchecked deprecation rawtypes serial unused all cast fallthrough finally static resource
		null nls boxing divzero empty hiding javadoc restriction removal preview varargs try overrides
		unchecked_cast name_shadowing`),
	familyESLint: wordSet(`eqeqeq curly camelcase complexity semi quotes indent radix strict yoda`),
	familyMypy:   wordSet(`misc override assignment index operator return name import attr arg call valid`),
	familyRust:   wordSet(`warnings unused clippy deprecated nonstandard_style`),
	familyClang: wordSet(`abseil altera android boost bugprone cert clang-analyzer concurrency cppcoreguidelines
		darwin fuchsia google hicpp linuxkernel llvm llvmlibc misc modernize mpi objc openmp performance portability
		readability zircon`),
}

// isRuleID reports whether name, as written, is a lint rule's identifier
// for a directive of family f.
func isRuleID(name string, f ruleFamily) bool {
	if camelCase(name) {
		return true // nullPointer, InconsistentNaming, reportGeneralTypeIssues
	}
	name = strings.ToLower(name)
	letter, digit := false, false
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z':
			letter = true
		case r >= '0' && r <= '9':
			digit = true
		case strings.ContainsRune("-_/:.@", r):
			if len(name) > 2 {
				return true // joined words: no-eval, dead_code, style/x
			}
		}
	}
	if letter && digit || !letter && digit && len(name) >= 3 {
		return true // a code: E501, G101; C# pragma numbers: 1591
	}
	return singleWordIDs[f][name]
}

// camelCase reports whether s has a lower-case letter followed by an
// upper-case one: an identifier's shape, not a word's.
func camelCase(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// ruleIDs keeps, lower-cased, the names of list (as written) that are rule
// ids; named reports whether the list named anything at all.
func ruleIDs(list []string, f ruleFamily) (ids []string, named bool) {
	for _, r := range list {
		if isRuleID(r, f) {
			ids = append(ids, strings.ToLower(r))
		}
	}
	return ids, len(list) > 0
}
