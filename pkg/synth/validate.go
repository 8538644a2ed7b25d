package synth

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// maxTitle is the schema's maxLength for a title, in characters.
const maxTitle = 100

// validate is step 1. It drops findings that break a schema rule code can
// check, that name a file not in the PR, or that name a line outside the
// file's new version, counting each by reason. A kept finding's File is
// rewritten to the diff's own spelling of the path.
//
// Between the file and the line checks, a finding is anchored to its
// evidence (anchor.go): its line snaps to the quoted code, and a finding
// whose quoted code occurs nowhere is dropped as ReasonUnanchored.
//
// The line check is only as good as what is known: for an added file the
// whole new version is in the diff, so its length is known and a line past
// it is dropped; for a modified or renamed file, the head version when
// Input.Heads has it, else any line >= 1 is accepted (the Stage 5b
// validator reads the head file). A deleted file has no new version, so any
// line on it is outside.
//
// quoted[i] is what kept[i]'s evidence quotes, for deduplication's "same
// quoted line".
func validate(fs []finding.Finding, files fileIndex, anchors *anchorer, dropped map[string]int) (kept []finding.Finding, quoted []quoting) {
	kept = fs[:0] // fs is synthesis's own copy: filter in place
	for _, f := range fs {
		if !schemaValid(f) {
			dropped[ReasonInvalid]++
			continue
		}
		df, ok := files.lookup(f.File)
		if !ok {
			dropped[ReasonNotInPR]++
			continue
		}
		// Anchoring first: a line a model miscounted past the end is
		// moved back to its quoted code before it is judged.
		qs := quotesOf(f.Evidence)
		ok, lines := anchors.anchor(&f, df, qs)
		if !ok {
			dropped[ReasonUnanchored]++
			continue
		}
		if !lineInNewVersion(df, f.Line) || !anchors.inHead(df, f.Line) {
			dropped[ReasonLineOutside]++
			continue
		}
		f.File = df.Path()
		kept = append(kept, f)
		quoted = append(quoted, quoting{lines: lines, quotes: qs})
	}
	return kept, quoted
}

// schemaValid checks the rules of prompts/findings.schema.json that survive
// decoding into a Finding (a float confidence never decodes into an int).
func schemaValid(f finding.Finding) bool {
	switch {
	case !f.Severity.Valid(),
		!finding.ValidAnchor(f.Confidence),
		strings.TrimSpace(f.Title) == "",
		utf8.RuneCountInString(f.Title) > maxTitle,
		strings.TrimSpace(f.File) == "",
		f.Line < 1,
		!slices.Contains(finding.AutofixClasses(), f.AutofixClass),
		!slices.Contains(finding.Owners(), f.Owner):
		return false
	}
	return slices.ContainsFunc(f.Evidence, func(e string) bool { return strings.TrimSpace(e) != "" })
}

// lineInNewVersion reports whether line n can be in f's new version, as far
// as the diff can tell (see validate).
func lineInNewVersion(f *diff.File, n int) bool {
	if f.NewPath == "" || f.Status == diff.Deleted {
		return false
	}
	if f.Status == diff.Added {
		if last := f.LastNewLine(); last > 0 {
			return n <= last
		}
	}
	return true
}

// normalizePath strips what models and diff tools put in front of a
// repository path: leading "/", "./", and one "a/" or "b/" diff prefix.
func normalizePath(p string) string {
	p = trimRoot(p)
	if rest, ok := strings.CutPrefix(p, "a/"); ok {
		p = rest
	} else if rest, ok := strings.CutPrefix(p, "b/"); ok {
		p = rest
	}
	return trimRoot(p)
}

// trimRoot strips surrounding space and any leading "/" and "./".
func trimRoot(p string) string {
	p = strings.TrimSpace(p)
	for {
		switch {
		case strings.HasPrefix(p, "/"):
			p = p[1:]
		case strings.HasPrefix(p, "./"):
			p = p[2:]
		default:
			return p
		}
	}
}

// fileIndex finds a PR file by the path a finding names.
type fileIndex struct {
	// exact maps a path with only "/" and "./" stripped: it wins, so a repo
	// that really has a top-level "a/" directory still resolves.
	exact map[string]*diff.File
	// norm maps normalizePath of each path; nil marks an ambiguous key.
	norm map[string]*diff.File
}

func newFileIndex(files []*diff.File) fileIndex {
	ix := fileIndex{
		exact: make(map[string]*diff.File, len(files)),
		norm:  make(map[string]*diff.File, len(files)),
	}
	for _, f := range files {
		if f == nil {
			continue
		}
		p := f.Path()
		if e := trimRoot(p); e != "" {
			if _, dup := ix.exact[e]; !dup {
				ix.exact[e] = f
			}
		}
		n := normalizePath(p)
		if n == "" {
			continue
		}
		if prev, seen := ix.norm[n]; seen && prev != f {
			ix.norm[n] = nil
		} else if !seen {
			ix.norm[n] = f
		}
	}
	return ix
}

// A name is matched in every spelling the prompt showed: as written, in
// git's C-quoted form (non-ASCII names: "\303\251t\303\251.go"), and with
// the <U+200B>-style escapes the prompt uses for invisible characters.
func (ix fileIndex) lookup(name string) (*diff.File, bool) {
	for _, n := range spellings(name) {
		if f, ok := ix.exact[trimRoot(n)]; ok {
			return f, true
		}
		if f := ix.norm[normalizePath(n)]; f != nil {
			return f, true
		}
	}
	return nil, false
}

// escapedRune is the prompt's visible form of an invisible character.
var escapedRune = regexp.MustCompile(`<U\+([0-9A-F]{4,6})>`)

// spellings decodes the forms a model may have copied a path in.
func spellings(name string) []string {
	out := []string{name}
	if escapedRune.MatchString(name) {
		name = escapedRune.ReplaceAllStringFunc(name, func(m string) string {
			r, err := strconv.ParseUint(m[3:len(m)-1], 16, 32)
			if err != nil {
				return m
			}
			return string(rune(r))
		})
		out = append(out, name)
	}
	t := strings.TrimSpace(name)
	if p, ok := diff.Unquote(t); ok {
		out = append(out, p)
	}
	// A quoted name with its a/ or b/ prefix inside the quotes.
	for _, pre := range []string{`"a/`, `"b/`} {
		if rest, ok := strings.CutPrefix(t, pre); ok {
			if p, ok := diff.Unquote(`"` + rest); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// lineText returns the text of new-side line n of f, when the diff shows it
// (a context or added line).
func (ix fileIndex) lineText(f *diff.File, n int) (string, bool) {
	l, ok := f.NewLine(n)
	return l.Text, ok
}
