package persona

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// When the testing and maintainability personas run. Both were always on;
// on 31 real changes they made 62 of 151 persona calls and added no posted
// finding another persona had not posted, so they now run only where their
// lens has something to see. The rules read the diff's paths and line
// counts and the head tree's list of test files: never the PR's title,
// body or a file the PR could write to switch a persona off. correctness
// stays always on, so no rule leaves code unreviewed; a rule that does not
// fire costs one lens, never the review.
const (
	// TestingLines is the number of executable lines changed in source
	// files whose tests the PR leaves alone from which testing runs.
	TestingLines = 30
	// MaintainabilityLines is the number of executable changed lines from
	// which maintainability runs: a change that large reshapes code.
	MaintainabilityLines = 150
	// RefactorLines and RefactorFiles: executable lines deleted, across
	// at least that many source files, that make a change a refactor.
	RefactorLines = 60
	RefactorFiles = 3
	// NewModuleLines is the size of an added source file (executable
	// lines) that makes it a new module.
	NewModuleLines = 60
)

// TestIndex is what selection knows of a repository's tests, from the
// head tree.
type TestIndex struct {
	// Of maps each changed source file to the test files of the head tree
	// that test it (same name stem, or for Go the package's tests).
	Of map[string][]string
	// Any is true when the head tree holds at least one test file.
	Any bool
}

// testingReason is why the testing persona runs, "" when it does not:
//
//  1. the PR removes tests: it deletes a test file, or removes more lines
//     of a test file than it adds (a weakened test is a test gap);
//  2. at least TestingLines executable lines change in source files whose
//     tests the PR does not change, in a repository that has tests (or
//     whose tests could not be listed: tests == nil).
//
// A source file counts as tested by the PR only when the PR changes
// executable lines (not comments, docstrings or blank lines: codeFlags) of
// one of its own tests: its test files in the head tree (tests.Of), or a
// changed test file of the same name stem or, for Go, of the same package. A comment in some test file is no test
// of the change, and a test of other code is none either.
//
// Test files are isTestFile paths; source files are sourceFile ones.
func testingReason(files []*diff.File, tests *TestIndex) string {
	changedTests := map[string]bool{}
	var testPaths []string
	for _, f := range files {
		p := f.Path()
		if !isTestFile(p) {
			continue
		}
		if f.Status == diff.Deleted || f.Deleted() > f.Added() {
			return "tests removed in " + p
		}
		if _, code := codeFlags(f, langOf(path.Base(strings.ToLower(p)))); code {
			changedTests[p] = true
			testPaths = append(testPaths, p)
		}
	}
	if tests != nil && !tests.Any && len(changedTests) == 0 {
		return "" // a repository without tests: nothing to hold the change to
	}
	lines := 0
	var untested []string
	for _, f := range files {
		p := f.Path()
		if !sourceFile(f) || f.Status == diff.Deleted {
			continue
		}
		own := testsNamedFor(p, testPaths)
		if tests != nil {
			own = append(own, tests.Of[p]...)
		}
		if slices.ContainsFunc(own, func(t string) bool { return changedTests[t] }) {
			continue
		}
		if n := f.Added() + f.Deleted(); n > 0 {
			lines += n
			untested = append(untested, p)
		}
	}
	if lines < TestingLines {
		return ""
	}
	where := "in a repository that has tests"
	if tests == nil {
		where = "(the repository's tests could not be listed)"
	}
	return fmt.Sprintf("%d executable lines changed with no change to their tests in %s %s", lines, listFiles(untested), where)
}

// maintainabilityReason is why the maintainability persona runs, "" when
// it does not: a large change (at least MaintainabilityLines executable
// changed lines), a refactor (at least RefactorLines executable lines
// deleted across RefactorFiles source files or more), or a new module (an
// added source file of at least NewModuleLines executable lines).
func maintainabilityReason(files []*diff.File, executable int) string {
	if executable >= MaintainabilityLines {
		return fmt.Sprintf("large change: %d executable changed lines", executable)
	}
	deleted := 0
	var touched []string
	for _, f := range files {
		p := f.Path()
		if !sourceFile(f) {
			continue
		}
		if f.Status == diff.Added && f.Added() >= NewModuleLines {
			return fmt.Sprintf("new module: %s (%d lines)", p, f.Added())
		}
		if f.Deleted() > 0 {
			deleted += f.Deleted()
			touched = append(touched, p)
		}
	}
	if deleted >= RefactorLines && len(touched) >= RefactorFiles {
		return fmt.Sprintf("refactor: %d executable lines removed across %s", deleted, listFiles(touched))
	}
	return ""
}

// testsNamedFor returns the test files among tests that are named for the
// source file at p: the same name stem (utils.js and test/utils.js,
// utils.test.ts, test_utils.py), or for Go a _test.go of the same package.
func testsNamedFor(p string, tests []string) []string {
	stem := func(q string) string {
		b := strings.ToLower(path.Base(q))
		b = strings.TrimSuffix(b, path.Ext(b))
		for _, suf := range [...]string{"_test", ".test", ".spec", "_spec", "-test", "-spec", "test", "tests"} {
			if strings.HasSuffix(b, suf) && len(b) > len(suf) {
				return strings.TrimRight(b[:len(b)-len(suf)], "_.-")
			}
		}
		return strings.TrimPrefix(b, "test_")
	}
	var out []string
	for _, t := range tests {
		if stem(t) == stem(p) || strings.HasSuffix(t, "_test.go") && strings.HasSuffix(p, ".go") && path.Dir(t) == path.Dir(p) {
			out = append(out, t)
		}
	}
	return out
}

// listFiles names up to two files and counts the rest.
func listFiles(ps []string) string {
	const show = 2
	s := strings.Join(ps[:min(len(ps), show)], ", ")
	if more := len(ps) - show; more == 1 {
		s += " and 1 more file"
	} else if more > 1 {
		s += fmt.Sprintf(" and %d more files", more)
	}
	return s
}
