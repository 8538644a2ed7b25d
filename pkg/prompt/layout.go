package prompt

import (
	"strings"
	"sync"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// diffIntro explains the numbered diff (diff.RenderNumbered) to the model.
const diffIntro = "Every hunk line starts with its line number in the NEW (head) version of the file, then the " +
	"diff marker (`+` added, `-` deleted, a space for unchanged), then the code. Deleted lines have no new " +
	"line number. Cite these numbers in `line`; never count lines from the hunk header yourself.\n\n"

// writeDiff writes the diff section: the files, numbered, in one fence.
func writeDiff(b *strings.Builder, files []*diff.File, fence string) {
	b.WriteString("\n## The diff\n\n" + diffIntro)
	rendered := diff.RenderNumbered(files)
	if rendered == "" {
		b.WriteString("(The diff is empty.)\n")
		return
	}
	writeFencedCode(b, fence, rendered)
}

// contextIntro explains the head-file context to the model.
const contextIntro = "The head (new) version of each changed file, with its line numbers: the whole file when it is " +
	"small, else the function or block around each change, without the lines the diff already shows (`...` " +
	"marks lines left out). Use it to check guards, " +
	"callers, types and declarations. It is the same code the diff shows, not more of the change: report " +
	"problems the diff introduces or makes reachable.\n"

// writeContext writes the context section of c.Files and, when the head
// tree is known, the test files of each changed source file.
func writeContext(b *strings.Builder, c Context, fence string) {
	b.WriteString("\n## The changed files at the head commit\n\n" + contextIntro)
	shown := 0
	for i, f := range c.Files {
		shown += writeFileContext(b, c, f, levelOf(c, i), fence)
	}
	if shown == 0 {
		b.WriteString("\n(No head version is shown for these files.)\n")
	}
	if c.Tests == nil {
		return
	}
	b.WriteString("\n## Test files in the head tree\n\n" +
		"For the testing reviewer: which test files exist for each changed source file (same name stem, " +
		"and for Go the tests of its package directory).\n")
	var lines []string
	for _, f := range c.Files {
		if l := testsLine(c.Tests, f.Path()); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		b.WriteString("\n(No changed source file in this part of the diff.)\n")
		return
	}
	b.WriteString("\n")
	writeFencedCode(b, fence, strings.Join(lines, "\n")) // paths: invisible characters made visible, never removed
}

// writeFileContext writes one file's context and reports whether it wrote
// any (1) or not (0).
func writeFileContext(b *strings.Builder, c Context, f *diff.File, level Level, fence string) int {
	h := c.Heads[f.Path()]
	ex := c.Excerpts.excerpt(f, h.Content, level)
	if ex == "" {
		return 0
	}
	what := "enclosing blocks of the changes"
	if level == LevelWhole && IsWhole(h.Content) {
		what = "whole file"
	}
	b.WriteString("\n")
	writeFencedCode(b, fence, "File: "+f.Path()+" ("+what+")\n"+ex)
	return 1
}

// testsLine is one line of the test-file list, "" for a file not listed.
func testsLine(tests map[string][]string, path string) string {
	found, ok := tests[path]
	if !ok {
		return ""
	}
	if len(found) == 0 {
		return path + ": no test file found"
	}
	return path + ": " + strings.Join(found, ", ")
}

// ExcerptCache remembers the excerpts of one run, so the blocks of a file
// are found (a Go file parsed) once, not once per persona and part. The
// zero value is not usable: use NewExcerptCache. A nil cache computes
// every excerpt afresh. Safe for concurrent use.
type ExcerptCache struct {
	mu sync.Mutex
	m  map[excerptKey]string
}

type excerptKey struct {
	f     *diff.File
	level Level
}

// NewExcerptCache returns an empty cache for one run's Context.
func NewExcerptCache() *ExcerptCache { return &ExcerptCache{m: map[excerptKey]string{}} }

// excerpt is Excerpt(f, head, level), remembered by file and level: a
// run's head content for a path never changes.
func (c *ExcerptCache) excerpt(f *diff.File, head string, level Level) string {
	if c == nil {
		return Excerpt(f, head, level)
	}
	k := excerptKey{f, shown(head, level)}
	c.mu.Lock()
	ex, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return ex
	}
	ex = Excerpt(f, head, level)
	c.mu.Lock()
	c.m[k] = ex
	c.mu.Unlock()
	return ex
}

func levelOf(c Context, i int) Level {
	if i < len(c.Levels) {
		return c.Levels[i]
	}
	return LevelWhole
}
