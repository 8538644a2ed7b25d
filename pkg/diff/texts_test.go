package diff

import (
	"strings"
	"testing"
)

// TestFromTexts: every line of the new text that changed is an added line
// at its own number, every removed line a deleted one, and the rest is
// context or outside the hunk.
func TestFromTexts(t *testing.T) {
	tests := []struct {
		name, old, new string
		status         Status
		added, deleted int
	}{
		{"nul byte in a comment", "const a = 1;\n// note\nmodule.exports = a;\n", "const a = 1;\n// note\x00\nrequire('child_process').execSync(process.env.INPUT_CMD);\nmodule.exports = a;\n", Modified, 2, 1},
		{"added file", "", "a\nb\n", Added, 2, 0},
		{"deleted file", "a\nb\n", "", Deleted, 0, 2},
		{"change at the start", "a\nb\nc\n", "x\nb\nc\n", Modified, 1, 1},
		{"change at the end, no final newline", "a\nb\nc", "a\nb\nd", Modified, 1, 1},
		{"pure insertion", "a\nc\n", "a\nb\nc\n", Modified, 1, 0},
		{"pure deletion", "a\nb\nc\n", "a\nc\n", Modified, 0, 1},
		{"repeated lines", "a\na\na\n", "a\na\na\na\n", Modified, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := FromTexts("x.js", "x.js", tt.status, tt.old, tt.new)
			if err != nil {
				t.Fatalf("FromTexts: %v", err)
			}
			if f.Added() != tt.added || f.Deleted() != tt.deleted {
				t.Errorf("got +%d -%d; want +%d -%d\n%s", f.Added(), f.Deleted(), tt.added, tt.deleted, Render([]*File{f}))
			}
			checkNewSide(t, f, tt.new)
		})
	}
	f, err := FromTexts("x.js", "x.js", Modified, "same\n", "same\n")
	if err != nil || len(f.Hunks) != 0 {
		t.Errorf("unchanged text: got %d hunks, %v; want none", len(f.Hunks), err)
	}
}

// checkNewSide checks that every new-side line the file shows is the new
// text's line of that number.
func checkNewSide(t *testing.T, f *File, text string) {
	t.Helper()
	lines := splitLines(text)
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Kind == Delete {
				continue
			}
			if l.NewNo < 1 || l.NewNo > len(lines) || lines[l.NewNo-1] != l.Text {
				t.Fatalf("new line %d is %q; the text has %d lines", l.NewNo, l.Text, len(lines))
			}
		}
	}
}

// FuzzFromTexts: any two texts give a file whose new side is the new text.
func FuzzFromTexts(f *testing.F) {
	f.Add("a\nb\n", "a\nc\n")
	f.Add("", "x\x00y\n")
	f.Add("a\r\nb", "a\r\nb\r\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		if strings.ContainsRune(old+new, '\r') {
			return // the parser trims carriage returns, as git's readers do
		}
		file, err := FromTexts("f", "f", Modified, old, new)
		if err != nil {
			t.Fatalf("FromTexts(%q, %q): %v", old, new, err)
		}
		checkNewSide(t, file, new)
		if added := file.Added(); added > len(splitLines(new)) {
			t.Fatalf("%d added lines of a %d-line text", added, len(splitLines(new)))
		}
	})
}
