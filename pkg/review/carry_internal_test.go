package review

import (
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/marker"
)

// TestCarriedFindingKeepsItsExplanation: a finding carried from a report
// shows what that report showed (reason and fix); one from an older
// report that recorded only the title is carried with its title alone.
func TestCarriedFindingKeepsItsExplanation(t *testing.T) {
	mf := marker.Finding{File: "a.go", Line: 3, Severity: "P1", Anchor: 75, Fingerprint: "0123456789abcdef",
		Title: "Nil map write", Reviewer: "go", Commit: strings.Repeat("a", 40),
		Why: "Writes to a nil map panic.", Fix: "m := map[string]int{}"}
	f := carriedFinding(mf)
	if f.WhyItMatters != mf.Why || f.SuggestedFix != mf.Fix || f.Title != mf.Title || f.FoundOn != mf.Commit {
		t.Errorf("carried %+v; want the recorded reason and fix", f)
	}
	mf.Why, mf.Fix = "", ""
	if f := carriedFinding(mf); f.WhyItMatters != "" || f.SuggestedFix != "" || f.Title != mf.Title {
		t.Errorf("carried from an older report: %+v; want the title alone", f)
	}
}
