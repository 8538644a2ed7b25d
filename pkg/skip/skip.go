// Package skip is Stage 1, the skip-condition pre-check: pure rules over
// the pull request and its issue comments that decide, before any model
// call, whether a run should end without a review.
//
// The rules, in order; the first that fires wins:
//
//  1. the PR is closed or merged;
//  2. the PR is a draft;
//  3. the PR is a trivial automated one: its title starts with a
//     dependency-bump or release prefix (see TrivialTitle) AND its body is
//     empty or whitespace;
//  4. the PR was already reviewed: an issue comment written by the
//     action's own identity (bot-login) carries the report marker. A marker
//     in anyone else's comment is ignored, or any user could switch reviews
//     off. A deliberate rerun (workflow_dispatch) bypasses this rule only.
//
// When rule 4 fires, Decision.Carried holds the metadata of the newest
// report comment so the caller can put the earlier verdict on the new head
// commit's check run. If that metadata cannot be read (an edited or foreign
// comment format), Carried is nil and the earlier verdict is unknown: the
// caller must not report success, because GitHub branch protection treats
// both "success" and "neutral" as passing. anchor-review fails closed: the
// check concludes "failure" and asks for a workflow_dispatch re-review.
package skip

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/anchor-review/anchor-review/pkg/marker"
)

// Rule numbers, as in SPEC section 1, Stage 1.
const (
	RuleClosed   = 1 // closed or merged
	RuleDraft    = 2
	RuleTrivial  = 3 // trivial automated PR
	RuleReviewed = 4 // already reviewed by the action's identity
)

// PR is what the rules need from a pull request.
type PR struct {
	State         string // "open" or "closed"
	Merged, Draft bool
	Title, Body   string
}

// Comment is one issue comment on the PR.
type Comment struct {
	Author string // the author's login
	Body   string
}

// Decision is the outcome of the pre-check.
type Decision struct {
	Skip   bool
	Rule   int    // the rule that fired (RuleClosed..RuleReviewed); 0 when not skipped
	Reason string // a short sentence for the skip-reason output; "" when not skipped
	// Carried is the metadata of the newest report comment when Rule is
	// RuleReviewed and it could be read; nil otherwise.
	Carried *marker.Meta
}

// trivialPrefixes are the title prefixes of trivial automated PRs, lower
// case. This list is the only place the pattern lives.
func trivialPrefixes() []string {
	return []string{
		"chore(deps)",
		"chore(deps-dev)",
		"build(deps)",
		"build(deps-dev)",
		"chore: bump",
		"chore(release)",
		"chore: release",
		"release:",
	}
}

// trivialPrefix returns the prefix title starts with, or "" when none.
// The match is case-insensitive, after leading white space. A prefix that
// ends in a letter must end a word there, so "chore: bumped the parser"
// and "chore: releases page" are not trivial: the pattern stays
// conservative.
func trivialPrefix(title string) string {
	t := strings.TrimLeftFunc(title, unicode.IsSpace)
	for _, p := range trivialPrefixes() {
		if len(t) < len(p) || !strings.EqualFold(t[:len(p)], p) {
			continue
		}
		last, _ := utf8.DecodeLastRuneInString(p)
		next, _ := utf8.DecodeRuneInString(t[len(p):])
		if unicode.IsLetter(last) && len(t) > len(p) && wordRune(next) {
			continue
		}
		return p
	}
	return ""
}

func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-'
}

// TrivialTitle reports whether title starts with one of the trivial
// automated-PR prefixes, case-insensitively: chore(deps), chore(deps-dev),
// build(deps), build(deps-dev), chore: bump, chore(release),
// chore: release, release:. A title alone never skips a review; the body
// must be empty too (see Decide).
func TrivialTitle(title string) bool {
	return trivialPrefix(title) != ""
}

// Decide applies the four rules in order. comments are the PR's issue
// comments in the order the API lists them (oldest first), so the last
// report comment is the newest. botLogin is the action's identity, compared
// case-insensitively; when empty, no comment counts as the action's and
// rule 4 never fires. rerun bypasses rule 4 and no other rule.
func Decide(pr PR, comments []Comment, botLogin string, rerun bool) Decision {
	switch {
	case pr.Merged:
		return Decision{Skip: true, Rule: RuleClosed, Reason: "the pull request is merged"}
	case strings.EqualFold(pr.State, "closed"):
		return Decision{Skip: true, Rule: RuleClosed, Reason: "the pull request is closed"}
	case pr.Draft:
		return Decision{Skip: true, Rule: RuleDraft, Reason: "the pull request is a draft"}
	}
	if p := trivialPrefix(pr.Title); p != "" && strings.TrimSpace(pr.Body) == "" {
		// The reason names our own prefix, never the untrusted title.
		return Decision{Skip: true, Rule: RuleTrivial,
			Reason: "trivial automated pull request: the title starts with " + p + " and the body is empty"}
	}
	if rerun || botLogin == "" {
		return Decision{}
	}
	for i := len(comments) - 1; i >= 0; i-- {
		c := comments[i]
		if !strings.EqualFold(c.Author, botLogin) || !marker.HasReport(c.Body) {
			continue
		}
		d := Decision{Skip: true, Rule: RuleReviewed,
			Reason: "already reviewed: " + botLogin + " posted a report; run the workflow manually (workflow_dispatch) to review again"}
		if m, err := marker.ParseMeta(c.Body); err == nil {
			d.Carried = &m
		}
		return d
	}
	return Decision{}
}
