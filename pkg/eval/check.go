package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// PermissiveLicenses are the SPDX ids a real case's code may carry.
func PermissiveLicenses() []string {
	return []string{"MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "ISC"}
}

// Languages are the languages a case may be written in.
func Languages() []string { return []string{"go", "javascript", "typescript", "python", "c"} }

// Categories are the categories a label may carry (required in a real case).
func Categories() []string {
	return []string{"correctness", "security", "reliability", "performance", "api-contract", "testing", "data", "concurrency", "maintainability"}
}

var (
	cvePattern = regexp.MustCompile(`^CVE-\d{4}-\d{4,}$`)
	// provenance: module@version, npm:name@version or github:owner/repo@commit.
	provenance = regexp.MustCompile(`^(npm:[^@\s]+|github:[\w.-]+/[\w.-]+|[\w.-]+(/[\w.~-]+)+)@[\w.+-]+$`)
)

// Check lists the integrity problems of a loaded case (the loader already
// rejected what does not parse): every label's range overlaps lines the
// diff added, its description is one line and its category (required in a
// real case) a known one; a clean case has no labels and a bug case at
// least one; a real case has case.json with provenance (source, the fix
// unless clean, a well-formed CVE when given, notes on how it was derived),
// a permissive licence, a known language and the files its diff changes.
func Check(c Case) []string {
	var out []string
	bad := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	for _, is := range c.Truth {
		if !addedInRange(fileOf(c.Files, is.File), is.Line, is.LineEnd) {
			bad("%s: issue %q: %s:%d-%d overlaps no line the diff adds", truthFile, is.ID, is.File, is.Line, is.LineEnd)
		}
		switch {
		case c.Suite == SuiteReal && strings.TrimSpace(is.Category) == "":
			bad("%s: issue %q: category is required", truthFile, is.ID)
		case is.Category != "" && !slices.Contains(Categories(), is.Category):
			bad("%s: issue %q: category %q; want one of %s", truthFile, is.ID, is.Category, strings.Join(Categories(), ", "))
		}
		if strings.ContainsAny(is.Description, "\r\n") {
			bad("%s: issue %q: description must be one line", truthFile, is.ID)
		}
	}
	found := slices.ContainsFunc(c.Truth, func(is Issue) bool { return !is.Excluded })
	switch {
	case c.Clean() && len(c.Truth) > 0:
		bad("a clean case has %d ground-truth labels; want none", len(c.Truth))
	case !c.Clean() && !found:
		bad("a bug case has no ground-truth label to find")
	}

	m := c.Meta
	if m == nil {
		if c.Suite == SuiteReal {
			bad("%s is required for a real case (provenance and licence)", metaFile)
		}
		return out
	}
	if m.Kind != c.Suite {
		bad("%s: kind %q; want %q (the suite it is in)", metaFile, m.Kind, c.Suite)
	}
	if !slices.Contains(Languages(), m.Language) {
		bad("%s: language %q; want one of %s", metaFile, m.Language, strings.Join(Languages(), ", "))
	}
	if !provenance.MatchString(m.Source) {
		bad("%s: source %q; want module@version, npm:NAME@VERSION or github:OWNER/REPO@COMMIT", metaFile, m.Source)
	}
	if !m.Clean && !provenance.MatchString(m.Fix) {
		bad("%s: fix %q; want the fixing module@version, npm:NAME@VERSION or github:OWNER/REPO@COMMIT", metaFile, m.Fix)
	}
	if strings.TrimSpace(m.Notes) == "" {
		bad("%s: notes are required: how the case was derived", metaFile)
	}
	if m.CVE != "" && !cvePattern.MatchString(m.CVE) {
		bad("%s: cve %q; want CVE-YYYY-NNNN or \"\"", metaFile, m.CVE)
	}
	if !slices.Contains(PermissiveLicenses(), m.License) {
		bad("%s: license %q; want a permissive SPDX id: %s", metaFile, m.License, strings.Join(PermissiveLicenses(), ", "))
	}
	var inDiff []string
	for _, f := range c.Files {
		inDiff = append(inDiff, f.Path())
	}
	listed := make([]string, 0, len(m.Files))
	for _, f := range m.Files {
		listed = append(listed, normFile(f))
	}
	slices.Sort(inDiff)
	slices.Sort(listed)
	if !slices.Equal(inDiff, listed) {
		bad("%s: files %q; want the files the diff changes, %q", metaFile, listed, inDiff)
	}
	return out
}

// addedInRange reports whether any of line..end is an added line of f.
func addedInRange(f *diff.File, line, end int) bool {
	if f == nil {
		return false
	}
	for n := line; n <= end; n++ {
		if l, ok := f.NewLine(n); ok && l.Kind == diff.Add {
			return true
		}
	}
	return false
}

// SuiteCheck is the integrity of one suite.
type SuiteCheck struct {
	Suite                     string
	Cases, Clean, Bug, Issues int
	// Problems are "case: problem" lines; a case that did not load is one
	// problem, its loader error.
	Problems []string
}

// CheckCorpus loads each suite under root and checks every case, that the
// suite has cases (a missing directory is no pass), that at least a third
// of the real cases are clean (SPEC section 7.6), and the validator pool's
// references to cases. It never stops at the first problem: every broken
// case is listed.
func CheckCorpus(fsys fs.FS, root string, suites ...string) ([]SuiteCheck, error) {
	if len(suites) == 0 {
		suites = Suites()
	}
	ids := map[string]bool{}
	var out []SuiteCheck
	for _, s := range suites {
		cases, err := LoadSuite(fsys, root, s)
		sc := SuiteCheck{Suite: s}
		if err != nil {
			if !errors.Is(err, ErrCase) {
				return nil, err
			}
			for _, e := range unjoin(err) {
				sc.Problems = append(sc.Problems, e.Error())
			}
		}
		for _, c := range cases {
			ids[c.ID()] = true
			sc.Cases++
			sc.Issues += len(c.Truth)
			if c.Clean() {
				sc.Clean++
			} else {
				sc.Bug++
			}
			for _, p := range Check(c) {
				sc.Problems = append(sc.Problems, c.ID()+": "+p)
			}
		}
		switch {
		case sc.Cases == 0 && len(sc.Problems) == 0:
			sc.Problems = append(sc.Problems, "the suite has no cases")
		case s == SuiteReal && err == nil && 3*sc.Clean < sc.Cases: // counted only when every case loaded
			sc.Problems = append(sc.Problems, fmt.Sprintf("%d of %d real cases are clean; want at least a third", sc.Clean, sc.Cases))
		}
		out = append(out, sc)
	}
	pool, err := LoadPool(fsys, root)
	if err != nil {
		out = append(out, SuiteCheck{Suite: PoolDir, Problems: []string{err.Error()}})
	} else if pool != nil {
		sc := SuiteCheck{Suite: PoolDir, Cases: len(pool.Items)}
		for _, it := range pool.Items {
			suite, _, _ := strings.Cut(it.Case, "/")
			if slices.Contains(suites, suite) && !ids[it.Case] {
				sc.Problems = append(sc.Problems, fmt.Sprintf("pool item %s: no case %q", it.ID, it.Case))
			}
			// An item without a recorded verdict is no problem: the offline
			// run reports it as not scored, and no verdict is made up.
			if strings.TrimSpace(it.Note) == "" {
				sc.Problems = append(sc.Problems, fmt.Sprintf("pool item %s: no note (why is it real, or not?)", it.ID))
			}
		}
		out = append(out, sc)
	}
	return out, nil
}

// unjoin splits an errors.Join error into its parts.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
