package diff

import (
	"strconv"
	"strings"
)

// Render writes files as canonical git-style unified diff text: a
// "diff --git" header, the extended headers that apply (modes, similarity,
// rename/copy), "Binary files ... differ" for binary files, ---/+++ and
// the hunks. Paths are C-quoted where git would quote them. Parse of the
// result gives the same files. A NoPatch file renders as its header only.
func Render(files []*File) string { return render(files, false) }

// RenderNumbered is Render with the new-side line number in front of every
// hunk line, so a reader (a model) reads line numbers instead of counting
// them from the hunk header:
//
//	@@ -12,3 +12,3 @@ func f() {
//	12  	a := 1
//	   -	b := 2
//	13 +	b := 3
//
// The column is as wide as the file's largest new-side number; deleted
// lines (and "\ No newline at end of file") have a blank one. Headers are
// Render's. The result is for prompts: Parse does not read it back.
func RenderNumbered(files []*File) string { return render(files, true) }

// render sizes the buffer once, then writes every file.
func render(files []*File, numbered bool) string {
	perLine := 2
	if numbered {
		perLine = 10 // the number column
	}
	size := 0
	for _, f := range files {
		size += 128
		for i := range f.Hunks {
			size += 32
			for j := range f.Hunks[i].Lines {
				size += len(f.Hunks[i].Lines[j].Text) + perLine
			}
		}
	}
	var b strings.Builder
	b.Grow(size)
	for _, f := range files {
		renderFile(&b, f, numbered)
	}
	return b.String()
}

func renderFile(b *strings.Builder, f *File, numbered bool) {
	old, nw := f.OldPath, f.NewPath
	if old == "" {
		old = nw
	}
	if nw == "" {
		nw = old
	}
	// Unquoted names with spaces are split by git's same-name rule, which
	// needs equal names; quote different ones so Parse can split them.
	differ := old != nw
	b.WriteString("diff --git ")
	b.WriteString(prefixed("a/", old, differ && strings.Contains(old, " ")))
	b.WriteByte(' ')
	b.WriteString(prefixed("b/", nw, differ && strings.Contains(nw, " ")))
	b.WriteByte('\n')

	switch f.Status {
	case Added:
		if f.NewMode != "" {
			line(b, "new file mode ", f.NewMode)
		}
	case Deleted:
		if f.OldMode != "" {
			line(b, "deleted file mode ", f.OldMode)
		}
	default:
		if f.OldMode != "" {
			line(b, "old mode ", f.OldMode)
		}
		if f.NewMode != "" {
			line(b, "new mode ", f.NewMode)
		}
	}
	if f.Status == Renamed || f.Status == Copied {
		if f.Similarity > 0 {
			line(b, "similarity index ", strconv.Itoa(f.Similarity)+"%")
		}
		verb := "rename "
		if f.Status == Copied {
			verb = "copy "
		}
		line(b, verb+"from ", bare(old))
		line(b, verb+"to ", bare(nw))
	}

	oldName, newName := prefixed("a/", old, false), prefixed("b/", nw, false)
	if f.Status == Added {
		oldName = devNull
	}
	if f.Status == Deleted {
		newName = devNull
	}
	if f.Binary {
		b.WriteString("Binary files ")
		b.WriteString(oldName)
		b.WriteString(" and ")
		b.WriteString(newName)
		b.WriteString(" differ\n")
		return
	}
	if len(f.Hunks) == 0 {
		return
	}
	line(b, "--- ", dashSuffix(oldName))
	line(b, "+++ ", dashSuffix(newName))
	width := 0
	if numbered {
		last := f.Hunks[len(f.Hunks)-1]
		width = len(strconv.Itoa(max(last.NewStart+last.NewLines, 1)))
	}
	for i := range f.Hunks {
		renderHunk(b, &f.Hunks[i], width)
	}
}

// renderHunk writes one hunk; width > 0 adds the new-side number column.
func renderHunk(b *strings.Builder, h *Hunk, width int) {
	b.WriteString("@@ -")
	writeRange(b, h.OldStart, h.OldLines)
	b.WriteString(" +")
	writeRange(b, h.NewStart, h.NewLines)
	b.WriteString(" @@")
	if h.Section != "" {
		b.WriteByte(' ')
		b.WriteString(h.Section)
	}
	b.WriteByte('\n')
	for _, l := range h.Lines {
		if width > 0 {
			writeNumber(b, l.NewNo, width)
		}
		b.WriteByte(byte(l.Kind))
		b.WriteString(l.Text)
		b.WriteByte('\n')
		if l.NoNewline {
			if width > 0 {
				writeNumber(b, 0, width)
			}
			b.WriteString("\\ No newline at end of file\n")
		}
	}
}

// writeNumber writes n right-aligned in width columns and a space; n == 0
// (a deleted line) writes blanks.
func writeNumber(b *strings.Builder, n, width int) {
	var buf [24]byte
	num := buf[:0]
	if n > 0 {
		num = strconv.AppendInt(num, int64(n), 10)
	}
	for i := len(num); i < width; i++ {
		b.WriteByte(' ')
	}
	b.Write(num)
	b.WriteByte(' ')
}

// writeRange writes "start,count", leaving out a count of 1 as git does.
func writeRange(b *strings.Builder, start, count int) {
	var buf [24]byte
	num := strconv.AppendInt(buf[:0], int64(start), 10)
	if count != 1 {
		num = append(num, ',')
		num = strconv.AppendInt(num, int64(count), 10)
	}
	b.Write(num)
}

func line(b *strings.Builder, key, val string) {
	b.WriteString(key)
	b.WriteString(val)
	b.WriteByte('\n')
}

// prefixed is prefix+path, C-quoted when git would quote it (or force).
func prefixed(prefix, path string, force bool) string {
	if force || needsQuote(path) {
		return quote(prefix + path)
	}
	return prefix + path
}

func bare(path string) string {
	if needsQuote(path) {
		return quote(path)
	}
	return path
}

// dashSuffix adds the tab git writes after ---/+++ names holding spaces,
// which marks where the name ends.
func dashSuffix(name string) string {
	if strings.Contains(name, " ") && !strings.HasPrefix(name, `"`) {
		return name + "\t"
	}
	return name
}
