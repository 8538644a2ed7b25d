package persona

import (
	"path"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// lang is the language family of a file, as far as selection cares: which
// comment syntax it has, and which public-signature rules apply.
type lang uint8

const (
	langOther  lang = iota
	langGo          // .go
	langPython      // .py, .pyi
	langJS          // JavaScript and TypeScript
	langC           // C, C++, Objective-C, C#: '#' starts a preprocessor line, not a comment
	langRust        // '#[' is an attribute
	langHash        // shell, Ruby, YAML, TOML, Perl, R, Makefile, Dockerfile: '#' comments only
	langSQL         // '--' comments
)

// extension is what a file extension tells: the language name LanguageOf
// gives (the values a custom persona's `languages` may list; "" for an
// extension no custom persona can name) and the comment family selection
// reads its lines with.
type extension struct {
	name   string
	family lang
}

// extensions is the one table of file extensions, keyed by the lower-case
// extension with its dot.
var extensions = map[string]extension{
	".go": {"go", langGo},
	".py": {"python", langPython}, ".pyi": {"python", langPython},
	".ts": {"typescript", langJS}, ".tsx": {"typescript", langJS}, ".mts": {"typescript", langJS}, ".cts": {"typescript", langJS},
	".js": {"javascript", langJS}, ".jsx": {"javascript", langJS}, ".mjs": {"javascript", langJS}, ".cjs": {"javascript", langJS},
	".java": {"java", langOther}, ".kt": {"kotlin", langOther}, ".kts": {"kotlin", langOther}, ".scala": {"scala", langOther},
	".php": {"php", langOther}, ".swift": {"swift", langOther}, ".proto": {"proto", langOther},
	".c": {"c", langC}, ".h": {"c", langC},
	".cc": {"cpp", langC}, ".cpp": {"cpp", langC}, ".cxx": {"cpp", langC}, ".hpp": {"cpp", langC}, ".hh": {"cpp", langC},
	".m": {"", langC}, ".mm": {"", langC}, ".cs": {"csharp", langC},
	".rs": {"rust", langRust},
	".rb": {"ruby", langHash}, ".sh": {"shell", langHash}, ".bash": {"shell", langHash}, ".zsh": {"shell", langHash},
	".yml": {"yaml", langHash}, ".yaml": {"yaml", langHash}, ".tf": {"terraform", langHash},
	".toml": {"", langHash}, ".pl": {"", langHash}, ".pm": {"", langHash}, ".r": {"", langHash},
	".cfg": {"", langHash}, ".ini": {"", langHash}, ".conf": {"", langHash},
	".sql": {"sql", langSQL},
}

func langOf(base string) lang {
	if e, ok := extensions[path.Ext(base)]; ok {
		return e.family
	}
	if base == "makefile" || base == "dockerfile" || strings.HasPrefix(base, "dockerfile.") || base == "gemfile" || base == "rakefile" {
		return langHash
	}
	return langOther
}

// commentScanner tells, line by line through a hunk, which lines are not
// code: blank lines, comments, block-comment bodies and Python docstrings.
// A hunk can start inside a block comment or a docstring the diff does not
// show; the scanner starts outside, so such lines read as code (selection
// then errs toward running a persona, never toward skipping one).
type commentScanner struct {
	lang    lang
	inBlock bool // inside /* ... */
	inDoc   bool // inside a Python docstring (a statement that is only a string)
	// inString: inside a triple-quoted string a code line opened
	// (q = """ ...): its lines are code.
	inString bool
	// inRaw: inside a Go raw string or a JavaScript template literal (a
	// backtick a code line opened): its lines are code, whatever they
	// start with ("/*" in a raw string opens no comment).
	inRaw bool
}

// docTail reports whether what follows the quotes that close a docstring
// on line t is code (`"""doc"""; os.system(x)`).
func docTail(t string) bool {
	i := max(strings.LastIndex(t, `"""`), strings.LastIndex(t, `'''`))
	if i < 0 {
		return false
	}
	rest := strings.TrimSpace(t[i+3:])
	return rest != "" && !strings.HasPrefix(rest, "#")
}

// nonCode reports whether text (one line of a hunk, in order) is not code.
func (c *commentScanner) nonCode(text string) bool {
	t := strings.TrimSpace(text)
	if c.lang == langPython {
		odd := (strings.Count(t, `"""`)+strings.Count(t, `'''`))%2 == 1
		switch {
		case c.inString:
			// Inside a triple-quoted string a statement opened (q = """):
			// its lines are code (SQL, templates), up to the closing quotes.
			c.inString = !odd
			return false
		case c.inDoc:
			c.inDoc = !odd
			// Code after the closing quotes makes the line code.
			return c.inDoc || !docTail(t)
		case strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, `'''`) || strings.HasPrefix(t, `r"""`):
			// A docstring: a statement that is only a string.
			c.inDoc = odd
			return odd || !docTail(t)
		}
		c.inString = odd
		return t == "" || strings.HasPrefix(t, "#")
	}
	if c.inRaw {
		c.inRaw = strings.Count(t, "`")%2 == 0
		return false
	}
	if c.inBlock {
		if i := strings.Index(t, "*/"); i >= 0 {
			c.inBlock = false
			return strings.TrimSpace(t[i+2:]) == ""
		}
		return true
	}
	switch {
	case t == "":
		return true
	case c.lang == langSQL && strings.HasPrefix(t, "--"):
		return true
	case c.lang == langHash && strings.HasPrefix(t, "#"):
		return true
	case c.lang == langRust && strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#[") && !strings.HasPrefix(t, "#!["):
		return false // not a comment in Rust, but not one of ours either
	case c.lang == langHash || c.lang == langSQL:
		return false
	case strings.HasPrefix(t, "//"):
		return true
	case strings.HasPrefix(t, "/*"):
		if !strings.Contains(t[2:], "*/") {
			c.inBlock = true
			return true
		}
		return strings.TrimSpace(t[strings.Index(t[2:], "*/")+4:]) == ""
	case strings.HasPrefix(t, "*/"), t == "*", strings.HasPrefix(t, "* "):
		return true // the body or end of a block comment the hunk started inside
	case c.lang == langOther && strings.HasPrefix(t, "#"):
		return true
	}
	if (c.lang == langGo || c.lang == langJS) && strings.Count(t, "`")%2 == 1 {
		c.inRaw = true // a raw string or template literal opens on this line of code
	}
	return false
}

// codeFlags marks, for every line of every hunk of f, whether it is code.
// changed reports whether an added or deleted line is code: the least a
// change must touch before selection reads its file at all.
func codeFlags(f *diff.File, l lang) (flags [][]bool, changed bool) {
	flags = make([][]bool, len(f.Hunks))
	for i, h := range f.Hunks {
		// Each side of a hunk is its own text: a docstring opened on a
		// deleted line does not hold the added lines that replace it.
		oldSide, newSide := commentScanner{lang: l}, commentScanner{lang: l}
		flags[i] = make([]bool, len(h.Lines))
		for j, ln := range h.Lines {
			var code bool
			switch ln.Kind {
			case diff.Add:
				code = !newSide.nonCode(ln.Text)
			case diff.Delete:
				code = !oldSide.nonCode(ln.Text)
			default:
				a, b := !oldSide.nonCode(ln.Text), !newSide.nonCode(ln.Text)
				code = a && b
			}
			flags[i][j] = code
			if code && ln.Kind != diff.Context {
				changed = true
			}
		}
	}
	return flags, changed
}
