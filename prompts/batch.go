package prompts

import (
	"encoding/json"
	"fmt"
)

// ValidationsSchema returns the answer schema of a per-file validator call
// (validator-batching: per-file): {"verdicts": [...]}, one verdict per
// finding, each definitions.validation of findings.schema.json plus the
// "finding" id it answers ("F1", "F2", ...). It is derived from that
// definition so a verdict is written once.
func ValidationsSchema() []byte {
	b, err := validationsSchema(FindingsSchema())
	if err != nil {
		panic(fmt.Sprintf("prompts: %v", err))
	}
	return b
}

func validationsSchema(doc []byte) ([]byte, error) {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("parse %s: %w", SchemaFile, err)
	}
	var defs map[string]json.RawMessage
	if err := json.Unmarshal(root["definitions"], &defs); err != nil {
		return nil, fmt.Errorf("parse %s definitions: %w", SchemaFile, err)
	}
	var item map[string]any
	if err := json.Unmarshal(defs[ValidationSchemaName], &item); err != nil || item == nil {
		return nil, fmt.Errorf("%s has no usable definition %q", SchemaFile, ValidationSchemaName)
	}
	props, _ := item["properties"].(map[string]any)
	required, _ := item["required"].([]any)
	if props == nil {
		return nil, fmt.Errorf("%s definition %q has no properties", SchemaFile, ValidationSchemaName)
	}
	props["finding"] = map[string]any{
		"type":        "string",
		"description": "The id of the finding this verdict answers, as the request numbers them (F1, F2, ...).",
	}
	item["required"] = append([]any{"finding"}, required...)
	delete(item, "title")
	out := map[string]any{
		"$schema":              json.RawMessage(root["$schema"]),
		"title":                ValidationsSchemaName,
		"type":                 "object",
		"description":          "The validator's verdicts on every finding of one file, each judged on its own.",
		"additionalProperties": false,
		"required":             []string{"verdicts"},
		"properties": map[string]any{
			"verdicts": map[string]any{
				"type":        "array",
				"description": "One verdict per finding of the request, in any order.",
				"items":       item,
			},
		},
		"definitions": json.RawMessage(root["definitions"]),
	}
	return json.MarshalIndent(out, "", "  ")
}
