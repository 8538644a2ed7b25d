package prompts

import (
	"encoding/json"
	"slices"
	"testing"
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
