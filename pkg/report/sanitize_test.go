package report

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	o := Options{Secrets: []string{"hunter2-secret", "xyz"}}
	ghes := Options{ServerURL: "https://ghe.example.com"}
	tests := []struct {
		name string
		in   string
		o    Options
		want string
	}{
		{"plain", "Nil map write in plain words", o, "Nil map write in plain words"},
		{"code span", "Nil map write in `New`", o, "Nil map write in `New`"},
		{"code keeps what it shows", "call `notify(@admin, <b>x</b>, #12)` here", o, "call `notify(@admin, <b>x</b>, #12)` here"},
		{"code pipe stays in the cell", "`a|b` and c|d", o, "`a\\|b` and c\\|d"},
		{"unpaired backtick", "a ` b", o, "a \\` b"},
		{"code ending in a backslash", "`a\\` then <b>`", o, "\\`a\\\\` then <b>`"}, // the second pair is the span
		{"backslash before a pipe in code", "`a\\|b`", o, "\\`a\\\\\\|b\\`"},
		{"empty code", "`` x", o, "\\`\\` x"},
		{"html", `<script>alert("x")</script> & <b>`, o, `&lt;script&gt;alert("x")&lt;/script&gt; &amp; &lt;b&gt;`},
		{"html comment", "<!-- hidden -->text", o, "&lt;!-- hidden --&gt;text"},
		{"mention", "ask @octocat", o, "ask @\u200boctocat"},
		{"team mention", "cc @org/team-x", o, "cc @\u200borg/team-x"},
		{"email", "mail a@b.co", o, "mail a@\u200bb.co"},
		{"issue ref", "fixes #12 and x/y#3", o, "fixes #\u200b12 and x/y#\u200b3"},
		{"image", "see ![pic](https://evil.example/a.png) here", o, "see here"},
		{"same-host image removed too", "![pic](https://github.com/a.png)", o, ""},
		{"foreign link", "read [the docs](https://evil.example/x) now", o, "read the docs now"},
		{"same-host link", "see [file](https://github.com/o/r/blob/main/a.go#L3)", o, "see [file](https://github.com/o/r/blob/main/a.go#L3)"},
		{"same-host link with @", "[u](https://github.com/@x|y)", o, "[u](https://github.com/%40x%7Cy)"},
		{"link with title", `[t](https://evil.example "title")`, o, "t"},
		{"nested link cannot re-form", "[[a](https://evil.example)](https://evil.example/2)", o, `\[a\]((link removed))`},
		{"image inside link", "[![i](https://x.example/i.png)](https://evil.example)", o, `\[\]((link removed))`},
		{"javascript link", "[x](javascript:alert(1))", o, `\[x\](javascript:alert(1))`},
		{"userinfo host trick", "[x](https://github.com@evil.example/)", o, "x"},
		{"bare foreign url", "go to https://evil.example/path?q=1. now", o, "go to (link removed). now"},
		{"bare www", "visit www.evil.example today", o, "visit (link removed) today"},
		{"bare url after underscore", "_https://evil.example_", o, "_(link removed)_"},
		{"bare same-host url", "see https://github.com/o/r/pull/1", o, "see https://github.com/o/r/pull/1"},
		{"ghes host kept", "[w](https://ghe.example.com/o/r/wiki)", ghes, "[w](https://ghe.example.com/o/r/wiki)"},
		{"github.com foreign on ghes", "[w](https://github.com/o/r)", ghes, "w"},
		{"pipes", "a | b || c", o, `a \| b \|\| c`},
		{"backslash pipe", `a \| b`, o, `a \\\| b`},
		{"newlines", "line one\nline two\r\n\tthree", o, "line one line two three"},
		{"invisible", "pay\u200bload\u202e\ufeff \U000E0041x", o, "payload x"},
		{"marker", "<!-- anchor-review:report --> copy", o, "&lt;!--  --&gt; copy"},
		{"marker nested", "anchor-review:anchor-review:reportreport!", o, "!"},
		{"marker joined by link removal", "anchor-review:[rep](https://evil.example)ort", o, ""},
		{"meta marker", "ANCHOR-REVIEW:META", o, ""},
		{"secret value", "the key is hunter2-secret.", o, "the key is \\[REDACTED\\]."},
		{"short secret ignored", "xy", Options{Secrets: []string{"xy"}}, "xy"},
		{"secret split by a link", "hunter2-[x](https://evil.example)secret", Options{Secrets: []string{"hunter2-xsecret"}}, "\\[REDACTED\\]"},
		{"secret split by zero-width", "hunter2-\u200bsecret", o, "\\[REDACTED\\]"},
		{"openai key", "sk-abcdefghijklmnop1234 and sk-proj-AbC_dEf-1234567890XYZ", o, "\\[REDACTED\\] and \\[REDACTED\\]"},
		{"not a key", "task-abcdefghijklmnopqrst", o, "task-abcdefghijklmnopqrst"},
		{"github tokens", "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa gho_bbbbbbbbbbbbbbbbbbbbbbbb ghs_cccccccccccccccccccccc ghu_dddddddddddddddddddddd", o, "\\[REDACTED\\] \\[REDACTED\\] \\[REDACTED\\] \\[REDACTED\\]"},
		{"fine-grained pat", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", o, "\\[REDACTED\\]"},
		{"slack", "xoxb-1234567890-abcdef", o, "\\[REDACTED\\]"},
		{"aws", "AKIAIOSFODNN7EXAMPLE", o, "\\[REDACTED\\]"},
		{"private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY----- after", o, "\\[REDACTED\\] after"},
		{"unterminated private key", "x -----BEGIN PRIVATE KEY-----\nMIIE", o, "x \\[REDACTED\\]"},
		{"bearer", "Authorization: Bearer abc.def-123456", o, "Authorization: Bearer \\[REDACTED\\]"},
		{"jwt", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig_nature", o, "token \\[REDACTED\\]"},
		{"workflow command kept as text", "::error::boom", o, "::error::boom"},
		{"invalid utf8", "a\xffb", o, "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sanitize(tt.in, tt.o); got != tt.want {
				t.Errorf("Sanitize(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSanitizePlain(t *testing.T) {
	o := Options{Secrets: []string{"hunter2-secret"}}
	in := "x < y\nping @octocat hunter2-secret <!-- anchor-review:report -->\u202e [d](https://evil.example) ![i](x) https://evil.example/a [f](https://github.com/o/r)"
	want := "x < y\nping @\u200boctocat [REDACTED] <!--  --> d  (link removed) [f](https://github.com/o/r)"
	if got := sanitizePlain(in, o); got != want {
		t.Errorf("sanitizePlain = %q; want %q", got, want)
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 5, "abcd…"},
		{"ab&amp;cd", 5, "ab…"},
		{`abc\|d`, 5, "abc…"},
		{"ééééé", 3, "éé…"},
	}
	for _, tt := range tests {
		if got := clip(tt.in, tt.n); got != tt.want {
			t.Errorf("clip(%q, %d) = %q; want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// liveMention is '@' followed directly by a character that can start a
// GitHub login or team name.
var liveMention = regexp.MustCompile(`@[A-Za-z0-9_-]`)

// unescapedPipe is a pipe GFM would take as a cell boundary: not preceded
// by a backslash, or preceded by an escaped one.
var unescapedPipe = regexp.MustCompile(`(?:^|[^\\])(?:\\\\)*\|`)

// outsideCode is s without its code spans, failing when one is left open.
func outsideCode(t *testing.T, s string) string {
	t.Helper()
	if openSpan(s) >= 0 {
		t.Fatalf("code span left open in %q", s)
	}
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && !in && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i++
		case s[i] == '`':
			in = !in
		case !in:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func FuzzSanitize(f *testing.F) {
	for _, seed := range []string{
		"plain text",
		"<script>@octocat</script> | pipe",
		"[x](https://evil.example) ![i](https://github.com/a.png) https://evil.example",
		"<!-- anchor-review:report --> anchor-review:anchor-review:reportreport",
		"canary-[x](https://e.example)5ecr3t",
		"canary-5ecr3t\u200b-T0KEN",
		"Bearer abcdefghijk sk-proj-abcdefghijklmnopqrstu",
		"[[a](https://e.example)](https://github.com/x)",
		"@\u200b@@org/team `a|b` \\|",
		"`<img src=x>` `@octocat` `a\\|b` `x\\` ``",
	} {
		f.Add(seed)
	}
	const secret = "canary-5ecr3t"
	o := Options{Secrets: []string{secret}}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in, o)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8: %q", out)
		}
		// Code spans show their text as written; everything else is
		// Markdown and must be inert. A span never stays open, not even
		// when the text is clipped, and no pipe can end the table cell.
		text := outsideCode(t, out)
		if strings.Contains(text, "<") {
			t.Errorf("raw '<' outside code in %q", out)
		}
		if liveMention.MatchString(text) {
			t.Errorf("live mention in %q", out)
		}
		if unescapedPipe.MatchString(out) {
			t.Errorf("a pipe that ends the table cell in %q", out)
		}
		for n := 1; n < utf8.RuneCountInString(out); n += 7 {
			if c := clip(out, n); openSpan(c) >= 0 {
				t.Errorf("clip(%q, %d) = %q leaves a code span open", out, n, c)
			}
		}
		if strings.Contains(strings.ToLower(out), "anchor-review:report") {
			t.Errorf("marker in %q", out)
		}
		if strings.Contains(out, secret) {
			t.Errorf("secret in %q", out)
		}
		if strings.ContainsAny(out, "\n\r") {
			t.Errorf("newline in %q", out)
		}
		if again := Sanitize(in, o); again != out {
			t.Errorf("not deterministic: %q then %q", out, again)
		}
	})
}

func TestRedactJSON(t *testing.T) {
	in := []byte(`{"title":"leak sk-proj-abcdefghijklmnopqrstuvwx and canary-KEY-1234","n":75,"list":["Bearer abc.def.ghi","ok"],"canary-KEY-1234":true}`)
	out := RedactJSON(in, []string{"canary-KEY-1234"})
	for _, bad := range []string{"canary-KEY-1234", "sk-proj-abcdefghijklmnopqrstuvwx", "abc.def.ghi"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("RedactJSON left %q in %s", bad, out)
		}
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("RedactJSON output is not JSON: %v\n%s", err, out)
	}
	if v["n"] == nil || fmt.Sprint(v["n"]) != "75" {
		t.Errorf("numbers changed: got %v; want 75", v["n"])
	}
}

// TestRedactLongestFirst: a secret that contains another is redacted whole.
func TestRedactLongestFirst(t *testing.T) {
	got := Redact("key tok-abcd-efgh-1234 end", []string{"tok-abcd", "tok-abcd-efgh-1234"})
	if got != "key "+Redacted+" end" {
		t.Errorf("Redact = %q; want the longer secret redacted whole", got)
	}
}

// TestLogLine (issue 13 of the gate issue): untrusted text in a log line
// cannot issue workflow commands, legacy "##[" ones included, and carries
// no control characters.
func TestLogLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"team: security (app/##[stop-commands]x.go)", "team: security (app/## [stop-commands]x.go)"},
		{"a ###[set-output name=x]y", "a ### [set-output name=x]y"},
		{"::set-output name=verdict::ready", "> ::set-output name=verdict::ready"},
		{"  ::error::x", ">   ::error::x"},
		{"line one\nline two\r\n##[group]x", "line one line two  ## [group]x"},
		{"bell\a esc\x1b[31m nul\x00 del\x7f c1\u0085", "bell esc[31m nul del c1 "},
		{"tab\tkept", "tab\tkept"},
		{"zero\u200bwidth", "zerowidth"},
	}
	for _, tt := range tests {
		if got := LogLine(tt.in); got != tt.want {
			t.Errorf("LogLine(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// Control characters in model text never reach the comment or the check.
func TestSanitizeDropsControlCharacters(t *testing.T) {
	in := "Null\x00 byte, escape \x1b[2J, bell\a and \u009b C1"
	for name, got := range map[string]string{"Sanitize": Sanitize(in, Options{}), "sanitizePlain": sanitizePlain(in, Options{})} {
		if i := strings.IndexFunc(got, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }); i >= 0 {
			t.Errorf("%s(%q) = %q keeps control character %U", name, in, got, []rune(got[i:])[0])
		}
	}
}
