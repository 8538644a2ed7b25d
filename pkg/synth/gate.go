package synth

import "github.com/anchor-review/anchor-review/pkg/finding"

// demotable names the personas whose low-stakes findings step 7 demotes.
func demotable(persona string) bool {
	return persona == "testing" || persona == "maintainability"
}

// demote is step 7, mode-aware demotion: a P2 or P3 finding whose every
// reviewer is testing or maintainability is dropped and counted in comment
// mode, and moved to demoted in report-only mode, where it stays visible as
// a testing gap or residual risk. Its autofix_class plays no part: the seed
// demoted only "advisory" findings, but models rarely say advisory, and on
// real changes these findings repeated what other personas had posted.
func demote(gs []group, mode string, dropped map[string]int) (keep []group, demoted []finding.Finding, demotions int) {
	keep = gs[:0]
	demoted = []finding.Finding{}
	for _, g := range gs {
		if !shouldDemote(g.f) {
			keep = append(keep, g)
			continue
		}
		if mode == ModeReportOnly {
			demoted = append(demoted, g.f)
			continue
		}
		dropped[ReasonDemoted]++
		demotions++
	}
	return keep, demoted, demotions
}

func shouldDemote(f finding.Finding) bool {
	if f.Severity != finding.P2 && f.Severity != finding.P3 {
		return false
	}
	if len(f.Reviewers) == 0 {
		return false
	}
	for _, r := range f.Reviewers {
		if !demotable(r) {
			return false
		}
	}
	return true
}

// gate is step 8: anchors 75 and 100 pass. A P0 at anchor 50 is kept in
// belowBar (the check run and job summary show it; the comment never does).
// Everything else is dropped, counted by anchor and as ReasonBelowGate.
func gate(gs []group, byAnchor map[int]int, dropped map[string]int) (gated, belowBar []finding.Finding) {
	gated, belowBar = make([]finding.Finding, 0, len(gs)), []finding.Finding{}
	for _, g := range gs {
		switch {
		case g.f.Confidence >= finding.GateAnchor:
			gated = append(gated, g.f)
		case g.f.Severity == finding.P0 && g.f.Confidence == 50:
			belowBar = append(belowBar, g.f)
		default:
			byAnchor[g.f.Confidence]++
			dropped[ReasonBelowGate]++
		}
	}
	return gated, belowBar
}
