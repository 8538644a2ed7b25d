// Package diff parses unified diffs (the pull-request diff media type, `git
// diff` output, and the per-file `patch` of GitHub's files endpoint) into
// files, hunks and line maps. It is a leaf package: it imports nothing from
// this module.
//
// Parse reads a whole diff, ParsePatch one file's hunks, and Render writes
// files back as canonical git-style text, so that Parse(Render(files))
// gives the same files again. Malformed input is reported as a
// *SyntaxError naming the line and file; the parser never panics.
package diff

// Status says how a file changed.
type Status string

// File statuses.
const (
	Added    Status = "added"
	Deleted  Status = "deleted"
	Modified Status = "modified"
	Renamed  Status = "renamed"
	Copied   Status = "copied"
)

// LineKind says which side(s) of the diff a line belongs to.
type LineKind byte

// Line kinds.
const (
	Context LineKind = ' '
	Add     LineKind = '+'
	Delete  LineKind = '-'
)

// Diff is a parsed multi-file diff, files in the order they appeared.
type Diff struct {
	Files []*File
}

// File is one file's change.
type File struct {
	OldPath string // "" for an added file
	NewPath string // "" for a deleted file
	Status  Status
	Binary  bool // "Binary files ... differ" or GIT binary patch
	// NoPatch is true when the source gave no patch text for a text file
	// (the files endpoint omits `patch` for huge files).
	NoPatch bool
	// OldMode and NewMode are git file modes such as "100644", set from
	// the "old mode"/"new mode", "new file mode" and "deleted file mode"
	// headers; "" when the diff does not say.
	OldMode, NewMode string
	// Similarity is the "similarity index" percentage of a rename or
	// copy, 0 when absent.
	Similarity int
	Hunks      []Hunk

	// idx maps new-side line numbers to positions in Hunks[k].Lines:
	// idx[idxOff[k]+n-NewStart] for hunk k. Built by Parse and ParsePatch;
	// files built by hand fall back to a scan (see NewLine).
	idx    []int32
	idxOff []int32
}

// Hunk is one @@ section.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Section            string // text after the closing @@, if any
	Lines              []Line
}

// Line is one line of a hunk. OldNo is 0 for added lines, NewNo is 0 for
// deleted lines. Text has no leading marker and no trailing newline/CR.
type Line struct {
	Kind         LineKind
	Text         string
	OldNo, NewNo int
	// NoNewline is true when "\ No newline at end of file" followed this line.
	NoNewline bool
}
