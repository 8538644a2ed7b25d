package persona

import (
	"regexp"
	"strings"
)

// Line checks that need more than a needle: public signatures outside Go,
// error handling that swallows or rewrites errors, and tokens that are
// credentials rather than page cursors or LLM budgets.

var (
	// pyDecl is a def or class at module level or one level into a class
	// (four spaces or a tab): what a caller of the module can reach.
	pyDecl = regexp.MustCompile(`^(?:    |\t)?(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)\s*[(:]`)
	// jsAssign is a top-level function assigned to an exported object's
	// property: res.links = function links(...), exports.get = (...) =>,
	// Router.prototype.use = function.
	jsAssign = regexp.MustCompile(`^(?:module\.)?([A-Za-z_$][\w$]*(?:\.prototype)?\.[A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)`)
	// goBlankErr discards a call's error: v, _ := f(...), _ = f(...).
	goBlankErr = regexp.MustCompile(`^(?:[\w.]+\s*,\s*)+_\s*:?=\s*[\w.]+\(|^_\s*=\s*[\w.]+\(`)
)

// publicPythonDecl returns the name of a public def or class on line, or
// "": a name that does not start with "_", or a dunder (__init__ and
// __call__ are the class's public protocol).
func publicPythonDecl(line string) string {
	m := pyDecl.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	name := m[1]
	if strings.HasPrefix(name, "_") && !(strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")) {
		return ""
	}
	return name
}

// privatePythonModule: a module whose file or a directory above it starts
// with "_" (other than __init__.py and __main__.py) is private by
// convention, and so are its signatures.
func privatePythonModule(p *pathInfo) bool {
	for _, part := range strings.Split(p.lower, "/") {
		if strings.HasPrefix(part, "_") && part != "__init__.py" && part != "__main__.py" {
			return true
		}
	}
	return false
}

// publicJSAssignment returns "obj.name" for a top-level function assigned to
// a property (not this.x, which is an instance's own), or "".
func publicJSAssignment(line string) string {
	m := jsAssign.FindStringSubmatch(line)
	if m == nil || strings.HasPrefix(m[1], "this.") {
		return ""
	}
	return m[1]
}

// securityToken reports whether a lower-cased line names a token that can
// be a credential: not a tokenizer, a pagination cursor or an LLM's token
// budget.
func securityToken(s string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], "token")
		if j < 0 {
			return false
		}
		j += i
		start, end := j, j+len("token")
		for start > 0 && isIdent(s[start-1]) {
			start--
		}
		for end < len(s) && isIdent(s[end]) {
			end++
		}
		if !benignToken(s[start:end]) {
			return true
		}
		i = end
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z'
}

// benignToken: identifiers holding "token" that are not credentials.
func benignToken(word string) bool {
	return containsAny(word, "tokeniz", "pagetoken", "page_token", "nexttoken", "next_token", "continuationtoken",
		"continuation_token", "cancellationtoken", "cancel_token", "canceltoken", "max_tokens", "maxtokens",
		"prompt_tokens", "prompttokens", "completion_tokens", "completiontokens", "total_tokens", "totaltokens",
		"input_tokens", "output_tokens", "cached_tokens", "token_count", "tokencount", "estimatetokens", "estimate_tokens")
}

// swallowNeedles gate swallowedError.
func swallowNeedles() []string {
	return []string{"_ =", "_ :=", "return nil", "continue", "}", "fmt.errorf(", "errors.new(", "except", "pass", "catch", "recover()", "rescue",
		"log", "print", "console."}
}

// loggedOnly reports whether l is a logging call that is the whole of an
// error branch: the line before opens the branch (if err != nil {, except
// ...:, catch (e) {) and the block ends right after it (a closing brace,
// or in Python a line indented less that does not re-raise).
func loggedOnly(l *lineInfo) bool {
	t := strings.ToLower(strings.TrimSpace(l.raw))
	prev := strings.ToLower(strings.TrimSpace(l.prev))
	next := strings.TrimSpace(l.next)
	if !isLogCall(t) || next == "" {
		return false
	}
	switch l.file.lang {
	case langGo:
		return goErrBranch(prev) && strings.HasPrefix(next, "}")
	case langJS:
		return (strings.HasPrefix(prev, "catch") || strings.HasPrefix(prev, "} catch") || strings.Contains(prev, ".catch(")) &&
			strings.HasPrefix(next, "}")
	case langPython:
		return strings.HasPrefix(prev, "except") && indent(l.next) < indent(l.raw) && !strings.HasPrefix(next, "raise")
	}
	return false
}

// goErrBranch reports whether a lower-cased, trimmed line opens a Go error
// branch: if err != nil {, if err := f(); err != nil {.
func goErrBranch(s string) bool {
	return strings.HasPrefix(s, "if err != nil") || strings.HasPrefix(s, "if err :=") && strings.HasSuffix(s, "err != nil {")
}

// isLogCall reports whether a lower-cased, trimmed line is a logging call.
func isLogCall(s string) bool {
	return hasPrefix(s, "log.", "logger.", "logging.", "slog.", "console.", "fmt.print", "fmt.fprint", "print(", "self.log", "self.logger.", "s.log", "l.log", "this.log")
}

// indent counts a line's leading spaces and tabs.
func indent(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t"))
}

// swallowedError returns a label when the line drops an error, or changes it
// on the way up (an %v wrap that loses errors.Is, a new error in place of
// the old), or "". Plain `if err != nil { return err }` is not a signal: it
// is in every Go change.
func swallowedError(l *lineInfo) string {
	t := strings.TrimSpace(l.raw)
	lt := strings.ToLower(t)
	prev := strings.ToLower(strings.TrimSpace(l.prev))
	errBranch := goErrBranch(prev)
	if loggedOnly(l) {
		return "error logged and dropped"
	}
	switch l.file.lang {
	case langGo:
		switch {
		case goBlankErr.MatchString(t):
			return "error discarded"
		case errBranch && (t == "return nil" || t == "return nil, nil" || t == "continue" || t == "}"):
			return "error swallowed"
		case strings.Contains(lt, "if err != nil {}") || strings.Contains(lt, "if err != nil { }"):
			return "error swallowed"
		case strings.Contains(lt, "fmt.errorf(") && strings.Contains(lt, "err") && !strings.Contains(lt, "%w"):
			return "error wrapped without %w"
		case errBranch && strings.Contains(lt, "errors.new("):
			return "error replaced"
		case strings.Contains(lt, "recover()"):
			return "panic recovered"
		}
	case langPython:
		switch {
		case t == "except:" || strings.HasPrefix(t, "except Exception") || strings.HasPrefix(t, "except BaseException"):
			return "broad except"
		case t == "pass" && strings.HasPrefix(prev, "except"):
			return "exception swallowed"
		}
	case langJS, langOther, langC:
		if strings.Contains(lt, "catch") && (strings.Contains(lt, "{}") || strings.Contains(lt, "{ }") ||
			strings.Contains(lt, "=> null") || strings.Contains(lt, "=> undefined") || strings.Contains(lt, "(noop)")) {
			return "exception swallowed"
		}
	case langHash:
		if strings.Contains(lt, "rescue nil") || t == "rescue" {
			return "exception swallowed"
		}
	}
	return ""
}
