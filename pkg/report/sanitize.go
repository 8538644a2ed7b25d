package report

import (
	"github.com/anchor-review/anchor-review/pkg/prompt"

	"bytes"
	"cmp"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Redacted replaces anything shaped like a secret.
const Redacted = "[REDACTED]"

// escapedRedacted is Redacted as Markdown text: brackets escaped so it can
// never open a link.
const escapedRedacted = `\[REDACTED\]`

// linkRemoved replaces a bare URL to a host other than the repository's.
const linkRemoved = "(link removed)"

// minSecretLen is the shortest o.Secrets value that is redacted.
const minSecretLen = 4

// Compiled once; regexps are safe for concurrent use and never modified.
var (
	// secretPatterns match credentials by shape. Each is anchored on a word
	// boundary so ordinary words ("task-list") do not match. The hint is a
	// literal every match contains (case-folded when fold is set), checked
	// first because most text holds no secret and regexps are slow.
	secretPatterns = []struct {
		re   *regexp.Regexp
		hint string
	}{
		{regexp.MustCompile(`(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|$)`), "PRIVATE KEY"},
		{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`), "sk-"},
		{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`), "github_pat_"},
		{regexp.MustCompile(`\bgh[opsur]_[A-Za-z0-9]{20,}`), "_"},
		{regexp.MustCompile(`\bxox[baprs]-[A-Za-z0-9-]{10,}`), "xox"},
		{regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`), "AKIA"},
		{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`), "eyJ"},
	}
	// bearerPattern's replacement keeps the scheme word so the text reads.
	bearerPattern = regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}`)
	// markerPattern matches copies of the hidden marker words in any case.
	markerPattern = regexp.MustCompile(`(?i)anchor-review:(?:report|meta)`)
	// linkPattern matches inline links and images: [text](dest "title").
	linkPattern = regexp.MustCompile(`(!?)\[([^\[\]]*)\]\(\s*([^()\s]*)(?:\s+"[^"]*")?\s*\)`)
	// bareURLPattern matches what GitHub could autolink: scheme URLs and
	// www. hosts, up to whitespace or '<'. No word boundary: GitHub also
	// autolinks after '_' or '*', which \b would miss.
	bareURLPattern = regexp.MustCompile(`(?i)(?:(?:https?|ftp)://|www\.)[^\s<>]*`)
	// issueRefPattern matches #123, which GitHub turns into a cross-reference
	// (a timeline event in the referenced issue).
	issueRefPattern = regexp.MustCompile(`#([0-9])`)

	// cellEscaper escapes text for a Markdown table cell. Backslash first:
	// it is the escape character itself. A backtick left here is one no
	// code span (codeSpans) took: escaped, it cannot open one; '@' gets a
	// zero-width space so no mention can ping.
	cellEscaper = strings.NewReplacer(
		`\`, `\\`,
		"&", "&amp;",
		"<", "&lt;",
		">", "&gt;",
		"|", `\|`,
		"[", `\[`,
		"]", `\]`,
		"`", "\\`",
		"@", "@\u200b",
	)
	// urlEscaper makes a kept link destination safe in a table cell.
	urlEscaper = strings.NewReplacer(
		"@", "%40",
		"|", "%7C",
		`\`, "%5C",
		"`", "%60",
		"<", "%3C",
		">", "%3E",
		"[", "%5B",
		"]", "%5D",
		`"`, "%22",
		"&", "&amp;",
	)
)

// Sanitize turns model-written (or pull-request-controlled) text into safe
// single-line Markdown for a table cell or list item:
//   - invisible characters (zero-width, bidi controls, tag characters) are
//     stripped, newlines and other whitespace runs become one space;
//   - every o.Secrets value (4 runes or longer) and anything shaped like a
//     key or token (sk-…, ghp_…, github_pat_…, xoxb-…, AKIA…, private key
//     blocks, Bearer tokens, JWTs) becomes [REDACTED];
//   - images are removed; links and bare URLs to hosts other than
//     o.ServerURL's are replaced by their text or "(link removed)";
//   - text between a pair of backticks becomes a code span (shown as
//     written: no mention, reference, HTML or link works inside one), its
//     pipes escaped for the table; a backtick without a pair, or around
//     text that cannot be a safe span, is escaped;
//   - elsewhere, HTML is escaped (no raw '<' survives), '@' is followed by
//     a zero-width space so mentions cannot ping, '#123' cannot
//     cross-reference, table pipes, brackets, backticks and backslashes
//     are escaped;
//   - copies of the report marker are removed.
//
// Workflow-command shapes ("::error::") mean nothing in Markdown and stay as
// text.
func Sanitize(s string, o Options) string {
	secrets := secretValues(o.Secrets)
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = stripInvisible(s)
	s = redact(s, secrets) // before whitespace folding: key blocks span lines
	s = strings.Join(strings.Fields(s), " ")
	s = rewriteLinks(s, o, secrets)
	s = strings.Join(strings.Fields(s), " ") // removed images leave gaps
	return finalPass(s, secrets, escapedRedacted)
}

// sanitizePlain cleans model text for plain-text surfaces (annotation titles
// and messages, the check title): no Markdown escaping, newlines kept, but
// secrets, mentions, markers and invisible characters are handled as in
// Sanitize.
func sanitizePlain(s string, o Options) string {
	secrets := secretValues(o.Secrets)
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = stripInvisible(s)
	s = redact(s, secrets)
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\u0085':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
	s = plainLinks(s, o.host())
	s = strings.ReplaceAll(s, "@", "@\u200b")
	return strings.TrimSpace(finalPass(s, secrets, Redacted))
}

// finalPass removes marker copies and redacts once more until nothing
// changes: removing text can join the halves of a secret or a marker. repl
// is the replacement, already escaped for the output's syntax.
func finalPass(s string, secrets []string, repl string) string {
	for range 8 {
		next := s
		if containsFold(s, "anchor-review:") {
			next = markerPattern.ReplaceAllString(s, "")
		}
		next = redactWith(next, secrets, repl)
		if next == s {
			break
		}
		s = next
	}
	return s
}

// secretValues keeps the redactable secrets, longest first so a secret that
// contains another is redacted whole.
func secretValues(in []string) []string {
	var out []string
	for _, s := range in {
		if utf8.RuneCountInString(s) >= minSecretLen && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return out
}

// redact replaces secret values and secret-shaped text with Redacted.
func redact(s string, secrets []string) string { return redactWith(s, secrets, Redacted) }

// Redact replaces every value of secrets (long enough to be one; longest
// first, so a secret containing another goes whole) and
// anything shaped like a key or token (sk-…, ghp_…, github_pat_…, AKIA…,
// private-key blocks, Bearer values, JWTs) with Redacted. It does no other
// escaping: use it for text that is not Markdown (logs, the JSON report).
func Redact(s string, secrets []string) string { return redact(s, secretValues(secrets)) }

// redactWith replaces secret values and secret-shaped text with repl,
// repeating until nothing changes (a replacement can complete a pattern).
func redactWith(s string, secrets []string, repl string) string {
	for range 8 {
		before := s
		for _, v := range secrets {
			s = strings.ReplaceAll(s, v, repl)
		}
		for _, p := range secretPatterns {
			if strings.Contains(s, p.hint) {
				s = p.re.ReplaceAllLiteralString(s, repl)
			}
		}
		if containsFold(s, "bearer") {
			s = bearerPattern.ReplaceAllLiteralString(s, "Bearer "+repl)
		}
		if s == before {
			break
		}
	}
	return s
}

// stripInvisible drops characters that hide text from a reader: zero-width
// characters, bidi controls, soft hyphens and Unicode tag characters; and
// control characters (NUL, ESC, BEL, C1 …) but tab and line breaks, which
// GitHub must never receive.
func stripInvisible(s string) string {
	return strings.Map(func(r rune) rune {
		if prompt.Hidden(r) || (unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r') {
			return -1
		}
		return r
	}, s)
}

// LogLine makes untrusted text safe for one line of an Actions log: line
// breaks become spaces, control characters go, a line that would start a
// workflow command ("::") is quoted with "> ", and the runner's legacy
// "##[" syntax, which works anywhere in a line, is broken up as "## [".
// Secrets are not this function's job (see Redact).
func LogLine(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\r' || r == '\n' || r == '\u2028' || r == '\u2029' || r == '\u0085':
			return ' '
		case r == '\t':
			return r
		case unicode.IsControl(r) || prompt.Hidden(r):
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	for strings.Contains(s, "##[") {
		s = strings.ReplaceAll(s, "##[", "## [")
	}
	if strings.HasPrefix(strings.TrimSpace(s), "::") {
		s = "> " + s
	}
	return s
}

// rewriteLinks splits s into plain text and inline links, drops images,
// keeps links to the repository's host, replaces other links by their
// text, and escapes the plain text for a table cell. Plain text is escaped
// after the split, so no bracket left in it can form a new link.
func rewriteLinks(s string, o Options, secrets []string) string {
	host := o.host()
	var out, run strings.Builder
	flush := func() {
		// A removed link can join two halves of a secret: redact the run.
		out.WriteString(escapeText(redact(run.String(), secrets), host))
		run.Reset()
	}
	var matches [][]int
	if strings.Contains(s, "](") {
		matches = linkPattern.FindAllStringSubmatchIndex(s, -1)
	}
	last := 0
	for _, m := range matches {
		run.WriteString(s[last:m[0]])
		last = m[1]
		image := m[3] > m[2]
		text, dest := s[m[4]:m[5]], s[m[6]:m[7]]
		switch {
		case image:
			// Images can track readers and carry text; drop them whole.
		case sameHost(dest, host):
			flush()
			out.WriteString("[" + escapeText(redact(text, secrets), host) + "](" + urlEscaper.Replace(dest) + ")")
		default:
			run.WriteString(text)
		}
	}
	run.WriteString(s[last:])
	flush()
	return out.String()
}

// plainLinks is rewriteLinks for plain text: images dropped, links to
// other hosts replaced by their text, bare URLs to other hosts removed.
func plainLinks(s, host string) string {
	if !strings.Contains(s, "](") {
		return removeForeignURLs(s, host)
	}
	s = linkPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := linkPattern.FindStringSubmatch(m)
		switch {
		case sub[1] != "":
			return ""
		case sameHost(sub[3], host):
			return m
		}
		return sub[2]
	})
	return removeForeignURLs(s, host)
}

// removeForeignURLs replaces bare URLs to hosts other than host.
func removeForeignURLs(s, host string) string {
	if !strings.Contains(s, "://") && !containsFold(s, "www.") {
		return s
	}
	return bareURLPattern.ReplaceAllStringFunc(s, func(u string) string {
		trimmed := strings.TrimRight(u, `?!.,:;*_~'")`)
		if sameHost(trimmed, host) {
			return u
		}
		return linkRemoved + u[len(trimmed):]
	})
}

// escapeText removes bare URLs to other hosts, keeps text between a pair of
// backticks as a code span, and escapes the rest.
func escapeText(s, host string) string {
	s = removeForeignURLs(s, host)
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 {
			break
		}
		if code := s[i+1 : i+1+j]; codeable(code) {
			b.WriteString(escapePlain(s[:i]) + codeSpan(code))
			s = s[i+2+j:]
			continue
		}
		b.WriteString(escapePlain(s[:i+1])) // this backtick stays text
		s = s[i+1:]
	}
	b.WriteString(escapePlain(s))
	return b.String()
}

func escapePlain(s string) string {
	return issueRefPattern.ReplaceAllString(cellEscaper.Replace(s), "#\u200b$1")
}

// codeable reports whether s can be the content of a single-backtick code
// span in a table cell: not blank, no backtick, and no backslash before a
// pipe or at the end (inside a span a backslash is literal, so it would
// turn the pipe's escape, or the closing backtick, back into syntax).
func codeable(s string) bool {
	return strings.TrimSpace(s) != "" && !strings.Contains(s, "`") &&
		!strings.Contains(s, `\|`) && !strings.HasSuffix(s, `\`)
}

// codeSpan renders codeable text as a code span for a table cell: GFM
// splits cells before it parses spans, so pipes keep their escape.
func codeSpan(s string) string { return "`" + strings.ReplaceAll(s, "|", `\|`) + "`" }

// Code renders untrusted text that names something in the repository (a
// file path) as a code span, so the reader sees it exactly as written: no
// zero-width space after an '@' (packages/@scope/...), no escapes; nothing
// in a span can mention, reference or link. Secrets and invisible
// characters are handled as in Sanitize. Text that cannot be a safe span is
// Sanitized instead.
func Code(s string, o Options) string {
	secrets := secretValues(o.Secrets)
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = stripInvisible(s)
	s = strings.Join(strings.Fields(redact(s, secrets)), " ")
	s = finalPass(s, secrets, Redacted)
	if !codeable(s) {
		return Sanitize(s, o)
	}
	return codeSpan(s)
}

// sameHost reports whether raw is an http(s) URL on host.
func sameHost(raw, host string) bool {
	if strings.HasPrefix(strings.ToLower(raw), "www.") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil {
		return false
	}
	return strings.EqualFold(u.Hostname(), host)
}

// containsFold reports whether s contains the ASCII lower-case substr in
// any case. Unicode case folding could map other letters onto ASCII ones
// ('K' for the Kelvin sign), so any non-ASCII byte counts as a possible
// match and sends the caller to the exact regexp.
func containsFold(s, substr string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return strings.Contains(strings.ToLower(s), substr)
}

// clip shortens sanitized text to at most n runes, ending in "…". It never
// leaves a dangling escape backslash.
// Clip shortens Sanitize's output to at most n runes, marking the cut,
// without splitting an escape pair or an entity or leaving a code span
// open.
func Clip(s string, n int) string { return clip(s, n) }

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := s[:runeOffset(s, n-1)]
	// Do not split an escape pair or an entity.
	if i := strings.LastIndexByte(cut, '&'); i >= 0 && !strings.Contains(cut[i:], ";") {
		cut = cut[:i]
	}
	if trailing := len(cut) - len(strings.TrimRight(cut, `\`)); trailing%2 == 1 {
		cut = cut[:len(cut)-1]
	}
	// Do not cut a code span open: what follows its backtick would be
	// Markdown that no escape was written for. (Inside a span '&' and '\'
	// are literal, so the cuts above may have landed in one.)
	if open := openSpan(cut); open >= 0 {
		cut = cut[:open]
	}
	return cut + "…"
}

// openSpan returns the offset of the backtick that opens a code span s
// leaves unclosed, or -1. In Sanitize's output every backtick outside a
// span is escaped, and no span's content ends in a backslash or holds a
// backtick (codeable).
func openSpan(s string) int {
	open := -1
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && open < 0:
			i++ // an escape pair outside a span
		case s[i] == '`' && open < 0:
			open = i
		case s[i] == '`':
			open = -1
		}
	}
	return open
}

// runeOffset is the byte offset of the n-th rune of s (len(s) past the end).
func runeOffset(s string, n int) int {
	if n <= 0 {
		return 0
	}
	i := 0
	for off := range s {
		if i == n {
			return off
		}
		i++
	}
	return len(s)
}

// RedactJSON replaces every secret and every secret-shaped string in the
// encoded report with Redacted. It rewrites decoded string values
// (and object keys), so JSON escaping cannot hide a secret from it and the
// result is still valid JSON.
func RedactJSON(b []byte, secrets []string) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return b
	}
	out, err := json.MarshalIndent(redactValue(v, secrets), "", "  ")
	if err != nil {
		return b
	}
	return out
}

func redactValue(v any, secrets []string) any {
	switch t := v.(type) {
	case string:
		return Redact(t, secrets)
	case []any:
		for i := range t {
			t[i] = redactValue(t[i], secrets)
		}
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[Redact(k, secrets)] = redactValue(e, secrets)
		}
		return m
	}
	return v
}
