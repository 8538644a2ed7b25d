package marker

import (
	"fmt"
	"strings"
	"testing"
)

func TestMetaRoundTrip(t *testing.T) {
	m := Meta{Version: 1, HeadSHA: strings.Repeat("a", 40), Verdict: "not-ready", Conclusion: "failure", Blocking: 2}
	body := Report + "\n" + FormatMeta(m) + "\n\n## report\n"
	if !HasReport(body) {
		t.Fatal("HasReport = false; want true")
	}
	got, err := ParseMeta(body)
	if err != nil {
		t.Fatalf("ParseMeta: %v", err)
	}
	if got != m {
		t.Fatalf("got %+v; want %+v", got, m)
	}
}

func TestParseMetaRejects(t *testing.T) {
	for name, body := range map[string]string{
		"missing":       Report + "\nhello",
		"bad json":      "<!-- anchor-review:meta {not json} -->",
		"unknown field": `<!-- anchor-review:meta {"version":1,"evil":true} -->`,
		"bad version":   `<!-- anchor-review:meta {"version":7} -->`,
	} {
		if _, err := ParseMeta(body); err == nil {
			t.Errorf("%s: ParseMeta accepted %q", name, body)
		}
	}
}

func TestHasReportNeedsFirstLine(t *testing.T) {
	for name, body := range map[string]string{
		"inline":           "quoted " + Report + " inline",
		"second line":      "CI bot says:\n" + Report + "\n",
		"quoted":           "> " + Report + "\n",
		"last line":        "hello\n\n" + Report,
		"after blank line": "\n" + Report + "\n",
	} {
		if HasReport(body) {
			t.Errorf("%s: HasReport accepted %q", name, body)
		}
	}
	if !HasReport(Report + "\r\nbody") {
		t.Error("HasReport refused a CRLF report")
	}
}

// A forged meta line is refused: it must not inject verdicts the
// outputs would echo, nor a head SHA that is not one.
func TestParseReport(t *testing.T) {
	sha := strings.Repeat("a", 40)
	good := Meta{Version: 1, HeadSHA: sha, Verdict: "ready", Conclusion: "success"}
	tests := []struct {
		name, body string
		ok         bool
	}{
		{"valid", Report + "\n" + FormatMeta(good) + "\n## anchor-review\n", true},
		{"meta not second", Report + "\n\n" + FormatMeta(good), false},
		{"marker not first", "x\n" + Report + "\n" + FormatMeta(good), false},
		{"verdict outside enum", Report + "\n" + `<!-- anchor-review:meta {"version":1,"head_sha":"` + sha + `","verdict":"ready\nx=1","conclusion":"success","blocking":0} -->`, false},
		{"conclusion outside enum", Report + "\n" + `<!-- anchor-review:meta {"version":1,"head_sha":"` + sha + `","verdict":"ready","conclusion":"green","blocking":0} -->`, false},
		{"short sha", Report + "\n" + `<!-- anchor-review:meta {"version":1,"head_sha":"abc","verdict":"ready","conclusion":"success","blocking":0} -->`, false},
		{"negative blocking", Report + "\n" + `<!-- anchor-review:meta {"version":1,"head_sha":"` + sha + `","verdict":"ready","conclusion":"success","blocking":-1} -->`, false},
	}
	for _, tt := range tests {
		_, err := ParseReport(tt.body)
		if (err == nil) != tt.ok {
			t.Errorf("%s: ParseReport err = %v; want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func TestFormatMetaCannotCloseComment(t *testing.T) {
	line := FormatMeta(Meta{Version: 1, Verdict: "--> <b>"})
	if strings.Count(line, "-->") != 1 {
		t.Fatalf("meta line closes the HTML comment early: %s", line)
	}
}

func ExampleParseReport() {
	sha := "0123456789abcdef0123456789abcdef01234567"
	body := Report + "\n" + FormatMeta(Meta{HeadSHA: sha, Verdict: "not-ready", Conclusion: "failure", Blocking: 1}) + "\n## anchor-review: 1 finding\n"
	m, err := ParseReport(body)
	fmt.Println(HasReport(body), m.Verdict, m.Conclusion, m.Blocking, err)
	// Output: true not-ready failure 1 <nil>
}

// FuzzParseMeta: every PR comment body reaches ParseMeta and HasReport
// (skip rule 4); neither may panic, and a parsed meta round-trips.
func FuzzParseMeta(f *testing.F) {
	f.Add(Report + "\n" + FormatMeta(Meta{HeadSHA: strings.Repeat("a", 40), Verdict: "ready", Conclusion: "success"}))
	f.Add("<!-- anchor-review:meta {\"version\":1} -->")
	f.Add("<!-- anchor-review:meta {\"version\":1,\"verdict\":\"--><b>\"} -->\n" + Report)
	f.Fuzz(func(t *testing.T, body string) {
		_ = HasReport(body)
		_, _ = ParseReport(body)
		m, err := ParseMeta(body)
		if err != nil {
			return
		}
		again, err := ParseMeta(FormatMeta(m))
		if err != nil || again != m {
			t.Fatalf("round trip of %+v: got %+v, %v", m, again, err)
		}
	})
}
