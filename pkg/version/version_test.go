package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	info := func(mainVersion string, settings ...string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/anchor-review/anchor-review", Version: mainVersion}}
			for i := 0; i+1 < len(settings); i += 2 {
				bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
			}
			return bi, true
		}
	}
	noInfo := func() (*debug.BuildInfo, bool) { return nil, false }
	tests := []struct {
		name, linked string
		read         func() (*debug.BuildInfo, bool)
		want         string
	}{
		{"release build: -ldflags -X wins", "v1.4.0", info("v0.0.0-old"), "v1.4.0"},
		{"go install module@version", "", info("v1.3.2"), "v1.3.2"},
		{"checkout build with vcs stamp", "", info("(devel)", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "false"), Dev() + "+0123456789ab"},
		{"dirty checkout", "", info("(devel)", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), Dev() + "+0123456789ab-dirty"},
		{"go run without vcs stamp", "", info("(devel)"), Dev()},
		{"no build info", "", noInfo, Dev()},
		{"linked value with a newline is refused", "v1\nX-Evil: 1", info("v1.0.0"), "v1.0.0"},
		{"blank linked value", "  ", noInfo, Dev()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolve(tt.linked, tt.read); got != tt.want {
				t.Errorf("resolve(%q) = %q; want %q", tt.linked, got, tt.want)
			}
		})
	}
}

func TestUserAgent(t *testing.T) {
	ua := UserAgent()
	if !strings.HasPrefix(ua, "anchor-review/") || len(ua) <= len("anchor-review/") {
		t.Errorf("UserAgent() = %q; want anchor-review/VERSION", ua)
	}
	if strings.ContainsAny(ua, " \r\n") {
		t.Errorf("UserAgent() = %q holds whitespace", ua)
	}
}

// TestDevNamesTheNextRelease: a build given no version (a Docker build of
// main, whose context has no .git) names the release line it belongs to.
func TestDevNamesTheNextRelease(t *testing.T) {
	d := Dev()
	if !strings.HasPrefix(d, "v") || !strings.HasSuffix(d, "-dev") || strings.Count(d, ".") != 2 {
		t.Errorf("Dev() = %q; want vMAJOR.MINOR.PATCH-dev from the VERSION file", d)
	}
}
