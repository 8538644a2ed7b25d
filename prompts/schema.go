package prompts

import (
	"encoding/json"
	"fmt"
)

// SchemaFile is the name of the one file that defines every model answer.
const SchemaFile = "findings.schema.json"

// Schema names, as used in llm.Request.Schema and in the response format.
const (
	FindingsSchemaName    = "findings"
	ValidationSchemaName  = "validation"
	ValidationsSchemaName = "validations"
)

// FindingsSchema returns findings.schema.json as embedded: a JSON Schema
// draft-07 document whose root is a persona's answer.
func FindingsSchema() []byte {
	b, err := FS.ReadFile(SchemaFile)
	if err != nil {
		// The file is embedded at build time; a miss is a build defect.
		panic(fmt.Sprintf("prompts: %s not embedded: %v", SchemaFile, err))
	}
	return b
}

// ValidationSchema returns the validator's answer schema, derived from
// definitions.validation of findings.schema.json so it is written once: the
// definition becomes the root, and the file's definitions are kept so any
// reference still resolves.
func ValidationSchema() []byte {
	b, err := definitionAsRoot(FindingsSchema(), ValidationSchemaName)
	if err != nil {
		panic(fmt.Sprintf("prompts: %v", err))
	}
	return b
}

// Schemas returns every answer schema keyed by its name, the shape
// llm.Config.Schemas and llm.(*Replay).WithSchemas take.
func Schemas() map[string][]byte {
	return map[string][]byte{
		FindingsSchemaName:    FindingsSchema(),
		ValidationSchemaName:  ValidationSchema(),
		ValidationsSchemaName: ValidationsSchema(),
	}
}

func definitionAsRoot(doc []byte, name string) ([]byte, error) {
	root, def, err := definition(doc, name)
	if err != nil {
		return nil, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(def, &out); err != nil {
		return nil, fmt.Errorf("parse %s definition %q: %w", SchemaFile, name, err)
	}
	out["$schema"] = root["$schema"]
	out["definitions"] = root["definitions"]
	return json.MarshalIndent(out, "", "  ")
}

// definition parses doc's top level and returns it with its definition
// called name, raw.
func definition(doc []byte, name string) (root map[string]json.RawMessage, def json.RawMessage, err error) {
	if err := json.Unmarshal(doc, &root); err != nil {
		return nil, nil, fmt.Errorf("parse %s: %w", SchemaFile, err)
	}
	var defs map[string]json.RawMessage
	if err := json.Unmarshal(root["definitions"], &defs); err != nil {
		return nil, nil, fmt.Errorf("parse %s definitions: %w", SchemaFile, err)
	}
	def, ok := defs[name]
	if !ok {
		return nil, nil, fmt.Errorf("%s has no definition %q", SchemaFile, name)
	}
	return root, def, nil
}

// ConfigSchemaFile is the JSON Schema of the repository configuration file
// (.github/anchor-review.yml), checked by pkg/repoconfig.
const ConfigSchemaFile = "config.schema.json"

// ConfigSchema returns config.schema.json as embedded.
func ConfigSchema() []byte {
	b, err := FS.ReadFile(ConfigSchemaFile)
	if err != nil {
		panic(fmt.Sprintf("prompts: %s not embedded: %v", ConfigSchemaFile, err))
	}
	return b
}
