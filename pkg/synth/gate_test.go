package synth

import (
	"maps"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
)

func TestDemote(t *testing.T) {
	type outcome int
	const (
		kept outcome = iota
		movedToDemoted
		droppedDemoted
	)
	reviewers := func(rs ...string) func(*finding.Finding) {
		return func(f *finding.Finding) { f.Reviewers = rs }
	}
	tests := []struct {
		name string
		f    finding.Finding
		mode string
		want outcome
	}{
		{"testing P2 advisory, comment", fnd("x", "a.go", 1, finding.P2, 75, advisory, reviewers("testing")), ModeComment, droppedDemoted},
		{"maintainability P3 advisory, comment", fnd("x", "a.go", 1, finding.P3, 100, advisory, reviewers("maintainability")), ModeComment, droppedDemoted},
		{"both soft personas", fnd("x", "a.go", 1, finding.P3, 75, advisory, reviewers("maintainability", "testing")), ModeComment, droppedDemoted},
		{"empty mode means comment", fnd("x", "a.go", 1, finding.P3, 75, advisory, reviewers("testing")), "", droppedDemoted},
		{"report-only moves", fnd("x", "a.go", 1, finding.P2, 75, advisory, reviewers("testing")), ModeReportOnly, movedToDemoted},
		{"P1 is not demoted", fnd("x", "a.go", 1, finding.P1, 75, advisory, reviewers("testing")), ModeComment, kept},
		{"P0 is not demoted", fnd("x", "a.go", 1, finding.P0, 75, advisory, reviewers("testing")), ModeComment, kept},
		// Whatever autofix_class the model chose (models rarely say
		// advisory): the real test gaps were "manual" at anchor 75.
		{"manual is demoted too", fnd("x", "a.go", 1, finding.P2, 75, reviewers("testing")), ModeComment, droppedDemoted},
		{"safe_auto is demoted too", fnd("x", "a.go", 1, finding.P3, 100, func(f *finding.Finding) { f.AutofixClass = "safe_auto" }, reviewers("maintainability")), ModeComment, droppedDemoted},
		{"manual, report-only moves", fnd("x", "a.go", 1, finding.P2, 75, reviewers("maintainability", "testing")), ModeReportOnly, movedToDemoted},
		{"manual P1 is not demoted", fnd("x", "a.go", 1, finding.P1, 75, reviewers("testing")), ModeComment, kept},
		{"another persona contributed", fnd("x", "a.go", 1, finding.P3, 75, advisory, reviewers("correctness", "testing")), ModeComment, kept},
		{"other persona alone", fnd("x", "a.go", 1, finding.P3, 75, advisory, reviewers("security")), ModeComment, kept},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dropped := map[string]int{}
			keep, demoted, n := demote(groupsOf(tt.f), tt.mode, dropped)
			var got outcome
			switch {
			case len(keep) == 1 && len(demoted) == 0 && n == 0 && len(dropped) == 0:
				got = kept
			case len(keep) == 0 && len(demoted) == 1 && n == 0 && len(dropped) == 0:
				got = movedToDemoted
			case len(keep) == 0 && len(demoted) == 0 && n == 1 && maps.Equal(dropped, map[string]int{ReasonDemoted: 1}):
				got = droppedDemoted
			default:
				t.Fatalf("inconsistent: keep %d demoted %d demotions %d dropped %v", len(keep), len(demoted), n, dropped)
			}
			if got != tt.want {
				t.Errorf("got outcome %d; want %d", got, tt.want)
			}
		})
	}
}

func TestGate(t *testing.T) {
	tests := []struct {
		sev      finding.Severity
		conf     int
		gated    bool
		belowBar bool
	}{
		{finding.P0, 100, true, false},
		{finding.P3, 100, true, false},
		{finding.P2, 75, true, false},
		{finding.P0, 75, true, false},
		{finding.P0, 50, false, true},
		{finding.P1, 50, false, false},
		{finding.P3, 50, false, false},
		{finding.P0, 25, false, false},
		{finding.P0, 0, false, false},
		{finding.P2, 25, false, false},
	}
	for _, tt := range tests {
		byAnchor, dropped := map[int]int{}, map[string]int{}
		gated, below := gate(groupsOf(fnd("x", "a.go", 1, tt.sev, tt.conf)), byAnchor, dropped)
		if got := len(gated) == 1; got != tt.gated {
			t.Errorf("%s@%d: got gated=%v; want %v", tt.sev, tt.conf, got, tt.gated)
		}
		if got := len(below) == 1; got != tt.belowBar {
			t.Errorf("%s@%d: got below bar=%v; want %v", tt.sev, tt.conf, got, tt.belowBar)
		}
		wantAnchor, wantReason := map[int]int{}, map[string]int{}
		if !tt.gated && !tt.belowBar {
			wantAnchor[tt.conf], wantReason[ReasonBelowGate] = 1, 1
		}
		if !maps.Equal(byAnchor, wantAnchor) || !maps.Equal(dropped, wantReason) {
			t.Errorf("%s@%d: got drops %v %v; want %v %v", tt.sev, tt.conf, byAnchor, dropped, wantAnchor, wantReason)
		}
	}
}
