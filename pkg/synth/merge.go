package synth

import (
	"cmp"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/finding"
)

// merge folds a cluster into one finding: the text, line and routing of the
// highest-ranked member (routing is settled later, in step 5), the highest
// severity and anchor, every reviewer, and the union of the evidence. It is
// pre-existing only when every member says so: one persona seeing the problem
// as introduced by the diff is evidence, and Stage 5b asks the question again.
//
// merge reorders cluster (it becomes the group's members).
func merge(cluster []finding.Finding) group {
	members := cluster
	slices.SortFunc(members, compareFindings)

	f := members[0]
	f.Evidence = nil
	f.Reviewers = nil
	seen := map[string]bool{}
	for _, m := range members {
		f.Confidence = max(f.Confidence, m.Confidence)
		f.PreExisting = f.PreExisting && m.PreExisting
		f.Reviewers = append(f.Reviewers, m.Reviewers...)
		for _, e := range m.Evidence {
			if strings.TrimSpace(e) == "" || seen[e] {
				continue
			}
			seen[e] = true
			f.Evidence = append(f.Evidence, e)
		}
	}
	slices.Sort(f.Reviewers)
	f.Reviewers = slices.Compact(f.Reviewers)
	return group{f: f, members: members}
}

// normalizeTitle is finding.NormalizeTitle: the title as deduplication
// compares it.
func normalizeTitle(s string) string { return finding.NormalizeTitle(s) }

// promote is step 3: a finding two or more distinct personas reported goes up
// one anchor step. Promoted marks the ones whose anchor actually rose (100
// stays 100, unmarked).
func promote(gs []group) {
	for i := range gs {
		f := &gs[i].f
		if len(f.Reviewers) < 2 { // Reviewers is sorted and unique
			continue
		}
		if up := finding.Promote(f.Confidence); up > f.Confidence {
			f.Confidence = up
			f.Promoted = true
		}
	}
}

// splitPreExisting is step 4: pre-existing findings leave the pipeline here
// and never reach the gate, the validator or the comment.
func splitPreExisting(gs []group, pr addedLines) (keep, pre []group) {
	keep = gs[:0] // filtered in place, as in every later step
	for _, g := range gs {
		// The model's pre_existing is a claim: on a line the pull request
		// added, the problem is in the PR's own code, so the finding goes on
		// to the gate and the validator (which asks whether this diff
		// introduced it) instead of leaving the review unseen.
		if g.f.PreExisting && !pr.added(g.f.File, g.f.Line) {
			pre = append(pre, g)
		} else {
			g.f.PreExisting = false
			keep = append(keep, g)
		}
	}
	return keep, pre
}

// routeConservatively is step 5: a merged finding takes the most conservative
// autofix_class and owner any member gave (the highest index in
// finding.AutofixClasses() / finding.Owners()), and needs verification when any
// member said so.
func routeConservatively(gs []group) {
	classes, owners := finding.AutofixClasses(), finding.Owners()
	for i := range gs {
		f := &gs[i].f
		fix, own := -1, -1
		verify := false
		for _, m := range gs[i].members {
			fix = max(fix, slices.Index(classes, m.AutofixClass))
			own = max(own, slices.Index(owners, m.Owner))
			verify = verify || m.RequiresVerification
		}
		if fix >= 0 {
			f.AutofixClass = classes[fix]
		}
		if own >= 0 {
			f.Owner = owners[own]
		}
		f.RequiresVerification = verify
	}
}

// compareFindings is the report order (severity, anchor descending, file,
// line, title) completed by every other field, so that sorting is
// deterministic whatever order the findings arrived in.
func compareFindings(a, b finding.Finding) int {
	return cmp.Or(
		cmp.Compare(a.Severity.Rank(), b.Severity.Rank()),
		cmp.Compare(b.Confidence, a.Confidence),
		strings.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		strings.Compare(a.Title, b.Title),
		strings.Compare(string(a.Severity), string(b.Severity)),
		slices.Compare(a.Reviewers, b.Reviewers),
		strings.Compare(a.WhyItMatters, b.WhyItMatters),
		strings.Compare(a.SuggestedFix, b.SuggestedFix),
		strings.Compare(a.AutofixClass, b.AutofixClass),
		strings.Compare(a.Owner, b.Owner),
		compareBool(a.RequiresVerification, b.RequiresVerification),
		compareBool(a.PreExisting, b.PreExisting),
		compareBool(a.Promoted, b.Promoted),
		slices.Compare(a.Evidence, b.Evidence),
		cmp.Compare(a.Number, b.Number),
		compareValidation(a.Validation, b.Validation),
		compareTestGap(a.TestGap, b.TestGap),
	)
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func compareTestGap(a, b *finding.TestGap) int {
	return compareSet(a, b, func(a, b *finding.TestGap) int {
		return cmp.Or(strings.Compare(a.Title, b.Title), slices.Compare(a.Reviewers, b.Reviewers))
	})
}

func compareValidation(a, b *finding.Validation) int {
	return compareSet(a, b, func(a, b *finding.Validation) int {
		return cmp.Or(compareBool(a.Validated, b.Validated), strings.Compare(a.Reason, b.Reason))
	})
}

// compareSet orders an unset (nil) optional part before a set one, and
// two set ones by fields.
func compareSet[T any](a, b *T, fields func(a, b *T) int) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return fields(a, b)
}

// Sort puts findings in report order: severity (P0 first), anchor
// descending, file, line, then title and the remaining fields, so the order
// never depends on the order the findings arrived in.
func Sort(fs []finding.Finding) {
	slices.SortStableFunc(fs, compareFindings)
}

// Number numbers findings 1..N in their current order. The orchestrator calls
// it again after the validator drops some, so the comment always reads 1..N.
func Number(fs []finding.Finding) {
	for i := range fs {
		fs[i].Number = i + 1
	}
}
