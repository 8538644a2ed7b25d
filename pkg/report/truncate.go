package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/anchor-review/anchor-review/pkg/marker"
)

const metaLinePrefix = "<!-- anchor-review:meta "

// Truncate is the last resort for a body over max runes (max <= 0 means
// DefaultMaxLen). Length is counted in runes, Unicode code points, which is
// how GitHub counts the characters of a comment. The result:
//   - keeps the marker and metadata lines when the body starts with them;
//   - cuts the rest at a line boundary when there is one, else at a rune
//     boundary, never inside a tag;
//   - closes any <details>, HTML comment or code fence the cut left open;
//   - ends with a line saying the report was cut;
//   - is valid UTF-8 (invalid bytes become U+FFFD) and at most max runes.
//
// Comment trims structurally first (Coverage, then the lowest findings), so
// Truncate only cuts text when that was not enough.
func Truncate(body string, max int) string {
	if max <= 0 {
		max = DefaultMaxLen
	}
	return truncate(body, max, inRunes)
}

// TruncateBytes is Truncate counting UTF-8 bytes: GitHub's unit for a
// check run's summary and text (65,535 bytes), where a report in CJK or
// emoji has three or four bytes to a character.
func TruncateBytes(body string, max int) string {
	if max <= 0 {
		max = CheckSummaryMax
	}
	return truncate(body, max, inBytes)
}

// unit is how a limit is counted: size measures a string, offset is the
// byte offset of the longest prefix of s of at most n units that ends on
// a rune boundary.
type unit struct {
	name   string
	size   func(string) int
	offset func(s string, n int) int
}

var (
	inRunes = unit{"characters", utf8.RuneCountInString, runeOffset}
	inBytes = unit{"bytes", func(s string) int { return len(s) }, byteOffset}
)

// byteOffset is the largest rune boundary of s at or below n.
func byteOffset(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	if n <= 0 {
		return 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

func truncate(body string, max int, u unit) string {
	body = strings.ToValidUTF8(body, "\uFFFD")
	if u.size(body) <= max {
		return body
	}
	head, rest := splitHead(body)
	note := fmt.Sprintf("\n\n_Trimmed: this report was cut to fit GitHub's limit of %s %s; the job summary has the full report._\n", fmtInt(max), u.name)
	budget := max - u.size(head) - u.size(note)
	if budget < 0 {
		note = ""
		budget = max - u.size(head)
	}
	if budget < 0 {
		// Not even the hidden lines fit: keep the marker alone if possible.
		if head != "" && u.size(marker.Report)+1 <= max {
			return marker.Report + "\n"
		}
		if head != "" && u.size(marker.Report) <= max {
			return marker.Report
		}
		return body[:u.offset(body, max)]
	}
	return head + cutContent(rest, budget, u) + note
}

// splitHead separates the marker line and the metadata line (when present
// at the top) from the rest.
func splitHead(body string) (head, rest string) {
	line, after, ok := strings.Cut(body, "\n")
	if !ok || strings.TrimSpace(line) != marker.Report {
		return "", body
	}
	head, rest = line+"\n", after
	if line, after, ok := strings.Cut(rest, "\n"); ok && strings.HasPrefix(strings.TrimSpace(line), metaLinePrefix) {
		head, rest = head+line+"\n", after
	}
	return head, rest
}

// cutContent keeps as much of s as fits in budget units together with the
// closers for whatever the cut leaves open.
func cutContent(s string, budget int, u unit) string {
	limit := budget
	for {
		kept := s[:u.offset(s, limit)]
		if len(kept) < len(s) {
			if i := strings.LastIndexByte(kept, '\n'); i >= 0 {
				kept = kept[:i+1]
			}
			// Never end inside a tag: drop a trailing unfinished "<…".
			if i := strings.LastIndexByte(kept, '<'); i > strings.LastIndexByte(kept, '>') {
				kept = kept[:i]
			}
		}
		closing := closers(kept)
		n := u.size(kept)
		if n+u.size(closing) <= budget {
			return kept + closing
		}
		limit = min(budget-u.size(closing), n-1)
		if limit < 0 {
			limit = 0
		}
	}
}

// closers returns what closes the constructs left open in s: an HTML
// comment, a code fence, and every <details>.
func closers(s string) string {
	var b strings.Builder
	if open, end := strings.LastIndex(s, "<!--"), strings.LastIndex(s, "-->"); open >= 0 && end < open {
		b.WriteString(" -->")
	}
	fences := 0
	for line := range strings.Lines(s) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fences++
		}
	}
	if fences%2 == 1 {
		if !strings.HasSuffix(s, "\n") {
			b.WriteString("\n")
		}
		b.WriteString("```")
	}
	for range detailsDepth(s) {
		b.WriteString("\n</details>")
	}
	return b.String()
}

// detailsDepth counts <details> elements opened and not closed in s.
func detailsDepth(s string) int {
	return max(strings.Count(s, "<details")-strings.Count(s, "</details>"), 0)
}
