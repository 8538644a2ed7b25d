package diff

import (
	"errors"
	"strings"
)

// unquote decodes a git C-quoted path at the start of s (which begins with
// a double quote) and returns it with the number of bytes consumed. Git
// quotes paths holding control characters, quotes, backslashes or (with
// core.quotePath, the default) bytes above 0x7f, which it writes as octal.
func unquote(s string) (string, int, error) {
	if s == "" || s[0] != '"' {
		return "", 0, errors.New("quoted name must start with a double quote")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			i++
			if i >= len(s) {
				return "", 0, errors.New("unterminated escape in quoted name")
			}
			switch e := s[i]; e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'v':
				b.WriteByte('\v')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case '"', '\\':
				b.WriteByte(e)
			case '0', '1', '2', '3':
				if i+2 >= len(s) || !isOctal(s[i+1]) || !isOctal(s[i+2]) {
					return "", 0, errors.New("bad octal escape in quoted name")
				}
				b.WriteByte((e-'0')<<6 | (s[i+1]-'0')<<3 | (s[i+2] - '0'))
				i += 2
			default:
				return "", 0, errors.New("unknown escape \\" + string(rune(e)) + " in quoted name")
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errors.New("unterminated quoted name")
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// needsQuote reports whether git would quote the path.
func needsQuote(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return true
		}
	}
	return false
}

// quote writes s in git's C-quoted form.
func quote(s string) string {
	const hex = "01234567"
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			if c < 0x20 || c >= 0x7f {
				b.WriteByte('\\')
				b.WriteByte(hex[c>>6])
				b.WriteByte(hex[c>>3&7])
				b.WriteByte(hex[c&7])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Unquote decodes a path written in git's C-quoted form ("\303\251.go",
// with or without its double quotes). ok is false when s is not one.
func Unquote(s string) (path string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		if !strings.Contains(s, `\`) {
			return "", false
		}
		s = `"` + s + `"`
	}
	p, n, err := unquote(s)
	if err != nil || n != len(s) {
		return "", false
	}
	return p, true
}
