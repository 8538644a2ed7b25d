package persona

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// When is the selection rule of a custom persona: it joins the team when a
// changed file matches one of Paths (globs in the exclude syntax), is
// written in one of Languages (LanguageOf), or has an added or deleted line
// containing one of Keywords (ASCII case-insensitive). An empty When (no
// criterion at all) means the persona runs on every review.
type When struct {
	Paths     []string
	Languages []string
	Keywords  []string

	globs scope.Globs
}

// reservedValidator is the name model requests of Stage 5b carry
// (llm.Validator); no persona may take it.
const reservedValidator = "validator"

// customName is the shape of a custom persona's name: lower-case words
// joined by hyphens, so it reads like the shipped names in the report.
var customName = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// NewCustom builds a custom persona from the repository configuration.
// The name must be lower-case words joined by hyphens and must not be a
// shipped persona's; tier is TierStandard or TierStrong ("" means
// standard); the languages must be ones LanguageOf knows; the globs must
// compile. Errors wrap ErrInvalid.
func NewCustom(name, prompt, tier string, w When) (Persona, error) {
	bad := func(format string, args ...any) (Persona, error) {
		return Persona{}, fmt.Errorf("%w: custom persona %q: %s", ErrInvalid, name, fmt.Sprintf(format, args...))
	}
	if !customName.MatchString(name) || len(name) > 40 {
		return bad("the name must be lower-case words joined by hyphens, at most 40 characters")
	}
	if slices.Contains(Names(), name) {
		return bad("the name is a shipped persona's")
	}
	if name == reservedValidator {
		return bad("the name is reserved for the validator")
	}
	if strings.TrimSpace(prompt) == "" {
		return bad("the prompt is empty")
	}
	if tier == "" {
		tier = TierStandard
	}
	if tier != TierStandard && tier != TierStrong {
		return bad("tier %q: want %s or %s", tier, TierStandard, TierStrong)
	}
	for _, l := range w.Languages {
		if !slices.Contains(Languages(), l) {
			return bad("unknown language %q (known: %s)", l, strings.Join(Languages(), ", "))
		}
	}
	g, err := scope.CompileGlobs(w.Paths)
	if err != nil {
		return bad("%v", err)
	}
	w.globs = g
	for i, k := range w.Keywords {
		if strings.TrimSpace(k) == "" {
			return bad("keyword %d is empty", i+1)
		}
		w.Keywords[i] = strings.ToLower(k)
	}
	rule := w.String()
	return Persona{Name: name, Rule: rule, Tier: tier, Instructions: strings.TrimSpace(prompt), Custom: true, When: &w, AlwaysOn: w.empty()}, nil
}

func (w *When) empty() bool { return len(w.Paths)+len(w.Languages)+len(w.Keywords) == 0 }

// String states the rule in one line, for the persona's Rule.
func (w *When) String() string {
	if w.empty() {
		return "every review (repository configuration)"
	}
	var parts []string
	if len(w.Paths) > 0 {
		parts = append(parts, "paths "+strings.Join(w.Paths, ", "))
	}
	if len(w.Languages) > 0 {
		parts = append(parts, "languages "+strings.Join(w.Languages, ", "))
	}
	if len(w.Keywords) > 0 {
		parts = append(parts, "keywords "+strings.Join(w.Keywords, ", "))
	}
	return strings.Join(parts, "; ") + " (repository configuration)"
}

// match returns the reason a custom persona is selected on files, or "".
// Paths are checked first, then languages, then keywords; the first file
// that fires names the reason.
func (w *When) match(files []*diff.File) string {
	for _, f := range files {
		if len(w.Paths) > 0 && w.globs.Match(f.Path()) {
			return "path " + f.Path() + " matches the configured paths"
		}
	}
	for _, f := range files {
		if l := LanguageOf(f.Path()); l != "" && slices.Contains(w.Languages, l) {
			return l + " file " + f.Path() + " changed"
		}
	}
	if len(w.Keywords) == 0 {
		return ""
	}
	for _, f := range files {
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Kind == diff.Context {
					continue
				}
				low := strings.ToLower(l.Text)
				for _, k := range w.Keywords {
					if strings.Contains(low, k) {
						return fmt.Sprintf("keyword %q in %s", k, f.Path())
					}
				}
			}
		}
	}
	return ""
}

// Languages returns the language names LanguageOf yields, sorted: the
// values a custom persona's `languages` may list.
func Languages() []string {
	var out []string
	for _, e := range extensions {
		if e.name != "" {
			out = append(out, e.name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// LanguageOf names the language of a file from its extension ("go",
// "python", "typescript", "javascript", ...), or "" when it is none of
// Languages.
func LanguageOf(p string) string {
	return extensions[strings.ToLower(path.Ext(p))].name
}
