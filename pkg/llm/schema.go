package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/xeipuuv/gojsonschema"
)

// strictKeywords are the JSON Schema keywords every strict structured-output
// implementation (OpenAI, Azure OpenAI) accepts. Everything else (length and
// range limits, formats, patterns, titles, defaults) is dropped from the
// strict schema; validation against the original schema still enforces it.
var strictKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "anyOf": true, "description": true,
}

// StrictSchema derives the schema sent as a strict json_schema response
// format from a draft-07 schema: local references are inlined, keywords
// strict mode does not accept are dropped, every object lists all its
// properties in required and forbids others, and properties the original
// leaves optional become nullable (the answer then carries null, which the
// client removes before validating against the original).
func StrictSchema(schema []byte) ([]byte, error) {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("llm: parse schema: %w", err)
	}
	out, err := strictNode(root, root, nil)
	if err != nil {
		return nil, err
	}
	obj, ok := out.(map[string]any)
	if !ok || obj["type"] != "object" {
		return nil, errors.New("llm: strict schema root must be an object")
	}
	return json.Marshal(obj)
}

func strictNode(root map[string]any, node any, refs []string) (any, error) {
	m, ok := node.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("llm: schema node is %T, want object", node)
	}
	if ref, ok := m["$ref"].(string); ok {
		if slices.Contains(refs, ref) {
			return nil, fmt.Errorf("llm: schema reference %s is recursive", ref)
		}
		target, err := resolveRef(root, ref)
		if err != nil {
			return nil, err
		}
		return strictNode(root, target, append(refs, ref))
	}
	out := map[string]any{}
	for k, v := range m {
		if strictKeywords[k] {
			out[k] = v
		}
	}
	if items, ok := m["items"]; ok {
		s, err := strictNode(root, items, refs)
		if err != nil {
			return nil, err
		}
		out["items"] = s
	}
	if alts, ok := m["anyOf"].([]any); ok {
		var list []any
		for _, a := range alts {
			s, err := strictNode(root, a, refs)
			if err != nil {
				return nil, err
			}
			list = append(list, s)
		}
		out["anyOf"] = list
	}
	props, isObject := m["properties"].(map[string]any)
	if !isObject {
		return out, nil
	}
	required := map[string]bool{}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	newProps := map[string]any{}
	for name, p := range props {
		s, err := strictNode(root, p, refs)
		if err != nil {
			return nil, err
		}
		if !required[name] {
			s = nullable(s.(map[string]any))
		}
		newProps[name] = s
		names = append(names, name)
	}
	sort.Strings(names)
	out["properties"] = newProps
	out["required"] = names
	out["additionalProperties"] = false
	return out, nil
}

// nullable lets s also be null.
func nullable(s map[string]any) map[string]any {
	switch t := s["type"].(type) {
	case string:
		s["type"] = []any{t, "null"}
	case []any:
		if !slices.Contains(t, any("null")) {
			s["type"] = append(slices.Clone(t), "null")
		}
	default:
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	}
	if e, ok := s["enum"].([]any); ok && !slices.Contains(e, nil) {
		s["enum"] = append(slices.Clone(e), nil)
	}
	return s
}

func resolveRef(root map[string]any, ref string) (any, error) {
	if ref == "#" {
		return root, nil
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("llm: schema reference %s is not local", ref)
	}
	var cur any = root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("llm: schema reference %s does not resolve", ref)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("llm: schema reference %s does not resolve", ref)
		}
	}
	return cur, nil
}

// maxCandidates bounds how many '{' ExtractJSON tries, so adversarial text
// cannot make it quadratic.
const maxCandidates = 64

// ExtractJSON finds the JSON object in a model's answer: it tolerates code
// fences and prose before or after the object, and returns the first '{'
// that starts a complete, well-formed JSON object, byte for byte.
func ExtractJSON(s string) ([]byte, error) {
	tries := 0
	for i := 0; i < len(s) && tries < maxCandidates; i++ {
		if s[i] != '{' {
			continue
		}
		tries++
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			continue
		}
		return []byte(s[i : i+int(dec.InputOffset())]), nil
	}
	return nil, errors.New("no JSON object in the answer")
}

// normalize turns an extracted object into the compact JSON Response.JSON
// carries: null members are removed (strict mode sends optional fields as
// null; the original schemas allow null nowhere, so a required null still
// fails, as missing), and integral numbers written as floats (75.0, 1e2)
// become integers so they decode into Go ints.
func normalize(obj []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(clean(v)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func clean(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if x == nil {
				delete(t, k)
				continue
			}
			t[k] = clean(x)
		}
	case []any:
		for i := range t {
			t[i] = clean(t[i])
		}
	case json.Number:
		if _, err := t.Int64(); err == nil {
			return t
		}
		if f, err := t.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return json.Number(strconv.FormatInt(int64(f), 10))
		}
	}
	return v
}

// Schemas holds compiled answer schemas by name. It is safe for
// concurrent use.
type Schemas struct {
	byName map[string]*compiled
}

type compiled struct {
	original []byte
	strict   []byte
	schema   *gojsonschema.Schema
}

// NewSchemas compiles draft-07 schema documents keyed by name (e.g.
// prompts.Schemas()) and derives their strict forms.
func NewSchemas(src map[string][]byte) (*Schemas, error) {
	s := &Schemas{byName: map[string]*compiled{}}
	for name, doc := range src {
		sch, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(doc))
		if err != nil {
			return nil, fmt.Errorf("llm: compile schema %q: %w", name, err)
		}
		strict, err := StrictSchema(doc)
		if err != nil {
			return nil, fmt.Errorf("llm: schema %q: %w", name, err)
		}
		s.byName[name] = &compiled{original: doc, strict: strict, schema: sch}
	}
	return s, nil
}

// Check reads an answer the way the client does: ExtractJSON, then null
// members dropped and integral floats made integers, then validation
// against the named schema. It returns the normalized compact JSON, or an
// error (a *SchemaError when the answer does not validate).
func (s *Schemas) Check(name, answer string) ([]byte, error) {
	c, err := s.get(name)
	if err != nil {
		return nil, err
	}
	return c.check(answer)
}

func (s *Schemas) get(name string) (*compiled, error) {
	if s == nil {
		return nil, fmt.Errorf("no schema named %q (no schemas set)", name)
	}
	c, ok := s.byName[name]
	if !ok {
		return nil, fmt.Errorf("no schema named %q", name)
	}
	return c, nil
}

// SchemaError lists why an answer failed its schema.
type SchemaError struct {
	Problems []string
}

// Error lists the problems.
func (e *SchemaError) Error() string {
	return "answer does not match the schema: " + strings.Join(e.Problems, "; ")
}

// maxProblems bounds the validation errors reported (and sent back in a
// repair), so a wildly wrong answer cannot blow up the repair prompt.
const maxProblems = 20

// check extracts, normalizes and validates an answer.
func (c *compiled) check(content string) ([]byte, error) {
	obj, err := ExtractJSON(content)
	if err != nil {
		return nil, &SchemaError{Problems: []string{err.Error()}}
	}
	norm, err := normalize(obj)
	if err != nil {
		return nil, &SchemaError{Problems: []string{err.Error()}}
	}
	res, err := c.schema.Validate(gojsonschema.NewBytesLoader(norm))
	if err != nil {
		return nil, &SchemaError{Problems: []string{err.Error()}}
	}
	if res.Valid() {
		return norm, nil
	}
	// gojsonschema's error order varies from run to run; sorting makes the
	// repair prompt, the logs and the report byte-stable.
	var probs []string
	for _, e := range res.Errors() {
		probs = append(probs, e.String())
	}
	slices.Sort(probs)
	if len(probs) > maxProblems {
		probs = append(probs[:maxProblems], fmt.Sprintf("and %d more", len(probs)-maxProblems))
	}
	return nil, &SchemaError{Problems: probs}
}
