package action

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

// groupGate concludes the `anchor-review` check of a merge queue's group
// (SPEC 9.2) from the reviews of the pull requests in it, with no model
// call: success only when every one has a report of ours that is
// complete, was made at the head the queue merges, and passes the gate
// after dismissals (the report's own conclusion and blocking count, which
// the run that recorded the dismissals wrote). Anything else is a failure
// naming the pull request and why. The check is always written: a queue
// must never wait for ever on a required check.
type groupGate struct {
	gh   GitHub
	n    Notifier
	logf func(string, ...any)
	c    Config
	ev   Event
}

// prVerdict is one pull request's standing in the group.
type prVerdict struct {
	PR  int
	Why string // "" when it passes
	OK  string // what passed, when it passes
}

func (g groupGate) run(ctx context.Context) (StepOutputs, error) {
	mg := g.ev.MergeGroup
	verdicts := g.judge(ctx)
	failed := slices.IndexFunc(verdicts, func(v prVerdict) bool { return v.Why != "" }) >= 0
	chk := groupCheck(mg, verdicts)
	p := publisher{gh: g.gh, a: g.n, logf: g.logf, owner: g.ev.Owner, repo: g.ev.Repo, bot: g.c.BotLogin}
	res := review.Result{HeadSHA: mg.HeadSHA}
	out := StepOutputs{Conclusion: chk.Conclusion, Verdict: string(review.Ready)}
	out.CheckWritten = p.check(ctx, res, &chk, 0)
	g.n.AddStepSummary(chk.Summary)
	for _, v := range verdicts {
		if v.Why != "" {
			out.Blocking++
			g.logf("anchor-review: merge group %s: pull request #%d: %s", short(mg.HeadSHA), v.PR, v.Why)
		} else {
			g.logf("anchor-review: merge group %s: pull request #%d: %s", short(mg.HeadSHA), v.PR, v.OK)
		}
	}
	if failed {
		out.Verdict = string(review.NotReady)
		return out, ErrBlocking
	}
	return out, nil
}

// judge finds the group's pull requests (the one the ref names, checked
// against the merge queue, and any queued in the same group) and judges
// each. A verdict with PR 0 is about the group itself.
func (g groupGate) judge(ctx context.Context) []prVerdict {
	mg := g.ev.MergeGroup
	base, named, _, err := ParseQueueRef(mg.HeadRef)
	if err != nil {
		return []prVerdict{{Why: err.Error()}}
	}
	if mg.BaseRef != "" && base != mg.BaseRef {
		return []prVerdict{{PR: named, Why: fmt.Sprintf("the merge group's ref names base %q, but the group merges into %q", base, mg.BaseRef)}}
	}
	entries, err := g.gh.MergeQueue(ctx, g.ev.Owner, g.ev.Repo, base)
	if err != nil {
		return []prVerdict{{PR: named, Why: "the merge queue could not be read to check which pull requests the group holds: " + err.Error()}}
	}
	i := slices.IndexFunc(entries, func(e github.QueueEntry) bool { return e.PR == named })
	switch {
	case i < 0:
		return []prVerdict{{PR: named, Why: fmt.Sprintf("the merge group's ref names pull request #%d, which is not in the merge queue of %s", named, base)}}
	case entries[i].GroupSHA != "" && entries[i].GroupSHA != mg.HeadSHA:
		return []prVerdict{{PR: named, Why: fmt.Sprintf("pull request #%d is queued in another merge group (%s), not in %s", named, short(entries[i].GroupSHA), short(mg.HeadSHA))}}
	}
	prs := []github.QueueEntry{entries[i]}
	for _, e := range entries {
		if e.PR != named && e.GroupSHA == mg.HeadSHA {
			prs = append(prs, e)
		}
	}
	slices.SortFunc(prs, func(a, b github.QueueEntry) int { return a.PR - b.PR })
	var out []prVerdict
	for _, e := range prs {
		out = append(out, g.judgePR(ctx, e, base))
	}
	return out
}

// judgePR judges one pull request of the group from the API: its current
// head and state, and our latest report on it.
func (g groupGate) judgePR(ctx context.Context, e github.QueueEntry, base string) prVerdict {
	v := prVerdict{PR: e.PR}
	info, err := g.gh.PullRequest(ctx, g.ev.Owner, g.ev.Repo, e.PR)
	if err != nil {
		v.Why = "the pull request could not be read: " + err.Error()
		return v
	}
	switch {
	case info.BaseRef != base:
		v.Why = fmt.Sprintf("it targets %q, not %q, the branch this group merges into", info.BaseRef, base)
		return v
	case e.PRHead != "" && e.PRHead != info.HeadSHA:
		v.Why = fmt.Sprintf("the queue holds head %s but the pull request's head is %s", short(e.PRHead), short(info.HeadSHA))
		return v
	}
	if d := skip.Decide(skip.PR{State: info.State, Merged: info.Merged, Draft: info.Draft, Title: info.Title, Body: info.Body,
		Author: info.Author, AuthorIsBot: info.AuthorIsBot, HeadSHA: info.HeadSHA}, nil, "", false, nil); d.Rule == skip.RuleTrivial {
		// Exempt as on its own head (Stage 1 rule 3): a required check
		// must not hold a dependency bump in the queue for ever.
		v.OK = "exempt: " + d.Reason
		return v
	}
	comments, err := g.gh.IssueComments(ctx, g.ev.Owner, g.ev.Repo, e.PR)
	if err != nil {
		v.Why = "its comments could not be read: " + err.Error()
		return v
	}
	found := review.FindReport(ctx, g.gh, g.ev.Owner, g.ev.Repo, comments, g.c.BotLogin)
	v.Why = groupReason(found, info.HeadSHA)
	if v.Why == "" {
		v.OK = fmt.Sprintf("reviewed at %s, complete, passes the gate", short(info.HeadSHA))
	}
	return v
}

// groupReason says why our report found on a pull request whose head is
// head does not let it merge; "" when it does.
func groupReason(found skip.Found, head string) string {
	m := found.Meta
	var ignored string
	if found.Ignored > 0 {
		ignored = fmt.Sprintf(" (%d look-alike comment(s) that no check run of this Action names were ignored)", found.Ignored)
	}
	switch {
	case found.Err != nil:
		return "the check runs that would show its report is ours could not be read: " + found.Err.Error()
	case !found.OK:
		return "anchor-review has no report on it" + ignored
	case m.HeadSHA != head:
		return fmt.Sprintf("its latest review was made at %s, but the queue merges its head %s: review the new commits first%s", short(m.HeadSHA), short(head), ignored)
	case m.Version < 2 || m.Incomplete || m.Verdict == string(review.Degraded):
		return "its latest review is incomplete" + ignored
	case m.Conclusion != report.ConclusionSuccess || m.Blocking > 0:
		return fmt.Sprintf("its latest review does not pass the gate (%s, %d blocking finding(s) after dismissals)%s", orNone(m.Conclusion), m.Blocking, ignored)
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "no conclusion"
	}
	return s
}

// groupCheck renders the group's check run.
func groupCheck(mg *MergeGroup, vs []prVerdict) report.CheckOutput {
	var b strings.Builder
	fmt.Fprintf(&b, "## anchor-review: merge group %s\n\n", short(mg.HeadSHA))
	failed := 0
	for _, v := range vs {
		who := "The merge group"
		if v.PR > 0 {
			who = fmt.Sprintf("Pull request #%d", v.PR)
		}
		if v.Why != "" {
			failed++
			fmt.Fprintf(&b, "- **%s**: %s.\n", who, mdLine(v.Why))
		} else {
			fmt.Fprintf(&b, "- %s: %s.\n", who, mdLine(v.OK))
		}
	}
	b.WriteString("\nConcluded from the reviews of the pull requests in the group; no model call.\n")
	chk := report.CheckOutput{Conclusion: report.ConclusionSuccess, Summary: b.String()}
	switch {
	case failed == 0:
		chk.Title = fmt.Sprintf("%d pull request(s) reviewed at the head being merged", len(vs))
	case len(vs) == 1 && vs[0].PR > 0:
		chk.Conclusion, chk.Title = report.ConclusionFailure, fmt.Sprintf("#%d: %s", vs[0].PR, clipLine(vs[0].Why, 200))
	case len(vs) == 1:
		chk.Conclusion, chk.Title = report.ConclusionFailure, clipLine(vs[0].Why, 200)
	default:
		chk.Conclusion, chk.Title = report.ConclusionFailure, fmt.Sprintf("%d of %d pull requests cannot merge as reviewed", failed, len(vs))
	}
	return chk
}

// mdLine keeps one line of our own text (which may quote a ref) inert in
// Markdown: no line breaks, no HTML, no mentions.
func mdLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := strings.NewReplacer("<", "&lt;", ">", "&gt;", "@", "@\u200b", "`", "'", "|", "\\|")
	return clipLine(r.Replace(s), 1000)
}

func clipLine(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
