package synth

import (
	"strings"
	"unicode"
)

// A finding is a test gap by what it claims: that a test is missing or
// weak. A word such as "test" or "cover" in its title is not a claim: an
// X-Test-Mode header that skips authentication, a path traversal in the
// "cover image" upload, a check that "only tests the whole path" are
// defects. claimsTestGap reads the claim from the shape of the words
// around a test noun (tokens split on spaces and punctuation, an
// identifier such as x-test-mode or test_mode kept whole):
//
//   - "untested", "testless";
//   - an absence or weakness word, up to three words, then a test noun that
//     is not an adjective of something else: "no test", "missing
//     regression tests", "without tests", "weak assertions", "add a first
//     store test" (but not "no authentication in test mode");
//   - a test noun said to be missing: "test is missing", "coverage gap";
//   - a test noun that does not do its job: "the new test only checks",
//     "tests do not cover", "test never asserts";
//   - "not tested", "never covered by a test", "not exercised by any test".

// testNouns are the words that name a test.
var testNouns = wordSet(`test tests unit-test unit-tests testcase testcases test-case test-cases coverage assertion assertions`)

// gapOpeners say that what follows is absent, weak or wanted.
var gapOpeners = wordSet(`no missing lacks lack lacking without zero weak weaker insufficient inadequate incomplete
	needs need add adds adding write requires`)

// gapStates say that the test noun before them is absent or weakened.
var gapStates = wordSet(`missing absent lacking needed required skipped disabled removed weakened deleted gap gaps`)

// gapFailures say that a test does not do its job (after "only", "never",
// "does not" ...).
var gapFailures = wordSet(`check checks assert asserts cover covers exercise exercises verify verifies catch catches pin pins test tests`)

// gapHedges sit between a test noun and its failure.
var gapHedges = wordSet(`only never not no longer does do doesn't don't cannot can't fails fail is are`)

// gapNounTail are words after a test noun that make it an adjective of
// something else ("test mode", "test header"): no claim about a test.
var gapNounTail = wordSet(`mode modes flag flags header headers env environment server servers key keys account accounts
	user users data endpoint endpoints route routes hook hooks build config credential credentials token tokens
	secret secrets double doubles stub stubs helper helpers fixture fixtures harness`)

// negations before a participle: "not tested", "never covered by".
var gapNegations = wordSet(`not never isn't aren't wasn't weren't`)

// gapTokens splits lower-cased text into words; letters, digits and the
// joiners of identifiers (- _ ') stay in a word.
func gapTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '\'')
	})
}

// claimsTestGap reports whether text claims that a test is missing or weak.
func claimsTestGap(text string) bool {
	w := gapTokens(text)
	at := func(i int) string {
		if i < 0 || i >= len(w) {
			return ""
		}
		return w[i]
	}
	for i, t := range w {
		switch {
		case t == "untested" || t == "testless" || t == "test-less":
			return true
		case gapNegations[t] && (at(i+1) == "tested" || at(i+1) == "unit-tested"):
			return true
		case gapNegations[t] && (at(i+1) == "covered" || at(i+1) == "exercised" || at(i+1) == "caught") && at(i+2) == "by":
			for j := i + 3; j <= i+5 && j < len(w); j++ {
				if testNouns[w[j]] {
					return true
				}
			}
		case testNouns[t]:
			if gapNounTail[at(i+1)] {
				continue
			}
			// An opener up to two words before: "no test", "no unit test",
			// "add a first store test".
			for j := i - 1; j >= max(0, i-4); j-- {
				if gapOpeners[w[j]] {
					return true
				}
			}
			// A state after: "test is missing", "coverage gap".
			next := at(i + 1)
			if next == "is" || next == "are" || next == "was" || next == "were" {
				next = at(i + 2)
			}
			if gapStates[next] {
				return true
			}
			// A failure after: "test only checks", "tests do not cover".
			for j := i + 1; j <= i+3 && j < len(w); j++ {
				if gapFailures[w[j]] && j > i+1 {
					return true
				}
				if !gapHedges[w[j]] {
					break
				}
			}
		}
	}
	return false
}
