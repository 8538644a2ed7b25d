package prompt

import (
	"strings"

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
		shown += writeFileContext(b, f, c.Heads[f.Path()], levelOf(c, i), fence)
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
	writeFenced(b, fence, strings.Join(lines, "\n"))
}

// writeFileContext writes one file's context and reports whether it wrote
// any (1) or not (0).
func writeFileContext(b *strings.Builder, f *diff.File, h Head, level Level, fence string) int {
	ex := Excerpt(f, h.Content, level)
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

func levelOf(c Context, i int) Level {
	if i < len(c.Levels) {
		return c.Levels[i]
	}
	return LevelWhole
}
