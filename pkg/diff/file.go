package diff

import "sort"

// Path is the file's path in the new version, or its old path when the
// file was deleted.
func (f *File) Path() string {
	if f.NewPath == "" {
		return f.OldPath
	}
	return f.NewPath
}

// Added counts the file's added lines.
func (f *File) Added() int { return f.count(Add) }

// Deleted counts the file's deleted lines.
func (f *File) Deleted() int { return f.count(Delete) }

func (f *File) count(k LineKind) int {
	n := 0
	for i := range f.Hunks {
		for j := range f.Hunks[i].Lines {
			if f.Hunks[i].Lines[j].Kind == k {
				n++
			}
		}
	}
	return n
}

// LastNewLine is the highest new-side line number the hunks cover, 0 when
// they cover none (a deleted file, a binary file, a pure rename).
func (f *File) LastNewLine() int {
	last := 0
	for i := range f.Hunks {
		h := &f.Hunks[i]
		if h.NewLines > 0 && h.NewStart+h.NewLines-1 > last {
			last = h.NewStart + h.NewLines - 1
		}
	}
	return last
}

// NewLine reports whether line n of the file's new version is inside a
// hunk, and returns that line (an added or a context line).
//
// Files from Parse and ParsePatch answer from an index built at parse
// time in O(log hunks); files built by hand are searched, which is still
// cheap but proportional to the deleted lines in the hunk. NewLine does
// not modify the file, so it is safe for concurrent use.
func (f *File) NewLine(n int) (Line, bool) {
	if n < 1 {
		return Line{}, false
	}
	// Hunks are ordered and do not overlap (Parse checks), so their new-side
	// ends are non-decreasing: the first hunk ending after n is the only
	// one that can hold it.
	k := sort.Search(len(f.Hunks), func(i int) bool {
		return f.Hunks[i].NewStart+f.Hunks[i].NewLines > n
	})
	if k == len(f.Hunks) {
		return Line{}, false
	}
	h := &f.Hunks[k]
	if h.NewLines == 0 || n < h.NewStart {
		return Line{}, false
	}
	off := n - h.NewStart
	if len(f.idxOff) == len(f.Hunks) {
		if i := int(f.idxOff[k]) + off; i >= 0 && i < len(f.idx) {
			if p := int(f.idx[i]); p < len(h.Lines) && h.Lines[p].Kind != Delete && h.Lines[p].NewNo == n {
				return h.Lines[p], true
			}
		}
	}
	// No usable index: new line n sits at least off lines into the hunk,
	// pushed further by deleted lines; jump by the remaining distance.
	for i := off; i >= 0 && i < len(h.Lines); {
		l := h.Lines[i]
		switch {
		case l.Kind == Delete:
			i++
		case l.NewNo == n:
			return l, true
		case l.NewNo > n || l.NewNo < 1:
			return Line{}, false
		default:
			i += n - l.NewNo
		}
	}
	return Line{}, false
}

// index builds the new-line index of a parsed file.
func (f *File) index() {
	total := 0
	for i := range f.Hunks {
		total += f.Hunks[i].NewLines
	}
	f.idx = make([]int32, 0, total)
	f.idxOff = make([]int32, len(f.Hunks))
	for k := range f.Hunks {
		f.idxOff[k] = int32(len(f.idx))
		for p, l := range f.Hunks[k].Lines {
			if l.Kind != Delete {
				f.idx = append(f.idx, int32(p))
			}
		}
	}
}
