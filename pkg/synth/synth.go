// Package synth is Stage 5 of the review: it turns the personas' answers into
// the findings that may leave the review. It is pure: no I/O, no clock, no
// randomness, and the same input in any order gives the same Output.
//
// The nine steps run in the order SPEC.md gives them, and the order is part of
// the contract (promotion runs before the gate, so two personas agreeing at
// anchor 50 reach 75; lint-ignore suppression runs after deduplication, so a
// merged finding is judged once):
//
//  1. validate: drop findings that break the schema, name a file outside the
//     PR, or name a line outside the file's new version; anchor each to its
//     quoted code (the line snaps to it; a quote found nowhere drops the
//     finding as unanchored);
//  2. deduplicate: merge findings on the same file whose lines lie within 3
//     of each other and that describe the same problem (the same normalized
//     title, or what they say overlaps: similar.go);
//     2b. fold: a test-gap finding near the defect its test would catch
//     becomes one line of that defect's finding (fold.go);
//  3. promote: two or more distinct personas raise the anchor one step
//     (a folded test gap is no second persona);
//  4. split off pre-existing findings (they never leave the review), but
//     never one on a line the pull request added: the model's claim does
//     not outweigh the diff;
//  5. merge routing conservatively (autofix_class, owner,
//     requires_verification);
//  6. drop findings under a lint-disable comment;
//  7. demote P2/P3 findings only testing or maintainability raised;
//  8. gate at anchor 75, with the P0-at-50 escape hatch into BelowBar;
//  9. sort and number 1..N.
//
// Every finding that goes in is accounted for exactly once: it ends in
// Gated, BelowBar, PreExisting or Demoted, or it is counted in
// DroppedByReason (merged duplicates under ReasonDuplicate, folded test
// gaps under ReasonFolded).
package synth

import (
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// Reasons a finding is dropped, the keys of Output.DroppedByReason.
const (
	ReasonInvalid     = "invalid"           // fails a schema rule (step 1)
	ReasonNotInPR     = "file not in PR"    // names a file the PR does not change (step 1)
	ReasonLineOutside = "line outside file" // line beyond the file's new version (step 1)
	ReasonDuplicate   = "duplicate"         // merged into another finding (step 2)
	ReasonLintIgnore  = "lint-ignore"       // under a lint-disable comment (step 6)
	ReasonDemoted     = "demoted"           // mode-aware demotion in comment mode (step 7)
	ReasonBelowGate   = "below gate"        // anchor below 75 (step 8)
)

// Modes, as the action's `mode` input spells them.
const (
	ModeComment    = "comment"
	ModeReportOnly = "report-only"
)

// DedupeWindow is how far apart, in lines, two findings on the same file
// that describe the same problem may be and still be one finding.
const DedupeWindow = 3

// PersonaResult is one persona's answer. A persona whose diff was split into
// chunks contributes one PersonaResult per chunk, all with the same Persona.
type PersonaResult struct {
	// Persona is the persona that was asked. It, not Answer.Reviewer (model
	// text), names the reviewer; Answer.Reviewer is used only when it is empty.
	Persona string
	Answer  finding.Answer
}

// Input is everything synthesis needs.
type Input struct {
	Results []PersonaResult
	// Files are the PR's reviewed files; a finding naming any other file is
	// dropped.
	Files []*diff.File
	// Mode is ModeComment or ModeReportOnly. Anything else, including "",
	// is treated as ModeComment (the action's default, and the stricter one).
	Mode string
	// Heads holds head versions of the PR's files, keyed by the diff's path
	// (diff.File.Path). Step 1 anchors findings to their quoted code in them;
	// for a file without an entry it searches the lines the diff shows.
	Heads map[string]string
	// Changed is the pull request's whole change of the files in Files
	// (from its base commit): step 6 reads from it which lines the PR
	// added, so a directive an earlier push of the PR added is still the
	// PR's own in an incremental re-review. nil means Files is the whole
	// change. A file missing from it counts as added throughout.
	Changed []*diff.File
	// SuppressionForbidden turns step 6 off: a project-standards rule forbids
	// lint suppressions, so a suppressed line is still reviewed.
	SuppressionForbidden bool
}

// Output is what synthesis kept and what it dropped.
type Output struct {
	// Gated are the findings at anchor 75 or 100, sorted and numbered 1..N.
	Gated []finding.Finding
	// BelowBar are P0 findings at anchor 50: the gate's escape hatch. Sorted,
	// unnumbered; they never go into the comment.
	BelowBar []finding.Finding
	// PreExisting findings never leave the review. Sorted, unnumbered.
	PreExisting []finding.Finding
	// Demoted holds, in report-only mode, the findings mode-aware demotion
	// moved to testing gaps / residual risks. Sorted, unnumbered.
	Demoted []finding.Finding
	// DroppedByAnchor counts the findings the gate dropped, by anchor.
	DroppedByAnchor map[int]int
	// DroppedByReason counts every dropped finding by reason (the Reason
	// constants), merged-away duplicates included.
	DroppedByReason map[string]int
	// Demotions counts the findings demotion dropped in comment mode (equal
	// to DroppedByReason[ReasonDemoted]); report-only demotions are
	// len(Demoted).
	Demotions int
	// Folded counts the test gaps step 2b folded into the defect they
	// would catch (equal to DroppedByReason[ReasonFolded]).
	Folded int
	// Snapped counts the findings step 1 moved to the line their evidence
	// quotes (the model named another line).
	Snapped int
}

// Synthesize runs the nine steps of Stage 5 over in.
func Synthesize(in Input) Output {
	out := Output{
		Gated:           []finding.Finding{},
		BelowBar:        []finding.Finding{},
		PreExisting:     []finding.Finding{},
		Demoted:         []finding.Finding{},
		DroppedByAnchor: map[int]int{},
		DroppedByReason: map[string]int{},
	}
	files := newFileIndex(in.Files)

	// 1. validate
	anchors := newAnchorer(in.Heads)
	fs, quoted := validate(collect(in.Results), files, anchors, out.DroppedByReason)
	out.Snapped = anchors.snapped
	// 2. deduplicate
	groups := dedupe(fs, quoted, out.DroppedByReason)
	// 2b. fold test gaps into their defects
	groups, out.Folded = fold(groups, out.DroppedByReason)
	// 3. promote
	promote(groups)
	// 4. split off pre-existing (never a finding on a line the PR added)
	changed := in.Changed
	if changed == nil {
		changed = in.Files
	}
	added := newAddedLines(changed)
	groups, pre := splitPreExistingUnfolding(groups, added, out.DroppedByReason)
	// 5. merge routing conservatively (pre-existing findings too, so the
	// report-path JSON shows the merged values)
	routeConservatively(groups)
	routeConservatively(pre)
	// 6. lint-ignore suppression
	if !in.SuppressionForbidden {
		groups = suppressUnfolding(groups, files, added, out.DroppedByReason, &pre)
	}
	// 7. mode-aware demotion
	groups, out.Demoted, out.Demotions = demote(groups, in.Mode, out.DroppedByReason)
	// 8. gate
	out.Gated, out.BelowBar = gate(groups, out.DroppedByAnchor, out.DroppedByReason)
	// A gated host keeps, of its folded gaps, those that would post alone:
	// the validator's refusal or lowering of the host unfolds them (Unfold).
	standalone(out.Gated, in.Mode, files, added, !in.SuppressionForbidden)
	out.Folded = out.DroppedByReason[ReasonFolded]
	// 9. sort and number
	Sort(out.Gated)
	Number(out.Gated)
	Sort(out.BelowBar)
	for _, g := range pre {
		out.PreExisting = append(out.PreExisting, g.f)
	}
	Sort(out.PreExisting)
	Sort(out.Demoted)
	return out
}

// collect flattens the answers into findings, each naming its one reviewer,
// with every pipeline-owned field reset: the model decides none of them.
func collect(results []PersonaResult) []finding.Finding {
	n := 0
	for _, r := range results {
		n += len(r.Answer.Findings)
	}
	fs := make([]finding.Finding, 0, n)
	for _, r := range results {
		name := reviewerOf(r)
		for _, f := range r.Answer.Findings {
			f.Evidence = append([]string(nil), f.Evidence...)
			f.Reviewers = []string{name}
			f.Number = 0
			f.Promoted = false
			f.Validation = nil
			f.TestGap = nil
			fs = append(fs, f)
		}
	}
	return fs
}

// reviewerOf names the persona behind a result: the one that was asked,
// else the one the answer names, else "unknown".
func reviewerOf(r PersonaResult) string {
	if name := strings.TrimSpace(r.Persona); name != "" {
		return name
	}
	if name := strings.TrimSpace(r.Answer.Reviewer); name != "" {
		return name
	}
	return "unknown"
}

// group is a merged finding and the findings merged into it, the
// highest-ranked first.
type group struct {
	f       finding.Finding
	members []finding.Finding
}
