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
	at := keyLines(text)
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
				script: p.HasInstallScript, local: local, line: at(key)})
		}
		return l, nil
	}
	var walk func(prefix string, deps map[string]npmV1)
	walk = func(prefix string, deps map[string]npmV1) {
		for name, d := range deps {
			key := prefix + "node_modules/" + name
			version, local := d.Version, strings.HasPrefix(d.Version, "file:") || strings.HasPrefix(d.Version, "link:")
			resolved := d.Resolved
			if resolved == "" && !local && strings.Contains(d.Version, ":") {
				resolved = d.Version // v1 writes a git or tarball source as the version
			}
			l.add(key, entry{name: name, version: version, resolved: resolved, integrity: d.Integrity, local: local, line: at(name)})
			walk(key+"/", d.Dependencies)
		}
	}
	walk("", nl.Dependencies)
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

// keyLines returns a function giving the 1-based line where an object key
// first appears in text (0 when it does not): one pass over the text, so
// a 10,000-line lock file costs one scan, not one per package.
func keyLines(text string) func(key string) int {
	first := map[string]int{}
	line := 1
	for rest := text; rest != ""; {
		nl := strings.IndexByte(rest, '\n')
		cur := rest
		if nl >= 0 {
			cur, rest = rest[:nl], rest[nl+1:]
		} else {
			rest = ""
		}
		t := strings.TrimSpace(cur)
		if strings.HasPrefix(t, `"`) {
			if end := strings.Index(t[1:], `":`); end >= 0 {
				k := t[1 : end+1]
				if _, ok := first[k]; !ok {
					first[k] = line
				}
			}
		}
		line++
	}
	return func(key string) int { return first[key] }
}
