// Package finding defines the one Finding type that flows through every
// stage of the review after the model call: synthesis, validation, report
// and publishing all speak it.
package finding

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"unicode"
)

// Severity is the impact class of a finding, P0 (worst) to P3.
type Severity string

// The four severities, worst first.
const (
	P0 Severity = "P0"
	P1 Severity = "P1"
	P2 Severity = "P2"
	P3 Severity = "P3"
)

// Rank orders severities: P0 is 0, P3 is 3, anything unknown sorts last (4).
func (s Severity) Rank() int {
	switch s {
	case P0:
		return 0
	case P1:
		return 1
	case P2:
		return 2
	case P3:
		return 3
	}
	return 4
}

// Valid reports whether s is one of P0..P3.
func (s Severity) Valid() bool { return s.Rank() < 4 }

// Anchors returns the only confidence values a finding may carry, lowest
// first (a fresh slice: callers may not change the rule for others).
func Anchors() []int { return []int{0, 25, 50, 75, 100} }

// GateAnchor is the lowest anchor that may reach the report comment.
const GateAnchor = 75

// ValidAnchor reports whether c is one of the five anchors.
func ValidAnchor(c int) bool { return slices.Contains(Anchors(), c) }

// Promote returns the next anchor step up (50→75, 75→100, 100 stays).
func Promote(c int) int {
	switch {
	case c >= 100:
		return 100
	case c >= 75:
		return 100
	case c >= 50:
		return 75
	case c >= 25:
		return 50
	}
	return 25
}

// AutofixClasses returns the autofix_class values, most aggressive first;
// synthesis keeps the most conservative (highest index) when merging.
func AutofixClasses() []string {
	return []string{"safe_auto", "gated_auto", "manual", "advisory"}
}

// Owners returns the owner values, most aggressive first; synthesis keeps
// the most conservative (highest index) when merging.
func Owners() []string {
	return []string{"review-fixer", "downstream-resolver", "human", "release"}
}

// Finding is one problem a reviewer persona reported. The JSON fields up to
// Suggestion are exactly the model-facing schema in
// prompts/findings.schema.json; the rest are filled in by the pipeline and are
// never accepted from a model (the schema rejects unknown fields before a
// Finding is decoded).
type Finding struct {
	Title                string   `json:"title"`
	Severity             Severity `json:"severity"`
	File                 string   `json:"file"`
	Line                 int      `json:"line"`
	WhyItMatters         string   `json:"why_it_matters"`
	AutofixClass         string   `json:"autofix_class"`
	Owner                string   `json:"owner"`
	RequiresVerification bool     `json:"requires_verification"`
	Confidence           int      `json:"confidence"`
	Evidence             []string `json:"evidence"`
	PreExisting          bool     `json:"pre_existing"`
	SuggestedFix         string   `json:"suggested_fix,omitempty"`
	// Suggestion is an optional committable replacement of new-side lines;
	// pkg/inline checks it against the diff before it is ever rendered.
	Suggestion *Suggestion `json:"suggestion,omitempty"`

	// Reviewers lists every persona that reported this finding, sorted.
	Reviewers []string `json:"reviewers,omitempty"`
	// Number is the finding's 1-based number in the report (0 = unnumbered).
	Number int `json:"number,omitempty"`
	// ID is the finding's short id (IDs), set where it is rendered.
	ID string `json:"id,omitempty"`
	// Promoted is true when cross-reviewer agreement raised the anchor.
	Promoted bool `json:"promoted,omitempty"`
	// Validation is the Stage 5b verdict, when the validator ran.
	Validation *Validation `json:"validation,omitempty"`
	// FoundOn is the head commit the finding was first found on: an
	// earlier reviewed head for a finding carried by an incremental
	// re-review, else "" (this run's head).
	FoundOn string `json:"found_on,omitempty"`
	// TestGap is the test-gap finding synthesis folded into this one: the
	// missing or weak test that would catch this defect. It adds one line
	// to the finding's comment and nothing else: its reviewers are not
	// among Reviewers, and it never raises the anchor (folding is not
	// promotion).
	TestGap *TestGap `json:"test_gap,omitempty"`
	// Dismissed is a person's dismissal of the same problem at an earlier
	// head whose lines have changed since: the finding was judged afresh,
	// and its comment says it was dismissed before.
	Dismissed *PastDismissal `json:"dismissed,omitempty"`
}

// PastDismissal is a dismissal that no longer applies because the
// finding's lines changed after it (the text is untrusted: sanitize it).
type PastDismissal struct {
	Head   string `json:"head"` // the head it was dismissed at
	By     string `json:"by"`
	Reason string `json:"reason"`
}

// TestGap is a folded test-gap finding: its title (what the test would
// pin) and the personas that reported it.
type TestGap struct {
	Title     string   `json:"title"`
	Reviewers []string `json:"reviewers"`
}

// Fingerprint identifies a finding's problem independently of its line, so
// a later run can recognise it after the code around it moved: 16 hex
// digits of a SHA-256 over the file and the title's words, lower-cased.
func Fingerprint(f Finding) string {
	sum := sha256.Sum256([]byte(f.File + "\x00" + NormalizeTitle(f.Title)))
	return hex.EncodeToString(sum[:8])
}

// ShortIDLen is the length of a short id when no other finding of the
// report shares its first digits.
const ShortIDLen = 6

// ShortIDs gives each fingerprint (Fingerprint, 16 hex digits) the short id
// a person types to answer the finding (/anchor-review dismiss <id>): its
// first ShortIDLen digits, lengthened until no other fingerprint of the
// list shares them. Equal fingerprints (one problem) share an id. The id
// follows the finding from review to review, since its fingerprint does.
func ShortIDs(fps []string) []string {
	out := make([]string, len(fps))
	for i, fp := range fps {
		n := min(ShortIDLen, len(fp))
		for _, other := range fps {
			for other != fp && n < len(fp) && strings.HasPrefix(other, fp[:n]) {
				n++
			}
		}
		out[i] = fp[:n]
	}
	return out
}

// IDs maps each finding's fingerprint to its short id (ShortIDs) among
// fs: the report, its inline comments and its metadata all call it with
// the same findings (those posted and those dismissed), so they agree.
func IDs(fs []Finding) map[string]string {
	seen := map[string]bool{}
	var fps []string
	for _, f := range fs {
		if fp := Fingerprint(f); !seen[fp] {
			seen[fp] = true
			fps = append(fps, fp)
		}
	}
	ids := ShortIDs(fps)
	out := make(map[string]string, len(fps))
	for i, fp := range fps {
		out[fp] = ids[i]
	}
	return out
}

// Suggestion is a model-proposed replacement of lines StartLine..EndLine
// (inclusive, in the file's new version) by Replacement: the smallest exact
// fix, rendered as a committable suggestion block when code accepts it.
type Suggestion struct {
	StartLine   int    `json:"start_line"`
	EndLine     int    `json:"end_line"`
	Replacement string `json:"replacement"`
}

// Answer is one persona's whole answer, as the findings schema describes it.
type Answer struct {
	Reviewer      string    `json:"reviewer"`
	Findings      []Finding `json:"findings"`
	ResidualRisks []string  `json:"residual_risks"`
	TestingGaps   []string  `json:"testing_gaps"`
}

// Validation is the validator's answer for one finding (schema "validation").
type Validation struct {
	Validated bool   `json:"validated"`
	Reason    string `json:"reason"`
	// Severity, when set, is the severity the validator says the finding
	// deserves; the pipeline keeps the lower of it and the finding's own.
	Severity Severity `json:"severity,omitempty"`
}

// NormalizeTitle is a title as deduplication, the meta fingerprint and the
// inline fingerprint compare it: lower-case,
// every run of characters other than letters and digits turned into one
// space, trimmed. "Nil-pointer  deref!" and "nil pointer deref" are equal.
func NormalizeTitle(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		space = true
	}
	return b.String()
}
