package prompt

import (
	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// TooLarge is the reason Chunk gives for a file it cannot fit in one call.
const TooLarge = "too large for one model call"

// Chunk splits files into chunks whose rendered diff fits budget tokens
// (EstimateTokens of diff.Render), for one model call each. It packs whole
// files greedily in order, starting a new chunk when the next file does not
// fit. A file over the budget on its own is split into sub-files of whole
// hunks (same paths and status, packed greedily) when every hunk fits;
// otherwise it is returned in left with reason TooLarge. budget <= 0 means
// no limit: one chunk with every file. No files, no chunks.
func Chunk(files []*diff.File, budget int) (chunks [][]*diff.File, left []scope.Excluded) {
	if len(files) == 0 {
		return nil, nil
	}
	if budget <= 0 {
		return [][]*diff.File{files}, nil
	}
	var cur []*diff.File
	used := 0
	add := func(f *diff.File, cost int) {
		if len(cur) > 0 && used+cost > budget {
			chunks = append(chunks, cur)
			cur, used = nil, 0
		}
		cur = append(cur, f)
		used += cost
	}
	for _, f := range files {
		if c := fileCost(f); c <= budget {
			add(f, c)
			continue
		}
		parts, ok := splitHunks(f, budget)
		if !ok {
			left = append(left, scope.Excluded{Path: f.Path(), Reason: TooLarge})
			continue
		}
		for _, p := range parts {
			add(p, fileCost(p))
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks, left
}

func fileCost(f *diff.File) int { return EstimateTokens(diff.Render([]*diff.File{f})) }

// splitHunks packs f's hunks greedily into sub-files that each fit budget;
// ok is false when a single hunk does not fit. A group's size is taken as
// the sum of its hunks rendered alone, which counts the file header once per
// hunk: a slight over-estimate that keeps the split linear in the hunks.
func splitHunks(f *diff.File, budget int) (parts []*diff.File, ok bool) {
	if len(f.Hunks) == 0 {
		return nil, false
	}
	sub := func(hunks []diff.Hunk) *diff.File {
		return &diff.File{
			OldPath: f.OldPath, NewPath: f.NewPath, Status: f.Status,
			OldMode: f.OldMode, NewMode: f.NewMode, Similarity: f.Similarity,
			Hunks: hunks,
		}
	}
	start, size := 0, 0
	for i := range f.Hunks {
		n := len(diff.Render([]*diff.File{sub(f.Hunks[i : i+1])}))
		if tokensOf(n) > budget {
			return nil, false
		}
		if i > start && tokensOf(size+n) > budget {
			parts = append(parts, sub(f.Hunks[start:i]))
			start, size = i, 0
		}
		size += n
	}
	return append(parts, sub(f.Hunks[start:])), true
}

// tokensOf is EstimateTokens for a length in bytes.
func tokensOf(n int) int { return (n + 3) / 4 }
