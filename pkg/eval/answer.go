package eval

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/finding"
)

// ErrMalformed is wrapped by every error ParseAnswer returns.
var ErrMalformed = errors.New("eval: malformed answer")

// maxTitle is the findings schema's title limit (SPEC section 2).
const maxTitle = 100

// ParseAnswer decodes a persona's raw answer strictly, as the findings schema
// describes it (SPEC section 2): every required field present, no unknown
// field, enums and anchors checked, no trailing data. The harness does this
// itself, rather than through the pipeline's schema validation, so an
// evaluation scores exactly what the model said.
func ParseAnswer(b []byte) (finding.Answer, error) {
	type rawFinding struct {
		Title                *string  `json:"title"`
		Severity             *string  `json:"severity"`
		File                 *string  `json:"file"`
		Line                 *int     `json:"line"`
		WhyItMatters         *string  `json:"why_it_matters"`
		AutofixClass         *string  `json:"autofix_class"`
		Owner                *string  `json:"owner"`
		RequiresVerification *bool    `json:"requires_verification"`
		Confidence           *int     `json:"confidence"`
		Evidence             []string `json:"evidence"`
		PreExisting          *bool    `json:"pre_existing"`
		SuggestedFix         *string  `json:"suggested_fix"`
		// Suggestion is decoded so answers offering one parse; eval scores
		// findings, not suggestions.
		Suggestion *finding.Suggestion `json:"suggestion"`
	}
	var raw struct {
		Reviewer      *string      `json:"reviewer"`
		Findings      []rawFinding `json:"findings"`
		ResidualRisks []string     `json:"residual_risks"`
		TestingGaps   []string     `json:"testing_gaps"`
	}
	if err := decodeStrict(b, &raw); err != nil {
		return finding.Answer{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	switch {
	case raw.Reviewer == nil || strings.TrimSpace(*raw.Reviewer) == "":
		return finding.Answer{}, fmt.Errorf("%w: reviewer is required", ErrMalformed)
	case raw.Findings == nil:
		return finding.Answer{}, fmt.Errorf("%w: findings is required", ErrMalformed)
	case raw.ResidualRisks == nil:
		return finding.Answer{}, fmt.Errorf("%w: residual_risks is required", ErrMalformed)
	case raw.TestingGaps == nil:
		return finding.Answer{}, fmt.Errorf("%w: testing_gaps is required", ErrMalformed)
	}
	a := finding.Answer{
		Reviewer:      *raw.Reviewer,
		Findings:      make([]finding.Finding, 0, len(raw.Findings)),
		ResidualRisks: raw.ResidualRisks,
		TestingGaps:   raw.TestingGaps,
	}
	for i, r := range raw.Findings {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: finding %d: %s", ErrMalformed, i+1, fmt.Sprintf(format, args...))
		}
		switch {
		case r.Title == nil || strings.TrimSpace(*r.Title) == "":
			return finding.Answer{}, bad("title is required")
		case len([]rune(*r.Title)) > maxTitle:
			return finding.Answer{}, bad("title is longer than %d characters", maxTitle)
		case r.Severity == nil || !finding.Severity(*r.Severity).Valid():
			return finding.Answer{}, bad("severity must be P0, P1, P2 or P3")
		case r.File == nil || normFile(*r.File) == "":
			return finding.Answer{}, bad("file is required")
		case r.Line == nil || *r.Line < 1:
			return finding.Answer{}, bad("line must be an integer >= 1")
		case r.WhyItMatters == nil || strings.TrimSpace(*r.WhyItMatters) == "":
			return finding.Answer{}, bad("why_it_matters is required")
		case r.AutofixClass == nil || !slices.Contains(finding.AutofixClasses(), *r.AutofixClass):
			return finding.Answer{}, bad("autofix_class must be one of %s", strings.Join(finding.AutofixClasses(), ", "))
		case r.Owner == nil || !slices.Contains(finding.Owners(), *r.Owner):
			return finding.Answer{}, bad("owner must be one of %s", strings.Join(finding.Owners(), ", "))
		case r.RequiresVerification == nil:
			return finding.Answer{}, bad("requires_verification is required")
		case r.Confidence == nil || !finding.ValidAnchor(*r.Confidence):
			return finding.Answer{}, bad("confidence must be one of 0, 25, 50, 75, 100")
		case len(r.Evidence) == 0:
			return finding.Answer{}, bad("evidence needs at least one entry")
		case r.PreExisting == nil:
			return finding.Answer{}, bad("pre_existing is required")
		}
		f := finding.Finding{
			Title: *r.Title, Severity: finding.Severity(*r.Severity), File: *r.File, Line: *r.Line,
			WhyItMatters: *r.WhyItMatters, AutofixClass: *r.AutofixClass, Owner: *r.Owner,
			RequiresVerification: *r.RequiresVerification, Confidence: *r.Confidence,
			Evidence: r.Evidence, PreExisting: *r.PreExisting,
		}
		if r.SuggestedFix != nil {
			f.SuggestedFix = *r.SuggestedFix
		}
		f.Suggestion = r.Suggestion
		a.Findings = append(a.Findings, f)
	}
	return a, nil
}
