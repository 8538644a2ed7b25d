package inline

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/finding"
)

// markerPrefix starts the first line of every inline comment anchor-review
// writes; the fingerprint follows it.
const markerPrefix = "<!-- anchor-review:inline "

// markerRe reads the marker line: the fingerprint, and the head SHA when
// a later run marked the comment resolved.
var markerRe = regexp.MustCompile(`^<!-- anchor-review:inline fp=([0-9a-f]{16})(?: resolved=([0-9a-f]{7,40}))? -->$`)

// Fingerprint identifies a finding across runs without its line number:
// the file, the normalized problem title and the trimmed text of the code
// line it is anchored to. A push that only moves the line keeps the
// fingerprint; a rewritten line, another file or another problem changes it.
// 16 hex digits (64 bits) of SHA-256.
func Fingerprint(file, title, lineText string) string {
	h := sha256.New()
	for _, part := range []string{file, finding.NormalizeTitle(title), strings.TrimSpace(lineText)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Marker is what the hidden first line of an inline comment says.
type Marker struct {
	Fingerprint string
	// ResolvedIn is the head SHA of the run that marked the comment
	// resolved; "" while the finding is open.
	ResolvedIn string
}

// ParseMarker reads the marker from the FIRST line of body only: a copy
// quoted further down (in a suggestion block, a reply) never counts.
func ParseMarker(body string) (Marker, bool) {
	first, _, _ := strings.Cut(body, "\n")
	m := markerRe.FindStringSubmatch(strings.TrimRight(first, "\r"))
	if m == nil {
		return Marker{}, false
	}
	return Marker{Fingerprint: m[1], ResolvedIn: m[2]}, true
}

// FormatMarker writes the marker line (no newline).
func FormatMarker(m Marker) string {
	if m.ResolvedIn != "" {
		return markerPrefix + "fp=" + m.Fingerprint + " resolved=" + m.ResolvedIn + " -->"
	}
	return markerPrefix + "fp=" + m.Fingerprint + " -->"
}
