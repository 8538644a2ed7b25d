package diff

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Expand against real git diffs: for random base and head versions (few
// distinct lines, so the diff algorithms have choices to make; with and
// without a final newline), every diff git writes between them, at 0 to
// 3 lines of context and with each of its algorithms, expands to a hunk
// whose unchanged and deleted lines are the base, whose unchanged and
// added lines are the head, each numbered in order on its side.
func TestExpandAgainstGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(14, 2026))
	words := []string{"a", "b", "c", "d", "}", "", "x := 1", "return nil"}
	algorithms := []string{"myers", "minimal", "patience", "histogram"}
	for i := range 300 {
		base := make([]string, rng.IntN(12))
		for j := range base {
			base[j] = words[rng.IntN(len(words))]
		}
		var head []string
		for _, l := range base {
			switch rng.IntN(6) {
			case 0: // deleted
			case 1: // replaced
				head = append(head, words[rng.IntN(len(words))])
			case 2: // a line inserted before it
				head = append(head, words[rng.IntN(len(words))], l)
			default:
				head = append(head, l)
			}
		}
		if rng.IntN(4) == 0 {
			head = append(head, "tail")
		}
		// write stores lines, with a final newline or not, and returns the
		// lines as a reader of the file sees them (a last empty line without
		// a newline is no line).
		write := func(name string, lines []string) []string {
			s := strings.Join(lines, "\n")
			if len(lines) > 0 && rng.IntN(3) > 0 {
				s += "\n"
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
			if s == "" {
				return nil
			}
			return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		}
		base, head = write("old", base), write("new", head)
		args := []string{"-c", "core.quotepath=false", "diff", "--no-index", "--no-color",
			fmt.Sprintf("-U%d", rng.IntN(4)), "--diff-algorithm=" + algorithms[rng.IntN(len(algorithms))], "--", "old", "new"}
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
			t.Fatalf("case %d: git diff: %v", i, err)
		}
		if len(out) == 0 {
			continue // no change
		}
		d, err := Parse(out)
		if err != nil || len(d.Files) != 1 {
			t.Fatalf("case %d: Parse: %v\n%s", i, err, out)
		}
		x, err := Expand(d.Files[0], head)
		if err != nil {
			t.Fatalf("case %d: Expand: %v\nbase %q\nhead %q\n%s", i, err, base, head, out)
		}
		var gotBase, gotHead []string
		for _, l := range x.Hunks[0].Lines {
			if l.Kind != Add {
				gotBase = append(gotBase, l.Text)
				if l.OldNo != len(gotBase) {
					t.Fatalf("case %d: %q has base number %d; want %d\n%s", i, l.Text, l.OldNo, len(gotBase), out)
				}
			}
			if l.Kind != Delete {
				gotHead = append(gotHead, l.Text)
				if l.NewNo != len(gotHead) {
					t.Fatalf("case %d: %q has head number %d; want %d\n%s", i, l.Text, l.NewNo, len(gotHead), out)
				}
			}
		}
		if !slices.Equal(gotBase, base) || !slices.Equal(gotHead, head) {
			t.Fatalf("case %d: expanded base %q, head %q; want %q, %q\n%s", i, gotBase, gotHead, base, head, out)
		}
	}
}
