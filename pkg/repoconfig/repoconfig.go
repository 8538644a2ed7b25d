// Package repoconfig reads a repository's own anchor-review configuration,
// .github/anchor-review.yml (SPEC section 7.5).
//
// The file is repository data read at the pull request's BASE commit, so a
// pull request cannot change its own review. [Parse] is strict and
// bounded: at most MaxBytes of YAML, at most MaxNodes values after alias
// expansion and MaxDepth levels of nesting (a "billion laughs" document
// fails in milliseconds instead of expanding), then JSON Schema validation
// against prompts/config.schema.json (gojsonschema) with unknown keys as
// errors, then the checks a schema cannot state (globs compile, custom
// persona names are free). Every problem is reported at once, each with its
// key path; the error matches ErrInvalid.
//
// The file has three kinds of key: settings that mirror workflow inputs
// (File.Settings; pkg/action maps each to its input and applies the
// precedence rule), text for the personas (instructions and
// path_instructions), and custom personas. The text is untrusted: the
// prompt builder fences it as repository data.
package repoconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/scope"
	"github.com/anchor-review/anchor-review/prompts"
)

// Path is where the configuration lives in a repository.
const Path = ".github/anchor-review.yml"

// Bounds of a configuration document, checked before and during parsing.
const (
	// MaxBytes is the largest file Parse reads (64 KiB: the schema's own
	// limits keep a valid file far below it).
	MaxBytes = 64 << 10
	// MaxNodes bounds the values of the document after alias expansion.
	MaxNodes = 10_000
	// MaxDepth bounds nesting.
	MaxDepth = 32
)

// Keys of the file that are not workflow-input settings.
const (
	KeyInstructions     = "instructions"
	KeyPathInstructions = "path_instructions"
	KeyCustomPersonas   = "custom_personas"
)

// ErrInvalid is matched (errors.Is) by every error Parse returns.
var ErrInvalid = errors.New("invalid repository configuration")

// Problem is one thing wrong with the file: the key path
// ("custom_personas.0.when.languages.1", "(root)" for the document) and
// what is wrong.
type Problem struct {
	Key, Message string
}

// String renders "key: message".
func (p Problem) String() string { return p.Key + ": " + p.Message }

// Error lists every problem of one file. It matches ErrInvalid.
type Error struct {
	Path     string
	Problems []Problem
}

// Error renders the file and every problem on one line.
func (e *Error) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return fmt.Sprintf("%s %s: %s", e.Path, ErrInvalid, strings.Join(parts, "; "))
}

// Lines renders the error for a log: a heading, then one problem a line.
func (e *Error) Lines() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (read at the base commit) is invalid; nothing was reviewed or posted:\n", e.Path)
	for _, p := range e.Problems {
		b.WriteString("  - " + p.String() + "\n")
	}
	return b.String()
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// PathInstruction is one path_instructions entry: text for the personas
// about the files Glob matches.
type PathInstruction struct {
	Glob, Text string
	globs      scope.Globs
}

// Match reports whether the instruction applies to the file at path.
func (p PathInstruction) Match(path string) bool { return p.globs.Match(path) }

// File is a parsed, valid configuration.
type File struct {
	// Settings holds every key that mirrors a workflow input, with its value
	// as YAML typed it: string, int, bool, or []string.
	Settings map[string]any
	// Instructions is text for every persona ("" when absent).
	Instructions string
	// PathInstructions are in the file's order.
	PathInstructions []PathInstruction
	// Personas are the custom personas, in the file's order.
	Personas []persona.Persona
}

// SettingKeys returns the keys of Settings, sorted.
func (f *File) SettingKeys() []string {
	keys := make([]string, 0, len(f.Settings))
	for k := range f.Settings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// SchemaKeys returns every top-level key config.schema.json allows, sorted.
func SchemaKeys() []string {
	var doc struct {
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(prompts.ConfigSchema(), &doc); err != nil {
		panic("repoconfig: " + err.Error()) // embedded at build time; every test catches it
	}
	keys := make([]string, 0, len(doc.Properties))
	for k := range doc.Properties {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Parse reads and validates one configuration document. An empty document
// (or one holding only comments) is an empty configuration.
func Parse(data []byte) (*File, error) {
	fail := func(ps ...Problem) error { return &Error{Path: Path, Problems: ps} }
	if len(data) > MaxBytes {
		return nil, fail(Problem{"(root)", fmt.Sprintf("the file is %d bytes; the limit is %d", len(data), MaxBytes)})
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) || strings.TrimSpace(string(data)) == "" {
			return &File{Settings: map[string]any{}}, nil
		}
		return nil, fail(Problem{"(root)", "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")})
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fail(Problem{"(root)", "more than one YAML document"})
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return &File{Settings: map[string]any{}}, nil
		}
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return &File{Settings: map[string]any{}}, nil
	}
	c := converter{budget: MaxNodes}
	value, err := c.value(root, "", 0)
	if err != nil {
		return nil, fail(*err)
	}
	// Schema problems and the checks beyond the schema are reported
	// together: a person fixes the file once.
	ps := validate(value)
	m, ok := value.(map[string]any)
	if !ok {
		return nil, fail(ps...)
	}
	f, more := build(root, m)
	if ps = sortProblems(append(ps, more...)); len(ps) > 0 {
		return nil, fail(ps...)
	}
	return f, nil
}

// converter turns a YAML node tree into the plain values JSON Schema
// validation takes, expanding aliases within the node budget.
type converter struct{ budget int }

func (c *converter) value(n *yaml.Node, key string, depth int) (any, *Problem) {
	at := func(msg string) *Problem { return &Problem{orRoot(key), msg} }
	c.budget--
	if c.budget < 0 {
		return nil, at(fmt.Sprintf("the document expands to more than %d values (anchors and aliases count each time they are used)", MaxNodes))
	}
	if depth > MaxDepth {
		return nil, at(fmt.Sprintf("nested deeper than %d levels", MaxDepth))
	}
	switch n.Kind {
	case yaml.AliasNode:
		return c.value(n.Alias, key, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Tag == "!!merge" {
				return nil, at(fmt.Sprintf("line %d: merge keys (<<) are not supported", k.Line))
			}
			if k.Kind != yaml.ScalarNode || (k.Tag != "!!str" && k.Tag != "!!int" && k.Tag != "!!bool" && k.Tag != "!!float") {
				return nil, at(fmt.Sprintf("line %d: a key must be a plain string", k.Line))
			}
			if _, dup := m[k.Value]; dup {
				return nil, &Problem{join(key, k.Value), fmt.Sprintf("line %d: duplicate key", k.Line)}
			}
			v, err := c.value(n.Content[i+1], join(key, k.Value), depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for i, e := range n.Content {
			v, err := c.value(e, join(key, strconv.Itoa(i)), depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		if n.Tag == "!!str" {
			return n.Value, nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, at(fmt.Sprintf("line %d: %v", n.Line, err))
		}
		return v, nil
	}
	return nil, at(fmt.Sprintf("line %d: unsupported YAML node", n.Line))
}

func join(key, k string) string {
	if key == "" {
		return k
	}
	return key + "." + k
}

func orRoot(key string) string {
	if key == "" {
		return "(root)"
	}
	return key
}

// Merge is the configuration a review uses when an organization sets
// defaults (the Action's config input) under the repository's own file:
// every setting the repository sets wins, the organization's fill in the
// rest; both instructions are kept (the organization's first, so the
// repository's read last); path instructions are the organization's then
// the repository's; custom personas are the repository's plus the
// organization's it does not redefine. Either may be nil.
func Merge(org, repo *File) *File {
	if org == nil {
		return repo
	}
	if repo == nil {
		repo = &File{Settings: map[string]any{}}
	}
	out := &File{Settings: make(map[string]any, len(org.Settings)+len(repo.Settings))}
	for k, v := range org.Settings {
		out.Settings[k] = v
	}
	for k, v := range repo.Settings {
		out.Settings[k] = v
	}
	switch {
	case strings.TrimSpace(org.Instructions) == "":
		out.Instructions = repo.Instructions
	case strings.TrimSpace(repo.Instructions) == "":
		out.Instructions = org.Instructions
	default:
		out.Instructions = strings.TrimRight(org.Instructions, "\n") + "\n\n" + repo.Instructions
	}
	out.PathInstructions = append(append([]PathInstruction(nil), org.PathInstructions...), repo.PathInstructions...)
	out.Personas = append(out.Personas, repo.Personas...)
	for _, p := range org.Personas {
		if !slices.ContainsFunc(repo.Personas, func(r persona.Persona) bool { return r.Name == p.Name }) {
			out.Personas = append(out.Personas, p)
		}
	}
	return out
}
