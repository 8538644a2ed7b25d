// Package version is the one version string of anchor-review: printed by
// `--version`, sent in the User-Agent to GitHub and to the model endpoint,
// and shown in the report's Coverage section.
//
// A release build sets it with
//
//	go build -ldflags "-X github.com/anchor-review/anchor-review/pkg/version.version=v1.2.3"
//
// (the Dockerfile's VERSION build argument does this). Without it, a binary
// built by `go install …@v1.2.3` reports its module version; anything else
// reports the next release named in the VERSION file beside this one
// ("v1.0.0-dev"), with the commit when the build recorded one
// ("v1.0.0-dev+0123456789ab"). A Docker build of main (the Action's
// `image: Dockerfile`, whose context has no .git) says which release line
// it is, not a bare "dev".
package version

import (
	_ "embed"
	"runtime/debug"
	"strings"
	"sync"
)

// next is the VERSION file: the release being prepared, "-dev" suffixed.
//
//go:embed VERSION
var next string

// version is set at link time by release builds (-ldflags -X).
var version string

var (
	once     sync.Once
	resolved string
)

// String returns the running binary's version.
func String() string {
	once.Do(func() { resolved = resolve(version, debug.ReadBuildInfo) })
	return resolved
}

// UserAgent is the User-Agent header value of every HTTP request the binary
// sends: "anchor-review/VERSION".
func UserAgent() string { return "anchor-review/" + String() }

// resolve picks the version: the link-time value, else the module version
// of an installed build, else "dev" with the VCS revision when known.
func resolve(linked string, read func() (*debug.BuildInfo, bool)) string {
	if v := clean(linked); v != "" {
		return v
	}
	dev := Dev()
	bi, ok := read()
	if !ok || bi == nil {
		return dev
	}
	if v := clean(bi.Main.Version); v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = clean(s.Value)
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return dev
	case dirty:
		return dev + "+" + rev + "-dirty"
	}
	return dev + "+" + rev
}

// Dev is the version of a build that was given none: the VERSION file's
// "vX.Y.Z-dev", or "dev" if that file were unreadable.
func Dev() string {
	if v := clean(next); v != "" {
		return v
	}
	return "dev"
}

// clean keeps a version fit for a header and a one-line print: visible
// ASCII only, no spaces, at most 64 bytes.
func clean(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 64 {
		s = s[:64]
	}
	for _, r := range s {
		if r <= ' ' || r > '~' {
			return ""
		}
	}
	return s
}
