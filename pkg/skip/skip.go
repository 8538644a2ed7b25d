// Package skip is Stage 1, the skip-condition pre-check: pure rules over
// the pull request and its issue comments that decide, before any model
// call, whether a run should end without a review.
//
// The rules, in order; the first that fires wins:
//
//  1. the PR is closed or merged;
//  2. the PR is a draft;
//  3. the PR is a trivial automated one: its author is a bot account AND
//     its title starts with a dependency-bump or release prefix (see
//     TrivialTitle) AND its body is empty, or the author is a
//     dependency-update bot (Dependabot, Renovate: their bodies are release
//     notes). A human's PR is never skipped by this rule;
//  4. the PR was already reviewed AT ITS CURRENT HEAD: an issue comment by
//     the action's own identity (bot-login) whose first line is the report
//     marker, whose second line is a valid metadata line, and whose
//     head_sha is the PR's head, and that an `anchor-review` check run
//     of ours on that head names (Ours); a green verdict counts only when the
//     metadata attests a complete review (see vouches). A marker in anyone else's comment, or
//     anywhere but the first line, is ignored: otherwise any user or
//     workflow could switch reviews off. A deliberate rerun bypasses this
//     rule only.
//
// A report for an OLDER head does not skip: the new commits were not
// reviewed, and green is never carried onto them. Decision.Previous then
// holds that report's metadata for the re-review.
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
	Author        string // the author's login
	AuthorIsBot   bool   // user.type is "Bot"
	HeadSHA       string // the current head commit
}

// Comment is one issue comment on the PR.
type Comment struct {
	ID     int64  // the comment's id (0 when the caller does not need it)
	Author string // the author's login
	Body   string
}

// Decision is the outcome of the pre-check.
type Decision struct {
	Skip   bool
	Rule   int    // the rule that fired (RuleClosed..RuleReviewed); 0 when not skipped
	Reason string // a short sentence for the skip-reason output; "" when not skipped
	// Carried is the metadata of our report for the current head when Rule
	// is RuleReviewed; nil otherwise.
	Carried *marker.Meta
	// Previous is the metadata of our newest report when it was written for
	// an older head (new commits since); nil otherwise. Not a skip.
	Previous *marker.Meta
	// Report is the id of the comment Carried was read from.
	Report int64
	// Ignored counts comments that looked like our report but failed the
	// ownership test (Ours); Err is why it could not be made.
	Ignored int
	Err     error
}

// dependencyBots write release notes into their PR bodies: a trivial title
// from them skips whatever the body says.
func dependencyBots() []string {
	return []string{"dependabot[bot]", "renovate[bot]"}
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
// rule 4 never fires. rerun bypasses rule 4 and no other rule. runs lists
// the check runs on a report's head, for the ownership test (Ours): a
// report no check run of ours names is ignored.
func Decide(pr PR, comments []Comment, botLogin string, rerun bool, runs Runs) Decision {
	switch {
	case pr.Merged:
		return Decision{Skip: true, Rule: RuleClosed, Reason: "the pull request is merged"}
	case strings.EqualFold(pr.State, "closed"):
		return Decision{Skip: true, Rule: RuleClosed, Reason: "the pull request is closed"}
	case pr.Draft:
		return Decision{Skip: true, Rule: RuleDraft, Reason: "the pull request is a draft"}
	}
	if p := trivialPrefix(pr.Title); p != "" && pr.AuthorIsBot {
		if strings.TrimSpace(pr.Body) == "" {
			// The reason names our own prefix, never the untrusted title.
			return Decision{Skip: true, Rule: RuleTrivial,
				Reason: "trivial automated pull request: a bot's title starts with " + p + " and the body is empty"}
		}
		for _, b := range dependencyBots() {
			if strings.EqualFold(pr.Author, b) {
				return Decision{Skip: true, Rule: RuleTrivial,
					Reason: "trivial automated pull request: " + b + "'s title starts with " + p}
			}
		}
	}
	if botLogin == "" {
		return Decision{}
	}
	found := LastReportComment(comments, botLogin, runs)
	if !found.OK {
		return Decision{Ignored: found.Ignored, Err: found.Err}
	}
	m := found.Meta
	if rerun || m.HeadSHA != pr.HeadSHA {
		return Decision{Previous: &m, Ignored: found.Ignored}
	}
	if !vouches(m) || green(m) && reports(comments, botLogin) > 1 {
		// Our report for this head, but it cannot vouch for a green check,
		// or it is one of several of ours (a duplicate a run failed to
		// delete): the publisher edits the oldest, this reads the newest,
		// and a green verdict needs the two to be the same report. The
		// head is reviewed again, from scratch, and the publisher removes
		// the duplicates.
		return Decision{Ignored: found.Ignored}
	}
	return Decision{Skip: true, Rule: RuleReviewed, Carried: &m, Report: found.Comment.ID, Ignored: found.Ignored,
		Reason: "already reviewed at this head commit: " + botLogin + " posted a report for " + m.HeadSHA[:12] + "; run the workflow manually (workflow_dispatch) to review again"}
}

// vouches reports whether rule 4 may carry m's verdict onto its head. A
// failing verdict always may (nothing green is carried). A green one
// (success, neutral) only when m attests a COMPLETE review (SPEC 7.1): a
// release-2 report not marked incomplete. A release-1 report cannot attest
// it (release 1 counted neither validator failures nor over-budget drops),
// and an incomplete review's neutral is no review of the head.
func vouches(m marker.Meta) bool {
	return !green(m) || m.Version >= 2 && !m.Incomplete
}

// green reports whether m's check passes a required status check.
func green(m marker.Meta) bool { return m.Conclusion == "success" || m.Conclusion == "neutral" }

// reports counts login's comments that carry the report marker, valid
// metadata or not: every one the publisher would treat as its report.
func reports(comments []Comment, login string) int {
	n := 0
	for _, c := range comments {
		if strings.EqualFold(c.Author, login) && marker.HasReport(c.Body) {
			n++
		}
	}
	return n
}

// LastClaim returns the metadata of the newest comment by login that
// carries the report marker and valid metadata, WITHOUT the ownership test
// (Ours): it is no report to trust. Only housekeeping reads it (the
// publisher's check that a newer run has not posted since this one
// started, where a report whose check run is still being written must
// count); every decision reads LastReportComment.
func LastClaim(comments []Comment, login string) (marker.Meta, bool) {
	for i := len(comments) - 1; i >= 0; i-- {
		c := comments[i]
		if !strings.EqualFold(c.Author, login) {
			continue
		}
		if m, err := marker.ParseReport(c.Body); err == nil {
			return m, true
		}
	}
	return marker.Meta{}, false
}
