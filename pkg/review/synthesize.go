package review

import (
	"strings"

	"github.com/anchor-review/anchor-review/pkg/prompt"
)

// forbidsSuppression reports whether a standards file states a rule
// against lint-disable comments (SPEC step 6's exception): a line that
// names a suppression form and says it is not allowed.
func forbidsSuppression(std []prompt.Standards) bool {
	forms := []string{"nolint", "lint-disable", "eslint-disable", "noqa", "lint suppression", "suppress lint",
		"suppression comment", "lint ignore", "lint-ignore", "rubocop:disable", "@suppresswarnings", "type: ignore", "linter directive"}
	bans := []string{"never", "must not", "do not", "don't", "forbidden", "not allowed", "prohibited", "no "}
	for _, s := range std {
		for line := range strings.Lines(strings.ToLower(s.Content)) {
			if containsAny(line, forms) && containsAny(line, bans) {
				return true
			}
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
