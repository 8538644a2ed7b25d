package prompts

import (
	"bytes"
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

// findingIDProperty is the verdict's "finding" property.
const findingIDProperty = `{"type": "string", "description": "The id of the finding this verdict answers, as the request numbers them (F1, F2, ...)."}`

func validationsSchema(doc []byte) ([]byte, error) {
	root, def, err := definition(doc, ValidationSchemaName)
	if err != nil {
		return nil, err
	}
	var item map[string]json.RawMessage
	if err := json.Unmarshal(def, &item); err != nil || item == nil {
		return nil, fmt.Errorf("%s has no usable definition %q", SchemaFile, ValidationSchemaName)
	}
	// The properties stay raw: a model writes its keys in the order the
	// schema lists them, so the definition's order (the verdict before its
	// reason) must survive, behind the id ("finding") that leads.
	props := bytes.TrimSpace(item["properties"])
	var names map[string]json.RawMessage
	if json.Unmarshal(props, &names) != nil || len(names) == 0 {
		return nil, fmt.Errorf("%s definition %q has no properties", SchemaFile, ValidationSchemaName)
	}
	item["properties"] = append([]byte(`{"finding": `+findingIDProperty+`,`), props[1:]...)
	var required []string
	if r, ok := item["required"]; ok {
		if err := json.Unmarshal(r, &required); err != nil {
			return nil, fmt.Errorf("parse %s definition %q required: %w", SchemaFile, ValidationSchemaName, err)
		}
	}
	if item["required"], err = json.Marshal(append([]string{"finding"}, required...)); err != nil {
		return nil, err
	}
	delete(item, "title")
	out := map[string]any{
		"$schema":              root["$schema"],
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
		"definitions": root["definitions"],
	}
	return json.MarshalIndent(out, "", "  ")
}
