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
//   - the test gap is about a missing or weak test: its title talks about
//     tests ("no test", "untested", "not covered"), or it is the testing
//     persona's alone and its reason does; and its file is not a test file
//     (a defect IN a test is a defect, never folded);
//   - the defect is not itself a test gap, is on the same file, and its
//     line is within DedupeWindow of the gap's;
//   - the defect is at least as severe and as sure as the gap, and demotion
//     would not drop it where it would keep the gap (holds): the gap then
//     shares the defect's fate without losing anything by it. A "gap" is
//     one by its words, and the PR's author names the code those words
//     come from (an X-Test-Mode header makes "Auth bypassed in test mode"
//     a test gap); folded into a maintainability P3 or a finding below the
//     bar, a P0 would be dropped before the validator saw it;
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
// and reviewers), which the comment shows as one line. The gap is counted
// under ReasonFolded. A gap that folds nowhere goes on through the steps
// like any finding, where demotion usually stops it.

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
// defect in a test file).
func isTestGap(f finding.Finding) bool {
	if scope.IsTest(f.File) {
		return false
	}
	if bagOfWords(f.Title)[testWord] {
		return true
	}
	return len(f.Reviewers) > 0 && !slices.ContainsFunc(f.Reviewers, func(r string) bool { return r != "testing" }) &&
		bagOfWords(f.WhyItMatters)[testWord]
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
		d := &gs[best].f
		if d.TestGap == nil {
			d.TestGap = &finding.TestGap{Title: g.f.Title}
		}
		d.TestGap.Reviewers = append(d.TestGap.Reviewers, g.f.Reviewers...)
		slices.Sort(d.TestGap.Reviewers)
		d.TestGap.Reviewers = slices.Compact(d.TestGap.Reviewers)
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
