package lockcheck

import (
	"fmt"
	"strings"
)

// The text formats (yarn.lock, pnpm-lock.yaml, go.sum) are read line by
// line: their shapes are fixed by the tools that write them, and a line
// that fits none of them makes the file something else (ErrFormat).

// indentOf counts the leading spaces of s; a tab makes it -1 (none of
// these formats indents with tabs).
func indentOf(s string) int {
	n := 0
	for n < len(s) && s[n] == ' ' {
		n++
	}
	if n < len(s) && s[n] == '\t' {
		return -1
	}
	return n
}

// contentLine is a line that carries content: its number, indentation and
// trimmed text.
type contentLine struct {
	n, indent int
	text      string
}

// contentLines lists l's lines that are neither blank nor comments. A tab
// indent makes the file ErrFormat.
func (l *lock) contentLines() ([]contentLine, error) {
	var out []contentLine
	for i, raw := range l.lines {
		line := strings.TrimRight(raw, "\r")
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		ind := indentOf(line)
		if ind < 0 {
			return nil, fmt.Errorf("%w: line %d: a tab indent", ErrFormat, i+1)
		}
		out = append(out, contentLine{n: i + 1, indent: ind, text: t})
	}
	return out, nil
}

// pending is the entry a line parser is reading, added to its lock when
// the next entry starts or the file ends.
type pending struct {
	l   *lock
	key string
	e   *entry
}

func (p *pending) start(key string, e entry) {
	p.flush()
	p.key, p.e = key, &e
}

func (p *pending) flush() {
	if p.e != nil && p.key != "" {
		p.l.add(p.key, *p.e)
	}
	p.key, p.e = "", nil
}

// unquote strips one pair of matching quotes.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// splitNameVersion splits "name@range" or "@scope/name@range" at the
// version's '@'.
func splitNameVersion(spec string) (name, rest string) {
	i := strings.LastIndex(spec, "@")
	if i <= 0 {
		return spec, ""
	}
	return spec[:i], spec[i+1:]
}

// parseYarn reads yarn.lock: classic (v1, "# yarn lockfile v1", `key
// "value"` fields) and Berry (a YAML file with __metadata and `key: value`
// fields).
func parseYarn(text string) (*lock, error) {
	berry := strings.Contains(text, "\n__metadata:") || strings.HasPrefix(text, "__metadata:")
	if !berry && !strings.Contains(text, "# yarn lockfile v1") {
		return nil, fmt.Errorf("%w: neither a yarn v1 header nor Berry's __metadata", ErrFormat)
	}
	l := newLock(text)
	lines, err := l.contentLines()
	if err != nil {
		return nil, err
	}
	p := &pending{l: l}
	for _, ln := range lines {
		n, ind, t := ln.n, ln.indent, ln.text
		cur := p.e
		switch {
		case ind == 0:
			if !strings.HasSuffix(t, ":") {
				return nil, fmt.Errorf("%w: line %d: an entry must end with ':'", ErrFormat, n)
			}
			p.flush()
			specs := strings.TrimSuffix(t, ":")
			first := unquote(strings.SplitN(specs, ",", 2)[0])
			if first == "" {
				return nil, fmt.Errorf("%w: line %d: an entry with no name", ErrFormat, n)
			}
			if first == "__metadata" {
				continue
			}
			// The name ends at the first '@' past a scope's own
			// ("@babel/core@^7.0.0", Berry's "lodash@npm:^4.17.21").
			name := first
			if j := strings.Index(first[1:], "@"); j >= 0 {
				name = first[:j+1]
			}
			p.start(unquote(specs), entry{name: name, line: n})
		case ind == 2:
			if cur == nil {
				if !berry {
					return nil, fmt.Errorf("%w: line %d: a field outside any entry", ErrFormat, n)
				}
				continue // __metadata's fields
			}
			key, value, ok := yarnField(t, berry)
			if !ok {
				return nil, fmt.Errorf("%w: line %d: not a field", ErrFormat, n)
			}
			switch key {
			case "version":
				cur.version = value
			case "resolved":
				cur.resolved, _, _ = strings.Cut(value, "#")
			case "integrity", "checksum":
				cur.integrity = value
			case "resolution":
				cur.resolved = berrySource(value)
				cur.local = strings.Contains(value, "@workspace:")
				cur.script = strings.Contains(value, "@exec:")
			}
		default:
			if cur == nil && !berry {
				return nil, fmt.Errorf("%w: line %d: a field outside any entry", ErrFormat, n)
			}
		}
	}
	p.flush()
	// Key by name@version: the entry's specifier list changes whenever a
	// range is added, and the package slot is what matters.
	byVersion := map[string]entry{}
	for _, e := range l.entries {
		byVersion[e.name+"@"+e.version] = e
	}
	l.entries = byVersion
	return l, nil
}

// yarnField splits a field line: `version "1.2.3"` (classic) or
// `version: 1.2.3` (Berry).
func yarnField(t string, berry bool) (key, value string, ok bool) {
	if berry {
		k, v, found := strings.Cut(t, ":")
		return strings.TrimSpace(k), unquote(v), found
	}
	k, v, found := strings.Cut(t, " ")
	if !found {
		return strings.TrimSuffix(t, ":"), "", strings.HasSuffix(t, ":")
	}
	return k, unquote(v), true
}

// berrySource is where a Berry resolution ("lodash@npm:4.17.21",
// "x@https://host/x.tgz", "y@exec:./build.js") fetches from: "" for the
// registry (npm:) and the repository's own workspaces, else the source.
func berrySource(resolution string) string {
	at := strings.Index(resolution[min(1, len(resolution)):], "@")
	if at < 0 {
		return ""
	}
	src := resolution[at+2:]
	switch {
	case strings.HasPrefix(src, "npm:"), strings.HasPrefix(src, "workspace:"):
		return ""
	case strings.HasPrefix(src, "patch:"):
		// A patch of a registry package applies a file of the repository,
		// which scope reviews; the built-in compatibility patches too.
		if strings.Contains(src, "npm%3A") || strings.Contains(src, "npm:") {
			return ""
		}
	}
	return src
}

// parsePNPM reads pnpm-lock.yaml (lockfile versions 5 to 9): the packages
// section's entries, their resolution and requiresBuild.
func parsePNPM(text string) (*lock, error) {
	if !strings.HasPrefix(strings.TrimLeft(text, "\ufeff"), "lockfileVersion:") {
		return nil, fmt.Errorf("%w: no lockfileVersion on the first line", ErrFormat)
	}
	l := newLock(text)
	lines, err := l.contentLines()
	if err != nil {
		return nil, err
	}
	section := ""
	p := &pending{l: l}
	for _, ln := range lines {
		n, ind, t := ln.n, ln.indent, ln.text
		cur := p.e
		switch {
		case ind == 0:
			k, _, ok := strings.Cut(t, ":")
			if !ok || strings.ContainsAny(k, " {}[]") {
				return nil, fmt.Errorf("%w: line %d: not a top-level key", ErrFormat, n)
			}
			p.flush()
			section = k
		case section != "packages":
			continue
		case ind == 2:
			if !strings.HasSuffix(t, ":") && !strings.HasSuffix(t, "{}") {
				return nil, fmt.Errorf("%w: line %d: a package entry must end with ':'", ErrFormat, n)
			}
			key := unquote(strings.TrimSuffix(strings.TrimSuffix(t, " {}"), ":"))
			name, version := pnpmNameVersion(key)
			p.start(key, entry{name: name, version: version, line: n})
		case ind == 4 && cur != nil:
			k, v, ok := strings.Cut(t, ":")
			if !ok {
				return nil, fmt.Errorf("%w: line %d: not a field", ErrFormat, n)
			}
			switch strings.TrimSpace(k) {
			case "resolution":
				res := flowMap(v)
				cur.integrity = res["integrity"]
				switch {
				case res["tarball"] != "":
					cur.resolved = res["tarball"]
				case res["type"] == "git" || res["repo"] != "":
					cur.resolved = "git+" + res["repo"] + "#" + res["commit"]
				case res["type"] == "directory":
					cur.local = true
				}
			case "requiresBuild":
				cur.script = strings.TrimSpace(v) == "true"
			case "version":
				cur.version = unquote(v)
			}
		}
	}
	p.flush()
	return l, nil
}

// pnpmNameVersion splits a packages key: "/@s/a@1.0.0(peer@2)" (v6),
// "@s/a@1.0.0" (v9), "/a/1.0.0_peer@2" (v5).
func pnpmNameVersion(key string) (name, version string) {
	key = strings.TrimPrefix(key, "/")
	if i := strings.IndexByte(key, '('); i >= 0 {
		key = key[:i]
	}
	if name, version = splitNameVersion(key); version != "" {
		return name, version
	}
	if i := strings.LastIndexByte(key, '/'); i > 0 { // v5
		name, version = key[:i], key[i+1:]
		if j := strings.IndexByte(version, '_'); j >= 0 {
			version = version[:j]
		}
		return name, version
	}
	return key, ""
}

// flowMap reads a one-line YAML flow map "{integrity: sha512-..., tarball: x}".
func flowMap(v string) map[string]string {
	v = strings.TrimSpace(v)
	v = strings.TrimSuffix(strings.TrimPrefix(v, "{"), "}")
	m := map[string]string{}
	for _, kv := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(kv, ":")
		if !ok {
			continue
		}
		m[strings.TrimSpace(k)] = unquote(val)
	}
	return m
}

// parseGoSum reads go.sum: "module version[/go.mod] h1:base64" lines,
// each its own entry (keyed by the whole line).
func parseGoSum(text string) (*lock, error) {
	l := newLock(text)
	for i, raw := range l.lines {
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		f := strings.Fields(t)
		if len(f) != 3 || !strings.HasPrefix(f[1], "v") || !hashShape(f[2]) {
			return nil, fmt.Errorf("%w: line %d: not \"module version hash\"", ErrFormat, i+1)
		}
		// One key a line: go.sum may list several hashes of one version,
		// and the go command trusts the first h1 of them.
		if _, dup := l.entries[t]; !dup { // a repeated line: the first is the one read
			l.entries[t] = entry{name: f[0], version: f[1], integrity: f[2], line: i + 1}
		}
	}
	return l, nil
}

// hashShape reports whether s looks like a go.sum hash: "h<digits>:" and
// base64.
func hashShape(s string) bool {
	alg, sum, ok := strings.Cut(s, ":")
	if !ok || len(alg) < 2 || alg[0] != 'h' || sum == "" {
		return false
	}
	for _, c := range alg[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	for _, c := range sum {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}
