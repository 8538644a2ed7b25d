package synth

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// Evidence anchoring, the end of step 1. A finding's evidence quotes code;
// a quoted line must occur in the file's head version (or on the diff's
// deleted side, for a deletion). The finding's line is moved to the nearest
// occurrence when it does not already hold a quoted line, and a finding
// whose code quotes occur nowhere is dropped as ReasonUnanchored.
//
// Which evidence counts as a code quote. Models write evidence as
// "path:42: code", "L42: code", "line 42: code", "`code` is ...", a fenced
// block, a bare code line, or plain prose ("the error from Close is
// ignored"). Each evidence string is read as follows:
//
//   - A location prefix is stripped: "path:42:", "path:42-45", "path#L42",
//     "L42:", "lines 42-45:", "line 42 -", "42:" and the like (the raw text is
//     tried as well, so a code line such as "case 1: return" still matches).
//     A quote whose prefix names another file ("api/users.go:38: ..." on a
//     finding in store/users.go) is not checked against this one.
//     A leading diff marker ("+", "-") and one pair of surrounding quotes are
//     stripped the same way, as alternatives.
//   - Lines inside a ``` fence are code quotes.
//   - A backtick span is a code quote when it is the whole string, or when
//     the string carries a location prefix (the prefix asserts that the span
//     is code at that line). Other spans are identifiers named in prose:
//     weak quotes, which anchor a finding when they match but never drop one
//     (they often name code in files outside the PR).
//   - Text without backticks is split into lines; a line that looksLikeCode
//     is a code quote; any other line is prose, a weak quote that matches
//     only a whole trimmed line of the file.
//
// Matching ignores runs of whitespace, and a quote may be a part of a line
// (models trim comments and trailing punctuation); a code quote also matches
// a line of at least minLineInQuote characters that it holds whole (a quote
// that runs on into prose, or joins two lines) — a weaker match, used only
// when no line holds the quote, and then only on the longer of the lines it
// holds. An ellipsis ("...", "…")
// inside a quote stands for elided code: the pieces around it must occur in
// order on one line. Quotes shorter than minQuote non-space characters are
// ignored: "err" or "}" occur everywhere and prove nothing.
//
// The decision:
//   - no quote matches, and at least one code quote exists: dropped;
//   - no quote matches, and the evidence is prose only: kept as it is (there
//     is nothing to check it against; the validator reads the file);
//   - otherwise the line stays when it holds a matched quote (or lies in the
//     range its prefix gives: "users.go:41-43: q := fmt.Sprintf(..." covers
//     three lines from where the quote matched); else it snaps to the
//     nearest occurrence of the first matched quote in evidence order (models
//     quote the problem line first; a weak quote that matched is as good a
//     locator as a code quote), occurrences on the diff's changed lines
//     before unchanged ones, a tie to the lower line.
//
// The search space is the head file when Input.Heads has it and it agrees
// with the diff (every context and added line at its number); otherwise the
// new-side lines the diff shows (context and added). The diff's deleted
// lines are searched in both cases and stand at the new-side line where the
// deletion happened.

// ReasonUnanchored counts findings whose quoted code occurs nowhere in the
// file (step 1).
const ReasonUnanchored = "unanchored"

// minQuote is the fewest non-space characters a quote needs to be checked.
const minQuote = 4

// quote is one piece of evidence that may be code.
type quote struct {
	// variants are the normalized readings of the quote (with and without
	// a location prefix, diff marker, surrounding quotes); any may match.
	variants []string
	// code is true for a code quote: unmatched, it counts against the
	// finding. A weak quote (prose, or an identifier named in prose) only
	// helps.
	code bool
	// wholeLine: the quote must equal a whole trimmed line (prose).
	wholeLine bool
	// path is the file a location prefix names ("api/users.go:38: ..."),
	// "" when none: a quote of another file is not checked against this one.
	path string
	// span is how many lines past its first the quote covers, from a range
	// in its location prefix ("users.go:41-43: q := fmt.Sprintf(...)" is 2):
	// a finding on any line of the range is on the quote.
	span int
}

// maxSpan bounds the range a location prefix may claim for one quote.
const maxSpan = 20

var (
	// locationPrefix matches "path:42:", "path:42-45 ", "path#L42:",
	// "L42:", "line 42 -", "lines 42-45:", "(line 42)", "42:" at the start.
	locationPrefix = regexp.MustCompile(`^\s*(?:([^\s:#]+?)(?::|#|\s+))?\(?\s*(?:(?i:lines?)\s+|L)?(\d+)(?:\s*(?:-|–|,|to)\s*L?(\d+))?\s*\)?(?:[:|\-–—]?\s+|[:|]|$)`)
	fence          = regexp.MustCompile("(?s)```[^\n]*\n(.*?)(?:```|$)")
	backtickSpan   = regexp.MustCompile("``(.+?)``|`([^`\n]+)`")
	ellipsis       = regexp.MustCompile(`\.\.\.|…`)
)

// quotesOf reads a finding's evidence into quotes, once: anchoring and
// deduplication both read them.
func quotesOf(evidence []string) []quote {
	var qs []quote
	for _, e := range evidence {
		qs = append(qs, parseEvidence(e)...)
	}
	return qs
}

// parseEvidence reads one evidence string into quotes.
func parseEvidence(e string) []quote {
	var qs []quote
	// Fenced blocks: every non-blank line inside is code.
	for _, m := range fence.FindAllStringSubmatch(e, -1) {
		for _, l := range strings.Split(m[1], "\n") {
			if q, ok := newQuote(l, true, false); ok {
				qs = append(qs, q)
			}
		}
	}
	e = fence.ReplaceAllString(e, "\n")

	for _, raw := range strings.Split(e, "\n") {
		if strings.TrimSpace(raw) == "" {
			continue
		}
		rest, path, span := raw, "", 0
		located := false
		if loc := locationPrefix.FindStringSubmatchIndex(raw); loc != nil && loc[1] > 0 {
			rest, located = raw[loc[1]:], true
			if loc[2] >= 0 && strings.ContainsAny(raw[loc[2]:loc[3]], "./") {
				path = raw[loc[2]:loc[3]]
			}
			if loc[6] >= 0 {
				from, _ := strconv.Atoi(raw[loc[4]:loc[5]])
				to, _ := strconv.Atoi(raw[loc[6]:loc[7]])
				if to > from && to-from <= maxSpan {
					span = to - from
				}
			}
		}
		spans := backtickSpan.FindAllStringSubmatchIndex(rest, -1)
		if len(spans) > 0 {
			whole := len(spans) == 1 && strings.TrimSpace(rest[:spans[0][0]]) == "" && strings.TrimSpace(rest[spans[0][1]:]) == ""
			for _, s := range spans {
				var text string
				if s[2] >= 0 { // ``double-backtick`` span
					text = rest[s[2]:s[3]]
				} else {
					text = rest[s[4]:s[5]]
				}
				if q, ok := newQuote(text, whole || located, false); ok {
					q.path, q.span = path, span
					qs = append(qs, q)
				}
			}
			continue
		}
		alts := []string{rest}
		if located && strings.TrimSpace(rest) != "" {
			alts = append(alts, raw) // "case 1: return x" is code, not a location
		}
		code := looksLikeCode(rest)
		q := quote{code: code, wholeLine: !code, path: path, span: span}
		for _, a := range alts {
			for _, v := range readings(a) {
				if !slices.Contains(q.variants, v) {
					q.variants = append(q.variants, v)
				}
			}
		}
		if len(q.variants) > 0 {
			qs = append(qs, q)
		}
	}
	return qs
}

// newQuote makes a quote of one code text.
func newQuote(text string, code, wholeLine bool) (quote, bool) {
	vs := readings(text)
	return quote{variants: vs, code: code, wholeLine: wholeLine}, len(vs) > 0
}

// readings are the normalized ways to read s: as written, with the prompt's
// escapes of invisible characters decoded, without a leading diff marker,
// without surrounding quotes. Readings too short to prove
// anything are left out.
func readings(s string) []string {
	var out []string
	add := func(v string) {
		v = normalizeCode(v)
		if nonSpace(ellipsis.ReplaceAllString(v, "")) >= minQuote && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	s = strings.TrimSpace(s)
	add(s)
	// The prompt shows invisible characters as <U+200B>-style escapes; a
	// quote copied from it matches the raw character in the file.
	if escapedRune.MatchString(s) {
		s = spellings(s)[1]
		add(s)
	}
	if len(s) > 1 && (s[0] == '+' || s[0] == '-') && s[1] != s[0] && s[1] != '=' {
		add(s[1:])
	}
	for _, q := range []string{`"`, `'`} {
		if len(s) > 2 && strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && !strings.Contains(s[1:len(s)-1], q) {
			add(s[1 : len(s)-1])
		}
	}
	return out
}

// normalizeCode collapses every run of white space to one space and trims.
func normalizeCode(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// looseCode is s with every run of backslashes collapsed to one. A model
// writing its answer as JSON often halves or doubles a quote's backslashes
// (the file's `'([^\\/'` quoted as `'([^\/'`, one escape lost): a quote
// that matches no line as written is looked for again loosely, on both
// sides, so it still finds its line; a quote that matches as written never
// goes to a line it only matches loosely (`split("\n")` beside
// `split("\\n")`).
func looseCode(s string) string {
	if !strings.Contains(s, `\\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i > 0 && s[i-1] == '\\' {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func nonSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

// looksLikeCode tells a code line from a sentence. Code needs punctuation
// (brackets, braces, a semicolon, or "=" in an assignment or comparison: a
// bare "<" reads as prose too, "page < 1 becomes 1"); a line with
// it is still prose when it holds two or more English function words ("the
// error from os.Open() is ignored"), or reads as a sentence: capitalized,
// then mostly plain lower-case words ("Token compared with == leaks
// timing"). Function words that are also keywords (in, is, not, for, as,
// and, or, of) are not counted: "if x is not None and y in z:" is code.
func looksLikeCode(s string) bool {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "(){}[];=") {
		return false
	}
	words := strings.Fields(s)
	plain, function := 0, 0
	for _, w := range words {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
		if isPlainWord(w) {
			plain++
		}
		if proseWords[strings.ToLower(w)] {
			function++
		}
	}
	if function >= 2 {
		return false
	}
	first := []rune(words[0])
	sentence := len(words) > 2 && unicode.IsUpper(first[0]) && isPlainWord(strings.ToLower(words[0])) && isPlainWord(words[1])
	return !(sentence && plain >= 2 && 2*plain >= len(words))
}

// isPlainWord: two or more lower-case ASCII letters and nothing else.
func isPlainWord(w string) bool {
	return len(w) >= 2 && strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) < 0
}

// proseWords are English function words code rarely holds as bare tokens.
var proseWords = map[string]bool{
	"the": true, "an": true, "are": true, "was": true, "were": true, "be": true, "been": true,
	"this": true, "that": true, "these": true, "those": true, "to": true, "when": true,
	"which": true, "because": true, "never": true, "does": true, "doesn't": true, "isn't": true,
	"it": true, "its": true, "here": true, "there": true, "should": true, "would": true,
	"could": true, "will": true, "without": true, "but": true, "than": true, "with": true,
	"from": true, "has": true, "have": true, "so": true,
}

// minLineInQuote is the fewest non-space characters a line needs to match
// a quote that holds it whole: a code quote may run on into prose
// ("rows.Scan(&n) ignores the error") or join two lines, but "return" or
// "}" inside a quote proves nothing.
const minLineInQuote = 8

// Match strengths: a line that holds the quote (or its ellipsis pieces)
// beats a line the quote holds, which joined-line and run-on quotes need
// but which a short line ("return err") also passes.
const (
	noMatch = iota
	lineInQuote
	quoteInLine
)

// matches says how line matches the quote variant v (whose pieces around
// an ellipsis are frags, nil without one): it holds v, or, for a code
// quote, v holds the whole line.
func matches(l *searchLine, v string, frags []string, wholeLine, loose bool) int {
	text := l.text
	if loose {
		text = l.loose
	}
	if wholeLine {
		if text == v {
			return quoteInLine
		}
		return noMatch
	}
	if strings.Contains(text, v) {
		return quoteInLine
	}
	if frags != nil {
		at, ok := 0, true
		for _, p := range frags {
			i := strings.Index(text[at:], p)
			if i < 0 {
				ok = false
				break
			}
			at += i + len(p)
		}
		if ok {
			return quoteInLine
		}
	}
	if l.long && strings.Contains(v, text) {
		return lineInQuote
	}
	return noMatch
}

// fragments splits a quote at its ellipses into the pieces that must occur
// in order; nil when it has none.
func fragments(v string) []string {
	if !ellipsis.MatchString(v) {
		return nil
	}
	var out []string
	for _, p := range ellipsis.Split(v, -1) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// searchLine is one line quotes are looked for on.
type searchLine struct {
	no      int    // new-side line number the finding would point at
	text    string // normalized
	loose   string // text with its runs of backslashes collapsed (looseCode)
	changed bool   // an added or deleted line of the diff
	long    bool   // at least minLineInQuote non-space characters
}

// anchorer anchors findings against the head versions of the PR's files.
type anchorer struct {
	heads map[string]string
	cache map[*diff.File][]searchLine
	// headLines counts a file's head lines, when the head is known.
	headLines map[*diff.File]int
	// strength is scratch space for anchor, one slot per search line.
	strength []int
	// snapped counts the findings whose line anchor moved.
	snapped int
}

func newAnchorer(heads map[string]string) *anchorer {
	return &anchorer{heads: heads, cache: map[*diff.File][]searchLine{}, headLines: map[*diff.File]int{}}
}

// lines is the search space of f, built once per file.
func (a *anchorer) lines(f *diff.File) []searchLine {
	if ls, ok := a.cache[f]; ok {
		return ls
	}
	added := map[int]bool{}
	var ls []searchLine
	for _, h := range f.Hunks {
		for i, l := range h.Lines {
			switch l.Kind {
			case diff.Add:
				added[l.NewNo] = true
			case diff.Delete:
				ls = append(ls, searchLine{no: deletionLine(h, i), text: normalizeCode(l.Text), changed: true})
			}
		}
	}
	if head, ok := a.heads[f.Path()]; ok && f.Status != diff.Deleted && agrees(f, head) {
		n := 0
		for l := range strings.Lines(head) {
			n++
			ls = append(ls, searchLine{no: n, text: normalizeCode(l), changed: added[n]})
		}
		a.headLines[f] = n
	} else {
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Kind != diff.Delete {
					ls = append(ls, searchLine{no: l.NewNo, text: normalizeCode(l.Text), changed: l.Kind == diff.Add})
				}
			}
		}
	}
	for i := range ls {
		ls[i].long = nonSpace(ls[i].text) >= minLineInQuote
		ls[i].loose = looseCode(ls[i].text)
	}
	a.cache[f] = ls
	return ls
}

// agrees reports whether head is the new version the diff describes: every
// context and added line stands at its number. A head read from somewhere
// else (a local --diff reviewed against a working tree that moved on) would
// anchor findings to the wrong text, so it is not used.
func agrees(f *diff.File, head string) bool {
	var lines []string
	for l := range strings.Lines(head) {
		lines = append(lines, l)
	}
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Kind == diff.Delete {
				continue
			}
			if l.NewNo < 1 || l.NewNo > len(lines) || normalizeCode(lines[l.NewNo-1]) != normalizeCode(l.Text) {
				return false
			}
		}
	}
	return true
}

// deletionLine is the new-side line where the deleted line i of h stood:
// the next line the new version keeps, else the last one before it.
func deletionLine(h diff.Hunk, i int) int {
	for _, l := range h.Lines[i+1:] {
		if l.Kind != diff.Delete {
			return l.NewNo
		}
	}
	for j := i - 1; j >= 0; j-- {
		if l := h.Lines[j]; l.Kind != diff.Delete {
			return l.NewNo
		}
	}
	return max(h.NewStart, 1)
}

// inHead reports whether line n can be in f's head version: always, when
// the head is not known.
func (a *anchorer) inHead(f *diff.File, n int) bool {
	a.lines(f)
	total, ok := a.headLines[f]
	return !ok || n <= total
}

// anchor checks f's evidence, read into quotes (quotesOf), against df and
// snaps f.Line. It reports false
// when f must be dropped as unanchored (its code quotes occur nowhere in the
// head file: without a head file nothing is dropped); otherwise it also returns the lines
// f's evidence quotes: for each code quote (or prose equal to a whole line)
// that matched, its occurrence nearest the final line (sorted, no repeats).
func (a *anchorer) anchor(f *finding.Finding, df *diff.File, all []quote) (bool, []int) {
	var qs []quote
	for _, q := range all {
		if q.path == "" || samePath(q.path, df.Path()) {
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 {
		return true, nil
	}
	ls := a.lines(df)
	type hit struct {
		span int
		at   []searchLine
		// precise: a code quote, or prose equal to a whole line; an
		// identifier named in prose locates but does not pin a line.
		precise bool
	}
	var hits []hit
	anyCode := false
	for _, q := range qs {
		anyCode = anyCode || q.code
		// The strongest matches only; among lines the quote holds, the
		// longer ones (a joined quote holds its statement's lines, and
		// maybe a "return err" that proves nothing). As written first,
		// then loosely (looseCode).
		var at []searchLine
		a.strength = slices.Grow(a.strength[:0], len(ls))[:len(ls)]
		strength := a.strength
		best, longest := matchLines(ls, q.variants, q.wholeLine, false, strength)
		if best == noMatch {
			var loose []string
			for _, v := range q.variants {
				if l := looseCode(v); !slices.Contains(loose, l) {
					loose = append(loose, l)
				}
			}
			best, longest = matchLines(ls, loose, q.wholeLine, true, strength)
		}
		for i := range ls {
			if best != noMatch && strength[i] == best && (best == quoteInLine || 2*len(ls[i].text) >= longest) {
				at = append(at, ls[i])
			}
		}
		if len(at) > 0 {
			hits = append(hits, hit{span: q.span, at: at, precise: q.code || q.wholeLine})
		}
	}
	if len(hits) == 0 {
		// A code quote found nowhere is dropped only where code can prove
		// it: in the head file. Without one (unreadable, or a local tree
		// that moved on) the diff shows too little to refute a quote of
		// unchanged code, so the finding stays for the validator to judge.
		_, haveHead := a.headLines[df]
		return !anyCode || !haveHead, nil
	}
	onQuote := slices.ContainsFunc(hits, func(h hit) bool {
		return slices.ContainsFunc(h.at, func(l searchLine) bool { return l.no <= f.Line && f.Line <= l.no+h.span })
	})
	if !onQuote {
		at := hits[0].at
		if slices.ContainsFunc(at, func(l searchLine) bool { return l.changed }) {
			at = slices.DeleteFunc(slices.Clone(at), func(l searchLine) bool { return !l.changed })
		}
		f.Line = nearest(at, f.Line)
		a.snapped++
	}
	lines := make([]int, 0, len(hits))
	for _, h := range hits {
		if h.precise {
			lines = append(lines, nearest(h.at, f.Line))
		}
	}
	slices.Sort(lines)
	return true, slices.Compact(lines)
}

// matchLines fills strength with how each line of ls matches a quote's
// variants (matches), and returns the best strength and the longest line
// matched as held in the quote.
func matchLines(ls []searchLine, variants []string, wholeLine, loose bool, strength []int) (best, longest int) {
	clear(strength)
	best = noMatch
	frags := make([][]string, len(variants))
	for i, v := range variants {
		frags[i] = fragments(v)
	}
	for i := range ls {
		for j, v := range variants {
			strength[i] = max(strength[i], matches(&ls[i], v, frags[j], wholeLine, loose))
		}
		best = max(best, strength[i])
		if strength[i] == lineInQuote {
			longest = max(longest, len(ls[i].text))
		}
	}
	return best, longest
}

// nearest returns the line of at nearest to n, the lower one on a tie.
func nearest(at []searchLine, n int) int {
	return slices.MinFunc(at, func(x, y searchLine) int {
		return cmp.Or(cmp.Compare(distance(x.no, n), distance(y.no, n)), cmp.Compare(x.no, y.no))
	}).no
}

// samePath reports whether a path named in evidence is the file's: the
// same after normalizePath, or a tail of it at a "/" (models shorten
// "internal/store/users.go" to "store/users.go" or "users.go").
func samePath(named, file string) bool {
	named, file = normalizePath(named), normalizePath(file)
	return named == file || strings.HasSuffix(file, "/"+named) || strings.HasSuffix(named, "/"+file)
}

func distance(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

// NamedFiles returns the PR files that the answers' findings name, each
// once, in the order of files: the files whose head versions Input.Heads
// should hold. Names are matched the way step 1 matches them.
func NamedFiles(results []PersonaResult, files []*diff.File) []*diff.File {
	ix := newFileIndex(files)
	named := map[*diff.File]bool{}
	for _, r := range results {
		for _, f := range r.Answer.Findings {
			if df, ok := ix.lookup(f.File); ok && df.Status != diff.Deleted {
				named[df] = true
			}
		}
	}
	var out []*diff.File
	for _, f := range files {
		if named[f] {
			out = append(out, f)
			delete(named, f)
		}
	}
	return out
}
