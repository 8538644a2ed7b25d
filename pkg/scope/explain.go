package scope

import (
	"path"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// A built-in rule may leave out a vendored, generated or build-output file
// only when the same change explains it: its source of truth changed too.
// A hand edit of a vendored package, a new file beside generated ones, a
// bundle rebuilt with no change to its sources: each is code nobody else
// wrote, as far as the pull request shows, and it is reviewed. Only the
// repository's own configuration (the base's .gitattributes marks, the
// exclude patterns) leaves such a file out unexplained.

// change is what the pull request changes, for telling an explained
// rebuild from a hand edit.
type change struct {
	files map[string]*diff.File // by new path (old path for a deletion)
	base  *Base
	// sources counts, for every directory ("" the root), the hand-written
	// source files the change touches under it (handWritten); manifests
	// counts the manifests and lock files it touches directly in it; proto
	// says whether it touches a .proto. Counted once, so that judging
	// every file of a 3,000-file change stays linear.
	sources, manifests map[string]int
	proto              bool
}

func newChange(d *diff.Diff, base *Base) *change {
	c := &change{files: map[string]*diff.File{}, base: base, sources: map[string]int{}, manifests: map[string]int{}}
	if d == nil {
		return c
	}
	for _, f := range d.Files {
		p := f.Path()
		c.files[p] = f
		c.proto = c.proto || strings.HasSuffix(p, ".proto") && f.Status != diff.Deleted && !respacedOnly(f)
		if isManifest(p) || knownLock(p) {
			c.manifests[path.Dir(p)]++ // a manifest is never inside the vendored root it explains
		}
		if handWritten(f) {
			for _, dir := range ancestors(p) {
				c.sources[dir]++
			}
		}
	}
	return c
}

// handWritten reports whether f is a change of a hand-written source file
// that can explain a rebuild: source by its name, not deleted, not a test,
// outside any generated, build-output or vendored place, and changed in
// more than its spacing.
func handWritten(f *diff.File) bool {
	p := f.Path()
	return f.Status != diff.Deleted && Source(p) && generatedKind(p) == "" && !isTest(p) && outputDirOf(p) == "" && vendoredRoot(p) == "" &&
		!respacedOnly(f)
}

// respacedOnly reports whether f's hunks only move whitespace: in each
// hunk the lines it removes and the lines it adds read the same, in the same
// order, spacing folded and blank lines aside. A re-indented or re-wrapped
// source (or one whose line endings changed) builds the same bundle, so it
// explains no rebuild; lines reordered do not read the same. A file without
// hunks (a rename, a patch GitHub left out) is not known to be respaced.
func respacedOnly(f *diff.File) bool {
	if len(f.Hunks) == 0 {
		return false
	}
	for _, h := range f.Hunks {
		var removed, added []string
		for _, l := range h.Lines {
			t := strings.Join(strings.Fields(l.Text), " ")
			switch {
			case t == "" || l.Kind == diff.Context:
			case l.Kind == diff.Add:
				added = append(added, t)
			default:
				removed = append(removed, t)
			}
		}
		if !slices.Equal(removed, added) {
			return false
		}
	}
	return true
}

// ancestors lists p's directories, nearest first, ending with "" (the
// repository root).
func ancestors(p string) []string {
	var out []string
	for dir := path.Dir(p); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		out = append(out, dir)
	}
	return append(out, "")
}

// vendoredExplained reports whether the change also moves the source of
// truth of the vendored directory root that p lies in: for Go's vendor/,
// a vendor/modules.txt line naming the module p belongs to; for any other
// vendored directory, a package manifest or lock file beside it.
func (c *change) vendoredExplained(p, root string) bool {
	if path.Base(root) == "vendor" {
		list := root + "/modules.txt"
		if mt := c.files[list]; mt != nil {
			known := c.base.vendorList(list)
			if known == nil && c.base != nil && c.base.hasFile(list) {
				return false // the base holds the list but it was not read: who owns p is unknown
			}
			return modulesTxtNames(mt, strings.TrimPrefix(p, root+"/"), known)
		}
	}
	// path.Dir spells the root ".", in both.
	return c.manifests[path.Dir(root)] > 0
}

// modulesTxtNames reports whether the change moves the line of
// vendor/modules.txt ("# example.com/mod v1.2.3") naming the module holding
// rel, a path relative to vendor/: the line is added, removed or changed in
// more than its spacing. A line removed and re-added as it was (a
// whitespace edit) moves no module, and explains nothing.
//
// The module holding rel is the one the base's list (known) files rel's
// package under, or for a package the base does not list, the longest
// module path it or the diff's added lines name that rel lies under
// (vendorList.owner). Without the base's list (a vendor/ the base has no
// modules.txt for), the longest module path the diff shows. Only a path
// that can be a module root names one (moduleRoot). A module the base
// lists is moved only when the diff removes one of its lines: a bump
// replaces the line, and a second line added beside it claims nothing.
func modulesTxtNames(mt *diff.File, rel string, known *vendorList) bool {
	type moduleLine struct {
		module, text string
		kind         diff.LineKind
	}
	var lines []moduleLine
	var added, shown []string
	for _, h := range mt.Hunks {
		for _, l := range h.Lines {
			fields := strings.Fields(l.Text)
			if len(fields) < 2 || fields[0] != "#" {
				continue
			}
			lines = append(lines, moduleLine{fields[1], strings.Join(fields, " "), l.Kind})
			shown = append(shown, fields[1])
			if l.Kind == diff.Add {
				added = append(added, fields[1])
			}
		}
	}
	var owner string
	if known != nil {
		owner = known.owner(rel, added)
	} else {
		owner = (&vendorList{}).owner(rel, shown) // the diff's lines alone
	}
	if owner == "" {
		return false
	}
	moved := map[string]int{} // the owner's lines, spacing normalized: +1 added, -1 removed
	for _, ml := range lines {
		switch {
		case ml.module != owner || ml.kind == diff.Context:
		case ml.kind == diff.Add:
			moved[ml.text]++
		default:
			moved[ml.text]--
		}
	}
	changed, removed := false, false
	for _, n := range moved {
		changed = changed || n != 0
		removed = removed || n < 0
	}
	if known != nil && known.modules[owner] {
		return removed
	}
	return changed
}

// moduleRoot reports whether m can be a Go module's path as vendor/
// holds one: at least a host with a dot and one path element, and on the
// hosts the go command knows to hold repositories at owner/name
// (github.com, gitlab.com, bitbucket.org), at least those. A rarer
// one-element module path is refused, which errs toward review.
func moduleRoot(m string) bool {
	elems := strings.Split(m, "/")
	if len(elems) < 2 || !strings.Contains(elems[0], ".") || slices.Contains(elems, "") {
		return false
	}
	switch elems[0] {
	case "github.com", "gitlab.com", "bitbucket.org":
		return len(elems) >= 3
	}
	return true
}

// protoKinds are generated-name kinds whose source of truth is a .proto.
var protoKinds = setOf([]string{".pb.go", ".pb.gw.go", "_pb2.py", "_pb2_grpc.py", ".pb.cc", ".pb.h"})

// generatedExplained reports whether the change also changes what the
// generated or build-output file at p is made from: a .proto for protobuf
// output; otherwise a hand-written source file of the same package (the
// nearest directory the base shows to be a package's root, or the
// repository's), outside any build output directory and not generated by
// its own name.
func (c *change) generatedExplained(p string) bool {
	if protoKinds[generatedKind(p)] {
		return c.proto
	}
	n := c.sources[c.packageRootOf(p)]
	if f := c.files[p]; f != nil && handWritten(f) {
		n-- // a file with a marker explains nothing of itself
	}
	return n > 0
}

// packageRootOf is the nearest directory above p that the base shows to be
// a package's root ("" for the repository root).
func (c *change) packageRootOf(p string) string {
	for dir := path.Dir(p); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		if c.base != nil && c.base.packageRoot(dir) {
			return dir
		}
	}
	return ""
}

// outputDirOf is the build output directory segment p lies under ("dist"),
// "" when none, whatever the base says.
func outputDirOf(p string) string {
	segs := strings.Split(p, "/")
	for _, s := range segs[:len(segs)-1] {
		for _, d := range outputDirs {
			if s == d {
				return s
			}
		}
	}
	return ""
}

// isManifest reports whether p is a package manifest by its name.
func isManifest(p string) bool {
	b := path.Base(p)
	for _, m := range manifests {
		if b == m {
			return true
		}
	}
	return false
}

// Moves that change what a file is. A pure rename keeps the content, but
// into .github/workflows/ the file becomes CI configuration that runs
// with the repository's token; out of testdata/ or docs/ it becomes code
// that builds. Such a move is reviewed as a new file.

// CIConfig reports whether p is CI configuration: a workflow, a composite
// action, or another CI system's pipeline file. What it names runs.
func CIConfig(p string) bool {
	lower := strings.ToLower(p)
	switch {
	case strings.HasPrefix(lower, ".github/workflows/"), strings.HasPrefix(lower, ".github/actions/"),
		strings.HasPrefix(lower, ".circleci/"), strings.HasPrefix(lower, ".buildkite/"), strings.HasPrefix(lower, ".tekton/"),
		strings.HasPrefix(lower, ".woodpecker/"), strings.HasPrefix(lower, ".gitlab/ci/"), strings.HasPrefix(path.Base(lower), "jenkinsfile."):
		return true
	}
	switch path.Base(lower) {
	case ".gitlab-ci.yml", "jenkinsfile", "azure-pipelines.yml", ".travis.yml", "action.yml", "action.yaml",
		"makefile", "dockerfile", ".pre-commit-config.yaml", ".drone.yml", ".drone.yaml", "bitbucket-pipelines.yml",
		"cloudbuild.yaml", "cloudbuild.yml", "appveyor.yml", ".appveyor.yml", "buildspec.yml", "buildspec.yaml",
		".woodpecker.yml", ".woodpecker.yaml":
		return true
	}
	return false
}

// MoveChangesKind reports whether moving a file from old to new changes
// what it is: it becomes CI configuration, leaves a test or documentation
// directory, a vendored or generated place, or changes its extension.
func MoveChangesKind(old, new string) bool {
	switch {
	case old == "" || new == "" || old == new:
		return false
	case CIConfig(new) && !CIConfig(old),
		isTest(old) && !isTest(new),
		isDoc(old) && !isDoc(new),
		vendoredRoot(old) != "" && vendoredRoot(new) == "",
		generatedKind(old) != "" && generatedKind(new) == "",
		outputDirOf(old) != "" && outputDirOf(new) == "",
		!strings.EqualFold(path.Ext(old), path.Ext(new)):
		return true
	}
	return false
}

// becomesExecutable reports whether f's mode change makes it executable.
func becomesExecutable(f *diff.File) bool {
	return f.NewMode == "100755" && f.OldMode != "" && f.OldMode != "100755"
}
