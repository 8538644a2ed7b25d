// Package sarif writes the posted findings as a SARIF 2.1.0 log (SPEC
// section 7.4, the sarif-path output) for github/codeql-action/upload-sarif,
// so code scanning can list, track and dismiss them.
//
// The mapping: one rule per finding (ruleId
// "anchor-review/<persona>/<key>", the persona being the finding's
// category, the key its fingerprint), described by that finding: code
// scanning titles an alert with its rule's short description, so each
// alert reads as its own problem (the title), with why it matters as the
// full description and the suggested fix in the help. A finding several
// personas reported belongs to the first of its sorted reviewers and lists
// all of them in its properties. Severity maps to
// level: P0 and P1 "error", P2 "warning", P3 "note". Each result has one
// location (the file relative to the checkout, %SRCROOT%, and the line) and
// the same fingerprint the inline comments carry as its partial
// fingerprint, so code scanning follows a finding across line shifts as the
// inline review does.
//
// Everything here is pure. Model text is plain text in SARIF (code
// scanning renders message.text verbatim): it is redacted of secrets and
// stripped of control and invisible characters, not Markdown-escaped.
package sarif

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/report"
)

// Version and SchemaURI identify the format written.
const (
	Version   = "2.1.0"
	SchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
)

// FingerprintKey names the partial fingerprint (versioned, as SARIF asks).
const FingerprintKey = "anchorReviewFinding/v1"

// ToolName is the driver's name, and the rule-id prefix.
const ToolName = "anchor-review"

// InformationURI is the tool's home page.
const InformationURI = "https://github.com/anchor-review/anchor-review"

// Options say what the log cannot learn from the findings.
type Options struct {
	// Fingerprints maps a finding's number to its fingerprint
	// (inline.FingerprintOf); a finding without one has no
	// partialFingerprints and code scanning computes its own.
	Fingerprints map[int]string
	// Complete is false for a partial review: the invocation then says
	// it did not succeed, so nobody reads the log as a clean bill.
	Complete bool
	// Note explains an incomplete review (toolExecutionNotifications).
	Note string
	// Secrets are redacted from every text, as in the report.
	Secrets []string
}

// Log is a SARIF log (the subset anchor-review writes).
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one analysis run.
type Run struct {
	Tool        Tool         `json:"tool"`
	Invocations []Invocation `json:"invocations"`
	Results     []Result     `json:"results"`
}

// Tool holds the driver.
type Tool struct {
	Driver Driver `json:"driver"`
}

// Driver describes anchor-review and its rules.
type Driver struct {
	Name           string `json:"name"`
	InformationURI string `json:"informationUri"`
	Rules          []Rule `json:"rules"`
}

// Rule is one finding's problem, as code scanning titles its alert.
type Rule struct {
	ID               string         `json:"id"`
	Name             string         `json:"name"`
	ShortDescription Message        `json:"shortDescription"`
	FullDescription  *Message       `json:"fullDescription,omitempty"`
	Help             *Message       `json:"help,omitempty"`
	DefaultConfig    RuleConfig     `json:"defaultConfiguration"`
	Properties       map[string]any `json:"properties,omitempty"`
}

// descriptionMax bounds a rule's descriptions: code scanning refuses a
// shortDescription over 1,024 characters.
const descriptionMax = 1000

// RuleConfig is a rule's default configuration.
type RuleConfig struct {
	Level string `json:"level"`
}

// Invocation says whether the run finished.
type Invocation struct {
	ExecutionSuccessful        bool           `json:"executionSuccessful"`
	ToolExecutionNotifications []Notification `json:"toolExecutionNotifications,omitempty"`
}

// Notification is a message about the run itself.
type Notification struct {
	Level   string  `json:"level"`
	Message Message `json:"message"`
}

// Message is plain text.
type Message struct {
	Text string `json:"text"`
}

// Result is one finding.
type Result struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             Message           `json:"message"`
	Locations           []Location        `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Properties          map[string]any    `json:"properties"`
}

// Location is a file and region.
type Location struct {
	PhysicalLocation PhysicalLocation `json:"physicalLocation"`
}

// PhysicalLocation is where in the checkout.
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           Region           `json:"region"`
}

// ArtifactLocation is a file relative to the checkout root.
type ArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

// Region is a line span (1-based).
type Region struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine,omitempty"`
}

// Level maps a severity to a SARIF level: P0 and P1 "error", P2
// "warning", P3 (and anything else) "note".
func Level(s finding.Severity) string {
	switch s {
	case finding.P0, finding.P1:
		return "error"
	case finding.P2:
		return "warning"
	}
	return "note"
}

// RuleID is the rule of a persona's finding whose key (fingerprint) is
// key.
func RuleID(persona, key string) string { return ToolName + "/" + persona + "/" + key }

// Build turns the posted findings into a SARIF log with one run.
func Build(findings []finding.Finding, o Options) Log {
	run := Run{
		Tool:        Tool{Driver: Driver{Name: ToolName, InformationURI: InformationURI, Rules: []Rule{}}},
		Invocations: []Invocation{{ExecutionSuccessful: o.Complete}},
		Results:     []Result{},
	}
	if !o.Complete {
		note := cmp.Or(text(o.Note, o.Secrets), "the review was incomplete: findings may be missing")
		run.Invocations[0].ToolExecutionNotifications = []Notification{{Level: "warning", Message: Message{Text: note}}}
	}
	index := map[string]int{}
	for _, f := range findings {
		persona := "unknown"
		if len(f.Reviewers) > 0 {
			persona = safeName(f.Reviewers[0])
		}
		title, why, fix := text(f.Title, o.Secrets), text(f.WhyItMatters, o.Secrets), text(f.SuggestedFix, o.Secrets)
		id := RuleID(persona, ruleKey(o.Fingerprints[f.Number], persona, title))
		if _, ok := index[id]; !ok {
			index[id] = len(run.Tool.Driver.Rules)
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rule(id, persona, f.Severity, title, why, fix))
		}
		msg := title
		if why != "" {
			msg += ". " + why
		}
		if fix != "" {
			msg += " Suggested fix: " + fix
		}
		reviewers := make([]string, 0, len(f.Reviewers))
		for _, r := range f.Reviewers {
			reviewers = append(reviewers, safeName(r))
		}
		res := Result{
			RuleID:    id,
			RuleIndex: index[id],
			Level:     Level(f.Severity),
			Message:   Message{Text: msg},
			Locations: []Location{{PhysicalLocation: PhysicalLocation{
				ArtifactLocation: ArtifactLocation{URI: fileURI(f.File), URIBaseID: "%SRCROOT%"},
				Region:           Region{StartLine: max(f.Line, 1)},
			}}},
			Properties: map[string]any{
				"severity": string(f.Severity), "confidence": f.Confidence, "reviewers": reviewers,
				"autofix_class": safeName(f.AutofixClass), "owner": safeName(f.Owner), "number": f.Number,
			},
		}
		if fp := o.Fingerprints[f.Number]; fp != "" {
			res.PartialFingerprints = map[string]string{FingerprintKey: fp}
		}
		run.Results = append(run.Results, res)
	}
	return Log{Schema: SchemaURI, Version: Version, Runs: []Run{run}}
}

// ruleKey is a finding's fingerprint, or when it has none, a hash of its
// persona and title: the same problem keeps its rule from run to run.
func ruleKey(fingerprint, persona, title string) string {
	if k := safeName(fingerprint); fingerprint != "" && k == strings.ToLower(fingerprint) {
		return k
	}
	sum := sha256.Sum256([]byte(persona + "\x00" + strings.ToLower(title)))
	return hex.EncodeToString(sum[:8])
}

// rule describes one finding's problem: its title, why it matters, and
// its suggested fix, all already plain text.
func rule(id, persona string, sev finding.Severity, title, why, fix string) Rule {
	r := Rule{
		ID:               id,
		Name:             ruleName(persona),
		ShortDescription: Message{Text: clip(cmp.Or(title, "Finding of the "+persona+" reviewer"), descriptionMax)},
		DefaultConfig:    RuleConfig{Level: Level(sev)},
		Properties:       map[string]any{"tags": []string{ToolName, persona}},
	}
	if why != "" {
		r.FullDescription = &Message{Text: clip(why, descriptionMax)}
	}
	help := []string{fmt.Sprintf("Found by the anchor-review %s reviewer and confirmed by its validator.", persona)}
	if why != "" {
		help = append(help, "Why it matters: "+why)
	}
	if fix != "" {
		help = append(help, "Suggested fix: "+fix)
	}
	r.Help = &Message{Text: strings.Join(help, "\n\n")}
	return r
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Marshal builds and encodes the log, indented.
func Marshal(findings []finding.Finding, o Options) ([]byte, error) {
	b, err := json.MarshalIndent(Build(findings, o), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("sarif: encode: %w", err)
	}
	return append(b, '\n'), nil
}

// text is model text made safe for a plain-text field: secrets redacted,
// control and invisible characters removed, whitespace folded.
func text(s string, secrets []string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if prompt.Hidden(r) || (unicode.IsControl(r) && !unicode.IsSpace(r)) {
			return -1
		}
		return r
	}, s)
	s = report.Redact(s, secrets)
	return strings.Join(strings.Fields(s), " ")
}

// safeName keeps a persona or enum name to [a-z0-9-_], as rule ids want.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return unicode.ToLower(r)
		}
		return -1
	}, s)
	return cmp.Or(s, "unknown")
}

// ruleName is a persona name as a PascalCase rule name.
func ruleName(persona string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(persona, func(r rune) bool { return r == '-' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// fileURI is a repository path as a relative URI reference, each segment
// escaped, that never parses with a scheme or an authority: a ':' is
// escaped too (a first segment "javascript:alert(1)" would otherwise be
// read as a scheme), and leading slashes go (a "//host" would be an
// authority). SARIF viewers resolve it against %SRCROOT%.
func fileURI(p string) string {
	segs := strings.Split(strings.TrimLeft(p, "/"), "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(url.PathEscape(s), ":", "%3A")
	}
	return strings.Join(segs, "/")
}
