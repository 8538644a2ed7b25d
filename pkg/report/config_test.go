package report

import (
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/review"
)

func TestWriteConfiguration(t *testing.T) {
	settings := []review.Setting{
		{Name: "fail-on", Value: "P2", Source: review.SourceConfig},
		{Name: "exclude", Value: "docs/**, *.snap", Source: review.SourceConfig},
		{Name: "model", Value: "gpt-4.1", Source: review.SourceInput},
		{Name: "quiet", Value: "false", Source: review.SourceDefault},
		{Name: "personas", Value: "", Source: review.SourceDefault},
	}
	tests := []struct {
		name string
		c    review.Coverage
		want string
	}{
		{"no configuration looked for", review.Coverage{}, ""},
		{"absent", review.Coverage{Config: &review.ConfigUse{Path: ".github/anchor-review.yml", Where: "base commit"}},
			"**Configuration:** no `.github/anchor-review.yml` at the base commit.\n\n"},
		{"found, edited by the PR, with sources",
			review.Coverage{Config: &review.ConfigUse{Path: ".github/anchor-review.yml", Where: "base commit", Found: true, EditedByPR: true, CustomPersonas: []string{"billing-rules"}}, Settings: settings},
			"**Configuration:** `.github/anchor-review.yml` at the base commit (custom personas: billing-rules). " +
				"This pull request edits it; the review used the base commit version (a pull request cannot change its own review).\n\n" +
				"- from workflow inputs: model `gpt-4.1`\n" +
				"- from the config file: fail-on `P2` · exclude `docs/**, *.snap`\n" +
				"- from defaults: quiet `false` · personas (none)\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			writeConfiguration(&b, tt.c, opts())
			if got := b.String(); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
