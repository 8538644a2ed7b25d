package scope

import (
	"fmt"
	"regexp"
	"strings"
)

// Error is the type of the package's sentinel errors.
type Error string

func (e Error) Error() string { return string(e) }

// ErrBadPattern is wrapped by the error Apply returns for a malformed
// exclude glob.
const ErrBadPattern = Error("bad exclude pattern")

// glob is a compiled exclude pattern.
type glob struct {
	pattern string
	re      *regexp.Regexp
}

// CheckPatterns reports the first malformed pattern of exclude, with the
// same rules Apply uses, so configuration can be refused before any work.
func CheckPatterns(exclude []string) error {
	for _, p := range exclude {
		if p = strings.TrimSpace(p); p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		if _, err := compileGlob(p); err != nil {
			return err
		}
	}
	return nil
}

// compileGlob turns an exclude glob into a regular expression.
//
// Syntax, after .gitignore: `*` matches within one path segment, `?` one
// character, `[abc]`/`[!a-z]` a class, `**` any number of segments, `\`
// escapes. A pattern without a slash matches a file or directory name at
// any depth (`*.md`, `vendor`); a pattern with one is anchored at the
// repository root (`docs/**`, `/build`). A pattern that names a directory
// also matches everything under it, and a trailing slash is allowed.
func compileGlob(pattern string) (glob, error) {
	bad := func(why string) (glob, error) {
		return glob{}, fmt.Errorf("%w %q: %s", ErrBadPattern, pattern, why)
	}
	p := strings.TrimSuffix(strings.TrimPrefix(pattern, "/"), "/")
	switch {
	case p == "":
		return bad("empty pattern")
	case strings.HasPrefix(pattern, "!"):
		return bad("negation (!) is not supported")
	}
	var re strings.Builder
	if strings.Contains(strings.TrimSuffix(pattern, "/"), "/") {
		re.WriteString(`^`)
	} else {
		re.WriteString(`^(?:.*/)?`)
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				atStart := i == 0 || p[i-1] == '/'
				j := i + 2
				switch {
				case atStart && j == len(p): // "**" as the last segment
					re.WriteString(`.*`)
				case atStart && p[j] == '/': // "**/": zero or more segments
					re.WriteString(`(?:.*/)?`)
					j++
				default: // "a**b": any characters, slashes included
					re.WriteString(`.*`)
				}
				i = j - 1
				continue
			}
			re.WriteString(`[^/]*`)
		case '?':
			re.WriteString(`[^/]`)
		case '\\':
			if i+1 == len(p) {
				return bad("trailing backslash")
			}
			i++
			re.WriteString(regexp.QuoteMeta(p[i : i+1]))
		case '[':
			end, class, err := globClass(p, i)
			if err != nil {
				return bad(err.Error())
			}
			re.WriteString(class)
			i = end
		default:
			re.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	re.WriteString(`(?:/.*)?$`)
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return bad(err.Error())
	}
	return glob{pattern: pattern, re: compiled}, nil
}

// globClass converts the bracket expression starting at p[i] and returns
// the index of its closing bracket.
func globClass(p string, i int) (int, string, error) {
	var b strings.Builder
	b.WriteString("[")
	j := i + 1
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		b.WriteString("^/")
		j++
	}
	start := j
	for ; j < len(p); j++ {
		c := p[j]
		switch {
		case c == ']' && j > start:
			b.WriteString("]")
			return j, b.String(), nil
		case c == '\\':
			if j+1 == len(p) {
				return 0, "", fmt.Errorf("trailing backslash")
			}
			j++
			b.WriteString(regexp.QuoteMeta(p[j : j+1]))
		case c == '/':
			return 0, "", fmt.Errorf("slash inside a character class")
		case c == '-' && j > start && j+1 < len(p) && p[j+1] != ']':
			if p[j+1] < p[j-1] {
				return 0, "", fmt.Errorf("character range %q out of order", p[j-1:j+2])
			}
			b.WriteByte('-')
		case c == '[' || c == ']' || c == '^' || c == '-':
			b.WriteString(`\`)
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return 0, "", fmt.Errorf("unterminated character class")
}

func (g glob) match(path string) bool { return g.re.MatchString(path) }

// Globs is a compiled list of path globs in the exclude syntax
// (compileGlob), used for the repository configuration's path_instructions
// and custom personas' path rules.
type Globs struct{ globs []glob }

// CompileGlobs compiles patterns; the first malformed one is an error
// wrapping ErrBadPattern.
func CompileGlobs(patterns []string) (Globs, error) {
	var g Globs
	for _, p := range patterns {
		c, err := compileGlob(strings.TrimSpace(p))
		if err != nil {
			return Globs{}, err
		}
		g.globs = append(g.globs, c)
	}
	return g, nil
}

// Match reports whether path matches any of the globs.
func (g Globs) Match(path string) bool {
	for _, c := range g.globs {
		if c.match(path) {
			return true
		}
	}
	return false
}
