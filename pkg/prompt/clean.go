package prompt

import "strings"

// Clean removes hidden channels from untrusted text: HTML comments
// ("<!-- ... -->", and an unterminated "<!--" up to the end), zero-width
// characters (U+200B..U+200D, U+2060, U+FEFF) and bidirectional controls
// (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C). Invisible
// characters go first so they cannot hide a comment opener.
func Clean(s string) string {
	if strings.IndexFunc(s, hidden) >= 0 {
		s = strings.Map(func(r rune) rune {
			if hidden(r) {
				return -1
			}
			return r
		}, s)
	}
	// Removing a comment can join "<!" and "--" into a new opener; repeat
	// until none is left (each pass removes at least four bytes).
	for strings.Contains(s, "<!--") {
		s = stripComments(s)
	}
	return s
}

func stripComments(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := strings.Index(s[i+4:], "-->")
		if j < 0 {
			return b.String()
		}
		s = s[i+4+j+3:]
	}
}

// hidden reports whether r is a zero-width or bidi control character.
func hidden(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F: // zero-width space, non-joiner, joiner; LRM, RLM
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2060, r == 0xFEFF, r == 0x061C:
		return true
	}
	return false
}
