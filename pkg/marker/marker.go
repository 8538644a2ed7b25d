// Package marker reads and writes the two hidden lines that open every
// anchor-review report comment: the marker that identifies the comment, and
// the metadata line that lets a later run carry the verdict forward.
package marker

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Report is the first line of every report comment.
const Report = "<!-- anchor-review:report -->"

const metaPrefix = "<!-- anchor-review:meta "
const metaSuffix = " -->"

// Meta is the JSON carried on the metadata line.
type Meta struct {
	Version    int    `json:"version"`
	HeadSHA    string `json:"head_sha"`
	Verdict    string `json:"verdict"`
	Conclusion string `json:"conclusion"`
	Blocking   int    `json:"blocking"`
}

// FormatMeta renders the metadata line (no trailing newline).
func FormatMeta(m Meta) string {
	if m.Version == 0 {
		m.Version = 1
	}
	b, _ := json.Marshal(m) // a struct of strings and ints cannot fail
	// json.Marshal escapes <, > and & so the JSON cannot close the comment.
	return metaPrefix + string(b) + metaSuffix
}

// HasReport reports whether body carries the report marker as a line of its own.
func HasReport(body string) bool {
	for line := range strings.Lines(body) {
		if strings.TrimSpace(line) == Report {
			return true
		}
	}
	return false
}

// ParseMeta finds the metadata line in body and decodes it.
func ParseMeta(body string) (Meta, error) {
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, metaPrefix) || !strings.HasSuffix(line, metaSuffix) {
			continue
		}
		raw := strings.TrimSuffix(strings.TrimPrefix(line, metaPrefix), metaSuffix)
		var m Meta
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			return Meta{}, fmt.Errorf("report metadata: %w", err)
		}
		if m.Version != 1 {
			return Meta{}, fmt.Errorf("report metadata: unsupported version %d", m.Version)
		}
		return m, nil
	}
	return Meta{}, fmt.Errorf("report metadata: no %q line", strings.TrimSpace(metaPrefix))
}
