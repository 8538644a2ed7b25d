package review

import (
	"context"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
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

// TestCarriedLockFacts: a lock file the check read again this run replaces
// what earlier reviews found in it; a carried fact is never sent to the
// validator, even when its lines changed; a fact in a lock file this run
// did not touch is carried.
func TestCarriedLockFacts(t *testing.T) {
	fact := func(file string, line int, title string) marker.Finding {
		return marker.Finding{File: file, Line: line, Severity: "P1", Anchor: 100, Title: title, Reviewer: LockCheck, Commit: strings.Repeat("a", 40)}
	}
	again := carriedFinding(fact("package-lock.json", 10, "Lock file resolves a@1.0.0 outside its registry"))
	touched := carriedFinding(fact("web/yarn.lock", 4, "Lock file integrity of b@2.0.0 changed for an unchanged version"))
	untouched := carriedFinding(fact("go.sum", 3, "go.sum hash of c v1.0.0 changed for the same version"))
	if touched.Check != LockCheck {
		t.Fatalf("carried fact %+v; want it marked as the lock-file check's", touched)
	}
	fresh := lockFindings("package-lock.json", nil)
	rn := &reviewRun{
		o:   Options{Validate: true, MaxValidations: DefaultMaxValidations},
		res: &Result{Rereview: &Rereview{}},
		in: runInput{carry: &carryPlan{
			keep:    []finding.Finding{again, untouched},
			recheck: []finding.Finding{touched},
		}},
		lockChecked: map[string]bool{"package-lock.json": true},
		calls:       &callBudget{limit: 60},
	}
	// rn.r is nil: a validator call would panic.
	got := rn.carry(context.Background(), fresh)
	if len(got) != 1 || got[0].File != "go.sum" {
		t.Errorf("carried %+v; want only go.sum's fact (package-lock.json was checked again, web/yarn.lock's fact is the check's to find again)", got)
	}
}
