package prompt

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// Context of a changed file (SPEC 7.3): what the prompt shows of its head
// version next to its diff, so the reviewers can see the guards, callers
// and declarations around a hunk.

// Level says how much of a head file a prompt shows.
type Level int

// Context levels, from most to least. The chunker steps down a level when
// a file with its context does not fit a call.
const (
	// LevelWhole shows the whole head file when it is small
	// (WholeFileMaxLines and WholeFileMaxBytes), else LevelBlocks.
	LevelWhole Level = iota
	// LevelBlocks shows the enclosing function or block of every hunk.
	LevelBlocks
	// LevelNone shows no context.
	LevelNone
)

// Limits of the context of one file.
const (
	// WholeFileMaxLines and WholeFileMaxBytes bound a file shown whole.
	WholeFileMaxLines = 120
	WholeFileMaxBytes = 5_000
	// maxBlockLines bounds one enclosing block shown whole; a longer block
	// shows its first line and a window around the changed lines.
	maxBlockLines = 50
	// blockWindow is the number of lines each side of a changed line kept
	// from a block longer than maxBlockLines.
	blockWindow = 10
	// maxTestFiles bounds the test files listed for one source file.
	maxTestFiles = 8
)

// Head is a changed file's head version, as read for context.
type Head struct {
	Content string
	Found   bool // false: the file could not be read or does not exist
}

// Excerpt returns the context of f at level, from its head content: the
// head file's lines with their numbers ("  12  code"), "..." between
// ranges that are not adjacent. A whole file is shown whole; blocks leave
// out the lines the diff's hunks already show. "" when there is nothing to show (no head
// content, LevelNone, an added, deleted or binary file, or no hunk inside
// a block).
func Excerpt(f *diff.File, head string, level Level) string {
	// An added file's diff already shows all of it.
	if level == LevelNone || head == "" || f.Binary || f.Status == diff.Deleted || f.Status == diff.Added {
		return ""
	}
	if level == LevelWhole && IsWhole(head) {
		return numberedWhole(head)
	}
	lines := splitLines(head)
	anchors := anchorLines(f, len(lines))
	if len(anchors) == 0 {
		return ""
	}
	// The diff already shows its own new-side lines: the blocks add only
	// what lies around them.
	return numberedRanges(lines, subtract(blockRanges(f.Path(), head, lines, anchors), hunkLines(f)))
}

// hunkLines are the new-side line ranges f's hunks show.
func hunkLines(f *diff.File) [][2]int {
	var out [][2]int
	for _, h := range f.Hunks {
		if h.NewLines > 0 {
			out = append(out, [2]int{h.NewStart, h.NewStart + h.NewLines - 1})
		}
	}
	return out
}

// subtract removes the lines of cut from the sorted, merged ranges rs.
func subtract(rs, cut [][2]int) [][2]int {
	var out [][2]int
	for _, r := range rs {
		parts := [][2]int{r}
		for _, c := range cut {
			var next [][2]int
			for _, p := range parts {
				if c[1] < p[0] || c[0] > p[1] {
					next = append(next, p)
					continue
				}
				if p[0] < c[0] {
					next = append(next, [2]int{p[0], c[0] - 1})
				}
				if p[1] > c[1] {
					next = append(next, [2]int{c[1] + 1, p[1]})
				}
			}
			parts = next
		}
		out = append(out, parts...)
	}
	return out
}

// IsWhole reports whether Excerpt at LevelWhole shows head whole.
func IsWhole(head string) bool {
	// splitLines(head) has one line more than the newlines it splits at.
	return head != "" && len(head) <= WholeFileMaxBytes && strings.Count(strings.TrimSuffix(head, "\n"), "\n") < WholeFileMaxLines
}

// shown is the level Excerpt shows head at when asked for l: LevelWhole of
// a head too large to show whole shows its blocks.
func shown(head string, l Level) Level {
	if l == LevelWhole && !IsWhole(head) {
		return LevelBlocks
	}
	return l
}

// splitLines splits a file into lines without their line ends (LF, CRLF,
// or any run of CRs before the LF), as the diff parser reads its lines. An
// empty file has no lines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	return lines
}

// anchorLines are the new-side lines a hunk changes: added lines, and for
// a deletion the line that now stands where the deleted lines were.
func anchorLines(f *diff.File, n int) []int {
	var out []int
	for _, h := range f.Hunks {
		next := h.NewStart // the new-side line after the last one seen
		if next == 0 {
			next = 1
		}
		for _, l := range h.Lines {
			switch l.Kind {
			case diff.Add:
				out = append(out, l.NewNo)
				next = l.NewNo + 1
			case diff.Context:
				next = l.NewNo + 1
			case diff.Delete:
				out = append(out, max(min(next, n), 1))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(slices.DeleteFunc(out, func(l int) bool { return l < 1 || l > n }))
}

// blockRanges returns the line ranges (1-based, inclusive, sorted, merged)
// that show the enclosing block of every anchor line.
func blockRanges(p, src string, lines []string, anchors []int) [][2]int {
	var blocks [][2]int
	switch {
	case strings.HasSuffix(p, ".go"):
		if b, ok := goBlocks(src); ok {
			blocks = b
			break
		}
		blocks = braceBlocks(lines)
	case usesBraces(p, src):
		blocks = braceBlocks(lines)
	default:
		blocks = indentBlocks(lines)
	}
	var out [][2]int
	for _, a := range anchors {
		out = append(out, enclosing(blocks, a, anchors)...)
	}
	return merge(out)
}

// enclosing picks, among the blocks holding line a, the outermost one of at
// most maxBlockLines; when every block holding a is longer, the innermost
// one's first line and a window around the anchors inside it. The first
// line of the outermost block (a function's signature) is always kept.
func enclosing(blocks [][2]int, a int, anchors []int) [][2]int {
	var best, inner, outer [2]int
	for _, b := range blocks {
		if b[0] > a || a > b[1] {
			continue
		}
		size := b[1] - b[0] + 1
		if size <= maxBlockLines && (best == [2]int{} || size > best[1]-best[0]+1) {
			best = b
		}
		if inner == [2]int{} || size < inner[1]-inner[0]+1 {
			inner = b
		}
		if outer == [2]int{} || size > outer[1]-outer[0]+1 {
			outer = b
		}
	}
	switch {
	case best == outer && best != [2]int{}:
		return [][2]int{best}
	case best != [2]int{}:
		return [][2]int{{outer[0], outer[0]}, best}
	case inner == [2]int{}:
		return nil
	}
	out := [][2]int{{outer[0], outer[0]}, {inner[0], inner[0]}}
	for _, x := range anchors {
		if x >= inner[0] && x <= inner[1] {
			out = append(out, [2]int{max(inner[0], x-blockWindow), min(inner[1], x+blockWindow)})
		}
	}
	return out
}

// merge sorts ranges and joins overlapping or adjacent ones.
func merge(rs [][2]int) [][2]int {
	slices.SortFunc(rs, func(a, b [2]int) int { return a[0] - b[0] })
	var out [][2]int
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

// numberedWhole is every line of head with its number.
func numberedWhole(head string) string {
	lines := splitLines(head)
	return numberedRanges(lines, [][2]int{{1, len(lines)}})
}

// numberedRanges writes the lines of rs with their numbers, "..." between
// ranges that are not adjacent.
func numberedRanges(lines []string, rs [][2]int) string {
	if len(rs) == 0 {
		return ""
	}
	width := len(strconv.Itoa(rs[len(rs)-1][1]))
	var b strings.Builder
	for i, r := range rs {
		if i > 0 || r[0] > 1 {
			b.WriteString(strings.Repeat(" ", width))
			b.WriteString("  ...\n")
		}
		for n := r[0]; n <= r[1]; n++ {
			s := strconv.Itoa(n)
			b.WriteString(strings.Repeat(" ", width-len(s)))
			b.WriteString(s)
			b.WriteString("  ")
			b.WriteString(lines[n-1])
			b.WriteByte('\n')
		}
	}
	if last := rs[len(rs)-1][1]; last < len(lines) {
		b.WriteString(strings.Repeat(" ", width))
		b.WriteString("  ...\n")
	}
	return b.String()
}

// goBlocks returns the line range of every top-level declaration of a Go
// file (doc comment included) and of every function literal and method
// body inside, parsed with go/parser; ok is false when the file does not
// parse.
func goBlocks(src string) ([][2]int, bool) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, false
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	var out [][2]int
	for _, d := range file.Decls {
		start := d.Pos()
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
		case *ast.GenDecl:
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
		}
		out = append(out, [2]int{line(start), line(d.End())})
		// Inner blocks (closures, type bodies, long statements) let a long
		// function show the part around a hunk.
		ast.Inspect(d, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit, *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.CaseClause, *ast.CommClause:
				if s, e := line(n.Pos()), line(n.End()); e > s {
					out = append(out, [2]int{s, e})
				}
			}
			return true
		})
	}
	return out, true
}

// braceExts are languages whose blocks are delimited by braces.
var braceExts = map[string]bool{
	".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".hpp": true, ".hh": true,
	".cs": true, ".java": true, ".kt": true, ".kts": true, ".scala": true, ".groovy": true,
	".js": true, ".jsx": true, ".mjs": true, ".cjs": true, ".ts": true, ".tsx": true, ".mts": true, ".cts": true,
	".rs": true, ".swift": true, ".php": true, ".dart": true, ".m": true, ".mm": true, ".go": true,
	".css": true, ".scss": true, ".less": true, ".proto": true, ".tf": true, ".hcl": true,
}

// indentExts are languages whose blocks are delimited by indentation.
var indentExts = map[string]bool{
	".py": true, ".pyi": true, ".rb": true, ".yaml": true, ".yml": true, ".nim": true, ".coffee": true,
}

func usesBraces(p, src string) bool {
	ext := strings.ToLower(path.Ext(p))
	if braceExts[ext] {
		return true
	}
	if indentExts[ext] {
		return false
	}
	return strings.Count(src, "{") >= 3
}

// braceBlocks returns the line range of every brace-delimited block, the
// opening line extended upward over the statement it belongs to (a
// signature split over lines, a brace on its own line). Strings, character
// literals and comments are skipped with a small lexer; it is a heuristic
// that needs no parser for the language, not a parser.
func braceBlocks(lines []string) [][2]int {
	var out [][2]int
	var stack []int
	var st lexState
	depthAt := make([]int, len(lines)) // brace depth at the start of each line
	for i, l := range lines {
		depthAt[i] = len(stack)
		for _, c := range st.scan(l) {
			switch c {
			case '{':
				stack = append(stack, i+1)
			case '}':
				if n := len(stack); n > 0 {
					open := stack[n-1]
					stack = stack[:n-1]
					if i+1 > open {
						out = append(out, [2]int{statementStart(lines, depthAt, open), i + 1})
					}
				}
			}
		}
	}
	return out
}

// statementStart walks up from the line that opens a block over the lines
// of the same statement: at the same depth, not blank, not ending one.
func statementStart(lines []string, depthAt []int, open int) int {
	start := open
	for k := 0; k < 6 && start > 1; k++ {
		prev := strings.TrimSpace(lines[start-2])
		if prev == "" || depthAt[start-2] != depthAt[open-1] || strings.HasSuffix(prev, ";") || strings.HasSuffix(prev, "}") || strings.HasSuffix(prev, "{") {
			// An annotation or decorator line still belongs to it.
			if !strings.HasPrefix(prev, "@") || depthAt[start-2] != depthAt[open-1] {
				break
			}
		}
		start--
	}
	return start
}

// lexState carries a block comment or a multi-line string (Go raw strings,
// JavaScript templates) from one line to the next.
type lexState struct {
	inBlock bool // inside /* ... */
	quote   byte // inside a string that spans lines: '`'
}

// scan returns the braces of one line outside strings and comments.
func (s *lexState) scan(l string) []byte {
	var out []byte
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case s.inBlock:
			if c == '*' && i+1 < len(l) && l[i+1] == '/' {
				s.inBlock = false
				i++
			}
		case s.quote != 0:
			if c == '\\' && s.quote != '`' {
				i++
			} else if c == s.quote {
				s.quote = 0
			}
		case c == '/' && i+1 < len(l) && l[i+1] == '/':
			return out
		case c == '/' && i+1 < len(l) && l[i+1] == '*':
			s.inBlock = true
			i++
		case c == '"' || c == '\'' || c == '`':
			s.quote = c
		case c == '{' || c == '}':
			out = append(out, c)
		}
	}
	if s.quote == '"' || s.quote == '\'' {
		s.quote = 0 // an unterminated ordinary string ends with its line
	}
	return out
}

// indentBlocks returns, for every line followed by more deeply indented
// lines (a Python def or class, a YAML key, a Ruby method), the range from
// it (decorators above it included) to its last more-indented line.
func indentBlocks(lines []string) [][2]int {
	indent := make([]int, len(lines))
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			indent[i] = -1
			continue
		}
		indent[i] = len(l) - len(strings.TrimLeft(l, " \t"))
	}
	var out [][2]int
	for i := range lines {
		if indent[i] < 0 {
			continue
		}
		end := i
		for j := i + 1; j < len(lines); j++ {
			if indent[j] < 0 {
				continue
			}
			if indent[j] <= indent[i] {
				// A Ruby or Lua "end" closes the block at the header's depth.
				if t := strings.TrimSpace(lines[j]); indent[j] == indent[i] && (t == "end" || strings.HasPrefix(t, "end ")) {
					end = j
				}
				break
			}
			end = j
		}
		if end == i {
			continue
		}
		start := i
		for start > 0 && indent[start-1] == indent[i] && strings.HasPrefix(strings.TrimSpace(lines[start-1]), "@") {
			start--
		}
		out = append(out, [2]int{start + 1, end + 1})
	}
	return out
}

// TestFiles maps each changed source file to the test files of the head
// tree that test it (for the testing persona): files that look like tests
// and have the same name stem ("users.go" → "users_test.go",
// "Button.tsx" → "__tests__/Button.test.tsx", "client.py" →
// "tests/test_client.py"), and for Go the other tests of its package
// directory. A source file that has none maps to an empty list. Test,
// documentation and non-code files are left out.
func TestFiles(changed, tree []string) map[string][]string {
	byStem := map[string][]string{}
	goDir := map[string][]string{}
	for _, p := range tree {
		stem, ok := testStem(p)
		if !ok {
			continue
		}
		byStem[stem] = append(byStem[stem], p)
		if strings.HasSuffix(p, "_test.go") {
			goDir[path.Dir(p)] = append(goDir[path.Dir(p)], p)
		}
	}
	out := map[string][]string{}
	for _, p := range changed {
		if _, isTest := testStem(p); isTest || !isCode(p) {
			continue
		}
		stem := strings.ToLower(strings.TrimSuffix(path.Base(p), path.Ext(p)))
		found := slices.Clone(byStem[stem])
		if strings.HasSuffix(p, ".go") {
			found = append(found, goDir[path.Dir(p)]...)
		}
		slices.Sort(found)
		found = slices.Compact(found)
		if len(found) > maxTestFiles {
			found = found[:maxTestFiles]
		}
		out[p] = found
	}
	return out
}

// codeExts are the extensions of source files whose tests are listed.
var codeExts = map[string]bool{
	".go": true, ".py": true, ".rb": true, ".js": true, ".jsx": true, ".mjs": true, ".cjs": true,
	".ts": true, ".tsx": true, ".java": true, ".kt": true, ".scala": true, ".cs": true, ".rs": true,
	".c": true, ".cc": true, ".cpp": true, ".h": true, ".hpp": true, ".swift": true, ".php": true,
	".ex": true, ".exs": true, ".dart": true,
}

func isCode(p string) bool { return codeExts[strings.ToLower(path.Ext(p))] }

// WantsContext reports whether a changed file at p gets head context: source
// code (and SQL, protobuf, Terraform), where the enclosing function or
// block explains a hunk. Configuration, documentation and data files are
// reviewed from their diff alone (and a repository's action.yml or
// workflow files are never read as anything but data under review).
func WantsContext(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".sql", ".proto", ".tf":
		return true
	}
	return isCode(p)
}

// IsTestFile reports whether p looks like a test file of a source file
// (by its name or a test directory; see testStem).
func IsTestFile(p string) bool {
	_, ok := testStem(p)
	return ok
}

// testStem reports whether p looks like a test file and returns the stem
// of the file it tests, lower-cased: "users_test.go" → "users",
// "test_client.py" → "client", "Button.spec.tsx" → "button",
// "FooTest.java" → "foo", "tests/client.py" → "client".
func testStem(p string) (string, bool) {
	base := path.Base(p)
	if !isCode(base) {
		return "", false
	}
	stem := strings.TrimSuffix(base, path.Ext(base))
	lower := strings.ToLower(stem)
	for _, suf := range [...]string{"_test", ".test", ".spec", "_spec", "-test", "-spec"} {
		if strings.HasSuffix(lower, suf) && len(lower) > len(suf) {
			return lower[:len(lower)-len(suf)], true
		}
	}
	if strings.HasPrefix(lower, "test_") && len(lower) > 5 {
		return lower[5:], true
	}
	for _, suf := range [...]string{"Tests", "Test"} {
		if strings.HasSuffix(stem, suf) && len(stem) > len(suf) {
			return strings.ToLower(stem[:len(stem)-len(suf)]), true
		}
	}
	for _, seg := range strings.Split(path.Dir(p), "/") {
		switch seg {
		case "test", "tests", "__tests__", "spec":
			return lower, true
		}
	}
	return "", false
}
