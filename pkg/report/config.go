package report

import (
	"strings"

	"github.com/anchor-review/anchor-review/pkg/review"
)

// writeConfiguration writes the Coverage lines about the repository
// configuration (SPEC section 7.5): which file the review used, that a
// pull request editing it was reviewed with the base version, and where
// each effective setting came from, grouped by source. Nothing when the
// review looked for no configuration.
func writeConfiguration(b *strings.Builder, c review.Coverage, o Options) {
	if c.Config == nil && len(c.Settings) == 0 {
		return
	}
	b.WriteString("**Configuration:** ")
	if cu := c.Config; cu != nil {
		path := Code(cu.Path, o)
		if cu.Found {
			b.WriteString(path + " at the " + Sanitize(cu.Where, o))
			if len(cu.CustomPersonas) > 0 {
				b.WriteString(" (custom personas: " + clip(Sanitize(strings.Join(cu.CustomPersonas, ", "), o), itemMax) + ")")
			}
			b.WriteString(".")
		} else {
			b.WriteString("no " + path + " at the " + Sanitize(cu.Where, o) + ".")
		}
		if cu.EditedByPR {
			b.WriteString(" This pull request edits it; the review used the " + Sanitize(cu.Where, o) +
				" version (a pull request cannot change its own review).")
		}
	}
	b.WriteString("\n\n")
	if len(c.Settings) == 0 {
		return
	}
	var items []string
	for _, src := range []string{review.SourceInput, review.SourceConfig, review.SourceOrg, review.SourceDefault} {
		var parts []string
		for _, s := range c.Settings {
			if s.Source == src {
				v := "(none)"
				if s.Value != "" {
					// A code span keeps globs' asterisks literal.
					v = "`" + strings.ReplaceAll(clip(Sanitize(s.Value, o), 80), "`", "'") + "`"
				}
				parts = append(parts, Sanitize(s.Name, o)+" "+v)
			}
		}
		if len(parts) > 0 {
			items = append(items, "from "+map[string]string{
				review.SourceInput: "workflow inputs", review.SourceConfig: "the config file",
				review.SourceOrg: "the organization's defaults (the config input)", review.SourceDefault: "defaults",
			}[src]+": "+strings.Join(parts, " · "))
		}
	}
	writeList(b, items)
}
