package prompts

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/anchor-review/anchor-review/internal/jsonkeys"
)

func TestSchemas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		doc          []byte
		wantRequired []string
	}{
		{FindingsSchemaName, FindingsSchema(), []string{"reviewer", "findings", "residual_risks", "testing_gaps"}},
		{ValidationSchemaName, ValidationSchema(), []string{"validated", "reason"}},
	}
	all := Schemas()
	for _, tc := range tests {
		var s struct {
			Schema               string         `json:"$schema"`
			Required             []string       `json:"required"`
			AdditionalProperties *bool          `json:"additionalProperties"`
			Definitions          map[string]any `json:"definitions"`
		}
		if err := json.Unmarshal(tc.doc, &s); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if s.Schema != "http://json-schema.org/draft-07/schema#" {
			t.Errorf("%s: got $schema %q; want draft-07", tc.name, s.Schema)
		}
		if !slices.Equal(s.Required, tc.wantRequired) {
			t.Errorf("%s: got required %v; want %v", tc.name, s.Required, tc.wantRequired)
		}
		if s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: got additionalProperties %v; want false", tc.name, s.AdditionalProperties)
		}
		if _, ok := s.Definitions["finding"]; !ok {
			t.Errorf("%s: definitions lack finding; references would not resolve", tc.name)
		}
		if string(all[tc.name]) != string(tc.doc) {
			t.Errorf("Schemas()[%q] differs from its function", tc.name)
		}
	}
	if _, err := definitionAsRoot(FindingsSchema(), "nope"); err == nil {
		t.Errorf("definitionAsRoot(nope): got nil error; want one")
	}
}

func TestValidationsSchema(t *testing.T) {
	t.Parallel()
	var s struct {
		Required   []string `json:"required"`
		Properties struct {
			Verdicts struct {
				Type  string `json:"type"`
				Items struct {
					Required             []string       `json:"required"`
					AdditionalProperties *bool          `json:"additionalProperties"`
					Properties           map[string]any `json:"properties"`
				} `json:"items"`
			} `json:"verdicts"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(Schemas()[ValidationsSchemaName], &s); err != nil {
		t.Fatal(err)
	}
	items := s.Properties.Verdicts.Items
	if !slices.Equal(s.Required, []string{"verdicts"}) || s.Properties.Verdicts.Type != "array" {
		t.Errorf("root: required %v, verdicts type %q; want [verdicts] array", s.Required, s.Properties.Verdicts.Type)
	}
	if !slices.Equal(items.Required, []string{"finding", "validated", "reason"}) {
		t.Errorf("verdict required = %v; want finding, validated, reason", items.Required)
	}
	for _, p := range []string{"finding", "validated", "reason", "severity"} {
		if _, ok := items.Properties[p]; !ok {
			t.Errorf("verdict lacks property %q", p)
		}
	}
	if items.AdditionalProperties == nil || *items.AdditionalProperties {
		t.Errorf("verdict additionalProperties = %v; want false", items.AdditionalProperties)
	}
	if _, err := validationsSchema([]byte(`{"definitions":{}}`)); err == nil {
		t.Errorf("validationsSchema without the definition: got nil error; want one")
	}
}

// TestValidationsSchemaKeepsOrder: a model writes its keys in the order the
// schema lists them, so a verdict of the per-file schema lists its
// properties as the validation definition does, behind the finding id (a
// Go map would sort them: reason before validated).
func TestValidationsSchemaKeepsOrder(t *testing.T) {
	t.Parallel()
	var def struct {
		Definitions struct {
			Validation struct {
				Properties json.RawMessage `json:"properties"`
			} `json:"validation"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(FindingsSchema(), &def); err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Verdicts struct {
				Items struct {
					Properties json.RawMessage `json:"properties"`
				} `json:"items"`
			} `json:"verdicts"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(ValidationsSchema(), &s); err != nil {
		t.Fatal(err)
	}
	want := append([]string{"finding"}, keysOf(t, def.Definitions.Validation.Properties)...)
	if got := keysOf(t, s.Properties.Verdicts.Items.Properties); !slices.Equal(got, want) {
		t.Errorf("verdict properties: got %v; want %v", got, want)
	}
}

// keysOf lists the keys of the JSON object raw in the order its bytes
// give them.
func keysOf(t *testing.T, raw []byte) []string {
	t.Helper()
	keys, err := jsonkeys.Of(raw)
	if err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return keys
}
