// Package marker reads and writes the two hidden lines that open every
// anchor-review report comment: the marker that identifies the comment, and
// the metadata line that lets a later run carry the verdict forward.
package marker

import (
	"encoding/json"
	"fmt"
	"slices"
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

// Verdicts and Conclusions are the values a meta line may carry; anything
// else is a forgery or a corruption, and the line does not parse.
var (
	verdicts    = []string{"ready", "ready-with-fixes", "not-ready", "degraded"}
	conclusions = []string{"success", "failure", "neutral", "skipped", "action_required"}
)

// HasReport reports whether body is a report comment: the marker is its
// FIRST line. A marker anywhere else (a quote, a bot that echoes PR text)
// does not make a report, or any workflow could switch reviews off.
func HasReport(body string) bool {
	first, _, _ := strings.Cut(body, "\n")
	return strings.TrimSpace(first) == Report
}

// ParseReport reads a report comment: the marker on the first line and a
// valid metadata line on the second. Anything else is an error.
func ParseReport(body string) (Meta, error) {
	if !HasReport(body) {
		return Meta{}, fmt.Errorf("report: the first line is not %q", Report)
	}
	_, rest, _ := strings.Cut(body, "\n")
	second, _, _ := strings.Cut(rest, "\n")
	return ParseMeta(second)
}

// ParseMeta finds the metadata line in body and decodes it strictly:
// unknown fields, unknown versions, a head SHA that is not 40 hex digits,
// a verdict or conclusion outside its enum and a negative count are
// errors, so a forged line cannot carry a value the outputs would echo.
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
		if err := m.check(); err != nil {
			return Meta{}, fmt.Errorf("report metadata: %w", err)
		}
		return m, nil
	}
	return Meta{}, fmt.Errorf("report metadata: no %q line", strings.TrimSpace(metaPrefix))
}

func (m Meta) check() error {
	if !isSHA(m.HeadSHA) {
		return fmt.Errorf("head_sha %q is not a 40-digit hex SHA", m.HeadSHA)
	}
	if !slices.Contains(verdicts, m.Verdict) {
		return fmt.Errorf("verdict %q is not one of %s", m.Verdict, strings.Join(verdicts, ", "))
	}
	if !slices.Contains(conclusions, m.Conclusion) {
		return fmt.Errorf("conclusion %q is not one of %s", m.Conclusion, strings.Join(conclusions, ", "))
	}
	if m.Blocking < 0 {
		return fmt.Errorf("blocking %d is negative", m.Blocking)
	}
	return nil
}

func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
