package persona

import (
	"path"
	"strconv"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// What selection counts as code. A path class (docs/, spec/, e2e/, a
// licence or changelog name) says what a directory usually holds, and a
// pull request's author chooses the path: LICENSE.go is compiled into the
// package beside it, doc/handler.go is built by `go build ./...`, and
// CHANGES.py runs whenever something imports it. So a file's name decides
// whether it is code (its extension, a build file's name, a shebang, a
// workflow), never the directory it sits in; and a file is a test only by
// its language's own test convention, or, outside Go (whose toolchain
// builds every non-_test.go file in every directory), by a test
// directory. The security persona reads every change to code that can run
// (runsCode), tests included: a test runs in CI with the repository's
// secrets.

// runnableNames are files without a code extension that something runs.
var runnableNames = map[string]bool{
	"makefile": true, "gnumakefile": true, "dockerfile": true, "containerfile": true, "jenkinsfile": true,
	"rakefile": true, "gemfile": true, "vagrantfile": true, "justfile": true, "procfile": true,
	"build": true, "workspace": true, "build.bazel": true, "workspace.bazel": true,
	".gitlab-ci.yml": true, "azure-pipelines.yml": true, ".travis.yml": true,
	"docker-compose.yml": true, "docker-compose.yaml": true, "compose.yml": true, "compose.yaml": true,
	"package.json": true, // its scripts run on install and in CI
}

// runnableExts are extensions of code scope.Source does not know that
// still runs: pages that carry scripts, build and CI definitions.
var runnableExts = map[string]bool{
	".html": true, ".htm": true, ".xhtml": true, ".ejs": true, ".hbs": true, ".erb": true, ".jinja": true, ".j2": true,
	".mk": true, ".cmake": true, ".bzl": true, ".nix": true, ".ps1": true, ".fish": true,
	".dockerfile": true, ".pyw": true, ".pyi": true,
	".astro": true, // a component: its frontmatter script runs
}

// canRun reports whether the file at p holds code something can run, by
// its name alone: a language's extension, a build or CI file's name, a
// workflow or action definition. Documentation and lock files do not.
func canRun(p string) bool {
	if p == "" {
		return false
	}
	base := strings.ToLower(path.Base(p))
	ext := path.Ext(base)
	switch {
	case scope.Source(p), runnableExts[ext], runnableNames[base], isWorkflow(p), scope.CIConfig(p):
		return true
	case strings.HasPrefix(base, "dockerfile."), strings.HasPrefix(base, "makefile."):
		return true
	}
	if e, ok := extensions[ext]; ok && e.name != "" && e.name != "yaml" && e.name != "proto" {
		return true // go, python, typescript, c, rust, shell, terraform, sql, ...
	}
	return false
}

// shebang reports whether f's new version starts with a "#!" line the
// diff shows: an extensionless script.
func shebang(f *diff.File) bool {
	for _, h := range f.Hunks {
		if h.NewStart != 1 {
			continue
		}
		for _, l := range h.Lines {
			if l.Kind == diff.Delete {
				continue
			}
			return strings.HasPrefix(l.Text, "#!")
		}
	}
	return false
}

// runsCode reports whether f is a change to code that can run: its new or
// old name is code (a deletion or a move changes what runs too), or its new
// version starts with a shebang.
func runsCode(f *diff.File) bool {
	return canRun(f.NewPath) || canRun(f.OldPath) || shebang(f) || mdxCode(f)
}

// mdxCode reports whether f is an MDX page whose change touches its code:
// ESM (an import or export statement, to the blank line that ends it), a
// JSX expression in braces, or a component tag, outside fenced code
// samples. MDX code runs when the site builds and in the browser; its
// prose is documentation, which selects no security call on every docs
// edit. A hunk that starts inside a fence opened above it reads as outside
// one: that errs toward a security call.
func mdxCode(f *diff.File) bool {
	if !strings.EqualFold(path.Ext(f.Path()), ".mdx") {
		return false
	}
	for _, h := range f.Hunks {
		fence, esm := false, false
		for _, l := range h.Lines {
			t := strings.TrimSpace(l.Text)
			statement := strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "export ")
			switch {
			case l.Kind == diff.Delete:
				// The old side's line: a statement removed changes what
				// runs; the fence and ESM state follow the new side.
				if statement && !fence {
					return true
				}
				continue
			case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
				fence = !fence
				continue
			case fence:
				continue
			case t == "":
				esm = false
			case statement:
				esm = true
			}
			if l.Kind == diff.Add && (esm || mdxJSX(t)) {
				return true
			}
		}
	}
	return false
}

// mdxJSX reports whether an MDX line holds JSX: an expression in braces or
// a component tag (a capitalized name, or an attribute such as
// dangerouslySetInnerHTML).
func mdxJSX(t string) bool {
	if strings.Contains(t, "{") && strings.Contains(t, "}") {
		return true
	}
	for i := 0; i+1 < len(t); i++ {
		if t[i] == '<' && t[i+1] >= 'A' && t[i+1] <= 'Z' {
			return true
		}
	}
	return strings.Contains(t, "dangerouslySetInnerHTML")
}

// isTestFile reports whether the file at p is a test. A Go file is one only
// by its _test.go name: Go builds every other .go file of a package,
// whatever directory it is in. Other languages keep scope's rule (a test
// name, or a test directory: test/, spec/, e2e/ ...).
func isTestFile(p string) bool {
	if strings.EqualFold(path.Ext(p), ".go") {
		return strings.HasSuffix(strings.ToLower(p), "_test.go")
	}
	return scope.IsTest(p)
}

// sourceFile reports whether f is what the scanned personas' signals and
// the testing and maintainability rules read: not a test (isTestFile), and
// code by its name (runsCode, whatever its directory) or a file scope counts
// as executable (configuration, schemas: not documentation or lock files).
func sourceFile(f *diff.File) bool {
	return !isTestFile(f.Path()) && (runsCode(f) || scope.Executable(f.Path()))
}

// sourceLines counts the added and deleted lines of source files: selection's
// own count of executable changed lines, which no path class lowers.
func sourceLines(files []*diff.File) int {
	n := 0
	for _, f := range files {
		if sourceFile(f) {
			n += f.Added() + f.Deleted()
		}
	}
	return n
}

// securityReason is why the security persona runs when no security signal
// fired: any change to code that can run (SPEC Stage 3, issue 30). Keywords
// only say where to look; a shell call without them, an eval of a query
// parameter, keywords hidden in a raw string are all still code that runs.
func securityReason(files []*diff.File) string {
	var first string
	n := 0
	for _, f := range files {
		if !runsCode(f) {
			continue
		}
		if n == 0 {
			first = f.Path()
		}
		n++
	}
	if n == 0 {
		return ""
	}
	reason := "code that can run changed in " + first
	if more := n - 1; more == 1 {
		reason += " (and 1 more file)"
	} else if more > 1 {
		reason += " (and " + strconv.Itoa(more) + " more files)"
	}
	return reason
}
