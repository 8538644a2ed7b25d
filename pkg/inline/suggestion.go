package inline

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/report"
)

// Bounds of a suggestion code accepts.
const (
	// MaxSuggestionLines bounds both the replaced range and the replacement.
	MaxSuggestionLines = 40
	// MaxSuggestionBytes bounds the replacement text.
	MaxSuggestionBytes = 4096
)

// ErrSuggestion is wrapped by every reason CheckSuggestion refuses one.
var ErrSuggestion = errors.New("suggestion dropped")

// CheckSuggestion decides whether s may be rendered as a committable
// suggestion on finding line `line` of file f: the range is ordered, covers
// the finding's line, lies inside ONE hunk on the new side, is bounded, and
// the replacement is different from the current text and carries nothing a
// reader could not see (control, invisible or bidi characters), no secret
// and no anchor-review marker. It returns the replacement to render (line
// endings normalized, one trailing newline removed).
//
// Suggested code is committed as written, so it is refused rather than
// rewritten: escaping it would change the code a click commits.
func CheckSuggestion(s finding.Suggestion, line int, f *diff.File, secrets []string) (string, error) {
	bad := func(format string, args ...any) (string, error) {
		return "", fmt.Errorf("%w: %s", ErrSuggestion, fmt.Sprintf(format, args...))
	}
	switch {
	case f == nil:
		return bad("the file is not in the diff")
	case s.StartLine < 1 || s.EndLine < 1:
		return bad("lines must be 1 or more")
	case s.StartLine > s.EndLine:
		return bad("start_line %d is after end_line %d", s.StartLine, s.EndLine)
	case s.EndLine-s.StartLine+1 > MaxSuggestionLines:
		return bad("it replaces more than %d lines", MaxSuggestionLines)
	case line < s.StartLine || line > s.EndLine:
		return bad("lines %d-%d do not cover the finding's line %d", s.StartLine, s.EndLine, line)
	}
	current, ok := hunkText(f, s.StartLine, s.EndLine)
	if !ok {
		return bad("lines %d-%d are not inside one hunk of the diff", s.StartLine, s.EndLine)
	}
	repl := strings.ReplaceAll(s.Replacement, "\r\n", "\n")
	repl = strings.TrimSuffix(repl, "\n")
	switch {
	case len(repl) > MaxSuggestionBytes:
		return bad("the replacement is larger than %d bytes", MaxSuggestionBytes)
	case strings.Count(repl, "\n")+1 > MaxSuggestionLines:
		return bad("the replacement has more than %d lines", MaxSuggestionLines)
	case !utf8.ValidString(repl):
		return bad("the replacement is not valid UTF-8")
	case strings.IndexFunc(repl, hiddenOrControl) >= 0:
		return bad("the replacement holds control, invisible or bidi characters")
	case strings.Contains(strings.ToLower(repl), "anchor-review:"):
		return bad("the replacement holds an anchor-review marker")
	case report.Redact(repl, secrets) != repl:
		return bad("the replacement holds secret-shaped text")
	case repl == current:
		return bad("the replacement equals the current code")
	}
	return repl, nil
}

// hiddenOrControl is a rune that must not reach a committable suggestion:
// anything a reviewer could not see (prompt.Hidden: zero-width, bidi, tag
// characters) or a control character other than tab and newline.
func hiddenOrControl(r rune) bool {
	if r == '\t' || r == '\n' {
		return false
	}
	return unicode.IsControl(r) || prompt.Hidden(r) || r == utf8.RuneError
}

// hunkText returns the new-side text of lines start..end when one hunk of f
// holds all of them.
func hunkText(f *diff.File, start, end int) (string, bool) {
	for _, h := range f.Hunks {
		last := h.NewStart + h.NewLines - 1
		if h.NewLines == 0 || start < h.NewStart || end > last {
			continue
		}
		var lines []string
		for _, l := range h.Lines {
			if l.Kind != diff.Delete && l.NewNo >= start && l.NewNo <= end {
				lines = append(lines, l.Text)
			}
		}
		if len(lines) != end-start+1 {
			return "", false // a malformed hunk: refuse rather than guess
		}
		return strings.Join(lines, "\n"), true
	}
	return "", false
}

// fence returns a backtick fence longer than any backtick run in code, and
// at least three long, so the code cannot close the block early.
func fence(code string) string {
	longest, run := 0, 0
	for _, r := range code {
		if r == '`' {
			run++
			longest = max(longest, run)
			continue
		}
		run = 0
	}
	return strings.Repeat("`", max(3, longest+1))
}
