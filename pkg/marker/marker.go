// Package marker reads and writes the two hidden lines that open every
// anchor-review report comment: the marker that identifies the comment, and
// the metadata line that lets a later run carry the verdict forward.
//
// The metadata is versioned. Version 1 (release 1) records the reviewed
// head and the verdict. Version 2 adds what an incremental re-review needs:
// the history of reviewed heads and the posted findings (file, line,
// severity, anchor, fingerprint, and the commit each was found on), bounded
// (MaxFindings, MaxHeads) so the line stays small. A version 1 line still
// parses; it carries no findings, which means "review the whole PR".
//
// Release 3 adds, still as version 2 and every field optional (a report
// written before has none, and reads as "not recorded"), what
// `anchor-review stats` reads: the running totals of the PR's reviews per
// persona (Usage: reviews, calls, tokens, cost, findings posted and acted
// on), the validator's (ValidatorUsage), the findings later heads resolved
// (Resolved, the newest MaxResolved), and each finding's inline comment
// fingerprint (Finding.Inline), bounded like the rest.
//
// Within version 2, a finding may also record what the report showed of
// it besides its title (why it matters, the suggested fix), so a carried
// finding reads as it did when first posted; the whole line stays within
// MaxLine, and a line without them (written before) still parses.
//
// Release 4 adds, still as version 2, each finding's short id (Finding.ID,
// the id a person types to dismiss it) and the dismissals a person with
// write access made (Dismissals): who, when, why, and what lines they
// looked at (Dismissal.Lines), so a later review keeps the finding
// dismissed while those lines stay as they were. Only a run that read the
// commenter's permission writes them; they are read only from our own
// report.
package marker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Report is the first line of every report comment.
const Report = "<!-- anchor-review:report -->"

const metaPrefix = "<!-- anchor-review:meta "
const metaSuffix = " -->"

// Version is the metadata version this release writes.
const Version = 2

// Bounds of a version 2 line, so it stays a small part of the comment.
const (
	// MaxFindings is the most findings a meta line records; a report with
	// more sets Truncated and the next run reviews the whole PR.
	MaxFindings = 50
	// MaxHeads is the most reviewed heads the history keeps (the newest).
	MaxHeads = 20
	// MaxTitle is the most runes of a finding's title recorded.
	MaxTitle = 120
	// MaxUsage is the most personas the running usage totals record:
	// every shipped persona (15) and as many custom ones as the
	// configuration file allows (10), with room for more shipped ones
	// (pkg/action's TestUsageRecordsEveryPersona holds it to that).
	MaxUsage = 32
	// MaxResolved is the most resolved findings recorded (the newest);
	// the per-persona ActedOn counts stay exact beyond it.
	MaxResolved = 20
	// MaxWhy and MaxFix are the most runes of a finding's explanation
	// and suggested fix recorded: what the report's table shows (a longer
	// fix is not shown there, and not recorded).
	MaxWhy = 1500
	MaxFix = 300
	// MaxLine is the most bytes the explanations may grow the line to:
	// past it, the least severe findings are recorded without them (and
	// carried with their title alone), so the hidden line never crowds the
	// findings out of a 65,536-character comment.
	MaxLine = 16384
	// MaxDismissals is the most dismissals a line records; past it a new
	// dismissal takes the place of the oldest lapsed one (history only),
	// and is refused when all are in force (one in force is never
	// dropped silently: a lost dismissal would block the merge again).
	MaxDismissals = 50
	// MaxReason is the most runes of a dismissal's reason recorded.
	MaxReason = 300
	// maxLogin bounds a GitHub login (39 characters, and "[bot]").
	maxLogin = 60
	// maxReviewer and maxFile bound the other free-text fields.
	maxReviewer = 40
	maxFile     = 400
)

// Meta is the JSON carried on the metadata line.
type Meta struct {
	Version int    `json:"version"`
	HeadSHA string `json:"head_sha"`
	// BaseRef is the base branch the review compared against (version 2):
	// a PR retargeted to another base since is reviewed whole, since the
	// new commits alone do not show what the new base changes.
	BaseRef string `json:"base_ref,omitempty"`
	// Scope fingerprints what decided which files and personas the
	// review covered (exclude patterns, the forced team, the base's
	// .gitattributes marks; version 2): when it changes, the new commits
	// alone do not show what the earlier review left out.
	Scope      string `json:"scope,omitempty"`
	Verdict    string `json:"verdict"`
	Conclusion string `json:"conclusion"`
	Blocking   int    `json:"blocking"`

	// Version 2.

	// Heads are the heads reviewed so far, oldest first, the last being
	// HeadSHA; at most MaxHeads.
	Heads []string `json:"heads,omitempty"`
	// Findings are the findings the report posted, at most MaxFindings.
	Findings []Finding `json:"findings,omitempty"`
	// Truncated is true when the report posted more findings than
	// Findings records: they cannot be carried, so the next run reviews
	// the whole PR.
	Truncated bool `json:"truncated,omitempty"`
	// Incomplete is true when the review was not complete (SPEC 7.1): a
	// later incremental review would inherit its gaps, so the next run
	// reviews the whole PR.
	Incomplete bool `json:"incomplete,omitempty"`

	// Release 3 (optional; see the package comment).

	// Reviews counts the reviews of this PR the usage totals cover.
	Reviews int `json:"reviews,omitempty"`
	// Incremental counts the reviews of this PR (of Reviews) that were
	// incremental re-reviews (release 4; absent before). Only they can
	// find a finding acted on, so stats judges acted-on rates by them: a
	// team that rebases gets whole-PR re-reviews, and a rate of 0 there
	// says nothing about the findings.
	Incremental int `json:"incremental,omitempty"`
	// Usage are the running totals per persona over those reviews, at
	// most MaxUsage, sorted by name.
	Usage []Usage `json:"usage,omitempty"`
	// ValidatorUsage is the validator's running total (its Name is empty).
	ValidatorUsage *Usage `json:"validator_usage,omitempty"`
	// Resolved are findings of earlier reports gone at a later head after
	// a push changed their lines (the re-review decided it), the newest
	// MaxResolved.
	Resolved []Resolved `json:"resolved,omitempty"`

	// Release 4 (optional).

	// Dismissals are the findings people with write access dismissed,
	// oldest first, at most MaxDismissals. A restore removes its entry.
	Dismissals []Dismissal `json:"dismissals,omitempty"`
}

// Dismissal is a person's answer to a finding: "this is not a problem",
// with a reason on the record. It takes the finding out of the blocking
// set while the finding's lines stay as they were at Head.
type Dismissal struct {
	// ID is the finding's short id when it was dismissed.
	ID string `json:"id"`
	// Fingerprint is the finding's (finding.Fingerprint): 16 hex digits.
	Fingerprint string `json:"fingerprint"`
	File        string `json:"file"`
	Line        int    `json:"line"` // at Head
	// Lines is LinesKey of the finding's lines at Head: a later review
	// keeps the finding dismissed only where its lines read the same. ""
	// when they could not be read: only the same head keeps it dismissed.
	Lines    string `json:"lines,omitempty"`
	Severity string `json:"severity"` // P0..P3
	Title    string `json:"title"`
	// Reviewer is the finding's first reviewer (the persona stats credits).
	Reviewer string `json:"reviewer,omitempty"`
	// By is the login of the person who dismissed it; At when (RFC 3339,
	// UTC); Reason why, as plain text (sanitized, at most MaxReason runes).
	By     string `json:"by"`
	At     string `json:"at"`
	Reason string `json:"reason"`
	// Head is the head the dismissal was made at (40 hex digits).
	Head string `json:"head"`
	// Lapsed is the head at which a review found the finding again with
	// its lines changed: it was judged afresh, and the dismissal no
	// longer applies. "" while it applies.
	Lapsed string `json:"lapsed,omitempty"`
}

// Applies reports whether the dismissal still takes its finding out of the
// blocking set.
func (d Dismissal) Applies() bool { return d.Lapsed == "" }

// Covers reports whether d, applying, answers the instance of its problem
// at line (a finding's line; 0 reads as 1) at the head it was dismissed
// at: the same problem at two lines shares a fingerprint, and each
// instance is dismissed on its own.
func (d Dismissal) Covers(fingerprint string, line int) bool {
	return d.Applies() && d.Fingerprint == fingerprint && d.Line == max(line, 1)
}

// LinesKey fingerprints the text of a finding's line and one line either
// side (what its permalink shows), each trimmed of surrounding white
// space: a push that moves the lines keeps the key, one that edits them
// changes it. 16 hex digits; "" when line is not in content.
func LinesKey(content string, line int) string {
	lines := strings.Split(content, "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	h := sha256.New()
	for i := max(line-2, 0); i <= min(line, len(lines)-1); i++ {
		h.Write([]byte(strings.TrimSpace(lines[i])))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Usage is a persona's (or the validator's) running total over a PR's
// reviews.
type Usage struct {
	Name string `json:"name,omitempty"`
	// Reviews counts the reviews the persona ran in.
	Reviews          int `json:"reviews"`
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CachedTokens     int `json:"cached_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens"`
	// Cost is the estimated cost of the priced reviews in US dollars;
	// Unpriced counts the reviews whose model had no known price (their
	// tokens are counted, their cost is not).
	Cost     float64 `json:"cost,omitempty"`
	Unpriced int     `json:"unpriced,omitempty"`
	// Posted counts the distinct findings this persona had posted on the
	// PR (credited to the first reviewer of a finding); ActedOn those of
	// them a later head resolved.
	Posted  int `json:"posted,omitempty"`
	ActedOn int `json:"acted_on,omitempty"`
}

// Resolved is a posted finding a later head resolved: a push changed its
// lines and the re-review no longer found it (the validator refuted it
// again, or its file was deleted or left the PR).
type Resolved struct {
	Fingerprint string `json:"fingerprint"`
	Severity    string `json:"severity"`
	Reviewer    string `json:"reviewer,omitempty"`
	// Inline is the fingerprint of its inline comment, when it had one.
	Inline string `json:"inline,omitempty"`
	// Commit is the head it was found on; Head the one it was gone at.
	Commit string `json:"commit"`
	Head   string `json:"head"`
}

// Finding is one posted finding as the metadata records it: enough to
// carry it to a later head and show it again.
type Finding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"` // P0..P3
	Anchor   int    `json:"anchor"`   // 0, 25, 50, 75 or 100
	// Fingerprint identifies the problem independently of its line (see
	// finding.Fingerprint): 16 hex digits.
	Fingerprint string `json:"fingerprint"`
	// ID is the short id the report shows for the finding (a prefix of
	// Fingerprint, finding.ShortIDs); "" in a report written before.
	ID       string `json:"id,omitempty"`
	Title    string `json:"title"`
	Reviewer string `json:"reviewer,omitempty"`
	// Commit is the head the finding was first found on (40 hex digits).
	Commit string `json:"commit"`
	// Inline is the fingerprint of the finding's inline comment (see
	// inline.Fingerprint), when the run computed one: stats reads the
	// comment's reactions through it.
	Inline string `json:"inline,omitempty"`
	// Why and Fix are the finding's why_it_matters and suggested fix as
	// the report showed them; empty when a report did not record them
	// (an older one, or past MaxLine).
	Why string `json:"why,omitempty"`
	Fix string `json:"fix,omitempty"`
}

// WithoutExplanations returns m with no finding's Why or Fix: the smallest
// line that still carries every finding.
func (m Meta) WithoutExplanations() Meta {
	if len(m.Findings) == 0 {
		return m
	}
	fs := slices.Clone(m.Findings)
	for i := range fs {
		fs[i].Why, fs[i].Fix = "", ""
	}
	m.Findings = fs
	return m
}

// Carries reports whether m can seed an incremental re-review: version 2,
// every posted finding recorded, and a complete review.
func (m Meta) Carries() bool {
	return m.Version >= 2 && !m.Truncated && !m.Incomplete
}

// FormatMeta renders the metadata line (no trailing newline). A zero
// Version writes the current one; the free-text fields are clipped to
// their bounds, and over MaxFindings findings or MaxHeads heads the line
// keeps the first findings (the caller lists the most severe first) and
// sets Truncated, and keeps the newest heads.
func FormatMeta(m Meta) string {
	if m.Version == 0 {
		m.Version = Version
	}
	if len(m.Findings) > MaxFindings {
		m.Findings, m.Truncated = m.Findings[:MaxFindings], true
	}
	if len(m.Heads) > MaxHeads {
		m.Heads = m.Heads[len(m.Heads)-MaxHeads:]
	}
	if len(m.Resolved) > MaxResolved {
		m.Resolved = m.Resolved[len(m.Resolved)-MaxResolved:]
	}
	if len(m.Usage) > MaxUsage {
		m.Usage = m.Usage[:MaxUsage]
	}
	if len(m.Usage) > 0 || len(m.Resolved) > 0 {
		us := make([]Usage, len(m.Usage))
		for i, u := range m.Usage {
			u.Name, u.Cost = clip(u.Name, maxReviewer), roundCost(u.Cost)
			us[i] = u
		}
		m.Usage = us
		rs := make([]Resolved, len(m.Resolved))
		for i, r := range m.Resolved {
			r.Reviewer = clip(r.Reviewer, maxReviewer)
			rs[i] = r
		}
		m.Resolved = rs
	}
	if len(m.Dismissals) > 0 {
		ds := make([]Dismissal, len(m.Dismissals))
		for i, d := range m.Dismissals {
			d.Title, d.Reviewer, d.File = clip(d.Title, MaxTitle), clip(d.Reviewer, maxReviewer), clip(d.File, maxFile)
			d.Reason, d.By = clip(d.Reason, MaxReason), clip(d.By, maxLogin)
			ds[i] = d
		}
		m.Dismissals = ds
	}
	if m.ValidatorUsage != nil {
		v := *m.ValidatorUsage
		v.Name, v.Cost = "", roundCost(v.Cost)
		m.ValidatorUsage = &v
	}
	if len(m.Findings) == 0 {
		return fit(m, encode(m))
	}
	fs := make([]Finding, len(m.Findings))
	explained := make([]Finding, len(m.Findings))
	for i, f := range m.Findings {
		f.Title, f.Reviewer, f.File = clip(f.Title, MaxTitle), clip(f.Reviewer, maxReviewer), clip(f.File, maxFile)
		if utf8.RuneCountInString(f.Fix) > MaxFix {
			f.Fix = "" // the table leaves it out too
		}
		f.Why, f.Fix = clip(f.Why, MaxWhy), clip(f.Fix, MaxFix)
		explained[i] = f
		f.Why, f.Fix = "", ""
		fs[i] = f
	}
	// Explanations go in, most severe finding first (the caller's order),
	// while the line stays within MaxLine.
	m.Findings = fs
	line := encode(m)
	for i, f := range explained {
		if f.Why == "" && f.Fix == "" {
			continue
		}
		fs[i] = f
		if next := encode(m); len(next) <= MaxLine {
			line = next
			continue
		}
		fs[i].Why, fs[i].Fix = "", ""
	}
	return fit(m, line)
}

// MaxMetaBytes is the most bytes the whole line may take, so the report
// keeps it within GitHub's 65,536-character comment (Truncate keeps the
// line and cuts the rest; a line over the limit would leave the marker
// alone, and the report with its findings and dismissals would be lost).
// JSON writes '<', '>', '&' and '@' in six characters: free text at its
// bounds can otherwise reach several times this.
const MaxMetaBytes = 49152

// fit brings a line over MaxMetaBytes within it: first the dismissals'
// display text (title, path, reviewer and reason are shown, never
// matched: the fingerprint, head, line and lines decide), then findings
// from the end of the list (report.metaFindings lists the open ones by
// severity, then the dismissed ones, so those go first), which sets Truncated so
// the next run reviews the whole PR. What a person decided is never
// dropped.
func fit(m Meta, line string) string {
	if len(line) <= MaxMetaBytes {
		return line
	}
	// title, path, reviewer and reason, in runes, shorter each round
	for _, n := range [][4]int{{40, 60, 20, 80}, {12, 16, 8, 40}} {
		if len(line) <= MaxMetaBytes || len(m.Dismissals) == 0 {
			break
		}
		ds := slices.Clone(m.Dismissals)
		for i := range ds {
			d := &ds[i]
			d.Title, d.File, d.Reviewer, d.Reason = clip(d.Title, n[0]), clip(d.File, n[1]), clip(d.Reviewer, n[2]), clip(d.Reason, n[3])
		}
		m.Dismissals = ds
		line = encode(m)
	}
	for len(line) > MaxMetaBytes && len(m.Findings) > 0 {
		m.Findings, m.Truncated = m.Findings[:len(m.Findings)-1], true
		line = encode(m)
	}
	return line
}

// encode renders the line of m as it is.
func encode(m Meta) string {
	b, _ := json.Marshal(m) // a struct of strings, ints and finite floats cannot fail
	// json.Marshal escapes <, > and & so the JSON cannot close the comment;
	// @ and # are escaped too, so recorded text cannot mention anyone or
	// reference an issue from inside the hidden line.
	s := strings.NewReplacer("@", `\u0040`, "#", `\u0023`).Replace(string(b))
	return metaPrefix + s + metaSuffix
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
		if m.Version != 1 && m.Version != 2 {
			return Meta{}, fmt.Errorf("report metadata: unsupported version %d", m.Version)
		}
		if err := m.check(); err != nil {
			return Meta{}, fmt.Errorf("report metadata: %w", err)
		}
		if len(m.Heads) == 0 {
			m.Heads = nil
		}
		if len(m.Findings) == 0 {
			m.Findings = nil
		}
		if len(m.Usage) == 0 {
			m.Usage = nil
		}
		if len(m.Resolved) == 0 {
			m.Resolved = nil
		}
		if len(m.Dismissals) == 0 {
			m.Dismissals = nil
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
	if m.Version == 1 && (m.Heads != nil || m.Findings != nil || m.Truncated || m.Incomplete ||
		m.Reviews != 0 || m.Usage != nil || m.ValidatorUsage != nil || m.Resolved != nil || m.Dismissals != nil) {
		return fmt.Errorf("version 1 carries no heads or findings")
	}
	if len(m.Heads) > MaxHeads {
		return fmt.Errorf("%d heads; at most %d", len(m.Heads), MaxHeads)
	}
	for _, h := range m.Heads {
		if !isSHA(h) {
			return fmt.Errorf("head %q is not a 40-digit hex SHA", h)
		}
	}
	if len(m.Findings) > MaxFindings {
		return fmt.Errorf("%d findings; at most %d", len(m.Findings), MaxFindings)
	}
	for i, f := range m.Findings {
		if err := f.check(); err != nil {
			return fmt.Errorf("finding %d: %w", i+1, err)
		}
	}
	if err := m.checkStats(); err != nil {
		return err
	}
	if len(m.Dismissals) > MaxDismissals {
		return fmt.Errorf("%d dismissals; at most %d", len(m.Dismissals), MaxDismissals)
	}
	for i, d := range m.Dismissals {
		if err := d.check(); err != nil {
			return fmt.Errorf("dismissal %d: %w", i+1, err)
		}
	}
	return nil
}

func (d Dismissal) check() error {
	switch {
	case !isShortID(d.ID) || !strings.HasPrefix(d.Fingerprint, d.ID):
		return fmt.Errorf("id %q is not a prefix of the fingerprint", d.ID)
	case len(d.Fingerprint) != 16 || !isHex(d.Fingerprint):
		return fmt.Errorf("fingerprint %q is not 16 hex digits", d.Fingerprint)
	case d.File == "" || utf8.RuneCountInString(d.File) > maxFile || hasControl(d.File):
		return fmt.Errorf("file %q is not a path", d.File)
	case d.Line < 1:
		return fmt.Errorf("line %d is not a line", d.Line)
	case d.Lines != "" && (len(d.Lines) != 16 || !isHex(d.Lines)):
		return fmt.Errorf("lines %q is not 16 hex digits", d.Lines)
	case !slices.Contains([]string{"P0", "P1", "P2", "P3"}, d.Severity):
		return fmt.Errorf("severity %q is not P0..P3", d.Severity)
	case utf8.RuneCountInString(d.Title) > MaxTitle || hasControl(d.Title):
		return fmt.Errorf("title is longer than %d runes or holds control characters", MaxTitle)
	case utf8.RuneCountInString(d.Reviewer) > maxReviewer || hasControl(d.Reviewer):
		return fmt.Errorf("reviewer %q is not a persona name", d.Reviewer)
	case d.By == "" || utf8.RuneCountInString(d.By) > maxLogin || hasControl(d.By) || strings.ContainsAny(d.By, " @"):
		return fmt.Errorf("by %q is not a login", d.By)
	case !isTime(d.At):
		return fmt.Errorf("at %q is not an RFC 3339 time", d.At)
	case strings.TrimSpace(d.Reason) == "" || utf8.RuneCountInString(d.Reason) > MaxReason || hasControl(d.Reason):
		return fmt.Errorf("reason is empty, longer than %d runes or holds control characters", MaxReason)
	case !isSHA(d.Head):
		return fmt.Errorf("head %q is not a 40-digit hex SHA", d.Head)
	case d.Lapsed != "" && !isSHA(d.Lapsed):
		return fmt.Errorf("lapsed %q is not a 40-digit hex SHA", d.Lapsed)
	}
	return nil
}

// isShortID: a finding's short id, 6 to 16 lower-case hex digits.
func isShortID(s string) bool { return len(s) >= 6 && len(s) <= 16 && isHex(s) }

func isTime(s string) bool {
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

// checkStats checks the release 3 fields.
func (m Meta) checkStats() error {
	if m.Reviews < 0 {
		return fmt.Errorf("reviews %d is negative", m.Reviews)
	}
	if m.Incremental < 0 {
		return fmt.Errorf("incremental %d is negative", m.Incremental)
	}
	if len(m.Usage) > MaxUsage {
		return fmt.Errorf("%d usage entries; at most %d", len(m.Usage), MaxUsage)
	}
	for i, u := range m.Usage {
		if u.Name == "" {
			return fmt.Errorf("usage %d: no persona name", i+1)
		}
		if err := u.check(); err != nil {
			return fmt.Errorf("usage %d: %w", i+1, err)
		}
	}
	if v := m.ValidatorUsage; v != nil {
		if v.Name != "" {
			return fmt.Errorf("validator usage: a name %q", v.Name)
		}
		if err := v.check(); err != nil {
			return fmt.Errorf("validator usage: %w", err)
		}
	}
	if len(m.Resolved) > MaxResolved {
		return fmt.Errorf("%d resolved findings; at most %d", len(m.Resolved), MaxResolved)
	}
	for i, r := range m.Resolved {
		if err := r.check(); err != nil {
			return fmt.Errorf("resolved %d: %w", i+1, err)
		}
	}
	return nil
}

func (u Usage) check() error {
	switch {
	case utf8.RuneCountInString(u.Name) > maxReviewer || hasControl(u.Name):
		return fmt.Errorf("name %q is not a persona name", u.Name)
	case u.Reviews < 0 || u.Calls < 0 || u.PromptTokens < 0 || u.CachedTokens < 0 || u.CompletionTokens < 0 ||
		u.Unpriced < 0 || u.Posted < 0 || u.ActedOn < 0:
		return fmt.Errorf("a negative count")
	case u.Cost < 0 || math.IsNaN(u.Cost) || math.IsInf(u.Cost, 0):
		return fmt.Errorf("cost %v is not an amount", u.Cost)
	}
	return nil
}

func (r Resolved) check() error {
	switch {
	case len(r.Fingerprint) != 16 || !isHex(r.Fingerprint):
		return fmt.Errorf("fingerprint %q is not 16 hex digits", r.Fingerprint)
	case r.Inline != "" && (len(r.Inline) != 16 || !isHex(r.Inline)):
		return fmt.Errorf("inline fingerprint %q is not 16 hex digits", r.Inline)
	case !slices.Contains([]string{"P0", "P1", "P2", "P3"}, r.Severity):
		return fmt.Errorf("severity %q is not P0..P3", r.Severity)
	case !isSHA(r.Commit) || !isSHA(r.Head):
		return fmt.Errorf("commit %q or head %q is not a 40-digit hex SHA", r.Commit, r.Head)
	case utf8.RuneCountInString(r.Reviewer) > maxReviewer || hasControl(r.Reviewer):
		return fmt.Errorf("reviewer %q is not a persona name", r.Reviewer)
	}
	return nil
}

// roundCost keeps six decimals of a dollar (a ten-thousandth of a cent):
// the line stays short and the sum of many reviews stays exact enough.
func roundCost(c float64) float64 {
	if c <= 0 || math.IsNaN(c) || math.IsInf(c, 0) {
		return 0
	}
	return math.Round(c*1e6) / 1e6
}

func (f Finding) check() error {
	switch {
	case f.File == "" || utf8.RuneCountInString(f.File) > maxFile || hasControl(f.File):
		return fmt.Errorf("file %q is not a path", f.File)
	case f.Line < 1:
		return fmt.Errorf("line %d is not a line", f.Line)
	case !slices.Contains([]string{"P0", "P1", "P2", "P3"}, f.Severity):
		return fmt.Errorf("severity %q is not P0..P3", f.Severity)
	case !slices.Contains([]int{0, 25, 50, 75, 100}, f.Anchor):
		return fmt.Errorf("anchor %d is not 0, 25, 50, 75 or 100", f.Anchor)
	case len(f.Fingerprint) != 16 || !isHex(f.Fingerprint):
		return fmt.Errorf("fingerprint %q is not 16 hex digits", f.Fingerprint)
	case f.Inline != "" && (len(f.Inline) != 16 || !isHex(f.Inline)):
		return fmt.Errorf("inline fingerprint %q is not 16 hex digits", f.Inline)
	case !isSHA(f.Commit):
		return fmt.Errorf("commit %q is not a 40-digit hex SHA", f.Commit)
	case f.ID != "" && (!isShortID(f.ID) || !strings.HasPrefix(f.Fingerprint, f.ID)):
		return fmt.Errorf("id %q is not a prefix of the fingerprint", f.ID)
	case utf8.RuneCountInString(f.Title) > MaxTitle || hasControl(f.Title):
		return fmt.Errorf("title is longer than %d runes or holds control characters", MaxTitle)
	case utf8.RuneCountInString(f.Reviewer) > maxReviewer || hasControl(f.Reviewer):
		return fmt.Errorf("reviewer %q is not a persona name", f.Reviewer)
	case utf8.RuneCountInString(f.Why) > MaxWhy || hasControl(f.Why):
		return fmt.Errorf("why is longer than %d runes or holds control characters", MaxWhy)
	case utf8.RuneCountInString(f.Fix) > MaxFix || hasControl(f.Fix):
		return fmt.Errorf("fix is longer than %d runes or holds control characters", MaxFix)
	}
	return nil
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}

// clip cuts s to at most n runes, at a rune boundary.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
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
