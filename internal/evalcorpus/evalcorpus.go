// Package evalcorpus builds and checks the real-bug cases of the eval corpus
// (fixtures/eval/real, SPEC section 7.6): it turns two versions of a few
// files (module versions, package versions or commits of someone else's
// code) into a case's diff.patch, and checks a case directory with
// pkg/eval's loader and checker, the rules `eval --check` applies.
package evalcorpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// Diff writes a git-style diff from baseDir to headDir of the given
// repo-relative files, with a/ and b/ paths relative to the repository.
// keep, when it has an entry for a file, selects that file's hunks by
// 1-based index; the others are dropped and the new-side line numbers of
// the kept hunks renumbered, as if the head held only the kept changes.
// A file missing from baseDir is an added file.
func Diff(ctx context.Context, baseDir, headDir string, files []string, keep map[string][]int) ([]byte, error) {
	var out []*diff.File
	for _, name := range files {
		f, err := fileDiff(ctx, baseDir, headDir, name)
		if err != nil {
			return nil, err
		}
		if sel, ok := keep[name]; ok {
			if err := selectHunks(f, sel); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		if len(f.Hunks) == 0 {
			return nil, fmt.Errorf("%s: no change between the two versions", name)
		}
		out = append(out, f)
	}
	text := diff.Render(out)
	if _, err := diff.Parse([]byte(text)); err != nil {
		return nil, fmt.Errorf("rendered diff does not parse: %w", err)
	}
	return []byte(text), nil
}

func fileDiff(ctx context.Context, baseDir, headDir, name string) (*diff.File, error) {
	if !filepath.IsLocal(name) {
		return nil, fmt.Errorf("file %q is not a relative path inside the repository", name)
	}
	a, b := filepath.Join(baseDir, name), filepath.Join(headDir, name)
	status := diff.Modified
	if _, err := os.Stat(a); errors.Is(err, os.ErrNotExist) {
		a, status = os.DevNull, diff.Added
	}
	if _, err := os.Stat(b); err != nil {
		return nil, fmt.Errorf("head version of %s: %w", name, err)
	}
	cmd := exec.CommandContext(ctx, "git", "diff", "--no-index", "--no-color", "--no-ext-diff", "-U3", "--", a, b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return nil, fmt.Errorf("git diff %s: %w: %s", name, err, strings.TrimSpace(stderr.String()))
	}
	d, err := diff.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("git diff of %s: %w", name, err)
	}
	if len(d.Files) != 1 {
		return nil, fmt.Errorf("%s: no change between the two versions", name)
	}
	f := d.Files[0]
	f.OldPath, f.NewPath, f.Status = name, name, status
	f.OldMode, f.NewMode = "", ""
	if status == diff.Added {
		f.OldPath, f.NewMode = "", "100644"
	}
	return f, nil
}

// selectHunks keeps the hunks numbered in sel (1-based) and shifts the
// new-side start of each by the line balance of the hunks dropped before it.
func selectHunks(f *diff.File, sel []int) error {
	for _, n := range sel {
		if n < 1 || n > len(f.Hunks) {
			return fmt.Errorf("hunk %d does not exist (the diff has %d)", n, len(f.Hunks))
		}
	}
	var kept []diff.Hunk
	shift := 0 // new-side lines the dropped hunks added, minus those they deleted
	for i, h := range f.Hunks {
		if !slices.Contains(sel, i+1) {
			shift += h.NewLines - h.OldLines
			continue
		}
		h.NewStart -= shift
		kept = append(kept, h)
	}
	f.Hunks = kept
	return nil
}

// Survivors reports the added lines of patch that no longer appear, as
// whole lines (spaces trimmed), in the later version of their file under
// laterDir: a clean case's added lines should all survive.
func Survivors(patch []byte, laterDir string) ([]string, error) {
	d, err := diff.Parse(patch)
	if err != nil {
		return nil, err
	}
	var gone []string
	for _, f := range d.Files {
		later, err := os.ReadFile(filepath.Join(laterDir, f.Path()))
		if err != nil {
			return nil, fmt.Errorf("later version: %w", err)
		}
		have := map[string]bool{}
		for _, l := range strings.Split(string(later), "\n") {
			have[strings.TrimSpace(l)] = true
		}
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				t := strings.TrimSpace(l.Text)
				if l.Kind == diff.Add && t != "" && !have[t] {
					gone = append(gone, fmt.Sprintf("%s:%d: %s", f.Path(), l.NewNo, t))
				}
			}
		}
	}
	return gone, nil
}

// Numbered renders patch for labelling: each line with its new-side line
// number (added and context lines) or a dash (deleted lines).
func Numbered(patch []byte) (string, error) {
	d, err := diff.Parse(patch)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range d.Files {
		fmt.Fprintf(&b, "=== %s\n", f.Path())
		for _, h := range f.Hunks {
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
			for _, l := range h.Lines {
				no := "    -"
				if l.Kind != diff.Delete {
					no = fmt.Sprintf("%5d", l.NewNo)
				}
				fmt.Fprintf(&b, "%s %c%s\n", no, l.Kind, l.Text)
			}
		}
	}
	return b.String(), nil
}
