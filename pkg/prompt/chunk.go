package prompt

import (
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/scope"
	"github.com/anchor-review/anchor-review/prompts"
)

// TooLarge is the reason Chunk and Fit give for a file they cannot fit in
// one call.
const TooLarge = "too large for one model call"

// Part is one model call's share of the diff: its files (whole, or groups
// of whole hunks of one file) and how much context each gets (parallel).
type Part struct {
	Files  []*diff.File
	Levels []Level
}

// Fit splits c.Files into parts whose diff and context sections fit budget
// tokens (what max-input-tokens leaves after the fixed parts, see
// FixedTokens), for one persona call each. Files are packed greedily in
// order. Each file gets the most context that still lets it fit a call on
// its own (LevelWhole, else LevelBlocks, else none); a file that does not
// fit even without context is split into groups of whole hunks (each with
// its blocks when they fit); a file with a hunk that does not fit alone is
// returned in left with reason TooLarge. budget <= 0 leaves every file in
// left: not even one file fits.
func Fit(c Context, budget int) (parts []Part, left []scope.Excluded) {
	// pack costs a file at up to three levels, one after the other: its
	// diff and test-file line are rendered once, its context once per level
	// it shows (a head too large to show whole shows its blocks at
	// LevelWhole and LevelBlocks alike).
	type key struct {
		f *diff.File
		l Level
	}
	shownAt := map[key]int{}
	var last *diff.File
	plain := 0
	cost := func(f *diff.File, l Level) int {
		if f != last {
			last, plain = f, plainBytes(c, f)
		}
		k := key{f, shown(c.Heads[f.Path()].Content, l)}
		n, ok := shownAt[k]
		if !ok {
			n = contextBytes(c, f, k.l)
			shownAt[k] = n
		}
		return tokensOf(plain + n)
	}
	return pack(c.Files, budget, cost, []Level{LevelWhole, LevelBlocks, LevelNone})
}

// pack is the greedy packer behind Fit; levels are tried in order for
// each file.
func pack(files []*diff.File, budget int, cost func(*diff.File, Level) int, levels []Level) (parts []Part, left []scope.Excluded) {
	if len(files) == 0 {
		return nil, nil
	}
	if budget <= 0 {
		for _, f := range files {
			left = append(left, scope.Excluded{Path: f.Path(), Reason: TooLarge})
		}
		return nil, left
	}
	var cur Part
	used := 0
	add := func(f *diff.File, l Level, c int) {
		if len(cur.Files) > 0 && used+c > budget {
			parts = append(parts, cur)
			cur, used = Part{}, 0
		}
		cur.Files = append(cur.Files, f)
		cur.Levels = append(cur.Levels, l)
		used += c
	}
	for _, f := range files {
		placed := false
		for _, l := range levels {
			if c := cost(f, l); c <= budget {
				add(f, l, c)
				placed = true
				break
			}
		}
		if placed {
			continue
		}
		subs, ok := splitHunks(f, budget, cost, levels[len(levels)-1])
		if !ok {
			left = append(left, scope.Excluded{Path: f.Path(), Reason: TooLarge})
			continue
		}
		for _, s := range subs {
			l, c := levels[len(levels)-1], cost(s, levels[len(levels)-1])
			// A group of hunks takes its blocks when they still fit.
			if len(levels) > 1 {
				if cb := cost(s, LevelBlocks); cb <= budget {
					l, c = LevelBlocks, cb
				}
			}
			add(s, l, c)
		}
	}
	if len(cur.Files) > 0 {
		parts = append(parts, cur)
	}
	return parts, left
}

// splitHunks packs f's hunks greedily into sub-files that each fit budget
// at level l; ok is false when a single hunk does not fit. A group's size
// is taken as the sum of its hunks costed alone, which counts the file
// header once per hunk: a slight over-estimate that keeps the split linear
// in the hunks.
func splitHunks(f *diff.File, budget int, cost func(*diff.File, Level) int, l Level) (parts []*diff.File, ok bool) {
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
		n := cost(sub(f.Hunks[i:i+1]), l)
		if n > budget {
			return nil, false
		}
		if i > start && size+n > budget {
			parts = append(parts, sub(f.Hunks[start:i]))
			start, size = i, 0
		}
		size += n
	}
	return append(parts, sub(f.Hunks[start:])), true
}

// plainBytes is the size of f's numbered diff and its line in the
// test-file list: its piece without context.
func plainBytes(c Context, f *diff.File) int {
	n := len(diff.RenderNumbered([]*diff.File{f}))
	if c.Tests != nil {
		n += len(testsLine(c.Tests, f.Path())) + 1
	}
	return n
}

// contextBytes is the size of f's context at level l.
func contextBytes(c Context, f *diff.File, l Level) int {
	var b strings.Builder
	writeFileContext(&b, c, f, l, c.Fence)
	return b.Len()
}

// FixedTokens estimates the tokens of a persona request of c that do not
// depend on its files: the system message, the PR's intent, standards and
// earlier comments, the section texts, the longest persona turn of team
// (with validator, the room a validator request needs beyond a persona
// request's system and PR messages when that is larger: a validator request
// of a part whose persona request fits then fits too, its shorter system
// message included), and the findings schema sent as the response format.
func FixedTokens(c Context, team []persona.Persona, validator bool) int {
	c.Files, c.Levels = nil, nil
	longest := 0
	if validator {
		longest = validatorReserve()
	}
	for _, p := range team {
		longest = max(longest, len(personaTurn(p, fenceOf(c, ""))))
	}
	return EstimateTokens(reviewerSystem(c.Suggestions)) + EstimateTokens(pullRequestData(c, fenceOf(c, ""))) +
		tokensOf(longest) + EstimateTokens(string(prompts.FindingsSchema()))
}

// validatorReserve is the size in bytes a validator request needs beyond a
// persona request's system message and PR message: what its system message
// holds beyond a persona's (nothing, today: it is the shorter), its answer
// turn, a few headers, the base region (up to 2·baseWindow+1 lines) and the
// finding, at up to 100 bytes a line.
func validatorReserve() int {
	return max(len(validatorSystem())-len(reviewerSystem(false)), 0) + len(validatorTurn) + 1200 + (2*baseWindow+1)*100
}

// tokensOf is EstimateTokens for a length in bytes.
func tokensOf(n int) int { return (n + 3) / 4 }
