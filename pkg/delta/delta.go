// Package delta maps line numbers of a file's older version through a diff
// (the changes since a reviewed commit) onto the newer version, and says
// whether the diff touched the region around each line. It is pure: it reads
// parsed diffs and does no I/O.
//
// An incremental re-review uses it to carry earlier findings: a finding
// whose region the new commits left alone keeps its place (its line shifted
// by the lines added or removed above it); one whose region they touched
// must be checked again against the new head.
package delta

import "github.com/anchor-review/anchor-review/pkg/diff"

// Radius is how many lines on each side of a finding's line count as its
// region: a change that near may have fixed or moved the problem. It is
// the same tolerance synthesis uses to call two findings one.
const Radius = 3

// Mapping is where an old line landed.
type Mapping struct {
	// Line is the line's number in the new version. For a deleted line it
	// is the nearest surviving line (the first line after the change, or
	// the file's last line); 0 when the file was deleted.
	Line int
	// Touched is true when the diff changed a line within Radius of the
	// old line, or when the diff gives no line detail (a binary change, a
	// patch GitHub left out): the finding must be checked again.
	Touched bool
	// Deleted is true when the old line itself was removed.
	Deleted bool
	// Gone is true when the file was deleted.
	Gone bool
}

// Map returns where line n (1-based) of f's old side is on its new side.
// f is one file of the diff from the reviewed commit to the new one; a file
// the diff does not list was not changed and keeps its lines (the caller
// does not call Map for it).
func Map(f *diff.File, n int) Mapping {
	switch {
	case f.Status == diff.Deleted:
		return Mapping{Touched: true, Deleted: true, Gone: true}
	case f.Binary || f.NoPatch:
		return Mapping{Line: n, Touched: true}
	}
	m := Mapping{Line: n}
	offset := 0 // new minus old line numbers after the hunks passed so far
	placed := false
	for _, h := range f.Hunks {
		if touches(h, n) {
			m.Touched = true
		}
		if placed {
			continue
		}
		// The hunk's old lines are [first, last]; git writes a pure
		// insertion after line k as "-k,0", an empty range after k.
		first, last := h.OldStart, h.OldStart+h.OldLines-1
		if h.OldLines == 0 {
			first, last = h.OldStart+1, h.OldStart
		}
		switch {
		case n < first:
			m.Line, placed = n+offset, true
		case n > last:
			offset += h.NewLines - h.OldLines
		default:
			m.Line, m.Deleted = inside(h, n, n+offset)
			placed = true
		}
	}
	if !placed {
		m.Line = n + offset
	}
	m.Line = max(m.Line, 1)
	return m
}

// inside finds old line n within hunk h: its new number when it survives;
// for a deleted line, the line that replaced it (the k-th deleted line of a
// block maps to the k-th added line right after the block), else the next
// new line, else the hunk's last new line. guess is used if the hunk does not hold line n (a
// hand-built hunk whose counts disagree with its lines).
func inside(h diff.Hunk, n, guess int) (line int, deleted bool) {
	for i, l := range h.Lines {
		if l.OldNo != n || l.Kind == diff.Add {
			continue
		}
		if l.Kind == diff.Context {
			return l.NewNo, false
		}
		// A block of lines replaced by another: the k-th deleted line
		// maps to the k-th line that replaced it, when there is one.
		start, end := i, i
		for start > 0 && h.Lines[start-1].Kind == diff.Delete {
			start--
		}
		for end < len(h.Lines) && h.Lines[end].Kind == diff.Delete {
			end++
		}
		if k := end + i - start; k < len(h.Lines) && h.Lines[k].Kind == diff.Add {
			added := true
			for _, a := range h.Lines[end : k+1] {
				added = added && a.Kind == diff.Add
			}
			if added {
				return h.Lines[k].NewNo, true
			}
		}
		for _, next := range h.Lines[end:] {
			if next.Kind == diff.Context {
				return next.NewNo, true
			}
		}
		// Nothing survives after it in the hunk: the hunk's last new line,
		// which exists, or the line the deletion follows.
		if h.NewLines > 0 {
			return h.NewStart + h.NewLines - 1, true
		}
		return h.NewStart, true
	}
	return guess, false
}

// touches reports whether hunk h changed a line within Radius of old line
// n: a deleted line in [n-Radius, n+Radius], or an insertion between two
// old lines of which one is in that window.
func touches(h diff.Hunk, n int) bool {
	lo, hi := n-Radius, n+Radius
	prevOld := h.OldStart - 1
	if h.OldLines == 0 {
		// git writes a pure insertion as "-k,0": the lines go after line k.
		prevOld = h.OldStart
	}
	for _, l := range h.Lines {
		switch l.Kind {
		case diff.Delete:
			if l.OldNo >= lo && l.OldNo <= hi {
				return true
			}
			prevOld = l.OldNo
		case diff.Add:
			// Between old lines prevOld and prevOld+1.
			if prevOld+1 >= lo && prevOld <= hi {
				return true
			}
		default:
			prevOld = l.OldNo
		}
	}
	return false
}
