package marker

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
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
	if !reflect.DeepEqual(got, m) {
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
	f.Add(Report + "\n" + FormatMeta(v2(2)))
	f.Add(`<!-- anchor-review:meta {"version":2,"head_sha":"` + strings.Repeat("a", 40) + `","verdict":"ready","conclusion":"success","blocking":0,"heads":[],"findings":[{"file":"a\u0040b.go","line":1,"severity":"P3","anchor":75,"fingerprint":"0123456789abcdef","title":"x \u0023 y","commit":"` + strings.Repeat("b", 40) + `"}]} -->`)
	f.Add("<!-- anchor-review:meta {\"version\":1,\"verdict\":\"--><b>\"} -->\n" + Report)
	f.Fuzz(func(t *testing.T, body string) {
		_ = HasReport(body)
		_, _ = ParseReport(body)
		m, err := ParseMeta(body)
		if err != nil {
			return
		}
		again, err := ParseMeta(FormatMeta(m))
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Fatalf("round trip of %+v: got %+v, %v", m, again, err)
		}
	})
}

func v2(findings int) Meta {
	sha := strings.Repeat("b", 40)
	m := Meta{Version: 2, HeadSHA: sha, Verdict: "not-ready", Conclusion: "failure", Blocking: 1,
		Heads: []string{strings.Repeat("a", 40), sha}}
	for i := range findings {
		m.Findings = append(m.Findings, Finding{File: fmt.Sprintf("pkg/f%d.go", i), Line: i + 1, Severity: "P1", Anchor: 75,
			Fingerprint: "0123456789abcdef", Title: "nil map write <b>", Reviewer: "correctness", Commit: strings.Repeat("a", 40)})
	}
	return m
}

func TestMetaV2(t *testing.T) {
	t.Run("round trip", func(t *testing.T) {
		m := v2(3)
		got, err := ParseReport(Report + "\n" + FormatMeta(m) + "\n## x\n")
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Fatalf("got %+v, %v; want %+v", got, err, m)
		}
		if !got.Carries() {
			t.Fatal("a complete v2 meta does not carry")
		}
	})
	t.Run("a zero version writes the current one", func(t *testing.T) {
		m := v2(1)
		m.Version = 0
		got, err := ParseMeta(FormatMeta(m))
		if err != nil || got.Version != Version {
			t.Fatalf("version %d, %v; want %d", got.Version, err, Version)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		m := v2(MaxFindings + 7)
		for range MaxHeads + 5 {
			m.Heads = append(m.Heads, strings.Repeat("c", 40))
		}
		m.Findings[0].Title = strings.Repeat("é", 500) + "\x07"
		line := FormatMeta(m)
		got, err := ParseMeta(line)
		if err != nil {
			t.Fatalf("ParseMeta of a bounded line: %v", err)
		}
		if len(got.Findings) != MaxFindings || !got.Truncated || got.Carries() || len(got.Heads) != MaxHeads {
			t.Fatalf("findings %d, truncated %v, heads %d", len(got.Findings), got.Truncated, len(got.Heads))
		}
		if len(line) > 20_000 {
			t.Fatalf("meta line of %d bytes; want it small", len(line))
		}
	})
	t.Run("version 1 still parses and means review the whole PR", func(t *testing.T) {
		sha := strings.Repeat("a", 40)
		got, err := ParseMeta(`<!-- anchor-review:meta {"version":1,"head_sha":"` + sha + `","verdict":"ready","conclusion":"success","blocking":0} -->`)
		if err != nil || got.Carries() {
			t.Fatalf("v1: %+v, %v; want parsed and not carrying", got, err)
		}
	})
	t.Run("incomplete does not carry", func(t *testing.T) {
		m := v2(1)
		m.Incomplete = true
		if m.Carries() {
			t.Fatal("an incomplete review carries")
		}
	})
}

func TestMetaV2Rejects(t *testing.T) {
	sha := strings.Repeat("a", 40)
	head := `<!-- anchor-review:meta {"version":2,"head_sha":"` + sha + `","verdict":"ready","conclusion":"success","blocking":0,`
	f := func(fields string) string { return head + `"findings":[{` + fields + `}]} -->` }
	ok := `"file":"a.go","line":3,"severity":"P1","anchor":75,"fingerprint":"0123456789abcdef","title":"t","commit":"` + sha + `"`
	if _, err := ParseMeta(f(ok)); err != nil {
		t.Fatalf("the valid base case is refused: %v", err)
	}
	for name, body := range map[string]string{
		"v1 with findings":  strings.Replace(f(ok), `"version":2`, `"version":1`, 1),
		"bad severity":      f(strings.Replace(ok, `"P1"`, `"P9"`, 1)),
		"bad anchor":        f(strings.Replace(ok, `75`, `72`, 1)),
		"line zero":         f(strings.Replace(ok, `"line":3`, `"line":0`, 1)),
		"empty file":        f(strings.Replace(ok, `"a.go"`, `""`, 1)),
		"file with newline": f(strings.Replace(ok, `"a.go"`, `"a\nb.go"`, 1)),
		"short fingerprint": f(strings.Replace(ok, `0123456789abcdef`, `0123`, 1)),
		"bad commit":        f(strings.Replace(ok, `"commit":"`+sha, `"commit":"main`, 1)),
		"unknown field":     f(ok + `,"evil":1`),
		"bad head":          head + `"heads":["main"]} -->`,
		"too many findings": head + `"findings":[` + strings.Repeat(`{`+ok+`},`, MaxFindings) + `{` + ok + `}]} -->`,
	} {
		if _, err := ParseMeta(body); err == nil {
			t.Errorf("%s: accepted %s", name, body)
		}
	}
}

// stats is a v2 meta with every release 3 field at its bound.
func stats() Meta {
	m := v2(MaxFindings)
	sha := strings.Repeat("b", 40)
	m.Reviews = 21
	for i := range MaxUsage {
		m.Usage = append(m.Usage, Usage{Name: fmt.Sprintf("custom-persona-%02d", i), Reviews: 21, Calls: 40, PromptTokens: 1_234_567,
			CachedTokens: 1_000_000, CompletionTokens: 45_678, Cost: 1.234567, Unpriced: 1, Posted: 12, ActedOn: 7})
	}
	m.ValidatorUsage = &Usage{Reviews: 21, Calls: 60, PromptTokens: 900_000, CompletionTokens: 9_000, Cost: 0.5}
	for i := range m.Findings {
		m.Findings[i].Inline = "fedcba9876543210"
	}
	for range MaxResolved {
		m.Resolved = append(m.Resolved, Resolved{Fingerprint: "0123456789abcdef", Severity: "P2", Reviewer: "correctness",
			Inline: "fedcba9876543210", Commit: sha, Head: strings.Repeat("c", 40)})
	}
	return m
}

func TestMetaStatsFields(t *testing.T) {
	t.Run("round trip", func(t *testing.T) {
		m := stats()
		got, err := ParseReport(Report + "\n" + FormatMeta(m) + "\n")
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		m := stats()
		m.Usage = append(m.Usage, Usage{Name: "one-too-many"})
		m.Resolved = append(m.Resolved, Resolved{Fingerprint: "1111111111111111", Severity: "P0", Commit: strings.Repeat("d", 40), Head: strings.Repeat("e", 40)})
		m.Usage[0].Cost = 0.12345678912
		line := FormatMeta(m)
		got, err := ParseMeta(line)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Usage) != MaxUsage || len(got.Resolved) != MaxResolved || got.Resolved[MaxResolved-1].Fingerprint != "1111111111111111" {
			t.Errorf("usage %d, resolved %d (last %+v); want the bounds, the newest resolved kept", len(got.Usage), len(got.Resolved), got.Resolved[len(got.Resolved)-1])
		}
		if got.Usage[0].Cost != 0.123457 {
			t.Errorf("cost %v; want six decimals", got.Usage[0].Cost)
		}
		// The whole meta at every bound (ASCII text) stays about a third of
		// a 65,536-character comment at most.
		if len(line) > 24_000 {
			t.Errorf("meta line of %d bytes at every bound", len(line))
		}
	})
	t.Run("a report written before has none and still parses", func(t *testing.T) {
		m := v2(2)
		got, err := ParseMeta(FormatMeta(m))
		if err != nil || got.Usage != nil || got.Resolved != nil || got.ValidatorUsage != nil || got.Reviews != 0 {
			t.Fatalf("%+v, %v", got, err)
		}
	})
	t.Run("rejects", func(t *testing.T) {
		sha := strings.Repeat("a", 40)
		head := `<!-- anchor-review:meta {"version":2,"head_sha":"` + sha + `","verdict":"ready","conclusion":"success","blocking":0,`
		for name, body := range map[string]string{
			"v1 with usage":         strings.Replace(head, `"version":2`, `"version":1`, 1) + `"reviews":1} -->`,
			"negative calls":        head + `"usage":[{"name":"a","reviews":1,"calls":-1,"prompt_tokens":0,"completion_tokens":0}]} -->`,
			"usage without a name":  head + `"usage":[{"reviews":1,"calls":1,"prompt_tokens":0,"completion_tokens":0}]} -->`,
			"negative cost":         head + `"usage":[{"name":"a","reviews":1,"calls":1,"prompt_tokens":0,"completion_tokens":0,"cost":-2}]} -->`,
			"named validator":       head + `"validator_usage":{"name":"x","reviews":1,"calls":1,"prompt_tokens":0,"completion_tokens":0}} -->`,
			"resolved bad head":     head + `"resolved":[{"fingerprint":"0123456789abcdef","severity":"P1","commit":"` + sha + `","head":"main"}]} -->`,
			"resolved bad inline":   head + `"resolved":[{"fingerprint":"0123456789abcdef","severity":"P1","inline":"xyz","commit":"` + sha + `","head":"` + sha + `"}]} -->`,
			"finding bad inline fp": head + `"findings":[{"file":"a.go","line":3,"severity":"P1","anchor":75,"fingerprint":"0123456789abcdef","title":"t","commit":"` + sha + `","inline":"12"}]} -->`,
		} {
			if _, err := ParseMeta(body); err == nil {
				t.Errorf("%s: accepted %s", name, body)
			}
		}
	})
}

// TestMetaExplanations: a finding's why and fix travel in the line, so a
// carried finding reads as it did when first posted; they are bounded
// (each as the table shows it, the whole line by MaxLine, most severe
// first), a line without them (an older report) still parses, and a
// forged one cannot smuggle more.
func TestMetaExplanations(t *testing.T) {
	t.Run("round trip", func(t *testing.T) {
		m := v2(2)
		m.Findings[0].Why, m.Findings[0].Fix = "Writes to a nil map panic at runtime; ping @octocat <b>.", "m := map[string]int{}"
		line := FormatMeta(m)
		got, err := ParseMeta(line)
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Fatalf("got %+v, %v; want %+v", got, err, m)
		}
		if strings.Contains(line, "@octocat") || strings.Contains(line, "<b>") {
			t.Errorf("the line shows a mention or a tag: %s", line)
		}
	})
	t.Run("an older line without them parses", func(t *testing.T) {
		m := v2(1)
		got, err := ParseMeta(FormatMeta(m))
		if err != nil || got.Findings[0].Why != "" || got.Findings[0].Fix != "" {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
	t.Run("each is bounded as the table shows it", func(t *testing.T) {
		m := v2(1)
		m.Findings[0].Why = strings.Repeat("é", MaxWhy+10) + "\nnext line"
		m.Findings[0].Fix = strings.Repeat("x", MaxFix+1) // the table leaves a longer fix out
		got, err := ParseMeta(FormatMeta(m))
		if err != nil {
			t.Fatalf("ParseMeta: %v", err)
		}
		if f := got.Findings[0]; utf8.RuneCountInString(f.Why) != MaxWhy || f.Fix != "" {
			t.Errorf("why %d runes, fix %q; want %d runes and no fix", utf8.RuneCountInString(f.Why), f.Fix, MaxWhy)
		}
	})
	t.Run("the line stays within MaxLine, most severe first", func(t *testing.T) {
		m := v2(10)
		for i := range m.Findings {
			// Every byte escaped six-fold by the encoder: 5,400 bytes each.
			m.Findings[i].Why = strings.Repeat("<@#", 300)
		}
		line := FormatMeta(m)
		if len(line) > MaxLine {
			t.Fatalf("line of %d bytes; want at most %d", len(line), MaxLine)
		}
		got, err := ParseMeta(line)
		if err != nil {
			t.Fatalf("ParseMeta: %v", err)
		}
		if len(got.Findings) != 10 || got.Truncated {
			t.Fatalf("%d findings, truncated %v; want every finding recorded", len(got.Findings), got.Truncated)
		}
		if got.Findings[0].Why == "" || got.Findings[9].Why != "" {
			t.Errorf("explanations kept: first %v, last %v; want the first (most severe) only", got.Findings[0].Why != "", got.Findings[9].Why != "")
		}
	})
	t.Run("explanations never grow a full line", func(t *testing.T) {
		m := v2(MaxFindings)
		for i := range m.Findings {
			m.Findings[i].Why, m.Findings[i].Fix = strings.Repeat("<", MaxWhy), strings.Repeat("&", MaxFix)
		}
		line, bare := FormatMeta(m), FormatMeta(m.WithoutExplanations())
		if len(line) > max(MaxLine, len(bare)) {
			t.Fatalf("line of %d bytes; want at most %d", len(line), max(MaxLine, len(bare)))
		}
		if got, err := ParseMeta(line); err != nil || len(got.Findings) != MaxFindings {
			t.Fatalf("ParseMeta: %d findings, %v", len(got.Findings), err)
		}
	})
	t.Run("forged lines are refused", func(t *testing.T) {
		sha := strings.Repeat("a", 40)
		base := `<!-- anchor-review:meta {"version":2,"head_sha":"` + sha + `","verdict":"ready","conclusion":"success","blocking":0,"findings":[{"file":"a.go","line":3,"severity":"P1","anchor":75,"fingerprint":"0123456789abcdef","title":"t","commit":"` + sha + `",`
		for name, field := range map[string]string{
			"why too long":    `"why":"` + strings.Repeat("w", MaxWhy+1) + `"`,
			"why with a tab":  `"why":"a\tb"`,
			"fix too long":    `"fix":"` + strings.Repeat("f", MaxFix+1) + `"`,
			"fix with a bell": `"fix":"a\u0007"`,
		} {
			if _, err := ParseMeta(base + field + `}]} -->`); err == nil {
				t.Errorf("%s: accepted", name)
			}
		}
	})
}

func TestCheckRef(t *testing.T) {
	t.Parallel()
	if id, ok := ParseCheckRef(CheckRef(4242)); !ok || id != 4242 {
		t.Errorf("ParseCheckRef(CheckRef(4242)) = %d, %v", id, ok)
	}
	for _, s := range []string{"", "4242", "anchor-review:report:", "anchor-review:report:-1", "anchor-review:report:0", "anchor-review:report:12x", "anchor-review:report:+5", "anchor-review:report:99999999999999999999"} {
		if id, ok := ParseCheckRef(s); ok {
			t.Errorf("ParseCheckRef(%q) = %d, true; want false", s, id)
		}
	}
}
