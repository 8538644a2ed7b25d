// Package persona loads the reviewer personas from prompts/ and selects the
// team for one pull request.
//
// A persona is data: one Markdown file under prompts/personas/ whose
// front matter names it, says whether it is always on or conditional, states
// its selection rule in one line, and picks its model tier:
//
//	---
//	name: security
//	activation: conditional
//	rule: auth, sessions, crypto, ... change
//	tier: strong
//	---
//	# Security reviewer
//	...
//
// [Load] parses every file strictly. [Select] is deterministic code over
// cheap signals of the parsed diff (paths and added or deleted lines), never
// a model call; every conditional persona it picks carries a one-line reason
// naming the signal and the file where it fired.
package persona

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/prompts"
)

// Model tiers a persona can ask for.
const (
	// TierStrong personas run on the strong-model input.
	TierStrong = "strong"
	// TierStandard personas run on the model input.
	TierStandard = "standard"
)

// AlwaysOnReason is the Reason of a persona that runs on every review.
const AlwaysOnReason = "always on"

// Errors callers tell apart with errors.Is.
var (
	// ErrInvalid: a persona file is malformed (front matter, body, name).
	ErrInvalid = errors.New("persona: invalid persona file")
	// ErrUnknown: a name in the personas input names no persona.
	ErrUnknown = errors.New("persona: unknown persona")
)

// Persona is one reviewer persona as its prompt file defines it.
type Persona struct {
	// Name is the persona's name, also its file name without ".md".
	Name string
	// AlwaysOn is true for activation "always", false for "conditional".
	AlwaysOn bool
	// Rule is the one-line selection rule from the front matter.
	Rule string
	// Tier is TierStrong or TierStandard.
	Tier string
	// Instructions is the Markdown body after the front matter, trimmed:
	// what the persona hunts for, how it maps onto the anchors, what it
	// does not flag.
	Instructions string
	// Custom is true for a persona the repository's configuration file
	// defines (NewCustom): its Instructions are untrusted repository data,
	// fenced in its prompt, and When selects it.
	Custom bool
	// When selects a custom persona; nil for the shipped personas.
	When *When
}

// Correctness is the persona that runs on every review: no setting
// removes it.
const Correctness = "correctness"

// Names returns every shipped persona name: the eleven of SPEC's persona
// table, in its order, then the stack personas of SPEC section 7.5. It is
// also the order Load and Select return them in.
func Names() []string {
	return []string{
		Correctness,
		"testing",
		"maintainability",
		"project-standards",
		"security",
		"performance",
		"api-contract",
		"data-migrations",
		"reliability",
		"adversarial",
		"previous-comments",
		"go",
		"python",
		"typescript",
		"ci-security",
	}
}

// StackNames returns the stack personas (SPEC section 7.5): selected by the
// languages and kinds of file a pull request changes, listed after the
// eleven generic personas in Names.
func StackNames() []string { return []string{"go", "python", "typescript", "ci-security"} }

// Load parses every persona file embedded in prompts.FS and returns them in
// the order of Names. A file with missing, unknown, duplicate or empty
// front-matter keys, a bad activation or tier, a name that differs from its
// file name, or an empty body is an error naming the file; so is a persona
// of Names without a file, or a file that Names does not list.
func Load() ([]Persona, error) {
	return load(prompts.FS, "personas")
}

// load reads dir/*.md from fsys; tests call it with fstest.MapFS.
func load(fsys fs.FS, dir string) ([]Persona, error) {
	paths, err := fs.Glob(fsys, dir+"/*.md")
	if err != nil {
		return nil, fmt.Errorf("persona: list %s: %w", dir, err)
	}
	names := Names()
	byName := make(map[string]Persona, len(paths))
	for _, p := range paths {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("persona: read %s: %w", p, err)
		}
		per, err := parse(p, b)
		if err != nil {
			return nil, err
		}
		if want := strings.TrimSuffix(path.Base(p), ".md"); per.Name != want {
			return nil, fmt.Errorf("%w: %s: name %q does not match the file name %q", ErrInvalid, p, per.Name, want)
		}
		if !slices.Contains(names, per.Name) {
			return nil, fmt.Errorf("%w: %s: %q is not a known persona (known: %s)", ErrInvalid, p, per.Name, strings.Join(names, ", "))
		}
		byName[per.Name] = per
	}
	out := make([]Persona, 0, len(names))
	for _, n := range names {
		per, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("%w: %s/%s.md is missing", ErrInvalid, dir, n)
		}
		out = append(out, per)
	}
	return out, nil
}

// frontMatterKeys returns exactly the keys a persona header must have.
func frontMatterKeys() []string { return []string{"name", "activation", "rule", "tier"} }

// parse reads one persona file. file is used in error messages only.
func parse(file string, b []byte) (Persona, error) {
	bad := func(format string, args ...any) (Persona, error) {
		return Persona{}, fmt.Errorf("%w: %s: %s", ErrInvalid, file, fmt.Sprintf(format, args...))
	}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return bad("front matter must start with a line \"---\"")
	}
	header, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		if h, found := strings.CutSuffix(rest, "\n---"); found {
			header, body, ok = h, "", true
		}
	}
	if !ok {
		return bad("front matter is not closed by a line \"---\"")
	}
	keys := frontMatterKeys()
	values := make(map[string]string, len(keys))
	for i, line := range strings.Split(header, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		key, value, found := strings.Cut(line, ":")
		if !found {
			return bad("front matter line %d: want \"key: value\", got %q", i+2, line)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !slices.Contains(keys, key) {
			return bad("front matter line %d: unknown key %q (want %s)", i+2, key, strings.Join(keys, ", "))
		}
		if _, dup := values[key]; dup {
			return bad("front matter line %d: duplicate key %q", i+2, key)
		}
		if value == "" {
			return bad("front matter line %d: empty value for %q", i+2, key)
		}
		values[key] = value
	}
	for _, k := range keys {
		if _, ok := values[k]; !ok {
			return bad("front matter misses key %q", k)
		}
	}
	p := Persona{Name: values["name"], Rule: values["rule"], Tier: values["tier"], Instructions: strings.TrimSpace(body)}
	switch values["activation"] {
	case "always":
		p.AlwaysOn = true
	case "conditional":
	default:
		return bad("activation %q: want always or conditional", values["activation"])
	}
	if p.Tier != TierStrong && p.Tier != TierStandard {
		return bad("tier %q: want %s or %s", p.Tier, TierStrong, TierStandard)
	}
	if p.Instructions == "" {
		return bad("no instructions after the front matter")
	}
	return p, nil
}
