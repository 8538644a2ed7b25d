package synth

import (
	"slices"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// Folding test gaps into the defects they would catch (step 2b, after
// deduplication and before promotion). The testing persona's commonest
// finding is "no test catches this bug", on the lines of a bug another
// persona already reported: posted alone it is the same problem twice.
// Deduplication keeps the two apart on purpose (one asks for a fix, the
// other for a test), so a separate rule joins them: a test-gap finding is
// folded into a defect finding when all of these hold:
//
//   - the test gap is about a missing or weak test: its title claims so
//     ("no test", "untested", "the new test only checks": claimsTestGap in
//     testgap.go), or it is the testing persona's alone and its reason
//     does; a word such as "test" or "cover" is no claim; and its file is
//     not a test file (a defect IN a test is a defect, never folded);
//   - the defect is not itself a test gap, is on the same file, and its
//     line is within DedupeWindow of the gap's;
//   - the defect is at least as severe and as sure as the gap, and demotion
//     would not drop it where it would keep the gap (holds): the gap then
//     shares the defect's fate at demotion and the gate without losing
//     anything by it (folded into a maintainability P3 or a finding below
//     the bar, a P0 would be dropped before the validator saw it);
//   - the two name the same thing: the gap's title, once the words that only
//     say "a test is missing" are set aside (foldNoise), shares at least
//     FoldWords words with the defect's title and reason, or every one of its
//     words when it has fewer ("Windows device-name rejection has no test"
//     and "Windows device-name check misses names in subdirectories" share
//     windows, device, name; "No test for the new clear() method" shares
//     nothing with "throwOnTimeout read from a misspelled key" two lines
//     away, and stays a finding of its own).
//
// When several defects qualify, the gap goes to the one sharing the most
// words (ties: the first in report order). The defect keeps everything it
// had, its reviewers and anchor included; it gains TestGap (the gap's title
// and reviewers, and the gap itself), which the comment shows as one
// line. The gap is counted under ReasonFolded. A gap that folds nowhere
// goes on through the steps like any finding, where demotion usually
// stops it. A folded gap never leaves the review with its host where it
// would have stayed alone: see unfolding below.

// FoldWords is how many words a test gap's subject must share with a
// defect's title and reason to fold into it.
const FoldWords = 2

// ReasonFolded counts test-gap findings folded into the defect they would
// catch (step 2b); the defect carries them as its TestGap.
const ReasonFolded = "folded test gap"

// foldNoise are the stems a test-gap title uses to say that a test is
// missing or weak: they name no part of the code.
var foldNoise = func() map[string]bool {
	m := map[string]bool{}
	for w := range wordSet(`test tests testing untested coverage covered cover uncovered pin pinned pinning
		uncaught catch catches caught ship ships shipped without lack lacks lacking missing miss
		regression regressions assert assertion assertions exercise exercised case cases spec specs
		behaviour behavior branch branches change changes changed add added fix fixed scenario`) {
		m[stem(w)] = true
		if c, ok := synonyms[stem(w)]; ok {
			m[c] = true
		}
	}
	return m
}()

// isTestGap reports whether f is about a missing or weak test (and not a
// defect in a test file): its title claims so (claimsTestGap), or it is the
// testing persona's alone and its reason does. A word such as "test" or
// "cover" is no claim: "X-Test-Mode header skips authentication" is a
// defect.
func isTestGap(f finding.Finding) bool {
	if scope.IsTest(f.File) {
		return false
	}
	if claimsTestGap(f.Title) {
		return true
	}
	return len(f.Reviewers) > 0 && !slices.ContainsFunc(f.Reviewers, func(r string) bool { return r != "testing" }) &&
		claimsTestGap(f.WhyItMatters)
}

// gapSubject is what a test gap is about: its title words without foldNoise.
func gapSubject(f finding.Finding) map[string]bool {
	out := map[string]bool{}
	for w := range bagOfWords(f.Title) {
		if !foldNoise[w] && w != testWord {
			out[w] = true
		}
	}
	return out
}

// fold is step 2b: it folds every test gap into the defect it would catch
// and returns the groups left, in their order, and how many were folded.
func fold(gs []group, dropped map[string]int) ([]group, int) {
	gap := make([]bool, len(gs))
	for i, g := range gs {
		gap[i] = isTestGap(g.f)
	}
	gone := make([]bool, len(gs))
	folded := 0
	// What each defect is about, computed once and only for defects some
	// gap reaches (not once per gap and defect).
	about := make([]map[string]bool, len(gs))
	for i, g := range gs {
		if !gap[i] {
			continue
		}
		subj := gapSubject(g.f)
		best, bestShared := -1, 0
		for j, d := range gs {
			if gap[j] || d.f.File != g.f.File || abs(d.f.Line-g.f.Line) > DedupeWindow || !holds(d.f, g.f) {
				continue
			}
			if about[j] == nil {
				about[j] = bagOfWords(d.f.Title + " " + d.f.WhyItMatters)
			}
			shared := 0
			for w := range subj {
				if about[j][w] {
					shared++
				}
			}
			if shared == 0 || shared < min(FoldWords, len(subj)) {
				continue
			}
			if best < 0 || shared > bestShared || (shared == bestShared && compareFindings(d.f, gs[best].f) < 0) {
				best, bestShared = j, shared
			}
		}
		if best < 0 {
			continue
		}
		carry(&gs[best].f, g)
		gone[i] = true
		folded++
		dropped[ReasonFolded]++
	}
	keep := gs[:0]
	for i, g := range gs {
		if !gone[i] {
			keep = append(keep, g)
		}
	}
	return keep, folded
}

// holds reports whether defect d can carry test gap g: d is at least as
// severe and as sure as g (so the gate passes d wherever it passes g), and
// demotion drops d only where it drops g too. Folded, g goes wherever d
// goes; it must never go somewhere it would not have gone alone.
func holds(d, g finding.Finding) bool {
	return d.Severity.Rank() <= g.Severity.Rank() && d.Confidence >= g.Confidence &&
		(!shouldDemote(d) || shouldDemote(g))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Folding never loses a finding (issue 30). A folded gap shares its
// host's fate only while that fate is the one the gap would have had
// alone. Where the host leaves the review and the gap alone would not,
// the gap is taken out again (unfolded) and goes on as a finding of its
// own, with its own severity and anchor:
//
//   - step 4: the host is pre-existing (the gap may well be the PR's);
//   - step 6: a lint directive suppresses the host (its rule names the
//     host's subject, not the gap's);
//   - Stage 5b: the validator refutes the host, gives it no verdict, or
//     lowers it below the gap's severity (Unfold, called by the review).
//
// Demotion and the gate cannot part them: a gap folds only into a host
// that passes both wherever the gap does (holds). A gap that would not
// post on its own (below the gate, demoted, suppressed or pre-existing by
// itself) stays a line of its host: its Findings entry is dropped after
// step 8 (standalone).

// carry folds gap group g into host d: one more test-gap line, and the gap
// itself, routed as its members say, kept for unfolding.
func carry(d *finding.Finding, g group) {
	routeConservatively([]group{g})
	if d.TestGap == nil {
		d.TestGap = &finding.TestGap{Title: g.f.Title}
	}
	gap := g.f
	gap.TestGap = nil
	d.TestGap.Findings = append(d.TestGap.Findings, gap)
	slices.SortStableFunc(d.TestGap.Findings, compareFindings)
	d.TestGap.Reviewers = append(d.TestGap.Reviewers, g.f.Reviewers...)
	slices.Sort(d.TestGap.Reviewers)
	d.TestGap.Reviewers = slices.Compact(d.TestGap.Reviewers)
}

// unfoldAll takes every gap out of host f (which keeps no test-gap line)
// and returns them as groups of their own, no longer counted as folded.
func unfoldAll(f *finding.Finding, dropped map[string]int) []group {
	if f.TestGap == nil {
		return nil
	}
	gaps := f.TestGap.Findings
	f.TestGap = nil
	out := make([]group, 0, len(gaps))
	for _, g := range gaps {
		dropped[ReasonFolded]--
		out = append(out, group{f: g, members: []finding.Finding{g}})
	}
	if dropped[ReasonFolded] == 0 {
		delete(dropped, ReasonFolded)
	}
	return out
}

// splitPreExistingUnfolding is step 4 keeping folding's promise: the gaps
// of a pre-existing host are split on their own.
func splitPreExistingUnfolding(gs []group, added addedLines, dropped map[string]int) (keep, pre []group) {
	keep, pre = splitPreExisting(gs, added)
	var back []group
	for i := range pre {
		back = append(back, unfoldAll(&pre[i].f, dropped)...)
	}
	if len(back) == 0 {
		return keep, pre
	}
	k, p := splitPreExisting(back, added)
	return append(keep, k...), append(pre, p...)
}

// suppressUnfolding is step 6 keeping folding's promise: when a directive
// suppresses a host, its gaps are judged on their own (step 4, then step 6).
func suppressUnfolding(gs []group, files fileIndex, added addedLines, dropped map[string]int, pre *[]group) []group {
	keep := make([]group, 0, len(gs))
	for _, g := range gs {
		if kept := suppressLintIgnored([]group{g}, files, added, dropped); len(kept) == 1 {
			keep = append(keep, kept[0])
			continue
		}
		back, p := splitPreExisting(unfoldAll(&g.f, dropped), added)
		*pre = append(*pre, p...)
		routeConservatively(p)
		keep = append(keep, suppressLintIgnored(back, files, added, dropped)...)
	}
	return keep
}

// standalone keeps, in each host's TestGap.Findings, only the gaps that
// would post on their own: not pre-existing, not suppressed, not demoted,
// and through the gate (anchor 75 or more, or a P0 at 50 for the check's
// "below the bar"). The others stay the host's line and nothing more.
func standalone(hosts []finding.Finding, mode string, files fileIndex, added addedLines, suppress bool) {
	for i := range hosts {
		tg := hosts[i].TestGap
		if tg == nil || len(tg.Findings) == 0 {
			continue
		}
		scratch, anchors := map[string]int{}, map[int]int{}
		var kept []finding.Finding
		for _, gap := range tg.Findings {
			gs, _ := splitPreExisting([]group{{f: gap, members: []finding.Finding{gap}}}, added)
			if suppress {
				gs = suppressLintIgnored(gs, files, added, scratch)
			}
			gs, _, _ = demote(gs, mode, scratch)
			g, below := gate(gs, anchors, scratch)
			kept = append(kept, g...)
			kept = append(kept, below...)
		}
		tg.Findings = kept
	}
}

// Unfold is Stage 5b's part of folding's promise, for a host the validator
// judged: refuted or without a verdict (confirmed false), every gap it
// carries that would post on its own comes out; confirmed, those more
// severe than the severity it was confirmed at come out. gated are the
// gaps for the validator, anchor 75 or more; belowBar the P0 gaps at
// anchor 50 (the check's "below the bar", never validated). host keeps a
// test-gap line only for the gaps that stay.
func Unfold(host *finding.Finding, confirmed bool) (gated, belowBar []finding.Finding) {
	tg := host.TestGap
	if tg == nil || len(tg.Findings) == 0 {
		return nil, nil
	}
	var stay []finding.Finding
	for _, gap := range tg.Findings {
		if confirmed && gap.Severity.Rank() >= host.Severity.Rank() {
			stay = append(stay, gap)
			continue
		}
		if gap.Confidence >= finding.GateAnchor {
			gated = append(gated, gap)
		} else {
			belowBar = append(belowBar, gap)
		}
	}
	if len(stay) == len(tg.Findings) {
		return nil, nil
	}
	// The line now names what stays: the first gap left, and the
	// reviewers of those left.
	if len(stay) == 0 {
		host.TestGap = nil
		return gated, belowBar
	}
	line := &finding.TestGap{Title: stay[0].Title, Findings: stay}
	for _, g := range stay {
		line.Reviewers = append(line.Reviewers, g.Reviewers...)
	}
	slices.Sort(line.Reviewers)
	line.Reviewers = slices.Compact(line.Reviewers)
	host.TestGap = line
	return gated, belowBar
}
