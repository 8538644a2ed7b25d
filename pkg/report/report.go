// Package report is Stage 6 of the review: it renders a review.Result into
// the report comment, the check-run output and the job summary. Every
// function here is pure: no I/O, no clock, no randomness, so the same
// Result always renders to the same bytes and golden files can hold it.
//
// Model text is untrusted. Everything a model wrote (titles, reasons, fixes,
// reviewer names) and everything the pull request controls (file paths)
// goes through Sanitize before it reaches Markdown: HTML is escaped, mentions
// cannot ping, links and images to other hosts disappear, copies of the
// report marker are removed and anything shaped like a secret becomes
// [REDACTED].
//
// Sizes are counted in runes (Unicode code points): GitHub's limits on
// comment bodies (65,536) and check-run summaries (65,535) are stated in
// characters. Oversized reports are trimmed structurally (Coverage first,
// then the lowest findings) before Truncate cuts text as a last resort.
package report

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/pricing"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

// Size limits, in runes.
const (
	// DefaultMaxLen is GitHub's limit on an issue comment body.
	DefaultMaxLen = 65536
	// CheckSummaryMax is GitHub's limit on a check run's output.summary and
	// output.text, in UTF-8 bytes (a comment's limit counts characters).
	CheckSummaryMax = 65535
	// JobSummaryMax keeps the job summary under the runner's 1 MiB per-step
	// limit even when every rune takes four bytes.
	JobSummaryMax = 1 << 18
	// annotationTitleMax and annotationMessageMax are the Checks API limits
	// (255 characters; 64 KB, kept well under in runes).
	annotationTitleMax   = 255
	annotationMessageMax = 16000
)

// Check-run conclusions this package produces.
const (
	ConclusionSuccess = "success"
	ConclusionNeutral = "neutral"
	ConclusionFailure = "failure"
	ConclusionSkipped = "skipped"
	// ConclusionActionRequired is the new head's check when on-new-commits
	// skip left commits unreviewed after a non-blocking review: not green,
	// and GitHub shows a button to the details. Where GitHub refuses it,
	// the publisher falls back to failure.
	ConclusionActionRequired = "action_required"
)

// Annotation levels this package produces.
const (
	LevelFailure = "failure"
	LevelWarning = "warning"
)

// Options configure rendering. The zero value works: github.com links, the
// repository and head SHA taken from the Result, fail-on P1, GitHub's size
// limits.
type Options struct {
	// ServerURL is the web root links point at (GITHUB_SERVER_URL), e.g.
	// https://github.com or https://ghe.example.com. Its host is the only
	// host model-written links may point to. Default https://github.com.
	ServerURL string
	// Repo ("owner/name") and HeadSHA override the Result's when set.
	Repo    string
	HeadSHA string
	// Local marks a review of a change that is on no server (the command
	// line's --diff and --base): files are named, never linked.
	Local bool
	// FailOn is the fail-on input: P0..P3 (case-insensitive) or "never".
	// Empty or unknown means the default, P1.
	FailOn string
	// Quiet makes Comment return "" when nothing qualifies (SPEC input
	// quiet): the caller then posts nothing.
	Quiet bool
	// Secrets are values that must never appear in output (the API key, the
	// GitHub token). Values shorter than 4 runes are ignored: redacting them
	// would shred ordinary text.
	Secrets []string
	// Version, when set, is the binary's version (pkg/version), named at
	// the end of Coverage. Empty leaves it out (tests, the demo's golden).
	Version string
	// MaxLen caps the comment, in runes. Default DefaultMaxLen. A smaller
	// value also caps the check summary.
	MaxLen int
	// Inline, when not nil, is what the inline review of this run did
	// (the inline input): each finding with a line comment links it, and
	// the body says what did not post.
	Inline *InlineStatus
	// Amend, when set, re-publishes an earlier report after a person
	// answered a finding: no review ran (see Amendment).
	Amend *Amendment
	// Pricing prices the review's model calls for Coverage's estimated
	// cost and the metadata's running totals; the zero value is the
	// built-in table.
	Pricing pricing.Table
}

// InlineStatus is the outcome of the inline review, for the report.
type InlineStatus struct {
	// Links maps a finding's number to its line comment (posted now, or by
	// an earlier run for the same fingerprint).
	Links map[int]string
	// Fingerprints maps a finding's number to its inline comment's
	// fingerprint (inline.Fingerprint), for the findings that have one:
	// the metadata records it so stats can read the comment's reactions.
	Fingerprints map[int]string
	// NotPosted lines say what stayed in the report only, and why; they
	// are the publisher's own sentences (file names already sanitized by
	// the caller or absent).
	NotPosted []string
}

// normalize fills defaults from the Result.
func (o Options) normalize(r review.Result) Options {
	o.ServerURL = strings.TrimRight(strings.TrimSpace(o.ServerURL), "/")
	if o.ServerURL == "" {
		o.ServerURL = "https://github.com"
	}
	if o.Repo == "" {
		o.Repo = r.Repo
	}
	if o.HeadSHA == "" {
		o.HeadSHA = r.HeadSHA
	}
	if o.MaxLen <= 0 {
		o.MaxLen = DefaultMaxLen
	}
	return o
}

// host is the host model-written links may point to.
func (o Options) host() string {
	u, err := url.Parse(o.ServerURL)
	if err != nil || u.Hostname() == "" {
		return "github.com"
	}
	return strings.ToLower(u.Hostname())
}

// failRank turns fail-on into the worst severity rank that still blocks:
// findings with Rank() <= the result block. "never" returns -1 (nothing
// blocks); empty or unknown values fall back to the default P1.
func failRank(failOn string) int {
	v := strings.ToUpper(strings.TrimSpace(failOn))
	if v == "NEVER" {
		return -1
	}
	if s := finding.Severity(v); s.Valid() {
		return s.Rank()
	}
	return finding.P1.Rank()
}

// Conclusion decides the check-run conclusion and the number of blocking
// findings: "failure" when a posted finding is at failOn or worse, or when
// every persona failed; otherwise, for an incomplete review (SPEC 7.1), the
// `incomplete` input's conclusion ("failure" unless "neutral" was chosen);
// otherwise "success": green only for a complete review with nothing
// blocking. P0 findings below the comment bar never count.
//
// For a skipped Result: rule 4 (already reviewed) carries the earlier
// report's conclusion and blocking count forward; when that metadata is
// missing or unreadable the conclusion is "failure", so a required check
// can never turn green by skipping a review. Rules 1 to 3 give "skipped".
func Conclusion(r review.Result, failOn string) (string, int) {
	if r.Skipped {
		return skippedConclusion(r)
	}
	rank := failRank(failOn)
	blocking := 0
	for _, f := range r.Findings {
		if f.Severity.Rank() <= rank {
			blocking++
		}
	}
	switch {
	case r.AllFailed || blocking > 0:
		return ConclusionFailure, blocking
	case r.Partial || r.Verdict == review.Degraded:
		// An incomplete review is never green: "failure" unless the team
		// chose "neutral" (which passes required checks) with `incomplete`.
		if r.IncompleteConclusion == review.IncompleteNeutral {
			return ConclusionNeutral, 0
		}
		return ConclusionFailure, 0
	}
	return ConclusionSuccess, 0
}

func skippedConclusion(r review.Result) (string, int) {
	if r.SkipRule != skip.RuleReviewed {
		return ConclusionSkipped, 0
	}
	if r.Carried == nil {
		return ConclusionFailure, 0
	}
	blocking := max(r.Carried.Blocking, 0)
	if r.Unreviewed != nil {
		// on-new-commits skip: the earlier verdict does not cover the new
		// commits, so the check is never green.
		if r.Carried.Conclusion == ConclusionFailure || blocking > 0 {
			return ConclusionFailure, blocking
		}
		return ConclusionActionRequired, 0
	}
	switch r.Carried.Conclusion {
	case ConclusionSuccess, ConclusionNeutral, ConclusionFailure:
		return r.Carried.Conclusion, blocking
	}
	return ConclusionFailure, blocking
}

// effectiveVerdict is r.Verdict, or, when the orchestrator left it empty or
// unknown, the verdict derived by the rules in docs/ARCHITECTURE.md.
func effectiveVerdict(r review.Result) review.Verdict {
	switch r.Verdict {
	case review.Ready, review.ReadyWithFixes, review.NotReady, review.Degraded:
		return r.Verdict
	}
	return review.DecideVerdict(r)
}

// verdictLabel is the human verdict the comment ends with. A degraded
// (incomplete) review never reads clean: it is "Review incomplete", unless
// its findings already make it "Not ready".
func verdictLabel(r review.Result) string {
	switch effectiveVerdict(r) {
	case review.NotReady:
		return "Not ready"
	case review.ReadyWithFixes:
		return "Ready with fixes"
	case review.Degraded:
		// Never "Ready to merge" about code the review did not finish.
		return "Review incomplete"
	}
	if r.AllFailed || r.Partial {
		return "Review incomplete"
	}
	return "Ready to merge"
}

// carriedLabel names a verdict read back from an earlier report's metadata.
func carriedLabel(v string) string {
	switch review.Verdict(v) {
	case review.NotReady:
		return "Not ready"
	case review.ReadyWithFixes:
		return "Ready with fixes"
	case review.Ready:
		return "Ready to merge"
	case review.Degraded:
		return "Degraded (partial review)"
	}
	return "unknown"
}

// skipRuleName names the Stage 1 rules (SPEC section 1).
func skipRuleName(rule int) string {
	switch rule {
	case skip.RuleClosed:
		return "closed or merged"
	case skip.RuleDraft:
		return "draft"
	case skip.RuleTrivial:
		return "trivial automated pull request"
	case skip.RuleReviewed:
		return "already reviewed"
	}
	return fmt.Sprintf("rule %d", rule)
}

// plural renders "1 finding" / "2 findings".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmtInt(n) + " " + many
}

// fmtInt renders n with thousands separators: 12,345.
func fmtInt(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
