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

func TestHasReportNeedsOwnLine(t *testing.T) {
	if HasReport("quoted " + Report + " inline") {
		t.Error("HasReport accepted an inline marker")
	}
}

func TestFormatMetaCannotCloseComment(t *testing.T) {
	line := FormatMeta(Meta{Version: 1, Verdict: "--> <b>"})
	if strings.Count(line, "-->") != 1 {
		t.Fatalf("meta line closes the HTML comment early: %s", line)
	}
}

func ExampleParseMeta() {
	body := Report + "\n" + FormatMeta(Meta{HeadSHA: "abc", Verdict: "not-ready", Conclusion: "failure", Blocking: 1}) + "\n## anchor-review: 1 finding\n"
	m, err := ParseMeta(body)
	fmt.Println(HasReport(body), m.Verdict, m.Conclusion, m.Blocking, err)
	// Output: true not-ready failure 1 <nil>
}

// FuzzParseMeta: every PR comment body reaches ParseMeta and HasReport
// (skip rule 4); neither may panic, and a parsed meta round-trips.
func FuzzParseMeta(f *testing.F) {
	f.Add(Report + "\n" + FormatMeta(Meta{HeadSHA: "abc", Verdict: "ready", Conclusion: "success"}))
	f.Add("<!-- anchor-review:meta {\"version\":1} -->")
	f.Add("<!-- anchor-review:meta {\"version\":1,\"verdict\":\"--><b>\"} -->\n" + Report)
	f.Fuzz(func(t *testing.T, body string) {
		_ = HasReport(body)
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
