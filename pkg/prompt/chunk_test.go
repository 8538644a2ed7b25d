package prompt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// gen builds a modified file with hunks of n added lines each, every line
// `width` bytes of text.
func gen(path string, width int, hunks ...int) *diff.File {
	f := &diff.File{OldPath: path, NewPath: path, Status: diff.Modified}
	start := 1
	for _, n := range hunks {
		h := diff.Hunk{OldStart: start, NewStart: start, NewLines: n}
		for i := range n {
			h.Lines = append(h.Lines, diff.Line{Kind: diff.Add, NewNo: start + i, Text: strings.Repeat("x", width)})
		}
		f.Hunks = append(f.Hunks, h)
		start += n + 100
	}
	return f
}

func shape(chunks [][]*diff.File) string {
	var parts []string
	for _, ch := range chunks {
		var names []string
		for _, f := range ch {
			names = append(names, fmt.Sprintf("%s/%d", f.Path(), len(f.Hunks)))
		}
		parts = append(parts, "["+strings.Join(names, " ")+"]")
	}
	return strings.Join(parts, " ")
}

// chunkPlain packs files by their plain rendered diff (diff.Render), without
// context: pack under the simplest cost, so these tests read the packer's
// rules (greedy order, hunk groups, too large) in plain sizes.
// budget <= 0 means no limit: one chunk with every file.
func chunkPlain(files []*diff.File, budget int) (chunks [][]*diff.File, left []scope.Excluded) {
	if len(files) == 0 {
		return nil, nil
	}
	if budget <= 0 {
		return [][]*diff.File{files}, nil
	}
	cost := func(f *diff.File, _ Level) int { return EstimateTokens(diff.Render([]*diff.File{f})) }
	parts, left := pack(files, budget, cost, []Level{LevelNone})
	for _, p := range parts {
		chunks = append(chunks, p.Files)
	}
	return chunks, left
}

// pieceTokens is what file f adds to a persona request at context level l,
// as Fit costs it.
func pieceTokens(c Context, f *diff.File, l Level) int {
	return tokensOf(plainBytes(c, f) + contextBytes(c, f, l))
}

func TestChunk(t *testing.T) {
	// Each 40-byte line renders as 42 bytes; a 10-line hunk is ~105 tokens
	// plus the header.
	small := func(p string) *diff.File { return gen(p, 40, 10) }
	tests := []struct {
		name   string
		files  []*diff.File
		budget int
		want   string
		left   []scope.Excluded
	}{
		{"no files", nil, 1000, "", nil},
		{"no limit", []*diff.File{small("a"), small("b")}, 0, "[a/1 b/1]", nil},
		{"all fit", []*diff.File{small("a"), small("b"), small("c")}, 1000, "[a/1 b/1 c/1]", nil},
		{"greedy in order", []*diff.File{small("a"), small("b"), small("c")}, 260, "[a/1 b/1] [c/1]", nil},
		{"one per chunk", []*diff.File{small("a"), small("b")}, 130, "[a/1] [b/1]", nil},
		{"big file split into hunks", []*diff.File{small("a"), gen("big", 40, 10, 10, 10, 10), small("z")}, 260, "[a/1] [big/2] [big/2] [z/1]", nil},
		{"hunk too large", []*diff.File{small("a"), gen("huge", 40, 10, 200), small("z")}, 260, "[a/1 z/1]", []scope.Excluded{{Path: "huge", Reason: TooLarge}}},
		{"binary file has no hunks", []*diff.File{{NewPath: "logo.png", OldPath: "logo.png", Status: diff.Modified, Binary: true}}, 260, "[logo.png/0]", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, left := chunkPlain(tt.files, tt.budget)
			if got := shape(chunks); got != tt.want {
				t.Errorf("chunks = %s; want %s", got, tt.want)
			}
			if fmt.Sprint(left) != fmt.Sprint(tt.left) {
				t.Errorf("left = %v; want %v", left, tt.left)
			}
			for i, ch := range chunks {
				if got := EstimateTokens(diff.Render(ch)); tt.budget > 0 && got > tt.budget {
					t.Errorf("chunk %d is %d tokens; want at most %d", i, got, tt.budget)
				}
			}
		})
	}
}

func TestChunkKeepsEveryHunkOnce(t *testing.T) {
	big := gen("big", 40, 10, 3, 25, 1, 10, 10)
	chunks, left := chunkPlain([]*diff.File{big}, 300)
	if len(left) != 0 {
		t.Fatalf("left = %v; want none", left)
	}
	var starts []int
	for _, ch := range chunks {
		for _, f := range ch {
			if f.Path() != "big" || f.Status != diff.Modified {
				t.Errorf("sub-file %q %s; want big modified", f.Path(), f.Status)
			}
			for _, h := range f.Hunks {
				starts = append(starts, h.NewStart)
			}
		}
	}
	var want []int
	for _, h := range big.Hunks {
		want = append(want, h.NewStart)
	}
	if fmt.Sprint(starts) != fmt.Sprint(want) {
		t.Errorf("hunks across chunks start at %v; want %v", starts, want)
	}
}
