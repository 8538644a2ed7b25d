package persona

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// TestSelectRealDiffs: selection on hunks shaped like real commits of an
// HTTP client library (Python), a web framework (JavaScript) and Go
// services, for the misses and misfires measured on real history.
func TestSelectRealDiffs(t *testing.T) {
	all, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	type want map[string]string // persona → reason ("" = must not be selected)
	tests := []struct {
		name  string
		files []*diff.File
		want  want
	}{
		{"bearer token logged in a context line selects security", []*diff.File{file("requests/adapters.py",
			"     def send(self, request, stream=False, timeout=None):",
			`         log.debug("sending %s with %s", request.url, request.headers["Authorization"])`,
			"-        conn = self.get_connection(request.url)",
			"+        conn = self.get_connection_with_tls_context(request, verify)",
			"         try:",
		)}, want{"security": "authentication or authorization check in requests/adapters.py"}},
		{"context token line in Go selects security", []*diff.File{file("internal/client/client.go",
			`	req.Header.Set("Authorization", "Bearer "+c.token)`,
			"-	resp, err := c.http.Do(req)",
			"+	resp, err := c.http.Do(req.WithContext(ctx))",
		)}, want{"security": "secret or credential handling in internal/client/client.go"}},
		// Security reads every change to code that can run (issue 30): a
		// docstring is what the comment scanner calls one, and the PR's
		// author writes what it calls one. No keyword signal fires, so no
		// other lens runs.
		{"one-line docstring change in sessions.py selects only security, without a keyword", []*diff.File{file("requests/sessions.py",
			"     def merge_environment_settings(self, url, proxies, stream, verify, cert):",
			`-        """Check the environment and merge it with some settings."""`,
			`+        """Check the environment and merge it with some settings.`,
			"+",
			`+        :rtype: dict"""`,
			"         # Gather clues from the surrounding environment.",
			"         if self.trust_env:",
		)}, want{"security": "code that can run changed in requests/sessions.py", "adversarial": "", "api-contract": "", "reliability": "", "python": ""}},
		{"multi-line docstring body mentioning cookies selects no keyword", []*diff.File{file("requests/sessions.py",
			" class Session(SessionRedirectMixin):",
			`-    """A Requests session.`,
			`+    """A Requests session object.`,
			" ",
			"     Provides cookie persistence, connection-pooling, and configuration.",
			`     """`,
		)}, want{"security": "code that can run changed in requests/sessions.py", "adversarial": ""}},
		{"comment mentioning a password fires no keyword", []*diff.File{file("app/config.py",
			"+    # TODO: read the admin password from the vault instead",
			"     DEBUG = False",
		)}, want{"security": "code that can run changed in app/config.py"}},
		{"code change in sessions.py: security by path, not adversarial", []*diff.File{file("requests/sessions.py",
			"     def get(self, url, **kwargs):",
			`-        kwargs.setdefault("allow_redirects", True)`,
			`+        kwargs.setdefault("allow_redirects", self.allow_redirects)`,
			`         return self.request("GET", url, **kwargs)`,
		)}, want{"security": "auth, session or crypto code in requests/sessions.py", "adversarial": ""}},
		{"plain err != nil does not select reliability", []*diff.File{file("internal/store/load.go",
			"+	data, err := os.ReadFile(path)",
			"+	if err != nil {",
			`+		return nil, fmt.Errorf("load %s: %w", path, err)`,
			"+	}",
		)}, want{"reliability": ""}},
		{"swallowed error selects reliability", []*diff.File{file("internal/store/save.go",
			"	if err := s.flush(); err != nil {",
			"-		return err",
			"+		return nil",
			"	}",
		)}, want{"reliability": "error swallowed in internal/store/save.go"}},
		{"error wrapped without %w selects reliability", []*diff.File{file("internal/store/save.go",
			`+		return fmt.Errorf("save: %v", err)`,
		)}, want{"reliability": "error wrapped without %w in internal/store/save.go"}},
		{"discarded error selects reliability", []*diff.File{file("cmd/tool/main.go",
			"+	n, _ := strconv.Atoi(os.Getenv(\"PORT\"))",
		)}, want{"reliability": "error discarded in cmd/tool/main.go"}},
		{"except Exception: pass selects reliability", []*diff.File{file("requests/utils.py",
			"     try:",
			"         return os.path.expanduser(path)",
			"-    except KeyError:",
			"+    except Exception:",
			"         pass",
		)}, want{"reliability": "broad except in requests/utils.py"}},
		{"an error branch that only logs selects reliability", []*diff.File{file("internal/billing/finalize.go",
			"+	if err := tx.Commit(); err != nil {",
			`+		log.Printf("finalize batch: commit: %v", err)`,
			"+	}",
			"+	return len(ids), nil",
		)}, want{"reliability": "error logged and dropped in internal/billing/finalize.go"}},
		{"log and return is ordinary error handling", []*diff.File{file("internal/billing/finalize.go",
			"+	if err := tx.Commit(); err != nil {",
			`+		log.Printf("finalize batch: commit: %v", err)`,
			"+		return 0, err",
			"+	}",
		)}, want{"reliability": ""}},
		{"Python except that only logs selects reliability", []*diff.File{file("worker/sync.py",
			"+    try:",
			"+        push(batch)",
			"+    except requests.RequestException as exc:",
			`+        log.warning("push failed: %s", exc)`,
			"+    return len(batch)",
		)}, want{"reliability": "error logged and dropped in worker/sync.py"}},
		{"Python except that logs and re-raises does not", []*diff.File{file("worker/sync.py",
			"+    except ValueError as exc:",
			`+        log.warning("bad batch: %s", exc)`,
			"+        raise",
		)}, want{"reliability": ""}},
		{"JS catch that only logs selects reliability", []*diff.File{file("src/sync.js",
			"+  } catch (err) {",
			"+    console.error(err)",
			"+  }",
		)}, want{"reliability": "error logged and dropped in src/sync.js"}},
		{"empty JS catch selects reliability", []*diff.File{file("lib/view.js",
			"+  try { stat = fs.statSync(path) } catch (e) {}",
		)}, want{"reliability": "exception swallowed in lib/view.js"}},
		{"Python public function", []*diff.File{file("requests/api.py",
			"-def get(url, params=None, **kwargs):",
			"+def get(url, params=None, timeout=None, **kwargs):",
		)}, want{"api-contract": "public Python signature get changed in requests/api.py"}},
		{"Python public method", []*diff.File{file("requests/models.py",
			" class Response:",
			"-    def iter_content(self, chunk_size=1, decode_unicode=False):",
			"+    def iter_content(self, chunk_size=1, decode_unicode=False, strict=True):",
		)}, want{"api-contract": "public Python signature iter_content changed in requests/models.py"}},
		{"Python private, nested and private-module defs are not API", []*diff.File{
			file("requests/utils.py", "+def _parse_content_type_header(header):", "+        def inner(x):"),
			file("requests/_internal_utils.py", "+def to_native_string(string, encoding=\"ascii\"):"),
		}, want{"api-contract": ""}},
		{"JavaScript method on an exported object", []*diff.File{file("lib/response.js",
			"-res.links = function(links){",
			"+res.links = function links(links) {",
		)}, want{"api-contract": "public JavaScript function res.links changed in lib/response.js"}},
		{"JavaScript exports property", []*diff.File{file("lib/utils.js",
			"+exports.compileETag = function(val) {",
		)}, want{"api-contract": "public JavaScript function exports.compileETag changed in lib/utils.js"}},
		{"indented JavaScript handler is not API", []*diff.File{file("lib/view.js",
			"+    xhr.onload = function () {",
		)}, want{"api-contract": ""}},
		{"TypeScript interface", []*diff.File{file("src/types.ts",
			"+export interface RequestOptions {",
		)}, want{"api-contract": "exported JS/TS declaration in src/types.ts"}},
		{"LLM token budget and a tokenizer are not security", []*diff.File{file("llm/budget.py",
			"+    max_tokens = min(max_tokens, 4096)",
			"+    ids = tokenizer.encode(text)",
		)}, want{"security": "code that can run changed in llm/budget.py"}},
		{"a real token is", []*diff.File{file("llm/client.py",
			"+    headers = {\"X-Api-Token\": access_token}",
		)}, want{"security": "token handling in llm/client.py"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			team, err := Select(all, Signals{Files: tc.files}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, p := range team {
				got[p.Name] = p.Reason
			}
			for name, reason := range tc.want {
				if got[name] != reason {
					t.Errorf("%s: got reason %q; want %q", name, got[name], reason)
				}
			}
		})
	}
}

func TestCommentScanner(t *testing.T) {
	tests := []struct {
		lang  lang
		lines []string
		want  []bool // non-code
	}{
		{langGo, []string{"// Doc.", "func F() {", "/* a", "b", "*/", "x := 1 /* c */", "", "\t* item"}, []bool{true, false, true, true, true, false, true, true}},
		{langPython, []string{`"""One line."""`, "def f():", `    """Start.`, "    body text", `    """`, "    return 1", "# c", "x = 1  # c"}, []bool{true, false, true, true, true, false, true, false}},
		// A triple-quoted string in a statement holds code, not a docstring.
		{langPython, []string{`q = """`, "SELECT * FROM users WHERE name = '%s'", `""" % name`, "cur.execute(q)"}, []bool{false, false, false, false}},
		{langC, []string{"#include <stdio.h>", "// c", "int x;"}, []bool{false, true, false}},
		{langHash, []string{"# c", "run: make", "//x"}, []bool{true, false, false}},
		{langSQL, []string{"-- c", "SELECT 1;"}, []bool{true, false}},
		{langRust, []string{"#[derive(Debug)]", "// c"}, []bool{false, true}},
	}
	for _, tc := range tests {
		c := commentScanner{lang: tc.lang}
		for i, l := range tc.lines {
			if got := c.nonCode(l); got != tc.want[i] {
				t.Errorf("lang %d line %q: nonCode = %v; want %v", tc.lang, l, got, tc.want[i])
			}
		}
	}
}

// FuzzSelectLines: diff lines are untrusted; selection over any of them, in
// any language, never panics and gives the same team twice.
func FuzzSelectLines(f *testing.F) {
	f.Add("a.py", "+    \"\"\"doc", " x = 1", "-def get(self, url):")
	f.Add("b.go", "+/* open", "+\tif err != nil {", "+\t\treturn nil")
	f.Add("c.js", "+res.links = function links(l) {", " // c", "-  } catch (e) {}")
	all, err := Load()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, path, a, b, c string) {
		if path == "" {
			path = "x.go"
		}
		var lines []string
		for _, l := range []string{a, b, c} {
			if l == "" || strings.ContainsAny(l, "\n\r") || (l[0] != '+' && l[0] != '-' && l[0] != ' ') {
				continue
			}
			lines = append(lines, l)
		}
		if len(lines) == 0 {
			return
		}
		s := Signals{Files: []*diff.File{file(path, lines...)}}
		one, err := Select(all, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		two, _ := Select(all, s, nil)
		if fmt.Sprint(one) != fmt.Sprint(two) {
			t.Fatalf("selection is not deterministic: %v vs %v", one, two)
		}
	})
}
