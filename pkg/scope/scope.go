// Package scope is Stage 2 of the review: it decides which changed files
// are reviewed, says why each other file is not, counts the executable
// changed lines that persona selection weighs, and lists the project
// standards files (AGENTS.md, CLAUDE.md) that apply to the change.
//
// A file is excluded, with the first reason that applies:
//
//	binary          a binary file
//	no patch        the source gave no patch text (huge files)
//	deleted         the file was deleted
//	submodule pointer  a git submodule's commit (mode 160000, "Subproject
//	                commit" lines): the code it points at is not in the diff
//	no content change  a pure rename, copy or mode change, or an empty new file
//	lock file       go.sum, package-lock.json, yarn.lock, *.lock, ...
//	vendored        under vendor/, _vendor/, third_party/, node_modules/, ...,
//	                or a well-known library copied into a package's
//	                packages/ directory (requests/packages/urllib3/)
//	generated       *.pb.go, *_generated.go, *.min.js, dist/, source maps
//	                (*.map), .nyc_output/, SBOMs (*.spdx.json,
//	                *.cyclonedx.json, bom.json), ... or a
//	                "Code generated ... DO NOT EDIT." / @generated /
//	                linguist-generated marker near the top of the file that
//	                the file already carried at the base (a context line)
//	excluded by pattern "<glob>"  an `exclude` input glob matched
//
// Everything here is pure: no I/O.
package scope

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// Exclusion reasons.
const (
	ReasonBinary    = "binary"
	ReasonNoPatch   = "no patch"
	ReasonDeleted   = "deleted"
	ReasonNoChange  = "no content change"
	ReasonLock      = "lock file"
	ReasonVendored  = "vendored"
	ReasonGenerated = "generated"
	ReasonSubmodule = "submodule pointer"
)

// Excluded is a changed file left out of review, with the reason.
type Excluded struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Scope is what Stage 2 decided.
type Scope struct {
	// Files are the files to review, in diff order.
	Files []*diff.File
	// Excluded are the other files, in diff order.
	Excluded []Excluded
	// ExecutableLines counts added and deleted lines of reviewed files for
	// which Executable is true.
	ExecutableLines int
}

// Apply splits the diff's files into reviewed and excluded ones. exclude
// holds the `exclude` input's globs (see the package doc for reasons and
// the glob syntax); blank entries and entries starting with '#' are
// skipped. A malformed glob is an error naming it, wrapping ErrBadPattern.
func Apply(d *diff.Diff, exclude []string) (Scope, error) {
	return ApplyWith(d, exclude, Attributes{})
}

// Attributes are the paths a repository's .gitattributes marks
// linguist-generated or linguist-vendored: the repository's own word that
// a file is not written by hand.
type Attributes struct {
	generated, vendored []glob
}

// ParseAttributes reads .gitattributes text. A line is a pattern and its
// attributes; `linguist-generated` (or `=true`) and `linguist-vendored`
// mark paths, `-linguist-…` and `…=false` do not. Comments, blank lines
// and patterns this package cannot compile are skipped: the file belongs
// to the repository, and a bad line there must not stop a review.
func ParseAttributes(text string) Attributes {
	var a Attributes
	for line := range strings.Lines(text) {
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		g, err := compileGlob(fields[0])
		if err != nil {
			continue
		}
		for _, attr := range fields[1:] {
			switch attr {
			case "linguist-generated", "linguist-generated=true":
				a.generated = append(a.generated, g)
			case "linguist-vendored", "linguist-vendored=true":
				a.vendored = append(a.vendored, g)
			}
		}
	}
	return a
}

// Key is a stable text of the marks, for telling two sets apart.
func (a Attributes) Key() string {
	var b strings.Builder
	for _, set := range []struct {
		name  string
		globs []glob
	}{{"generated", a.generated}, {"vendored", a.vendored}} {
		b.WriteString(set.name + ":")
		for _, g := range set.globs {
			b.WriteString(" " + g.pattern)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (a Attributes) marks(globs []glob, p string) bool {
	for _, g := range globs {
		if g.match(p) {
			return true
		}
	}
	return false
}

// ApplyWith is Apply that also honours the linguist-generated and
// linguist-vendored marks of the base commit's .gitattributes.
func ApplyWith(d *diff.Diff, exclude []string, attrs Attributes) (Scope, error) {
	globs, err := compileGlobs(exclude)
	if err != nil {
		return Scope{}, err
	}
	var s Scope
	if d == nil {
		return s, nil
	}
	for _, f := range d.Files {
		if reason := excludeReason(f, globs, attrs); reason != "" {
			s.Excluded = append(s.Excluded, Excluded{Path: f.Path(), Reason: reason})
			continue
		}
		s.Files = append(s.Files, f)
		if Executable(f.Path()) {
			s.ExecutableLines += f.Added() + f.Deleted()
		}
	}
	return s, nil
}

// ExcludedByPath is the reason scope leaves out any change of the file at
// path whatever its lines say (a lock, vendored or generated path, an
// exclude pattern); "" when its lines would decide. For a file whose lines
// are not known (GitHub gives no patch for it).
func ExcludedByPath(path string, exclude []string, attrs Attributes) (string, error) {
	globs, err := compileGlobs(exclude)
	if err != nil {
		return "", err
	}
	return pathReason(path, false, globs, attrs), nil
}

// compileGlobs compiles the exclude patterns, skipping blank lines and
// comments.
func compileGlobs(exclude []string) ([]glob, error) {
	var globs []glob
	for _, p := range exclude {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		g, err := compileGlob(p)
		if err != nil {
			return nil, fmt.Errorf("scope: %w", err)
		}
		globs = append(globs, g)
	}
	return globs, nil
}

func excludeReason(f *diff.File, globs []glob, attrs Attributes) string {
	switch {
	case f.Binary:
		return ReasonBinary
	case f.NoPatch:
		return ReasonNoPatch
	case isSubmodule(f):
		return ReasonSubmodule
	case f.Status == diff.Deleted:
		return ReasonDeleted
	case len(f.Hunks) == 0:
		return ReasonNoChange
	}
	return pathReason(f.Path(), hasGeneratedMarker(f), globs, attrs)
}

// pathReason is the reason to leave out the file at path by its name, its
// .gitattributes marks, a generated marker in its lines (marked), or an
// exclude pattern; "" to review it.
func pathReason(p string, marked bool, globs []glob, attrs Attributes) string {
	switch {
	case isLock(p):
		return ReasonLock
	case isVendored(p) || attrs.marks(attrs.vendored, p):
		return ReasonVendored
	case isGeneratedName(p) || marked || attrs.marks(attrs.generated, p):
		return ReasonGenerated
	}
	for _, g := range globs {
		if g.match(p) {
			return fmt.Sprintf("excluded by pattern %q", g.pattern)
		}
	}
	return ""
}

// Executable reports whether changed lines of the file at path count as
// executable code: it is not a test, documentation, lock, vendored or
// (by name) generated file.
func Executable(p string) bool {
	return !isTest(p) && !isDoc(p) && !isLock(p) && !isVendored(p) && !isGeneratedName(p)
}

// StandardsPaths lists the AGENTS.md and CLAUDE.md files that could apply
// to the changed files: at the repository root and in every ancestor
// directory of each file (old and new paths), sorted and deduplicated.
// They are candidates; the caller reads the ones that exist at the base
// commit.
func StandardsPaths(files []*diff.File) []string {
	seen := map[string]bool{}
	add := func(dir string) {
		for _, name := range [...]string{"AGENTS.md", "CLAUDE.md"} {
			seen[path.Join(dir, name)] = true
		}
	}
	add("")
	for _, f := range files {
		for _, p := range [...]string{f.OldPath, f.NewPath} {
			for dir := path.Dir(p); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
				if seen[path.Join(dir, "AGENTS.md")] {
					break // its ancestors are in already
				}
				add(dir)
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// isLock reports whether p is a dependency lock file.
func isLock(p string) bool {
	switch base := path.Base(p); base {
	case "go.sum", "go.work.sum", "package-lock.json", "npm-shrinkwrap.json",
		"yarn.lock", "pnpm-lock.yaml", "bun.lockb", "Cargo.lock", "Gemfile.lock",
		"poetry.lock", "composer.lock", "Pipfile.lock", "pubspec.lock",
		"packages.lock.json", "gradle.lockfile", "flake.lock", "mix.lock",
		"Podfile.lock", "uv.lock":
		return true
	default:
		return strings.HasSuffix(base, ".lock")
	}
}

// isVendored reports whether p is third-party code checked in.
func isVendored(p string) bool {
	return inDir(p, "vendor", "_vendor", "vendored", "third_party", "third-party", "thirdparty",
		"node_modules", "bower_components") || nestedVendored(p)
}

// nestedVendored reports whether p lies in a library copied into a
// package's own packages/ directory, the way requests shipped urllib3 as
// requests/packages/urllib3/. It is deliberately narrow: packages/ must sit
// below the repository root (a root packages/ is a monorepo's own code) and
// the directory under it must be a library known to be vendored that way.
func nestedVendored(p string) bool {
	segs := strings.Split(path.Dir(p), "/")
	for i := 1; i+1 < len(segs); i++ {
		if segs[i] == "packages" && vendoredLibraries[strings.ToLower(segs[i+1])] {
			return true
		}
	}
	return false
}

// vendoredLibraries are Python libraries commonly copied into another
// package's packages/ directory.
var vendoredLibraries = map[string]bool{
	"urllib3": true, "chardet": true, "charset_normalizer": true, "idna": true, "six": true,
	"certifi": true, "simplejson": true, "ordereddict": true, "html5lib": true, "distlib": true,
	"pkg_resources": true, "backports": true, "ssl_match_hostname": true,
}

// isSubmodule reports whether f is a submodule's commit pointer: git mode
// 160000 on either side, or (the files endpoint gives no modes) a patch
// whose every changed line is "Subproject commit <sha>".
func isSubmodule(f *diff.File) bool {
	if f.OldMode == "160000" || f.NewMode == "160000" {
		return true
	}
	changed := 0
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Kind == diff.Context {
				continue
			}
			if !strings.HasPrefix(l.Text, "Subproject commit ") {
				return false
			}
			changed++
		}
	}
	return changed > 0
}

// isGeneratedName reports whether p is generated code by its name.
func isGeneratedName(p string) bool {
	base := path.Base(p)
	if strings.HasPrefix(base, "zz_generated") {
		return true
	}
	for _, s := range [...]string{
		".pb.go", ".pb.gw.go", "_generated.go", ".gen.go", ".min.js", ".min.css",
		"_pb2.py", "_pb2_grpc.py", ".pb.cc", ".pb.h", ".g.dart", ".designer.cs",
		".map",                                                       // source maps (app.js.map, style.css.map)
		".spdx", ".spdx.json", ".spdx.yaml", ".cdx.json", ".cdx.xml", // SBOMs
		".cyclonedx.json", ".cyclonedx.xml", ".sbom.json",
	} {
		if strings.HasSuffix(strings.ToLower(base), s) {
			return true
		}
	}
	switch strings.ToLower(base) {
	case "bom.json", "bom.xml", "sbom.json": // CycloneDX's default names
		return true
	}
	return inDir(p, "dist", ".nyc_output")
}

// markerLines is how far into the new file a generated-code marker is
// looked for: far enough to pass a license header.
const markerLines = 40

// hasGeneratedMarker reports whether the file's first lines carried a
// generated-code marker in a comment AT THE BASE: only context lines count
// (they exist on both sides). A PR cannot exclude its own code by adding a
// "Code generated ... DO NOT EDIT." line, in a new file or an old one.
func hasGeneratedMarker(f *diff.File) bool {
	if path.Base(f.Path()) == ".gitattributes" {
		return false // it declares linguist-generated for other files
	}
	for _, h := range f.Hunks {
		if h.NewStart > markerLines {
			return false
		}
		for _, l := range h.Lines {
			if l.Kind != diff.Context {
				continue
			}
			if l.NewNo > markerLines {
				return false
			}
			if isMarker(l.Text) {
				return true
			}
		}
	}
	return false
}

// isMarker reports whether a line is a comment carrying a generated-code
// marker. Only comment punctuation may precede the marker, so code that
// writes such a comment (a generator's Fprintf) is not taken for one.
func isMarker(line string) bool {
	for _, m := range [...]struct{ marker, also string }{
		{"Code generated ", "DO NOT EDIT"},
		{"@generated", ""},
		{"linguist-generated", ""},
	} {
		i := strings.Index(line, m.marker)
		if i < 0 || strings.Trim(line[:i], " \t/#*!-;%<{('\"") != "" {
			continue
		}
		if m.also == "" || strings.Contains(line[i:], m.also) {
			return true
		}
	}
	return false
}

// IsTest reports whether the file at p is a test (by name or directory):
// the same rule that keeps tests out of the executable line count.
func IsTest(p string) bool { return isTest(p) }

func isTest(p string) bool {
	base := path.Base(p)
	name := strings.ToLower(base)
	stem := strings.TrimSuffix(name, path.Ext(name))
	switch {
	case strings.HasSuffix(name, "_test.go"),
		strings.HasPrefix(name, "test_") && strings.HasSuffix(name, ".py"),
		strings.HasSuffix(name, "_test.py"),
		name == "conftest.py",
		strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"), // x.test.ts, x.spec.js
		strings.HasSuffix(name, "_spec.rb"), strings.HasSuffix(name, "_test.rb"),
		strings.HasSuffix(base, "Test.java"), strings.HasSuffix(base, "Tests.java"),
		strings.HasSuffix(base, "Test.kt"), strings.HasSuffix(base, "Tests.cs"),
		strings.HasSuffix(name, "_test.rs"), strings.HasSuffix(name, "_test.exs"):
		return true
	}
	return inDir(p, "test", "tests", "__tests__", "testdata", "spec", "__snapshots__", "__mocks__", "e2e")
}

func isDoc(p string) bool {
	base := path.Base(p)
	name := strings.ToLower(base)
	if name == "cmakelists.txt" || name == "requirements.txt" {
		return false // build input, not prose
	}
	for _, e := range [...]string{".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc", ".org"} {
		if strings.HasSuffix(name, e) {
			return true
		}
	}
	stem := strings.TrimSuffix(name, path.Ext(name))
	for _, n := range [...]string{"license", "licence", "copying", "notice", "authors", "contributors", "changelog", "changes", "readme", "codeowners"} {
		if stem == n || name == n {
			return true
		}
	}
	return inDir(p, "docs", "doc")
}

// inDir reports whether one of p's directories (not its base name) is one
// of dirs.
func inDir(p string, dirs ...string) bool {
	dir := path.Dir(p)
	if dir == "." || dir == "/" {
		return false
	}
	for _, seg := range strings.Split(dir, "/") {
		for _, d := range dirs {
			if seg == d {
				return true
			}
		}
	}
	return false
}
