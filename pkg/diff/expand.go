package diff

import (
	"errors"
	"fmt"
)

// ErrHeadMismatch is returned by Expand when a hunk's context or added
// lines are not the head file's lines at the same place.
var ErrHeadMismatch = errors.New("the head version does not match the diff")

// Expand returns a copy of f whose hunks are joined into one hunk that
// spans the whole file: every head line outside the hunks becomes a
// context line, numbered on both sides. Rendered, it is the whole new
// version with each change in place, deleted lines included (git diff with
// unlimited context). head is f's new version, one string a line, without
// newlines. It fails with ErrHeadMismatch when the hunks do not fit head.
// f must hold every hunk of the file: without one that leaves the line
// count unchanged, the hunks still fit, and its lines would show as
// unchanged.
func Expand(f *File, head []string) (*File, error) {
	out := *f
	lines := make([]Line, 0, len(head)+f.Deleted())
	cur, old := 1, 1 // next head line, next base line
	unchanged := func(until int) {
		for ; cur <= until; cur, old = cur+1, old+1 {
			lines = append(lines, Line{Kind: Context, Text: head[cur-1], OldNo: old, NewNo: cur})
		}
	}
	for i := range f.Hunks {
		h := &f.Hunks[i]
		until := h.NewStart - 1 // the last head line before the hunk
		if h.NewLines == 0 {
			until = h.NewStart // an empty new side names the line before it
		}
		if until > len(head) || until < cur-1 {
			return nil, fmt.Errorf("%w: hunk %d of %s starts at line %d", ErrHeadMismatch, i+1, f.Path(), h.NewStart)
		}
		unchanged(until)
		want := h.OldStart
		if h.OldLines == 0 {
			want++ // an empty old side names the line before it
		}
		if old != want {
			return nil, fmt.Errorf("%w: hunk %d of %s starts at base line %d, not %d", ErrHeadMismatch, i+1, f.Path(), want, old)
		}
		for _, l := range h.Lines {
			switch l.Kind {
			case Delete:
				l.OldNo, l.NewNo = old, 0
				old++
			default:
				if cur > len(head) || head[cur-1] != l.Text {
					return nil, fmt.Errorf("%w: %s line %d", ErrHeadMismatch, f.Path(), cur)
				}
				l.NewNo = cur
				cur++
				if l.Kind == Context {
					l.OldNo = old
					old++
				}
			}
			lines = append(lines, l)
		}
	}
	if f.Status == Added && cur-1 != len(head) {
		return nil, fmt.Errorf("%w: %s is new with %d lines, the head has %d", ErrHeadMismatch, f.Path(), cur-1, len(head))
	}
	unchanged(len(head))
	h := Hunk{OldStart: 1, OldLines: old - 1, NewStart: 1, NewLines: cur - 1, Lines: lines}
	if h.OldLines == 0 {
		h.OldStart = 0
	}
	if h.NewLines == 0 {
		h.NewStart = 0
	}
	out.Hunks = []Hunk{h}
	out.index()
	return &out, nil
}
