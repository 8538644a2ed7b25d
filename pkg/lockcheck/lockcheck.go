// Package lockcheck is the lock-file check: a deterministic reading of a
// dependency lock file's change, with no model call. Scope leaves the
// lock files it reads out of the personas' review (a 10,000-line
// package-lock.json diff is nothing a model reads well), and this check
// stands in their place.
//
// It reports, for package-lock.json, npm-shrinkwrap.json, yarn.lock (v1
// and Berry), pnpm-lock.yaml and go.sum (go.work.sum):
//
//   - a package resolved from outside its registry: another host, a git,
//     file, link or exec source, or a tarball that is not the registry's
//     own for that package and version;
//   - an integrity or checksum changed or removed while the version stayed;
//   - a new install script (npm's hasInstallScript, pnpm's requiresBuild,
//     Berry's exec: protocol);
//   - a go.sum hash changed for the same module version.
//
// Each is a fact read from the two versions of the file, not a claim: the
// pipeline posts it as a P1 security finding without the validator.
//
// A file named like a lock file that does not parse as its format is not
// a lock file: Check returns an error wrapping ErrFormat, and the caller
// reviews the file like any other.
package lockcheck

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
)

// ErrFormat says the head version does not parse as the lock format its
// name promises.
var ErrFormat = errors.New("not a lock file of its format")

// Kinds of finding.
const (
	KindRegistry  = "registry"
	KindIntegrity = "integrity"
	KindScript    = "install script"
	KindGoSum     = "go.sum hash"
)

// Finding is one fact the check established about the head version.
type Finding struct {
	Kind string
	// Line is the head line it is about (1-based).
	Line int
	// Package is "name@version" (or "module version" for go.sum).
	Package string
	Title   string
	Why     string
	// Evidence is the head line's text.
	Evidence string
}

// Supported reports whether the check reads the file at p, by its name.
func Supported(p string) bool { return parserFor(p) != nil }

// entry is one resolved package of a lock file.
type entry struct {
	name, version string
	// resolved is where the package comes from: a URL, or a protocol
	// reference (git+ssh://..., file:..., exec:..., a Berry resolution).
	resolved  string
	integrity string
	script    bool
	// local marks a workspace or linked package of the repository itself.
	local bool
	line  int
}

// lock is a parsed lock file: its entries by key (the same key names the
// same package slot on both sides).
type lock struct {
	entries map[string]entry
	// registries are the hosts the file's registry tarballs come from.
	registries map[string]bool
	// lines are the file's lines, for evidence.
	lines []string
}

type parser func(text string) (*lock, error)

func parserFor(p string) parser {
	switch path.Base(p) {
	case "package-lock.json", "npm-shrinkwrap.json":
		return parseNPM
	case "yarn.lock":
		return parseYarn
	case "pnpm-lock.yaml":
		return parsePNPM
	case "go.sum", "go.work.sum":
		return parseGoSum
	}
	return nil
}

// Check compares the lock file at p from oldText (the base; "" when the
// file is new) to newText (the head). It returns an error wrapping
// ErrFormat when newText does not parse; a base that does not parse is
// taken as empty, so every entry of the head counts as new.
func Check(p, oldText, newText string) ([]Finding, error) {
	parse := parserFor(p)
	if parse == nil {
		return nil, fmt.Errorf("lockcheck: %s: %w: no lock format has this name", p, ErrFormat)
	}
	head, err := parse(newText)
	if err != nil {
		return nil, fmt.Errorf("lockcheck: %s: %w", p, err)
	}
	base := &lock{entries: map[string]entry{}, registries: map[string]bool{}}
	if oldText != "" {
		if b, err := parse(oldText); err == nil {
			base = b
		}
	}
	var out []Finding
	if path.Base(p) == "go.sum" || path.Base(p) == "go.work.sum" {
		out = goSumFindings(base, head)
	} else {
		out = packageFindings(base, head)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Kind < out[j].Kind
	})
	return out, nil
}

// defaultRegistries are the public npm registry's tarball hosts.
var defaultRegistries = []string{"registry.npmjs.org", "registry.yarnpkg.com"}

func packageFindings(base, head *lock) []Finding {
	registries := map[string]bool{}
	for _, h := range defaultRegistries {
		registries[h] = true
	}
	for h := range base.registries {
		registries[h] = true
	}
	var out []Finding
	for _, k := range slices.Sorted(maps.Keys(head.entries)) {
		e := head.entries[k]
		if e.local {
			continue
		}
		b, had := base.entries[k]
		pkg := e.name + "@" + e.version
		add := func(kind, title, why string) {
			n := head.fieldLine(e.line, fieldMarks[kind]...)
			out = append(out, Finding{Kind: kind, Line: n, Package: pkg, Title: title, Why: why, Evidence: head.line(n)})
		}
		if e.resolved != "" && (!had || b.resolved != e.resolved) {
			if problem := outsideRegistry(e, registries); problem != "" {
				add(KindRegistry, fmt.Sprintf("Lock file resolves %s outside its registry: %s", pkg, problem),
					"An install fetches this package from a source the registry does not vouch for; whoever controls it controls the code every install runs.")
			}
		}
		if had && b.version == e.version && b.integrity != "" && b.integrity != e.integrity {
			what := "changed"
			if e.integrity == "" {
				what = "removed"
			}
			add(KindIntegrity, fmt.Sprintf("Lock file integrity of %s %s for an unchanged version", pkg, what),
				"The version is the same, so the published package's hash cannot have changed: the new value lets a different tarball install, or none is checked at all.")
		}
		if e.script && (!had || !b.script) {
			add(KindScript, fmt.Sprintf("Lock file adds an install script: %s", pkg),
				"The package runs code at install time, on every developer machine and CI runner that installs it; nothing reviewed that script.")
		}
	}
	return out
}

// outsideRegistry says how e's source lies outside the registries, "" when
// it is the registry's own tarball of that package and version.
func outsideRegistry(e entry, registries map[string]bool) string {
	r := e.resolved
	for _, proto := range []string{"git+", "git:", "github:", "gitlab:", "bitbucket:", "file:", "link:", "portal:", "exec:", "patch:"} {
		if strings.HasPrefix(r, proto) {
			return "a " + strings.TrimSuffix(strings.TrimSuffix(proto, ":"), "+") + " source (" + clip(r) + ")"
		}
	}
	u, err := url.Parse(r)
	if err != nil || u.Host == "" {
		return "an unreadable source (" + clip(r) + ")"
	}
	switch {
	case u.Scheme != "https" && !(u.Scheme == "http" && registries[u.Host]):
		return "a " + u.Scheme + " URL (" + clip(r) + ")"
	case !registries[u.Host]:
		return "host " + u.Host + ", which no other package of the lock file comes from"
	case !registryTarball(u.Path, e.name, e.version):
		return "a tarball that is not this package's (" + clip(u.Path) + ")"
	}
	return ""
}

// registryTarball reports whether p is the registry's tarball path of
// name@version: /<name>/-/<basename>-<version>.tgz (a scoped name's slash
// may be escaped as %2f).
func registryTarball(p, name, version string) bool {
	if name == "" || version == "" {
		return false
	}
	p = strings.ReplaceAll(strings.ReplaceAll(p, "%2f", "/"), "%2F", "/")
	want := "/" + name + "/-/" + path.Base(name) + "-" + version + ".tgz"
	return strings.HasSuffix(p, want)
}

// registryHost is the host of a tarball URL that has the registry's shape
// (/<name>/-/<file>.tgz), "" for anything else.
func registryHost(resolved string) string {
	u, err := url.Parse(resolved)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || !strings.Contains(u.Path, "/-/") {
		return ""
	}
	return u.Host
}

// goSumFindings reports every hash of head that base did not list for a
// module version base had: a changed hash, and also a second hash added
// before the old one (the go command checks against the first h1 it
// reads, so "fake, real" admits the fake).
func goSumFindings(base, head *lock) []Finding {
	known := map[string]map[string]bool{} // "module version" → its hashes at the base
	for _, b := range base.entries {
		k := b.name + " " + b.version
		if known[k] == nil {
			known[k] = map[string]bool{}
		}
		known[k][b.integrity] = true
	}
	var out []Finding
	for _, key := range slices.Sorted(maps.Keys(head.entries)) {
		e := head.entries[key]
		k := e.name + " " + e.version
		if hashes := known[k]; hashes == nil || hashes[e.integrity] {
			continue
		}
		out = append(out, Finding{Kind: KindGoSum, Line: e.line, Package: k, Evidence: head.line(e.line),
			Title: fmt.Sprintf("go.sum hash of %s changed for the same version", k),
			Why:   "A module version's content never changes (the checksum database pins it), so a new hash for the same version admits different code, or fails every build that checks it."})
	}
	return out
}

// fieldMarks are how each format begins the line a kind of finding is
// about: npm's JSON, yarn classic, yarn Berry and pnpm.
var fieldMarks = map[string][]string{
	KindRegistry:  {`"resolved"`, "resolved ", "resolution:"},
	KindIntegrity: {`"integrity"`, "integrity ", "checksum:", "resolution:"},
	KindScript:    {`"hasInstallScript"`, "requiresBuild:", "resolution:"},
}

// fieldLine is the line of the entry starting at line start that begins
// with one of marks (the field a finding is about), or start when the
// entry has none (a removed integrity): an inline comment lands on the
// changed line.
func (l *lock) fieldLine(start int, marks ...string) int {
	if start < 1 || start > len(l.lines) {
		return start
	}
	indent := len(l.lines[start-1]) - len(strings.TrimLeft(l.lines[start-1], " "))
	for n := start + 1; n <= len(l.lines); n++ {
		text := l.lines[n-1]
		t := strings.TrimLeft(text, " ")
		if t == "" {
			continue
		}
		if len(text)-len(t) <= indent {
			break // the next entry, or the end of this one
		}
		for _, m := range marks {
			if strings.HasPrefix(t, m) {
				return n
			}
		}
	}
	return start
}

// line is the text of the 1-based line n, clipped for evidence.
func (l *lock) line(n int) string {
	if n < 1 || n > len(l.lines) {
		return ""
	}
	return clip(strings.TrimSpace(l.lines[n-1]))
}

// clip shortens s for a title or evidence.
func clip(s string) string {
	const limit = 160
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func newLock(text string) *lock {
	return &lock{entries: map[string]entry{}, registries: map[string]bool{}, lines: strings.Split(text, "\n")}
}

// add records e under key, and its registry host.
func (l *lock) add(key string, e entry) {
	l.entries[key] = e
	if h := registryHost(e.resolved); h != "" {
		l.registries[h] = true
	}
}
