package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/anchor-review/anchor-review/pkg/marker"
)

var testMeta = marker.FormatMeta(marker.Meta{Version: 1, HeadSHA: headSHA, Verdict: "ready", Conclusion: "success"})

func TestTruncate(t *testing.T) {
	head := marker.Report + "\n" + testMeta + "\n"
	long := strings.Repeat("line of text\n", 100)
	tests := []struct {
		name     string
		body     string
		max      int
		want     string // exact result, when set
		contains []string
		absent   []string
	}{
		{name: "fits", body: head + "short\n", max: 1000, want: head + "short\n"},
		{name: "default max", body: head + "short\n", max: 0, want: head + "short\n"},
		{name: "invalid utf8 repaired", body: "a\xffb", max: 10, want: "a\uFFFDb"},
		{
			name: "cut at a line", body: head + long, max: 400,
			contains: []string{head + "line of text\n", "_Trimmed: this report was cut to fit GitHub's limit of 400 characters"},
			absent:   []string{"line of t\n"},
		},
		{
			name: "closes details", body: head + "<details><summary>Coverage</summary>\n\n" + long + "</details>\n", max: 400,
			contains: []string{"\n</details>\n\n_Trimmed"},
		},
		{
			name: "closes nested details", body: head + "<details>\n<details open>\n" + long, max: 400,
			contains: []string{"\n</details>\n</details>\n\n_Trimmed"},
		},
		{
			name: "closes a code fence", body: head + "```go\n" + long, max: 400,
			contains: []string{"```\n\n_Trimmed"},
		},
		{
			name: "multibyte runes", body: head + strings.Repeat("é😀", 400), max: 300,
			contains: []string{head},
		},
		{name: "no marker", body: long, max: 200, contains: []string{"line of text\n", "_Trimmed"}},
		{name: "note does not fit", body: head + long, max: utf8.RuneCountInString(head) + 20, absent: []string{"_Trimmed"}, contains: []string{head}},
		{name: "only the marker line fits", body: head + long, max: utf8.RuneCountInString(marker.Report) + 5, want: marker.Report + "\n"},
		{name: "only the marker fits", body: head + long, max: utf8.RuneCountInString(marker.Report), want: marker.Report},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.body, tt.max)
			limit := tt.max
			if limit <= 0 {
				limit = DefaultMaxLen
			}
			if n := utf8.RuneCountInString(got); n > limit {
				t.Errorf("got %d runes; want <= %d", n, limit)
			}
			if !utf8.ValidString(got) {
				t.Error("invalid UTF-8")
			}
			if tt.want != "" && got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
			for _, s := range tt.contains {
				if !strings.Contains(got, s) {
					t.Errorf("got %q; want it to contain %q", got, s)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(got, s) {
					t.Errorf("got %q; want no %q", got, s)
				}
			}
			if strings.Count(got, "<details") != strings.Count(got, "</details>") {
				t.Errorf("unbalanced <details> in %q", got)
			}
		})
	}
}

func TestCutContentNeverEndsInsideATag(t *testing.T) {
	got := cutContent("<details><summary>"+strings.Repeat("x", 50), 25, inRunes)
	if want := "<details>\n</details>"; got != want {
		t.Errorf("cutContent = %q; want %q", got, want)
	}
}

// prefixBalanced reports whether no prefix of s closes more <details>
// than it opened (the only inputs Truncate can keep balanced).
func prefixBalanced(s string) bool {
	depth := 0
	for i := range len(s) {
		switch {
		case strings.HasPrefix(s[i:], "<details"):
			depth++
		case strings.HasPrefix(s[i:], "</details>"):
			depth--
		}
		if depth < 0 {
			return false
		}
	}
	return depth == 0
}

func FuzzTruncate(f *testing.F) {
	f.Add("<details><summary>Coverage</summary>\n\n- a\n- b\n</details>\n", 200)
	f.Add(strings.Repeat("| 1 | [a.go:1](u) | **t** | c | 75 |\n", 30), 300)
	f.Add("<details>\n<details>\n"+strings.Repeat("ü", 300)+"</details></details>", 180)
	f.Add("```\ncode\n<!-- open comment\n", 150)
	f.Add("\xff\xfe<detai", 140)
	f.Fuzz(func(t *testing.T, content string, max int) {
		if max < 0 {
			max = -max
		}
		max = 31 + max%5000 // at least the marker line
		body := marker.Report + "\n" + testMeta + "\n" + content
		got := Truncate(body, max)
		if n := utf8.RuneCountInString(got); n > max {
			t.Fatalf("got %d runes; want <= %d", n, max)
		}
		if !strings.HasPrefix(got, marker.Report+"\n") {
			t.Fatalf("result does not start with the marker line: %q", got)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		if prefixBalanced(content) && strings.Count(got, "<details") != strings.Count(got, "</details>") {
			t.Fatalf("unbalanced <details>: %q", got)
		}
	})
}
