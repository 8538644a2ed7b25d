package inline

import (
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
)

// FuzzCheckSuggestion feeds model-shaped suggestions through the check and
// the renderer: the check never panics, and whatever it accepts renders as
// exactly one suggestion block that the replacement cannot close early,
// holding the replacement verbatim and nothing a reader could not see.
func FuzzCheckSuggestion(f *testing.F) {
	f.Add(14, 14, "\ttotal := cents * c.Rate", 14)
	f.Add(13, 15, "```\n@everyone <!-- x -->\n````", 14)
	f.Add(15, 15, "", 15)
	f.Add(16, 40, "x", 16)
	f.Add(14, 14, "a\u202eb", 14)
	files := mustParse(sample)
	f.Fuzz(func(t *testing.T, start, end int, repl string, line int) {
		got, err := CheckSuggestion(finding.Suggestion{StartLine: start, EndLine: end, Replacement: repl}, line, files[0], nil)
		if err != nil {
			return
		}
		if strings.IndexFunc(got, hiddenOrControl) >= 0 {
			t.Fatalf("accepted hidden or control characters: %q", got)
		}
		fd := finding.Finding{Title: "t", Severity: finding.P2, File: "billing/charge.go", Line: line, Confidence: 75}
		body := RenderComment(fd, "0123456789abcdef", &got, testOptions)
		fn := fence(got)
		open := fn + "suggestion\n"
		i := strings.Index(body, open)
		if i < 0 {
			t.Fatalf("no suggestion block in:\n%s", body)
		}
		rest := body[i+len(open):]
		// The first line that is only backticks, at least as many as the
		// fence, closes the block: it must be the fence right after the code.
		want := got
		if want != "" {
			want += "\n"
		}
		if !strings.HasPrefix(rest, want+fn+"\n") {
			t.Fatalf("block does not hold the replacement verbatim:\n%s", body)
		}
		for _, l := range strings.Split(got, "\n") {
			if t2 := strings.TrimSpace(l); t2 != "" && strings.Trim(t2, "`") == "" && len(t2) >= len(fn) {
				t.Fatalf("replacement line %q closes the %q fence", l, fn)
			}
		}
	})
}
