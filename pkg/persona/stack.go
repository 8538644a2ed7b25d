package persona

import (
	"fmt"
	"path"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// stackFile reports which stack persona (StackNames) a changed file
// selects, with the label of the signal, or "" for none. Language
// personas look at executable files only (not tests, docs or lock
// files; scope has already left out what the base shows to be vendored or
// generated), like the other diff signals; ci-security looks at
// workflow and action definitions wherever they are.
func stackFile(p string) (name, label string) {
	if isWorkflow(p) {
		return "ci-security", "workflow or action definition"
	}
	if !canRun(p) || isTestFile(p) {
		return "", ""
	}
	switch LanguageOf(p) {
	case "go":
		return "go", "Go code"
	case "python":
		return "python", "Python code"
	case "typescript":
		return "typescript", "TypeScript code"
	case "javascript":
		return "typescript", "JavaScript code"
	}
	return "", ""
}

// isWorkflow reports whether p is a GitHub Actions workflow
// (.github/workflows/*.yml) or an action definition (action.yml anywhere).
func isWorkflow(p string) bool {
	base := strings.ToLower(path.Base(p))
	ext := path.Ext(base)
	if ext != ".yml" && ext != ".yaml" {
		return false
	}
	if base == "action.yml" || base == "action.yaml" {
		return true
	}
	return path.Dir(p) == ".github/workflows" || strings.HasSuffix(path.Dir(p), "/.github/workflows")
}

// stackReasons returns the reason of every stack persona whose files
// changed: the first file and how many more.
func stackReasons(files []*diff.File) map[string]string {
	type seen struct {
		label, path string
		files       int
	}
	hits := map[string]*seen{}
	for _, f := range files {
		name, label := stackFile(f.Path())
		if name == "" {
			continue
		}
		// Like every path rule: a change that touches no line of code (a
		// docstring, a comment) selects nobody.
		lower := strings.ToLower(f.Path())
		if _, changed := codeFlags(f, langOf(path.Base(lower))); !changed {
			continue
		}
		if h := hits[name]; h != nil {
			h.files++
			continue
		}
		hits[name] = &seen{label: label, path: f.Path(), files: 1}
	}
	out := make(map[string]string, len(hits))
	for name, h := range hits {
		r := h.label + " in " + h.path
		if more := h.files - 1; more == 1 {
			r += " (and 1 more file)"
		} else if more > 1 {
			r += fmt.Sprintf(" (and %d more files)", more)
		}
		out[name] = r
	}
	return out
}
