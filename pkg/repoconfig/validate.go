package repoconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/xeipuuv/gojsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/scope"
	"github.com/anchor-review/anchor-review/prompts"
)

// customName mirrors the schema's pattern for custom persona names.
var customName = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// validate checks the document against config.schema.json and returns
// every problem, sorted by key path.
func validate(value any) []Problem {
	schema, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(prompts.ConfigSchema()))
	if err != nil {
		panic("repoconfig: " + prompts.ConfigSchemaFile + ": " + err.Error()) // embedded; every test catches it
	}
	doc, err := json.Marshal(value)
	if err != nil {
		// YAML scalars that JSON cannot hold (.inf, .nan) end up here.
		return []Problem{{"(root)", "a value cannot be represented in JSON: " + err.Error()}}
	}
	res, err := schema.Validate(gojsonschema.NewBytesLoader(doc))
	if err != nil {
		return []Problem{{"(root)", err.Error()}}
	}
	var out []Problem
	for _, e := range res.Errors() {
		out = append(out, problemOf(e))
	}
	return out
}

// sortProblems orders problems by key path, then message, without repeats.
func sortProblems(ps []Problem) []Problem {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(ps)
}

// problemOf words one schema error for a person editing the file.
func problemOf(e gojsonschema.ResultError) Problem {
	key := e.Field()
	d := e.Details()
	switch e.Type() {
	case "additional_property_not_allowed":
		return Problem{join(strings.TrimPrefix(key, "(root)"), fmt.Sprint(d["property"])), "unknown key"}
	case "required":
		return Problem{join(strings.TrimPrefix(key, "(root)"), fmt.Sprint(d["property"])), "is required"}
	case "invalid_type":
		return Problem{key, fmt.Sprintf("is %s; want %s", d["given"], d["expected"])}
	case "enum":
		return Problem{key, "must be one of " + fmt.Sprint(d["allowed"])}
	case "pattern":
		if strings.HasSuffix(key, ".name") || strings.HasPrefix(key, "personas") {
			return Problem{key, "must be lower-case words joined by hyphens (like house-rules)"}
		}
		if strings.HasSuffix(key, "model") {
			return Problem{key, "must be a model name without spaces"}
		}
	}
	msg := e.Description()
	if msg != "" {
		msg = strings.ToLower(msg[:1]) + msg[1:]
	}
	return Problem{key, msg}
}

// build turns a schema-valid document into a File and runs the checks a
// schema cannot state.
func build(root *yaml.Node, doc map[string]any) (*File, []Problem) {
	f := &File{Settings: map[string]any{}}
	var ps []Problem
	for k, v := range doc {
		switch k {
		case KeyInstructions:
			f.Instructions, _ = v.(string)
		case KeyPathInstructions, KeyCustomPersonas:
		default:
			if _, ok := v.([]any); ok {
				v = strs(v)
			}
			f.Settings[k] = v
		}
	}
	if ex, ok := f.Settings["exclude"].([]string); ok {
		for i, g := range ex {
			if err := scope.CheckPatterns([]string{g}); err != nil {
				ps = append(ps, Problem{fmt.Sprintf("exclude.%d", i), err.Error()})
			}
		}
	}
	// path_instructions in the file's order: the YAML mapping, not the map.
	if pi, ok := doc[KeyPathInstructions].(map[string]any); ok {
		for _, glob := range mappingKeys(root, KeyPathInstructions) {
			g, err := scope.CompileGlobs([]string{glob})
			if err != nil {
				ps = append(ps, Problem{KeyPathInstructions + "." + glob, globMessage(err)})
				continue
			}
			text, _ := pi[glob].(string)
			f.PathInstructions = append(f.PathInstructions, PathInstruction{Glob: glob, Text: text, globs: g})
		}
	}
	if cps, ok := doc[KeyCustomPersonas].([]any); ok {
		seen := map[string]bool{}
		for i, e := range cps {
			m, _ := e.(map[string]any)
			key := fmt.Sprintf("%s.%d", KeyCustomPersonas, i)
			name, _ := m["name"].(string)
			if name == "" || !customName.MatchString(name) {
				continue // the schema reports it
			}
			if seen[name] {
				ps = append(ps, Problem{key + ".name", fmt.Sprintf("%q is defined twice", name)})
				continue
			}
			seen[name] = true
			var w persona.When
			if wm, ok := m["when"].(map[string]any); ok {
				w.Paths, w.Languages, w.Keywords = strs(wm["paths"]), strs(wm["languages"]), strs(wm["keywords"])
			}
			tier, _ := m["tier"].(string)
			prompt, _ := m["prompt"].(string)
			p, err := persona.NewCustom(name, prompt, tier, w)
			if err != nil && strings.TrimSpace(prompt) == "" {
				continue // the schema reports it
			}
			if err != nil {
				msg := err.Error()
				if _, after, ok := strings.Cut(msg, fmt.Sprintf("custom persona %q: ", name)); ok {
					msg = after
				}
				ps = append(ps, Problem{key, globMessage(errors.New(msg))})
				continue
			}
			f.Personas = append(f.Personas, p)
		}
	}
	return f, ps
}

// globMessage words a glob error for a file where the glob is not an
// exclude pattern.
func globMessage(err error) string {
	return strings.Replace(err.Error(), string(scope.ErrBadPattern), "bad glob", 1)
}

func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// mappingKeys returns the keys of the mapping at root[key] in document
// order, following an alias once.
func mappingKeys(root *yaml.Node, key string) []string {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != key {
			continue
		}
		n := root.Content[i+1]
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		var keys []string
		for j := 0; j+1 < len(n.Content); j += 2 {
			keys = append(keys, n.Content[j].Value)
		}
		return keys
	}
	return nil
}
