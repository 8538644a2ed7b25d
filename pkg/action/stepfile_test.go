package action

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestStepFileIgnoresLinksFromTheCheckout: a workflow that checks the PR
// out before this step leaves the PR's files in the workspace, and a PR
// may commit .anchor-review (or a file in it) as a symbolic link. The
// action's container runs as root: writing through the link would
// overwrite whatever it points at (another mounted directory, .git/config)
// with the report. The write refuses the link, names it, and leaves the
// target as it was.
func TestStepFileIgnoresLinksFromTheCheckout(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	for _, tc := range []struct {
		name string
		link func(t *testing.T, ws, victim string)
	}{
		{"the directory", func(t *testing.T, ws, victim string) {
			if err := os.Symlink(filepath.Dir(victim), filepath.Join(ws, StepFileDir)); err != nil {
				t.Fatal(err)
			}
		}},
		{"the file", func(t *testing.T, ws, victim string) {
			if err := os.Mkdir(filepath.Join(ws, StepFileDir), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, filepath.Join(ws, StepFileDir, SARIFFile)); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, outside := t.TempDir(), t.TempDir()
			victim := filepath.Join(outside, SARIFFile)
			if err := os.WriteFile(victim, []byte("not yours"), 0o600); err != nil {
				t.Fatal(err)
			}
			tc.link(t, ws, victim)

			path, err := writeStepFile(ws, SARIFFile, []byte(`{"runs":[]}`))

			if err == nil || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("writeStepFile = %q, %v; want an error naming the symbolic link", path, err)
			}
			if b, _ := os.ReadFile(victim); string(b) != "not yours" {
				t.Errorf("the link's target now holds %q", b)
			}
		})
	}
}

// TestStepFileReplacesAnEarlierRun: a self-hosted runner keeps its
// workspace, so the file of an earlier run is there; it is replaced.
func TestStepFileReplacesAnEarlierRun(t *testing.T) {
	ws := t.TempDir()
	for _, body := range []string{"first run, a longer body", "second"} {
		path, err := writeStepFile(ws, ReportFile, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if path != filepath.Join(StepFileDir, ReportFile) {
			t.Errorf("path %q; want it relative to the workspace", path)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, path)); string(b) != body {
			t.Errorf("the file holds %q; want %q", b, body)
		}
	}
}
