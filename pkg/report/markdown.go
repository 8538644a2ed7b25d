package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// shaText renders a SHA read from metadata: short and in code when it
// looks like one, sanitized otherwise.
func shaText(sha string, o Options) string {
	if isHex(sha) && len(sha) >= 7 {
		return "`" + sha[:7] + "`"
	}
	if sha == "" {
		return "an earlier commit"
	}
	return clip(Sanitize(sha, o), 64)
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return s != ""
}

// writeList writes a bullet list, at most listCap items.
func writeList(b *strings.Builder, items []string) {
	if len(items) == 0 {
		return
	}
	for i, it := range items {
		if i == listCap {
			fmt.Fprintf(b, "- … and %s more\n", fmtInt(len(items)-listCap))
			break
		}
		b.WriteString("- " + it + "\n")
	}
	b.WriteString("\n")
}

func joinOrNone(parts []string, prefix string) string {
	if len(parts) == 0 {
		return "none dropped."
	}
	return prefix + strings.Join(parts, ", ") + "."
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
