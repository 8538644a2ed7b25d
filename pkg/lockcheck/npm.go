package lockcheck

import (
	"encoding/json"
	"fmt"
	"strings"
)

// npmLock is package-lock.json / npm-shrinkwrap.json: lockfileVersion 1
// nests "dependencies"; 2 and 3 list "packages" by their node_modules path.
type npmLock struct {
	LockfileVersion *int                `json:"lockfileVersion"`
	Packages        map[string]npmEntry `json:"packages"`
	Dependencies    map[string]npmV1    `json:"dependencies"`
}

type npmEntry struct {
	Name             string `json:"name"`
	Version          string `json:"version"`
	Resolved         string `json:"resolved"`
	Integrity        string `json:"integrity"`
	HasInstallScript bool   `json:"hasInstallScript"`
	Link             bool   `json:"link"`
}

type npmV1 struct {
	Version      string           `json:"version"`
	Resolved     string           `json:"resolved"`
	Integrity    string           `json:"integrity"`
	Dependencies map[string]npmV1 `json:"dependencies"`
}

func parseNPM(text string) (*lock, error) {
	var nl npmLock
	if err := json.Unmarshal([]byte(text), &nl); err != nil {
		return nil, fmt.Errorf("%w: package-lock JSON: %v", ErrFormat, err)
	}
	if nl.LockfileVersion == nil || *nl.LockfileVersion < 1 || *nl.LockfileVersion > 3 {
		return nil, fmt.Errorf("%w: no lockfileVersion 1, 2 or 3", ErrFormat)
	}
	l := newLock(text)
	lines := objectLines(text)
	if nl.Packages != nil {
		for key, p := range nl.Packages {
			if key == "" {
				continue // the root project itself
			}
			name := p.Name
			if name == "" {
				name = nodeModulesName(key)
			}
			local := p.Link || !strings.Contains(key, "node_modules/") // a workspace's own directory
			l.add(key, entry{name: name, version: p.Version, resolved: p.Resolved, integrity: p.Integrity,
				script: p.HasInstallScript, local: local, line: lines["packages\x00"+key]})
		}
		return l, nil
	}
	var walk func(prefix, at string, deps map[string]npmV1)
	walk = func(prefix, at string, deps map[string]npmV1) {
		for name, d := range deps {
			key, at := prefix+"node_modules/"+name, at+"dependencies\x00"+name
			version, local := d.Version, strings.HasPrefix(d.Version, "file:") || strings.HasPrefix(d.Version, "link:")
			resolved := d.Resolved
			if resolved == "" && !local && strings.Contains(d.Version, ":") {
				resolved = d.Version // v1 writes a git or tarball source as the version
			}
			l.add(key, entry{name: name, version: version, resolved: resolved, integrity: d.Integrity, local: local, line: lines[at]})
			walk(key+"/", at+"\x00", d.Dependencies)
		}
	}
	walk("", "", nl.Dependencies)
	return l, nil
}

// nodeModulesName is the package name of a packages key:
// "node_modules/a/node_modules/@s/b" is "@s/b".
func nodeModulesName(key string) string {
	i := strings.LastIndex(key, "node_modules/")
	if i < 0 {
		return key
	}
	return key[i+len("node_modules/"):]
}

// objectLines maps the path of every object-valued key of text, as npm
// writes it (two spaces a level), to its 1-based line: "packages\x00
// node_modules/a" for version 2 and 3, "dependencies\x00a\x00dependencies
// \x00b" for version 1's nesting. One pass over the text, so a 10,000-line
// lock file costs one scan, not one per package. A file indented otherwise
// gives fewer lines; a finding then stands at line 0 of the file.
func objectLines(text string) map[string]int {
	out := map[string]int{}
	var stack []string
	n := 0
	for line := range strings.Lines(text) {
		n++
		t := strings.TrimLeft(line, " ")
		ind := len(line) - len(t)
		if !strings.HasPrefix(t, `"`) || ind%2 != 0 {
			continue
		}
		end := strings.Index(t[1:], `":`)
		if end < 0 || !strings.HasPrefix(strings.TrimSpace(t[end+3:]), "{") {
			continue
		}
		depth := ind/2 - 1
		if depth < 0 || depth > len(stack) {
			continue
		}
		stack = append(stack[:depth], t[1:end+1])
		out[strings.Join(stack, "\x00")] = n
	}
	return out
}
