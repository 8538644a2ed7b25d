package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

// Notifier is where the publisher reports what it could not do, and where
// the report goes when the token may not write: the job summary and
// workflow annotations in Actions, the terminal on the command line.
type Notifier interface {
	Warningf(format string, args ...any)
	Errorf(format string, args ...any)
	AddStepSummary(markdown string)
	Annotate(level, file string, line, endLine int, title, message string)
}

// ActionsNotifier is the Notifier of a run inside GitHub Actions.
type ActionsNotifier struct{ A *githubactions.Action }

// Warningf writes a ::warning:: command.
func (n ActionsNotifier) Warningf(format string, args ...any) {
	n.A.Warningf("%s", escapeLine(fmt.Sprintf(format, args...)))
}

// Errorf writes an ::error:: command.
func (n ActionsNotifier) Errorf(format string, args ...any) {
	n.A.Errorf("%s", escapeLine(fmt.Sprintf(format, args...)))
}

// AddStepSummary appends to the job summary.
func (n ActionsNotifier) AddStepSummary(markdown string) { n.A.AddStepSummary(markdown) }

// Annotate writes a file annotation (error for "failure", else warning).
func (n ActionsNotifier) Annotate(level, file string, line, endLine int, title, message string) {
	a := n.A.WithFieldsMap(map[string]string{"file": file, "line": strconv.Itoa(line), "endLine": strconv.Itoa(endLine), "title": title})
	if level == "failure" {
		a.Errorf("%s", escapeLine(message))
		return
	}
	a.Warningf("%s", escapeLine(message))
}

// PublishOptions say where and how to publish: the clients it writes
// through (injected, like every client: tests pass fakes) and the pull
// request and settings it publishes for.
type PublishOptions struct {
	// GitHub receives the comment, the check run and the inline review.
	GitHub GitHub
	// Notifier receives the job summary, and what the token may not write.
	Notifier Notifier
	// Logf is the run's log.
	Logf func(string, ...any)

	Owner, Repo string
	PR          int
	BotLogin    string
	Mode        string
	FailOn      string
	Quiet       bool
	// Inline posts the findings on their lines as one review (input inline).
	Inline bool
}

// Publish writes the one report comment (edited in place, never a second
// one) and the check run, and always the job summary. A token that may not
// write gets no retry storm: the report goes to the notifier instead and the
// log names the missing permission. It returns the step outputs.
func Publish(ctx context.Context, po PublishOptions, res review.Result, pr *review.PR, ro report.Options) StepOutputs {
	logf := po.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	p := publisher{gh: po.GitHub, a: po.Notifier, logf: logf, owner: po.Owner, repo: po.Repo, n: po.PR, bot: po.BotLogin}
	if pr != nil && pr.Info != nil {
		p.prURL = pr.Info.HTMLURL
	}
	out := p.publish(ctx, po, res, pr, ro)
	out.Cost = report.EstimateCost(res, ro.Pricing).Output()
	if res.Skipped && res.SkipRule == skip.RuleReviewed && res.Carried != nil && res.Unreviewed == nil {
		// Rule 4 carries the earlier report: its verdict and check, and so
		// its count of findings, never a 0 beside a carried not-ready.
		out.Findings = carriedFindings(res.Carried)
	}
	return out
}

// carriedFindings counts the findings of a carried report, -1 when its
// metadata does not record them all (a version 1 line, or more than
// marker.MaxFindings).
func carriedFindings(m *marker.Meta) int {
	if m.Version < 2 || m.Truncated {
		return -1
	}
	return len(m.Findings)
}

type publisher struct {
	gh          GitHub
	a           Notifier
	logf        func(string, ...any)
	owner, repo string
	n           int
	bot         string
	prURL       string // the PR's page, the details of an action_required check
}

func (p publisher) publish(ctx context.Context, c PublishOptions, res review.Result, pr *review.PR, ro report.Options) StepOutputs {
	if c.Mode == ModeReportOnly && !res.Skipped {
		// report-only posts nothing (SPEC section 3): no comment, no check
		// run, no annotations. With no check run there is no conclusion:
		// the output is empty (never a "success" beside a not-ready
		// verdict), and the verdict output says what the review found. Its
		// findings were not validated and are not posted, so they cannot
		// fail the step; only a review that could not run does (exit 3).
		p.a.AddStepSummary(report.JobSummary(res, ro))
		p.logf("anchor-review: report-only mode: the report is in the job summary; nothing was posted")
		return StepOutputs{Findings: len(res.Findings), Verdict: string(res.Verdict)}
	}
	superseded := false
	if c.Mode == ModeComment && !res.Skipped {
		// Re-read the comments: another run may have posted since Stage 1
		// (two pushes racing), and there must still be one report. The
		// dismissals of the report as it is now apply before anything is
		// rendered: one made while this run reviewed is not lost.
		pr, superseded = p.reread(ctx, pr, res)
		if !superseded {
			res = p.applyDismissals(ctx, res, pr)
		}
	}
	conclusion, blocking := report.Conclusion(res, c.FailOn)
	out := StepOutputs{Skipped: res.Skipped, SkipReason: res.SkipReason, Findings: len(res.Findings), Verdict: string(res.Verdict), Conclusion: conclusion, Blocking: blocking}
	if len(res.Dismissals) > 0 {
		out.Published = &res
	}
	if superseded {
		p.a.AddStepSummary(report.JobSummary(res, ro))
		chk := report.Check(res, ro)
		out.CheckWritten = p.check(ctx, res, &chk, 0)
		return out
	}
	if c.Inline && c.Mode == ModeComment && !res.Skipped {
		ro.Inline = p.inlineReview(ctx, res, ro)
	}
	summary := report.JobSummary(res, ro)
	p.a.AddStepSummary(summary)

	if res.Skipped {
		p.logf("anchor-review: skipped: %s", res.SkipReason)
		if res.SkipRule != skip.RuleReviewed && res.SkipRule != skip.RuleTrivial {
			// Closed and draft PRs get no check: nothing will merge them
			// as they are, and a later ready_for_review run reviews.
			out.Conclusion = ""
			return out
		}
		// Rule 3: a `skipped` check, so a required check does not hold a
		// dependency bump forever. Rule 4: the same head's earlier verdict.
		chk := report.Check(res, ro)
		var carried int64
		if res.SkipRule == skip.RuleReviewed && res.Unreviewed == nil {
			carried = res.CarriedFrom // the same head's report, carried forward
		}
		out.CheckWritten = p.check(ctx, res, &chk, carried)
		out.Conclusion = chk.Conclusion
		for _, cm := range pr.Comments {
			if carried != 0 && cm.ID == carried {
				out.CommentURL = cm.HTMLURL
			}
		}
		return out
	}

	readOnly := false
	var reportID int64 // the report comment the check run names
	if c.Mode == ModeComment {
		body := report.Comment(res, ro)
		if body == "" && len(p.own(pr.Comments, p.bot)) > 0 {
			// quiet and nothing to report, but an earlier report exists: it
			// is updated, so it never shows stale findings.
			loud := ro
			loud.Quiet = false
			body = report.Comment(res, loud)
		}
		posted, err := p.comment(ctx, pr, body)
		var pe *github.PermissionError
		switch {
		case errors.As(err, &pe):
			readOnly = true
			p.a.Warningf("anchor-review cannot write the report comment: the token lacks %q (a fork PR's token is read-only); the report is in the job summary", pe.Permission)
		case err != nil:
			p.a.Errorf("anchor-review could not post the report comment: %s", err.Error())
		}
		out.CommentURL, reportID = posted.HTMLURL, posted.ID
	}
	chk := report.Check(res, ro)
	out.CheckWritten = p.check(ctx, res, &chk, reportID)
	if !out.CheckWritten {
		readOnly = true
	}
	if readOnly {
		for _, an := range chk.Annotations {
			p.a.Annotate(an.Level, an.Path, an.StartLine, an.EndLine, an.Title, an.Message)
		}
	}
	return out
}

// applyDismissals answers res's findings with the dismissals of our
// report as pr's comments hold it (the report the prior-report lookup
// returns; nothing else is read). A finding whose dismissal needs its
// lines read reads them at res's head.
func (p publisher) applyDismissals(ctx context.Context, res review.Result, pr *review.PR) review.Result {
	found := review.FindReport(ctx, p.gh, p.owner, p.repo, pr.Comments, p.bot)
	m := found.Meta
	if !found.OK || len(m.Dismissals) == 0 {
		return res
	}
	read := func(ctx context.Context, path string) (string, bool, error) {
		return p.gh.FileContent(ctx, p.owner, p.repo, path, res.HeadSHA)
	}
	res.Findings = slices.Clone(res.Findings)
	review.ApplyDismissals(ctx, &res, m.Dismissals, read)
	if n := len(res.Dismissed); n > 0 {
		p.logf("anchor-review: %d finding(s) stay dismissed (their lines are as they were when dismissed)", n)
	}
	return res
}

// reread lists the PR's comments again just before publishing, so the
// report edited is the one actually posted last, not the one Stage 1 saw.
// superseded is true when a report for another head appeared since Stage 1
// and the PR's head has moved past this run's: a newer run owns the report,
// and this (older) run must not overwrite it.
func (p publisher) reread(ctx context.Context, pr *review.PR, res review.Result) (_ *review.PR, superseded bool) {
	// The comments read at the start stand in when the re-read stalls.
	ctx, cancel := halfLeft(ctx)
	defer cancel()
	fresh, err := p.gh.IssueComments(ctx, p.owner, p.repo, p.n)
	if err != nil {
		p.logf("anchor-review: could not re-read the comments before publishing (%v); using those read at the start", err)
		return pr, false
	}
	// LastClaim, not the ownership test: a report whose check run a
	// concurrent run is still writing must count here.
	now, okNow := skip.LastClaim(review.SkipComments(fresh), p.bot)
	then, okThen := skip.LastClaim(review.SkipComments(pr.Comments), p.bot)
	out := &review.PR{Info: pr.Info, Comments: fresh}
	if !okNow || now.HeadSHA == res.HeadSHA || (okThen && now.HeadSHA == then.HeadSHA) {
		return out, false
	}
	info, err := p.gh.PullRequest(ctx, p.owner, p.repo, p.n)
	if err != nil || info.HeadSHA == res.HeadSHA {
		return out, false
	}
	p.logf("anchor-review: a report for %s was posted while this run reviewed %s, and the pull request has moved on to %s: leaving the newer report alone",
		short(now.HeadSHA), short(res.HeadSHA), short(info.HeadSHA))
	return out, true
}

// halfLeft bounds a publishing read that is only a safeguard (the re-read
// before writing, the re-list after it) to half the time ctx has left: a
// read GitHub stalls must leave the writes that follow their time.
func halfLeft(ctx context.Context) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, time.Now().Add(time.Until(dl)/2))
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// check creates the check run; false when the token may not write checks.
// GitHub may refuse action_required (422): the run then fails instead,
// never turns green, and chk.Conclusion says so.
//
// comment is the report comment the run goes with (0: none): the run's
// external_id names it, which is what makes the comment ours to a later
// run (skip.Ours). Only a run published with, or carrying the verdict of,
// the comment's report at the comment's head may name it.
func (p publisher) check(ctx context.Context, res review.Result, chk *report.CheckOutput, comment int64) bool {
	if res.HeadSHA == "" {
		return true
	}
	cr := github.CheckRun{Name: CheckName, HeadSHA: res.HeadSHA, Status: "completed", Conclusion: chk.Conclusion, Title: chk.Title, Summary: chk.Summary}
	if comment > 0 {
		cr.ExternalID = marker.CheckRef(comment)
	}
	if chk.Conclusion == report.ConclusionActionRequired {
		cr.DetailsURL = p.prURL
	}
	for _, an := range chk.Annotations {
		cr.Annotations = append(cr.Annotations, github.Annotation{Path: an.Path, StartLine: an.StartLine, EndLine: an.EndLine, Level: an.Level, Title: an.Title, Message: an.Message})
	}
	_, err := p.gh.CreateCheckRun(ctx, p.owner, p.repo, cr)
	var api *github.APIError
	if cr.Conclusion == report.ConclusionActionRequired && errors.As(err, &api) && api.Status == http.StatusUnprocessableEntity {
		p.logf("anchor-review: GitHub refused the action_required conclusion (%v); the check fails instead", err)
		cr.Conclusion, chk.Conclusion = report.ConclusionFailure, report.ConclusionFailure
		_, err = p.gh.CreateCheckRun(ctx, p.owner, p.repo, cr)
	}
	var pe *github.PermissionError
	switch {
	case errors.As(err, &pe):
		p.a.Warningf("anchor-review cannot create the %q check run: the token lacks %q; the verdict is carried by this step's exit code", CheckName, pe.Permission)
		return false
	case err != nil:
		p.a.Errorf("anchor-review could not create the check run: %s", err.Error())
		return false
	}
	return true
}

// comment edits our report comment in place, or creates the single one.
//
// After creating it re-lists, so two concurrent runs end with one comment:
// both keep the oldest of our marker comments and delete the rest. "Our"
// is the identity the created comment shows (a GitHub App token writes as
// "<app>[bot]", not bot-login): a mismatch is warned about once, and
// duplicates are found by the real author. When an edit fails, the run
// posts a fresh report and removes the stale one it could not edit: no
// comment may keep a verdict that this run contradicts.
func (p publisher) comment(ctx context.Context, pr *review.PR, body string) (github.Comment, error) {
	var stale []github.Comment // reports this run could not edit
	if own := p.own(pr.Comments, p.bot); len(own) > 0 {
		edited, err := p.gh.EditComment(ctx, p.owner, p.repo, own[0].ID, body)
		var pe *github.PermissionError
		switch {
		case err == nil:
			p.logf("anchor-review: edited the report comment %s", edited.HTMLURL)
			p.remove(ctx, own[1:])
			return edited, nil
		case errors.Is(err, github.ErrNotFound):
			// Deleted since Stage 1 read it: post the report anew.
			p.logf("anchor-review: the report comment %d is gone; posting a new one", own[0].ID)
		case errors.As(err, &pe):
			return github.Comment{}, err
		default:
			p.a.Warningf("anchor-review could not edit the report comment %d (%s); posting a fresh report and removing the stale one", own[0].ID, err.Error())
			stale = own
		}
	}
	if body == "" {
		// report.Comment renders nothing only under quiet with nothing to
		// say; a review that could not run is always reported.
		p.logf("anchor-review: quiet mode and nothing to report: no comment posted")
		return github.Comment{}, nil
	}
	created, err := p.gh.CreateComment(ctx, p.owner, p.repo, p.n, body)
	if err != nil {
		return github.Comment{}, err
	}
	author := p.bot
	if created.Author != "" && !strings.EqualFold(created.Author, p.bot) {
		author = created.Author
		p.a.Warningf("anchor-review writes its report as %q but bot-login is %q: set the input bot-login: %s, or every run will post a new report and the already-reviewed check cannot find the earlier one", created.Author, p.bot, created.Author)
	}
	lctx, cancel := halfLeft(ctx)
	all, err := p.gh.IssueComments(lctx, p.owner, p.repo, p.n)
	cancel()
	if err != nil {
		p.remove(ctx, stale) // created; the duplicate check is best effort
		return created, nil
	}
	own := p.own(all, author)
	if len(own) == 1 && own[0].ID == created.ID || len(own) == 0 {
		p.logf("anchor-review: posted the report comment %s", created.HTMLURL)
		return created, nil
	}
	keep := own[0]
	if len(stale) > 0 || author != p.bot {
		// The older reports are ones this run could not edit, or ones an
		// earlier run of the same mismatched identity left: the new one
		// stays.
		keep = created
	}
	var extra []github.Comment
	for _, c := range own {
		if c.ID != keep.ID {
			extra = append(extra, c)
		}
	}
	p.remove(ctx, extra)
	if keep.ID != created.ID {
		// Another run posted too (and may already have deleted ours): the
		// oldest survives and carries this run's body.
		edited, err := p.gh.EditComment(ctx, p.owner, p.repo, keep.ID, body)
		if err != nil {
			return github.Comment{HTMLURL: keep.HTMLURL}, err
		}
		keep = edited
		p.logf("anchor-review: merged a concurrent duplicate into %s", keep.HTMLURL)
	}
	return keep, nil
}

// remove deletes report comments; a failure is logged, and a report that
// survives it is said to be stale.
func (p publisher) remove(ctx context.Context, cs []github.Comment) {
	for _, c := range cs {
		if err := p.gh.DeleteComment(ctx, p.owner, p.repo, c.ID); err != nil && !errors.Is(err, github.ErrNotFound) {
			p.a.Warningf("anchor-review could not delete the stale report comment %s (%s); the newest report is the current one", c.HTMLURL, err.Error())
		}
	}
}

// own returns the report comments written by login (marker on the first
// line), oldest (lowest ID) first.
func (p publisher) own(cs []github.Comment, login string) []github.Comment {
	var out []github.Comment
	for _, c := range cs {
		if strings.EqualFold(c.Author, login) && marker.HasReport(c.Body) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b github.Comment) int { return cmp.Compare(a.ID, b.ID) })
	return out
}
