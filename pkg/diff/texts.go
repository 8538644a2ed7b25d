package diff

import (
	"fmt"
	"strings"
)

// textContext is how many unchanged lines FromTexts keeps around its hunk.
const textContext = 3

// FromTexts is the change from oldText to newText as one file with at most
// one hunk: the lines between the longest common prefix and the longest
// common suffix are deleted and added, with a few unchanged lines of
// context around them. It is not a minimal diff, but every changed line is
// in it, which is what a review needs of a file whose patch the source did
// not give (GitHub calls a source file with a NUL byte binary). A status
// of Added or Deleted takes the missing side as empty.
//
// Lines are split at "\n"; a text without a final newline is marked so,
// as git does.
func FromTexts(oldPath, newPath string, status Status, oldText, newText string) (*File, error) {
	switch status {
	case Added:
		oldText = ""
	case Deleted:
		newText = ""
	}
	olds, news := splitLines(oldText), splitLines(newText)
	pre := 0
	for pre < len(olds) && pre < len(news) && olds[pre] == news[pre] {
		pre++
	}
	suf := 0
	for suf < len(olds)-pre && suf < len(news)-pre && olds[len(olds)-1-suf] == news[len(news)-1-suf] {
		suf++
	}
	if pre == len(olds) && pre == len(news) {
		return &File{OldPath: oldPath, NewPath: newPath, Status: status}, nil // no change of text
	}
	from, oldEnd, newEnd := max(pre-textContext, 0), min(len(olds)-suf+textContext, len(olds)), min(len(news)-suf+textContext, len(news))
	var b strings.Builder
	fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(from, oldEnd-from), hunkRange(from, newEnd-from))
	for _, l := range olds[from:pre] {
		b.WriteString(" " + l + "\n")
	}
	for _, l := range olds[pre : len(olds)-suf] {
		b.WriteString("-" + l + "\n")
	}
	if !strings.HasSuffix(oldText, "\n") && oldText != "" && len(olds)-suf == len(olds) {
		b.WriteString("\\ No newline at end of file\n")
	}
	for _, l := range news[pre : len(news)-suf] {
		b.WriteString("+" + l + "\n")
	}
	if !strings.HasSuffix(newText, "\n") && newText != "" && len(news)-suf == len(news) {
		b.WriteString("\\ No newline at end of file\n")
	}
	for _, l := range news[len(news)-suf : newEnd] {
		b.WriteString(" " + l + "\n")
	}
	return ParsePatch(oldPath, newPath, status, b.String())
}

// splitLines splits text into lines without their "\n"; "" has none.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// hunkRange is one side of a hunk header for count lines after line
// from (0-based): "start,count", git's "start-1,0" for an empty side.
func hunkRange(from, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", from)
	}
	return fmt.Sprintf("%d,%d", from+1, count)
}
