package synth

import (
	"slices"
	"strings"
	"unicode"
)

// What a title names and what it says about it (step 2). A title such as
// "Per-task throwOnTimeout is read from a misspelled key" names code
// (throwOnTimeout) and says something about it (read, misspelled, key).
// Deduplication reads the two apart:
//
//   - the kinds of defect a title names (similar.go) come from what it
//     says, never from the parts of an identifier: throwOnTimeout is no
//     claim about a timeout, so it cannot keep the finding apart from
//     "Misspelled option silently ignores throwOnTimout";
//   - two titles that name the same code (the same identifier, or one
//     letter apart: the typo and the name it misspells) but share nothing
//     in what they say about it are two problems on that code ("Empty base
//     makes ListObjectsV2Command list the whole bucket" and
//     "ListObjectsV2Command result is truncated at 1000 keys").

// minNameLen is the shortest identifier that names code on its own ("add",
// not "id").
const minNameLen = 3

// minFuzzyNameLen is the shortest identifier a one-letter slip still names:
// throwOnTimout is throwOnTimeout, retires is not retries.
const minFuzzyNameLen = 8

// codeNames are the identifiers title names as code, lower-cased, sorted and
// unique: a word in backticks, a call ("clear(base)"), or a word shaped as
// code (camelCase, snake_case, a dotted name). A dotted name is its last
// part ("options.throwOnTimout" names throwOnTimout).
func codeNames(title string) []string {
	var out []string
	for _, tk := range codeTokens(title) {
		if tk.code {
			out = append(out, tk.name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// token is one identifier-like run of a title.
type token struct {
	raw  string // as written
	name string // its last dotted part, lower-cased
	code bool   // shaped as code, in backticks, or called
}

// codeTokens splits title into identifier-like runs (letters, digits, _, $,
// # and inner dots) and says which of them are code.
func codeTokens(title string) []token {
	isPart := func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$' || r == '#' || r == '.'
	}
	rs := []rune(title)
	var out []token
	for i := 0; i < len(rs); {
		if !isPart(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && isPart(rs[j]) {
			j++
		}
		raw := strings.Trim(string(rs[i:j]), ".")
		ticked := i > 0 && rs[i-1] == '`' && j < len(rs) && rs[j] == '`'
		called := j < len(rs) && rs[j] == '('
		i = j
		if raw == "" {
			continue
		}
		last := raw[strings.LastIndexByte(raw, '.')+1:]
		last = strings.TrimLeft(last, "#$")
		tk := token{raw: raw, name: strings.ToLower(last)}
		tk.code = len([]rune(tk.name)) >= minNameLen && hasLetter(tk.name) &&
			(ticked || called || codeShaped(raw))
		out = append(out, tk)
	}
	return out
}

func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }

// codeShaped reports whether a word is written as code: an inner
// underscore or dot, or a lower-case letter followed by an upper-case one.
func codeShaped(w string) bool {
	if strings.Contains(strings.Trim(w, "_"), "_") || strings.Contains(w, ".") {
		return true
	}
	prev := rune(0)
	for _, r := range w {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			return true
		}
		prev = r
	}
	return false
}

// proseOf is the title without the code it names: what it says.
func proseOf(title string) string {
	var b strings.Builder
	last := 0
	for _, tk := range codeTokens(title) {
		if !tk.code {
			continue
		}
		k := strings.Index(title[last:], tk.raw)
		if k < 0 {
			continue
		}
		b.WriteString(title[last : last+k])
		b.WriteByte(' ')
		last += k + len(tk.raw)
	}
	b.WriteString(title[last:])
	return b.String()
}

// sameName reports whether two code names (codeNames) name the same code:
// equal, or, both long enough, one letter apart (inserted, dropped or
// replaced).
func sameName(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) < minFuzzyNameLen || len(b) < minFuzzyNameLen {
		return false
	}
	return oneEditApart(a, b)
}

// oneEditApart reports whether a and b differ by exactly one inserted,
// dropped or replaced byte.
func oneEditApart(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if i == len(a) {
		return len(a) != len(b) // b is a with one more byte at the end
	}
	if len(a) == len(b) {
		return a[i+1:] == b[i+1:]
	}
	return a[i:] == b[i+1:]
}

// sharesName reports whether two titles name the same code.
func sharesName(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if sameName(x, y) {
				return true
			}
		}
	}
	return false
}
