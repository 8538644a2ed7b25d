package review

import "github.com/anchor-review/anchor-review/pkg/finding"

// DecideVerdict is the one place the verdict is decided (by code, never by
// the model): not-ready when a posted finding is P0 or P1; else degraded
// when the review was partial or could not run; else ready-with-fixes when
// anything is posted; else ready.
func DecideVerdict(r Result) Verdict {
	blocking, posted := false, len(r.Findings) > 0
	for _, f := range r.Findings {
		if f.Severity.Rank() <= finding.P1.Rank() {
			blocking = true
		}
	}
	switch {
	case blocking:
		return NotReady
	case r.Partial || r.AllFailed:
		return Degraded
	case posted:
		return ReadyWithFixes
	}
	return Ready
}
