package prompt

import (
	"fmt"
	"strings"
)

// Clean removes hidden channels from untrusted text: HTML comments
// ("<!-- ... -->"), zero-width characters (U+200B..U+200D, U+2060, U+FEFF),
// bidirectional controls (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F,
// U+061C) and Unicode tag characters (U+E0000..U+E007F). Invisible
// characters go first so they cannot hide a comment opener.
//
// Clean is for prose that GitHub renders as Markdown (title, body,
// comments, standards files): an unterminated "<!--" hides everything
// after it from a human reader, so it is removed up to the end.
func Clean(s string) string { return clean(s) }

// CleanCode neutralises hidden channels in code (the diff, file contents)
// WITHOUT hiding code: every hidden character is made visible as an escape
// such as <U+200B>, so a reviewer sees that it is there, and nothing else
// changes. HTML comment markers are code here ("<!--" is a line comment in
// JavaScript, a string in many languages): removing text between them
// could hide changed lines, hunk and file headers from the reviewers, so
// CleanCode never removes anything, and every line keeps its number.
//
// Control characters (a NUL byte: <U+0000>) and characters that break a
// line for some readers but not for the line numbering (U+2028, U+2029,
// NEL, vertical tab, form feed) are escaped too:
// in a numbered listing they could make one line of code look like two,
// the second a forged diff line such as an unnumbered deleted one.
func CleanCode(s string) string {
	if strings.IndexFunc(s, escapedInCode) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		if escapedInCode(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// escapedInCode reports whether CleanCode shows r as an escape: a hidden
// character, or one that breaks a line without being a newline.
func escapedInCode(r rune) bool {
	switch {
	case r == '\u2028', r == '\u2029', r == '\u0085', r == '\v', r == '\f':
		return true
	case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7f:
		// A NUL or other control byte (a source file git calls binary for
		// it): shown, since a model may read it as nothing at all.
		return true
	}
	return Hidden(r)
}

// clean is Clean: prose only (GitHub renders it, so hidden text there is
// hidden from people and shown to the model).
func clean(s string) string {
	if strings.IndexFunc(s, Hidden) >= 0 {
		s = strings.Map(func(r rune) rune {
			if Hidden(r) {
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

// Hidden reports whether r hides text from a reader: soft hyphen,
// combining grapheme joiner, Mongolian vowel separator, zero-width
// characters, bidi controls (U+200E/F, U+202A–E, U+2066–9, U+061C),
// invisible operators and deprecated format characters (U+2060–U+206F), the
// BOM, and Unicode tag characters (an invisible alphabet). The prompt
// builder and the report sanitizer strip the same set.
func Hidden(r rune) bool {
	switch {
	case r == '\u00ad', r == '\u034f', r == '\u061c', r == '\u180e', r == '\ufeff':
		return true
	case r >= '\u200b' && r <= '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u2060' && r <= '\u206f':
		return true
	case r >= '\U000e0000' && r <= '\U000e007f':
		return true
	}
	return false
}
