package action

import (
	"encoding/json"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/prompts"
)

// TestUsageRecordsEveryPersona: a report's running totals keep one entry
// per persona that ran in the PR's reviews, at most marker.MaxUsage; past
// it the last names by alphabet lose their figures without a word. Every
// shipped persona and as many custom ones as the configuration file
// allows must fit.
func TestUsageRecordsEveryPersona(t *testing.T) {
	shipped, err := persona.Load()
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties struct {
			CustomPersonas struct {
				MaxItems int `json:"maxItems"`
			} `json:"custom_personas"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(prompts.ConfigSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	custom := schema.Properties.CustomPersonas.MaxItems
	if custom == 0 {
		t.Fatal("config.schema.json: custom_personas has no maxItems")
	}
	if n := len(shipped) + custom; n > marker.MaxUsage {
		t.Errorf("%d shipped and %d custom personas can run, but the metadata records the usage of %d", len(shipped), custom, marker.MaxUsage)
	}
}
