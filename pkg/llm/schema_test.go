package llm_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/prompts"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// goodFinding returns a valid finding as a generic map, for tests to break.
func goodFinding() map[string]any {
	return map[string]any{
		"title": "Nil map write panics", "severity": "P1", "file": "pkg/a/a.go", "line": 12,
		"why_it_matters": "every request with no header panics the server",
		"autofix_class":  "manual", "owner": "review-fixer", "requires_verification": true,
		"confidence": 75, "evidence": []any{"a.go:12 m[k] = v"}, "pre_existing": false,
		"suggested_fix": "initialise m in New",
	}
}

func answerWith(f map[string]any) string {
	b, _ := json.Marshal(map[string]any{
		"reviewer": "correctness", "findings": []any{f}, "residual_risks": []any{}, "testing_gaps": []any{},
	})
	return string(b)
}

func mustSchemas(t testing.TB) *llm.Schemas {
	t.Helper()
	s, err := llm.NewSchemas(prompts.Schemas())
	if err != nil {
		t.Fatalf("NewSchemas: %v", err)
	}
	return s
}

func TestFindingsSchema(t *testing.T) {
	t.Parallel()
	s := mustSchemas(t)
	with := func(k string, v any) string {
		f := goodFinding()
		f[k] = v
		return answerWith(f)
	}
	without := func(k string) string {
		f := goodFinding()
		delete(f, k)
		return answerWith(f)
	}
	tests := []struct {
		name   string
		answer string
		ok     bool
	}{
		{"good", answerWith(goodFinding()), true},
		{"no findings", `{"reviewer":"testing","findings":[],"residual_risks":["r"],"testing_gaps":[]}`, true},
		{"suggested_fix omitted", without("suggested_fix"), true},
		{"suggested_fix null from strict mode", with("suggested_fix", nil), true},
		{"confidence 75.0 is the integer 75", strings.Replace(answerWith(goodFinding()), `"confidence":75`, `"confidence":75.0`, 1), true},
		{"fenced with prose", "Sure.\n```json\n" + answerWith(goodFinding()) + "\n```\nDone.", true},
		{"float confidence", with("confidence", 0.85), false},
		{"confidence 72", with("confidence", 72), false},
		{"confidence string", with("confidence", "75"), false},
		{"missing why_it_matters", without("why_it_matters"), false},
		{"missing evidence", without("evidence"), false},
		{"unknown field", with("cwe", "CWE-79"), false},
		{"unknown top-level field", `{"reviewer":"x","findings":[],"residual_risks":[],"testing_gaps":[],"verdict":"ok"}`, false},
		{"missing testing_gaps", `{"reviewer":"x","findings":[],"residual_risks":[]}`, false},
		{"bad autofix_class", with("autofix_class", "auto"), false},
		{"bad owner", with("owner", "bot"), false},
		{"bad severity", with("severity", "P4"), false},
		{"lowercase severity", with("severity", "p1"), false},
		{"title over 100", with("title", strings.Repeat("x", 101)), false},
		{"title at 100", with("title", strings.Repeat("é", 100)), true},
		{"line 0", with("line", 0), false},
		{"line float", with("line", 3.5), false},
		{"empty evidence", with("evidence", []any{}), false},
		{"evidence not strings", with("evidence", []any{1}), false},
		{"required null", with("title", nil), false},
		{"pre_existing string", with("pre_existing", "false"), false},
		{"not JSON", "I found no problems.", false},
		{"array root", `[` + answerWith(goodFinding()) + `]`, true}, // the object inside is found
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Check("findings", tc.answer)
			if (err == nil) != tc.ok {
				t.Fatalf("Check: got err %v; want ok=%v", err, tc.ok)
			}
			if err != nil {
				var se *llm.SchemaError
				if !errors.As(err, &se) || len(se.Problems) == 0 {
					t.Errorf("got error %T %v; want *SchemaError with problems", err, err)
				}
				return
			}
			var a finding.Answer
			dec := json.NewDecoder(bytes.NewReader(got))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&a); err != nil {
				t.Fatalf("valid answer %s does not decode into finding.Answer: %v", got, err)
			}
		})
	}
}

func TestValidationSchema(t *testing.T) {
	t.Parallel()
	s := mustSchemas(t)
	tests := []struct {
		answer string
		ok     bool
	}{
		{`{"validated":true,"reason":"the nil map is written on line 12"}`, true},
		{`{"validated":false,"reason":"handled by the caller"}`, true},
		{`{"validated":"true","reason":"x"}`, false},
		{`{"validated":true}`, false},
		{`{"validated":true,"reason":"x","confidence":75}`, false},
		{`{"reviewer":"x","findings":[],"residual_risks":[],"testing_gaps":[]}`, false},
	}
	for _, tc := range tests {
		_, err := s.Check("validation", tc.answer)
		if (err == nil) != tc.ok {
			t.Errorf("Check(validation, %s): got err %v; want ok=%v", tc.answer, err, tc.ok)
		}
	}
	if _, err := s.Check("verdict", `{}`); err == nil {
		t.Errorf("Check with an unknown schema name: got nil error; want one")
	}
}

func TestStrictSchemaFindings(t *testing.T) {
	t.Parallel()
	got, err := llm.StrictSchema(prompts.FindingsSchema())
	if err != nil {
		t.Fatalf("StrictSchema: %v", err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "findings.strict.golden.json")
	if *update {
		if err := os.WriteFile(golden, indented.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if !bytes.Equal(indented.Bytes(), want) {
		t.Errorf("strict schema differs from %s; run go test -update and review the diff\ngot:\n%s", golden, indented.Bytes())
	}

	var root map[string]any
	if err := json.Unmarshal(got, &root); err != nil {
		t.Fatal(err)
	}
	checkStrict(t, "$", root)
	item := root["properties"].(map[string]any)["findings"].(map[string]any)["items"].(map[string]any)
	fix := item["properties"].(map[string]any)["suggested_fix"].(map[string]any)
	if typ, _ := json.Marshal(fix["type"]); string(typ) != `["string","null"]` {
		t.Errorf("suggested_fix type: got %s; want [\"string\",\"null\"]", typ)
	}
	title := item["properties"].(map[string]any)["title"].(map[string]any)
	if title["type"] != "string" {
		t.Errorf("title type: got %v; want string (required fields stay non-null)", title["type"])
	}
}

// checkStrict asserts the rules strict mode imposes, everywhere in the tree.
func checkStrict(t *testing.T, path string, node map[string]any) {
	t.Helper()
	for k := range node {
		switch k {
		case "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "description":
		default:
			t.Errorf("%s: keyword %q not allowed in a strict schema", path, k)
		}
	}
	if props, ok := node["properties"].(map[string]any); ok {
		if node["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties: got %v; want false", path, node["additionalProperties"])
		}
		var req []string
		for _, r := range node["required"].([]any) {
			req = append(req, r.(string))
		}
		for name, p := range props {
			if !slices.Contains(req, name) {
				t.Errorf("%s: property %s not in required %v", path, name, req)
			}
			checkStrict(t, path+"."+name, p.(map[string]any))
		}
	}
	if items, ok := node["items"].(map[string]any); ok {
		checkStrict(t, path+"[]", items)
	}
}

func TestStrictSchemaShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, want, wantErr string
	}{
		{
			name:   "optional enum becomes nullable with null in the enum",
			schema: `{"type":"object","required":["a"],"properties":{"a":{"type":"string","minLength":1},"b":{"type":"string","enum":["x","y"]}}}`,
			want:   `{"type":"object","required":["a","b"],"properties":{"a":{"type":"string"},"b":{"type":["string","null"],"enum":["x","y",null]}},"additionalProperties":false}`,
		},
		{
			name:   "optional without a type is wrapped in anyOf",
			schema: `{"type":"object","properties":{"r":{"$ref":"#/definitions/d"}},"definitions":{"d":{"enum":[1,2]}}}`,
			want:   `{"type":"object","properties":{"r":{"anyOf":[{"enum":[1,2]},{"type":"null"}]}},"required":["r"],"additionalProperties":false}`,
		},
		{
			name:   "array items are made strict",
			schema: `{"type":"object","required":["l"],"properties":{"l":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}}}}`,
			want:   `{"type":"object","required":["l"],"properties":{"l":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}}},"additionalProperties":false}`,
		},
		{
			name:   "properties and required keep the document's order, not the alphabet",
			schema: `{"type":"object","required":["z","a"],"properties":{"z":{"type":"string"},"m":{"type":"integer"},"a":{"type":"boolean"}}}`,
			want:   `{"type":"object","required":["z","m","a"],"properties":{"z":{"type":"string"},"m":{"type":["integer","null"]},"a":{"type":"boolean"}},"additionalProperties":false}`,
		},
		{name: "trailing data", schema: `{"type":"object"} {}`, wantErr: "parse schema"},
		{name: "recursive reference", schema: `{"type":"object","properties":{"x":{"$ref":"#"}}}`, wantErr: "recursive"},
		{name: "remote reference", schema: `{"type":"object","properties":{"x":{"$ref":"http://e.com/s.json"}}}`, wantErr: "not local"},
		{name: "dangling reference", schema: `{"type":"object","properties":{"x":{"$ref":"#/definitions/nope"}}}`, wantErr: "does not resolve"},
		{name: "non-object root", schema: `{"type":"array","items":{"type":"string"}}`, wantErr: "root must be an object"},
		{name: "not JSON", schema: `{`, wantErr: "parse schema"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := llm.StrictSchema([]byte(tc.schema))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got err %v; want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("StrictSchema: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestExtractJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`{"a":1}`, `{"a":1}`, true},
		{"```json\n{\"a\":1}\n```", `{"a":1}`, true},
		{"Here is my review:\n```\n{\"a\":{\"b\":[1,2]}}\n```\nThanks!", `{"a":{"b":[1,2]}}`, true},
		{`I think {this} is it: {"a":"}"}`, `{"a":"}"}`, true},
		{`{"a":1} and {"b":2}`, `{"a":1}`, true},
		{`  {"s":"brace { inside"}  trailing`, `{"s":"brace { inside"}`, true},
		{`{"a":1`, "", false},
		{`no json here`, "", false},
		{`[1,2,3]`, "", false},
		{``, "", false},
	}
	for _, tc := range tests {
		got, err := llm.ExtractJSON(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ExtractJSON(%q): got err %v; want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("ExtractJSON(%q): got %q; want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, "```json\n{\"reviewer\":\"x\"}\n```", `prose {"a":[{"b":null}]} prose`,
		`{{{{`, `{"a":"\u00e9"}`, "", `}{`, answerWith(goodFinding()),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := llm.ExtractJSON(s)
		if err != nil {
			return
		}
		if !strings.Contains(s, string(got)) {
			t.Fatalf("result %q is not a substring of the input", got)
		}
		var obj map[string]any
		if err := json.Unmarshal(got, &obj); err != nil {
			t.Fatalf("result %q is not a JSON object: %v", got, err)
		}
	})
}
