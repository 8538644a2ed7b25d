package diff

import (
	"fmt"
	"strconv"
	"strings"
)

// Error is the type of the package's sentinel errors.
type Error string

func (e Error) Error() string { return string(e) }

// ErrMalformed is wrapped by every error Parse and ParsePatch return for
// bad input: test for it with errors.Is, or use errors.As with
// *SyntaxError for the line number.
const ErrMalformed = Error("malformed diff")

// SyntaxError reports malformed diff input at a line.
type SyntaxError struct {
	Line int    // 1-based line number in the input
	Path string // the file being parsed; "" before the first file header
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("diff: line %d (%s): %s", e.Line, e.Path, e.Msg)
	}
	return fmt.Sprintf("diff: line %d: %s", e.Line, e.Msg)
}

// Unwrap returns ErrMalformed.
func (e *SyntaxError) Unwrap() error { return ErrMalformed }

const devNull = "/dev/null"

// maxNumber bounds hunk header numbers so that start+count cannot overflow.
const maxNumber = 1 << 30

// Parse parses a multi-file unified diff: `git diff` output (the GitHub
// pull-request diff media type) or plain `---`/`+++` diffs.
//
// Text before the first file header (a commit message, a `git show`
// header) is skipped, as git apply does; after the first file, any line
// that is not part of a file is an error. A format-patch signature ("-- ")
// ends the diff. Empty input gives an empty Diff. Errors are
// *SyntaxError values wrapping ErrMalformed.
func Parse(b []byte) (*Diff, error) {
	p := &parser{src: string(b)}
	d := &Diff{}
	preamble := 0 // line number of the first non-blank line before any file
	for p.next() {
		l := p.line
		if strings.HasPrefix(l, "diff --git ") {
			f, err := p.gitFile()
			if err != nil {
				return nil, err
			}
			d.Files = append(d.Files, f)
			continue
		}
		if strings.HasPrefix(l, "--- ") {
			if nl, ok := p.peek(); ok && strings.HasPrefix(nl, "+++ ") {
				f, err := p.plainFile()
				if err != nil {
					return nil, err
				}
				d.Files = append(d.Files, f)
				continue
			}
		}
		switch {
		case strings.TrimSpace(l) == "":
		case strings.HasPrefix(l, "@@"):
			if len(d.Files) == 0 {
				return nil, p.errf("hunk header before any file header (a bare patch needs ParsePatch)")
			}
			return nil, p.errf("hunk header without a ---/+++ file header")
		case len(d.Files) == 0:
			if preamble == 0 {
				preamble = p.no
			}
		case l == "-- ":
			// A format-patch signature: skip it up to the next file, if any.
			for nl, ok := p.peek(); ok && !strings.HasPrefix(nl, "diff --git "); nl, ok = p.peek() {
				p.next()
			}
		case strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "Only in "):
			// `diff -ruN` prints its command line and lone files; harmless.
		case l[0] == '+' || l[0] == '-' || l[0] == ' ' || l[0] == '\\':
			return nil, p.errf("line %s is outside any hunk: the hunk header's line counts are too small", clip(l))
		default:
			return nil, p.errf("unexpected line %s", clip(l))
		}
	}
	if len(d.Files) == 0 && preamble != 0 {
		return nil, &SyntaxError{Line: preamble, Msg: "no file header found: not a unified diff"}
	}
	return d, nil
}

// ParsePatch parses one file's patch as the files endpoint gives it: hunks
// starting at the first @@, without file headers. The paths and status
// come from the endpoint (oldPath may be "" unless the file was renamed or
// copied). An empty patch gives a file with NoPatch set; a patch reading
// "Binary files ... differ" gives a binary file. A patch that does carry
// git headers is parsed with Parse and must hold exactly one file.
//
// status also accepts the files endpoint's own words: "removed" is
// Deleted, "changed" and "unchanged" are Modified, "" is Modified.
func ParsePatch(oldPath, newPath string, status Status, patch string) (*File, error) {
	switch status {
	case "removed":
		status = Deleted
	case "changed", "unchanged", "":
		status = Modified
	}
	f := &File{OldPath: oldPath, NewPath: newPath, Status: status}
	switch status {
	case Added:
		if f.NewPath == "" {
			f.NewPath = oldPath
		}
		f.OldPath = ""
	case Deleted:
		if f.OldPath == "" {
			f.OldPath = newPath
		}
		f.NewPath = ""
	default:
		if f.OldPath == "" {
			f.OldPath = newPath
		}
		if f.NewPath == "" {
			f.NewPath = oldPath
		}
	}
	if f.Path() == "" {
		return nil, fmt.Errorf("diff: patch without a file name: %w", ErrMalformed)
	}
	trimmed := strings.TrimSpace(patch)
	switch {
	case trimmed == "":
		f.NoPatch = true
		return f, nil
	case strings.HasPrefix(trimmed, "Binary files ") && strings.HasSuffix(trimmed, " differ") && !strings.Contains(trimmed, "\n"):
		f.Binary = true
		return f, nil
	case strings.HasPrefix(patch, "diff --git ") || strings.HasPrefix(patch, "--- "):
		d, err := Parse([]byte(patch))
		if err != nil {
			return nil, err
		}
		if len(d.Files) != 1 {
			return nil, fmt.Errorf("diff: patch for %s holds %d files, want 1: %w", f.Path(), len(d.Files), ErrMalformed)
		}
		return d.Files[0], nil
	}
	p := &parser{src: patch, path: f.Path()}
	if err := p.hunks(f); err != nil {
		return nil, err
	}
	if len(f.Hunks) == 0 {
		p.next()
		return nil, p.errf("patch does not start with a hunk header")
	}
	for p.next() {
		if strings.TrimSpace(p.line) != "" {
			return nil, p.errf("line %s is outside any hunk: the hunk header's line counts are too small", clip(p.line))
		}
	}
	f.index()
	return f, nil
}

// parser reads the input a line at a time with one line of lookahead.
type parser struct {
	src  string
	pos  int    // offset of the next unread line
	no   int    // number of the last line read
	line string // last line read, without its newline and trailing CRs
	path string // the current file, for errors
}

func (p *parser) next() bool {
	l, n, ok := p.read()
	if !ok {
		return false
	}
	p.line, p.pos = l, p.pos+n
	p.no++
	return true
}

func (p *parser) peek() (string, bool) {
	l, _, ok := p.read()
	return l, ok
}

func (p *parser) read() (line string, n int, ok bool) {
	if p.pos >= len(p.src) {
		return "", 0, false
	}
	rest := p.src[p.pos:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		line, n = rest[:i], i+1
	} else {
		line, n = rest, len(rest)
	}
	return strings.TrimRight(line, "\r"), n, true
}

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{Line: p.no, Path: p.path, Msg: fmt.Sprintf(format, args...)}
}

// name is a path read from a header; null is /dev/null.
type name struct {
	path      string
	set, null bool
}

// headers collects what a file's header lines said, resolved by finish.
type headers struct {
	git                    [2]name // diff --git a/… b/…
	dash                   [2]name // --- / +++
	bin                    [2]name // Binary files … and … differ
	from, to               name    // rename/copy from/to
	rename, copy           bool
	newFile, deletedFile   bool
	similarity, headerLine int
}

// gitFile parses one file that starts with the "diff --git" line just read.
func (p *parser) gitFile() (*File, error) {
	h := headers{headerLine: p.no}
	a, b, ok, err := splitPair(p.line[len("diff --git "):], " ")
	if err != nil {
		return nil, p.errf("bad diff --git header: %v", err)
	}
	if ok {
		a, b = stripPrefixes(a, b)
		h.git = [2]name{{path: a, set: true}, {path: b, set: true}}
		p.path = b
	} else {
		p.path = p.line[len("diff --git "):]
	}
	f := &File{}
loop:
	for {
		nl, ok := p.peek()
		if !ok {
			break
		}
		key, val, known := headerKey(nl)
		if !known { // the next file's "diff --git", or a stray line for Parse
			break
		}
		p.next()
		switch key {
		case "old mode ", "deleted file mode ", "new mode ", "new file mode ":
			if !validMode(val) {
				return nil, p.errf("bad file mode %s", clip(val))
			}
			if key == "old mode " || key == "deleted file mode " {
				f.OldMode = val
			} else {
				f.NewMode = val
			}
			h.deletedFile = h.deletedFile || key == "deleted file mode "
			h.newFile = h.newFile || key == "new file mode "
		case "index ", "dissimilarity index ":
		case "similarity index ":
			n, err := strconv.Atoi(strings.TrimSuffix(val, "%"))
			if err != nil || n < 0 || n > 100 || !strings.HasSuffix(val, "%") {
				return nil, p.errf("bad similarity index %s", clip(val))
			}
			h.similarity = n
		case "rename from ", "rename old ", "copy from ", "rename to ", "rename new ", "copy to ":
			path, err := lonePath(val)
			if err != nil {
				return nil, p.errf("bad %sline: %v", key, err)
			}
			if strings.HasPrefix(key, "copy") {
				h.copy = true
			} else {
				h.rename = true
			}
			if strings.HasSuffix(key, "from ") || strings.HasSuffix(key, "old ") {
				h.from = name{path: path, set: true}
			} else {
				h.to = name{path: path, set: true}
			}
		case "--- ":
			if err := p.dashNames(&h); err != nil {
				return nil, err
			}
			if err := p.hunks(f); err != nil {
				return nil, err
			}
			if len(f.Hunks) == 0 {
				return nil, p.errf("file header without hunks")
			}
			break loop
		case "Binary files ":
			f.Binary = true
			if err := binNames(&h, val); err != nil {
				return nil, p.errf("bad Binary files line: %v", err)
			}
			break loop
		case "GIT binary patch":
			f.Binary = true
			for nl, ok := p.peek(); ok && !strings.HasPrefix(nl, "diff --git "); nl, ok = p.peek() {
				p.next()
			}
			break loop
		case "@@":
			return nil, p.errf("hunk header without a ---/+++ file header")
		}
	}
	if err := p.finish(f, &h); err != nil {
		return nil, err
	}
	return f, nil
}

// headerKey classifies a line inside a git file header.
func headerKey(l string) (key, val string, ok bool) {
	for _, k := range [...]string{
		"old mode ", "new mode ", "deleted file mode ", "new file mode ",
		"index ", "similarity index ", "dissimilarity index ",
		"rename from ", "rename to ", "rename old ", "rename new ",
		"copy from ", "copy to ", "--- ", "Binary files ",
	} {
		if strings.HasPrefix(l, k) {
			return k, l[len(k):], true
		}
	}
	switch {
	case l == "GIT binary patch":
		return l, "", true
	case strings.HasPrefix(l, "@@"):
		return "@@", "", true
	}
	return "", "", false
}

// plainFile parses a file that starts with the "---" line just read and
// has no "diff --git" header.
func (p *parser) plainFile() (*File, error) {
	h := headers{headerLine: p.no}
	if err := p.dashNames(&h); err != nil {
		return nil, err
	}
	f := &File{}
	if err := p.hunks(f); err != nil {
		return nil, err
	}
	if len(f.Hunks) == 0 {
		return nil, p.errf("file header without hunks")
	}
	if err := p.finish(f, &h); err != nil {
		return nil, err
	}
	return f, nil
}

// dashNames reads the names from the "---" line just read and the "+++"
// line that must follow it.
func (p *parser) dashNames(h *headers) error {
	old, err := dashName(p.line[len("--- "):])
	if err != nil {
		return p.errf("bad --- line: %v", err)
	}
	if nl, ok := p.peek(); !ok || !strings.HasPrefix(nl, "+++ ") {
		p.next()
		return p.errf("--- line not followed by a +++ line")
	}
	p.next()
	nw, err := dashName(p.line[len("+++ "):])
	if err != nil {
		return p.errf("bad +++ line: %v", err)
	}
	old.path, nw.path = stripPrefixes(old.path, nw.path)
	h.dash = [2]name{old, nw}
	if !old.null {
		p.path = old.path
	}
	if !nw.null {
		p.path = nw.path
	}
	return nil
}

// dashName reads a ---/+++ name: quoted, or cut at a tab (timestamps
// follow a tab in plain diffs; git adds a tab after names with spaces).
func dashName(s string) (name, error) {
	if strings.HasPrefix(s, `"`) {
		path, n, err := unquote(s)
		if err != nil {
			return name{}, err
		}
		if rest := s[n:]; rest != "" && rest[0] != '\t' {
			return name{}, fmt.Errorf("text %s after quoted name", clip(rest))
		}
		return name{path: path, set: true}, nil
	}
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	if s == devNull {
		return name{set: true, null: true}, nil
	}
	return name{path: s, set: true}, nil
}

// lonePath reads the path of a "rename from"-style line.
func lonePath(s string) (string, error) {
	if !strings.HasPrefix(s, `"`) {
		return s, nil
	}
	path, n, err := unquote(s)
	if err != nil {
		return "", err
	}
	if n != len(s) {
		return "", fmt.Errorf("text %s after quoted name", clip(s[n:]))
	}
	return path, nil
}

// binNames reads the names of "Binary files A and B differ". Names it
// cannot split unambiguously are left to the other headers.
func binNames(h *headers, s string) error {
	s, ok := strings.CutSuffix(s, " differ")
	if !ok {
		return nil
	}
	var old, nw name
	switch {
	case strings.HasPrefix(s, devNull+" and "):
		path, err := lonePath(s[len(devNull+" and "):])
		if err != nil {
			return err
		}
		old, nw = name{set: true, null: true}, name{path: path, set: true}
	case strings.HasSuffix(s, " and "+devNull):
		path, err := lonePath(s[:len(s)-len(" and "+devNull)])
		if err != nil {
			return err
		}
		old, nw = name{path: path, set: true}, name{set: true, null: true}
	default:
		a, b, ok, err := splitPair(s, " and ")
		if err != nil || !ok {
			return err
		}
		old, nw = name{path: a, set: true}, name{path: b, set: true}
	}
	old.path, nw.path = stripPrefixes(old.path, nw.path)
	h.bin = [2]name{old, nw}
	return nil
}

// splitPair splits "A<sep>B" where either name may be quoted. Unquoted
// names holding sep are split only when both sides name the same path
// (git's own rule); ok is false when the split stays ambiguous.
func splitPair(s, sep string) (a, b string, ok bool, err error) {
	if strings.HasPrefix(s, `"`) {
		a, n, err := unquote(s)
		if err != nil {
			return "", "", false, err
		}
		rest, found := strings.CutPrefix(s[n:], sep)
		if !found {
			return "", "", false, fmt.Errorf("want %q after the quoted name", sep)
		}
		b, err := lonePath(rest)
		return a, b, err == nil, err
	}
	if strings.HasSuffix(s, `"`) {
		for i := strings.LastIndex(s, sep+`"`); i >= 0; i = strings.LastIndex(s[:i], sep+`"`) {
			if b, n, err := unquote(s[i+len(sep):]); err == nil && i+len(sep)+n == len(s) {
				return s[:i], b, true, nil
			}
		}
	}
	if strings.Count(s, sep) == 1 {
		a, b, _ := strings.Cut(s, sep)
		return a, b, true, nil
	}
	if n := (len(s) - len(sep)) / 2; n > 0 && 2*n+len(sep) == len(s) && s[n:n+len(sep)] == sep {
		if a, b := stripPrefixes(s[:n], s[n+len(sep):]); a == b {
			return s[:n], s[n+len(sep):], true, nil
		}
	}
	return "", "", false, nil
}

// stripPrefixes drops git's "a/" and "b/" when both sides carry them (a
// side may be /dev/null or empty).
func stripPrefixes(a, b string) (string, string) {
	okA := a == "" || a == devNull || strings.HasPrefix(a, "a/")
	okB := b == "" || b == devNull || strings.HasPrefix(b, "b/")
	if !okA || !okB {
		return a, b
	}
	return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(b, "b/")
}

func validMode(s string) bool {
	if s == "" || len(s) > 7 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isOctal(s[i]) {
			return false
		}
	}
	return true
}

// finish resolves the file's names and status from its headers, checks
// them, and builds the line index.
func (p *parser) finish(f *File, h *headers) error {
	errf := func(format string, args ...any) error {
		return &SyntaxError{Line: h.headerLine, Path: p.path, Msg: fmt.Sprintf(format, args...)}
	}
	added := h.newFile || h.dash[0].null || h.bin[0].null
	deleted := h.deletedFile || h.dash[1].null || h.bin[1].null
	switch {
	case added && deleted:
		return errf("file is both added and deleted")
	case (added || deleted) && (h.rename || h.copy):
		return errf("an added or deleted file cannot be a rename or copy")
	case h.rename && h.copy:
		return errf("file is both a rename and a copy")
	case (h.rename || h.copy) && (!h.from.set || !h.to.set):
		return errf("rename or copy without both from and to lines")
	case added && f.OldMode != "":
		return errf("old mode on an added file")
	case deleted && f.NewMode != "":
		return errf("new mode on a deleted file")
	}
	var old, nw string
	for _, src := range [...][2]name{h.git, h.bin, h.dash, {h.from, h.to}} {
		if src[0].set && !src[0].null {
			old = src[0].path
		}
		if src[1].set && !src[1].null {
			nw = src[1].path
		}
	}
	switch {
	case added:
		f.Status, old = Added, ""
	case deleted:
		f.Status, nw = Deleted, ""
	case h.rename:
		f.Status = Renamed
	case h.copy:
		f.Status = Copied
	default:
		f.Status = Modified
	}
	if !added && !deleted {
		if old == "" {
			old = nw
		}
		if nw == "" {
			nw = old
		}
	}
	if (!added && old == "") || (!deleted && nw == "") {
		return errf("cannot determine the file name")
	}
	if h.rename || h.copy {
		f.Similarity = h.similarity
	}
	f.OldPath, f.NewPath = old, nw
	p.path = f.Path()
	f.index()
	return nil
}

// hunks reads the hunks that follow, if any.
func (p *parser) hunks(f *File) error {
	for {
		nl, ok := p.peek()
		if !ok || !strings.HasPrefix(nl, "@@") {
			return nil
		}
		p.next()
		h, err := parseHunkHeader(p.line)
		if err != nil {
			return p.errf("bad hunk header %s: %v", clip(p.line), err)
		}
		if k := len(f.Hunks); k > 0 {
			prev := &f.Hunks[k-1]
			if h.OldStart < prev.OldStart+prev.OldLines || h.NewStart < prev.NewStart+prev.NewLines {
				return p.errf("hunk %s overlaps or precedes the previous hunk", clip(p.line))
			}
		}
		if err := p.hunkBody(&h); err != nil {
			return err
		}
		f.Hunks = append(f.Hunks, h)
	}
}

// hunkBody reads the lines the hunk header promised, and any "\ No newline
// at end of file" markers after the last of them.
func (p *parser) hunkBody(h *Hunk) error {
	remOld, remNew := h.OldLines, h.NewLines
	oldNo, newNo := h.OldStart, h.NewStart
	h.Lines = make([]Line, 0, min(remOld+remNew, 256))
	for remOld > 0 || remNew > 0 {
		if !p.next() {
			return p.errf("unexpected end of input: the hunk lacks %d old and %d new lines", remOld, remNew)
		}
		kind, text := byte(' '), ""
		if p.line != "" {
			kind, text = p.line[0], p.line[1:]
		}
		switch kind {
		case ' ': // git treats an empty line as an empty context line
			if remOld == 0 || remNew == 0 {
				return p.errf("context line beyond the hunk header's line counts")
			}
			h.Lines = append(h.Lines, Line{Kind: Context, Text: text, OldNo: oldNo, NewNo: newNo})
			oldNo, newNo, remOld, remNew = oldNo+1, newNo+1, remOld-1, remNew-1
		case '+':
			if remNew == 0 {
				return p.errf("more added lines than the hunk header says")
			}
			h.Lines = append(h.Lines, Line{Kind: Add, Text: text, NewNo: newNo})
			newNo, remNew = newNo+1, remNew-1
		case '-':
			if remOld == 0 {
				return p.errf("more deleted lines than the hunk header says")
			}
			h.Lines = append(h.Lines, Line{Kind: Delete, Text: text, OldNo: oldNo})
			oldNo, remOld = oldNo+1, remOld-1
		case '\\':
			if err := p.noNewline(h); err != nil {
				return err
			}
		default:
			return p.errf("unexpected line %s in hunk: it lacks %d old and %d new lines", clip(p.line), remOld, remNew)
		}
	}
	for nl, ok := p.peek(); ok && strings.HasPrefix(nl, `\`); nl, ok = p.peek() {
		p.next()
		if err := p.noNewline(h); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) noNewline(h *Hunk) error {
	if len(h.Lines) == 0 {
		return p.errf(`"\ No newline at end of file" with no line before it`)
	}
	h.Lines[len(h.Lines)-1].NoNewline = true
	return nil
}

// parseHunkHeader parses "@@ -a[,b] +c[,d] @@[ section]".
func parseHunkHeader(l string) (Hunk, error) {
	var h Hunk
	s, ok := strings.CutPrefix(l, "@@ -")
	if !ok {
		return h, fmt.Errorf(`want "@@ -"`)
	}
	var err error
	if h.OldStart, h.OldLines, s, err = parseRange(s); err != nil {
		return h, fmt.Errorf("old range: %w", err)
	}
	if s, ok = strings.CutPrefix(s, " +"); !ok {
		return h, fmt.Errorf(`want " +" after the old range`)
	}
	if h.NewStart, h.NewLines, s, err = parseRange(s); err != nil {
		return h, fmt.Errorf("new range: %w", err)
	}
	if s, ok = strings.CutPrefix(s, " @@"); !ok {
		return h, fmt.Errorf(`want " @@" after the new range`)
	}
	h.Section = strings.TrimPrefix(s, " ")
	return h, nil
}

// parseRange parses "start[,count]"; a missing count is 1.
func parseRange(s string) (start, count int, rest string, err error) {
	start, s, err = parseNumber(s)
	if err != nil {
		return 0, 0, "", err
	}
	count = 1
	if s, ok := strings.CutPrefix(s, ","); ok {
		if count, s, err = parseNumber(s); err != nil {
			return 0, 0, "", err
		}
		rest = s
	} else {
		rest = s
	}
	if count > 0 && start == 0 {
		return 0, 0, "", fmt.Errorf("line 0 with %d lines", count)
	}
	return start, count, rest, nil
}

func parseNumber(s string) (int, string, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, "", fmt.Errorf("want a number")
	}
	if i > 10 {
		return 0, "", fmt.Errorf("number too large")
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil || n > maxNumber {
		return 0, "", fmt.Errorf("number too large")
	}
	return n, s[i:], nil
}

// clip quotes a line for an error message, shortened.
func clip(s string) string {
	const max = 60
	if len(s) > max {
		return strconv.Quote(s[:max]) + "…"
	}
	return strconv.Quote(s)
}
