package review

import (
	"strings"
	"unicode"
)

// MaxNotes caps the testing gaps and the residual risks a review keeps,
// each: a model that repeats one note fifty times, or writes hundreds,
// cannot fill the report's Coverage section.
const MaxNotes = 20

// collectNotes merges the personas' free-text notes (testing gaps or
// residual risks) in order, keeping the first spelling of each note and
// dropping the repeats (compared after normalizeNote) and everything past
// MaxNotes. It returns the kept notes and how many it dropped.
func collectNotes(lists ...[]string) (kept []string, dropped int) {
	seen := map[string]bool{}
	for _, list := range lists {
		for _, n := range list {
			key := normalizeNote(n)
			if key == "" {
				continue
			}
			if seen[key] || len(kept) == MaxNotes {
				dropped++
				continue
			}
			seen[key] = true
			kept = append(kept, strings.TrimSpace(n))
		}
	}
	return kept, dropped
}

// normalizeNote is the comparison key of a note: case folded, runs of
// white space made one space, and trailing punctuation ignored, so "No
// test for X." and "no test  for x" are one note.
func normalizeNote(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}
