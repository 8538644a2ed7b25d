package action

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

// Exit-code classes; cli.ExitCode maps them to 1, 2 and 3 (nil is 0).
var (
	// ErrBlocking: a posted finding meets fail-on (exit 1).
	ErrBlocking = errors.New("blocking findings")
	// ErrIncomplete: the review did not finish and the `incomplete` input
	// makes that a failing check (exit 1).
	ErrIncomplete = errors.New("review incomplete")
	// ErrUsage: bad configuration or an unsupported event (exit 2).
	ErrUsage = errors.New("usage error")
	// ErrCannotRun: the review could not run (exit 3).
	ErrCannotRun = errors.New("the review could not run")
)

// GitHub is everything the action does on GitHub: the review's reads plus
// the publisher's writes. *github.Client implements it.
type GitHub interface {
	review.GitHub
	CreateComment(ctx context.Context, owner, repo string, n int, body string) (github.Comment, error)
	EditComment(ctx context.Context, owner, repo string, id int64, body string) (github.Comment, error)
	DeleteComment(ctx context.Context, owner, repo string, id int64) error
	CreateCheckRun(ctx context.Context, owner, repo string, cr github.CheckRun) (int64, error)
	ReactToComment(ctx context.Context, owner, repo string, id int64, content string) error
	// Permission authorizes the /anchor-review command.
	Permission(ctx context.Context, owner, repo, user string) (github.Permission, error)
	// The inline review (input inline).
	CreateReview(ctx context.Context, owner, repo string, n int, r github.Review) (int64, error)
	ReviewCommentsOf(ctx context.Context, owner, repo string, n int, id int64) ([]github.Comment, error)
	EditReviewComment(ctx context.Context, owner, repo string, id int64, body string) (github.Comment, error)
	DeleteReviewComment(ctx context.Context, owner, repo string, id int64) error
}

// Deps are the concrete clients main builds for a run.
type Deps struct {
	GitHub   GitHub
	Model    llm.Completer
	Personas []persona.Persona
	// Actions writes outputs, the job summary, annotations and log commands.
	Actions *githubactions.Action
	// Log receives the human-readable log (the step's stdout).
	Log io.Writer
	// ReadFile reads the event payload; os.ReadFile when nil.
	ReadFile func(string) ([]byte, error)
	// Fence fixes the prompt data fence (tests); empty means random.
	Fence string
	// Version is the binary's version, named in the report's Coverage;
	// empty leaves it out.
	Version string
	// MissingKey, when set, is the configuration error of an empty api-key
	// on a run that gets no secrets (a fork or Dependabot PR): only the
	// skip pre-check runs, and a PR it does not skip fails with it.
	MissingKey error
}

// CheckName is the check run's name, the one branch protection requires.
const CheckName = "anchor-review"

// ErrDeadline is the cause of a review cut by the run's deadline
// (deadline-minutes).
var ErrDeadline = errors.New("the run's deadline passed")

// publishReserve is the part of the run's deadline kept for publishing:
// the review is cut that long before the deadline, so the incomplete
// review still gets posted (a fifth of the deadline, at most 2 minutes).
// Publishing runs to the end even when the run is cancelled meanwhile, and
// never past the deadline.
func publishReserve(deadline time.Duration) time.Duration {
	return min(2*time.Minute, deadline/5)
}

// NoSecrets says why api-key is empty on a fork's or Dependabot's run, and
// what to do: the README's intended path for a fork first.
const NoSecrets = "GitHub gives no secrets to runs for fork and Dependabot pull requests " +
	"(add the key to Dependabot secrets; for a fork, a maintainer comments /anchor-review, whose run has the key, or see the README on pull_request_target)"

// Run is the action: event → review → report → publish → outputs. The
// returned error carries the exit class (ErrBlocking, ErrUsage,
// ErrCannotRun) or is nil for success, neutral and skipped runs.
func Run(ctx context.Context, c Config, d Deps) error {
	if c.Deadline <= 0 {
		c.Deadline = DefaultDeadlineMinutes * time.Minute
	}
	// Fixed now: the repository configuration re-reads the inputs later.
	limit, reserve := c.Deadline, publishReserve(c.Deadline)
	deadline := time.Now().Add(limit)
	readFile := d.ReadFile
	if readFile == nil {
		readFile = os.ReadFile
	}
	ev, err := ReadEvent(c, readFile)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	// Everything before publishing, GitHub reads included, runs under the
	// run's deadline less the publishing reserve: a stalled read cannot
	// outlast the job's own timeout, which would end the run with nothing
	// posted.
	parent := ctx
	ctx, cancelReview := context.WithDeadlineCause(ctx, deadline.Add(-reserve), ErrDeadline)
	defer cancelReview()

	if ev.Commenter != "" {
		// The /anchor-review command: one read of its author's permission,
		// before anything else (no reaction, no model call for anyone
		// without write access).
		perm, err := d.GitHub.Permission(ctx, ev.Owner, ev.Repo, ev.Commenter)
		if err != nil && errors.Is(context.Cause(ctx), ErrDeadline) {
			err = fmt.Errorf("%w: %w", ErrDeadline, err)
		}
		ev.Authorize(perm, err)
	}
	if !ev.Review {
		d.Actions.Noticef("anchor-review: %s", escapeLine(ev.Notice))
		setOutputs(d.Actions, StepOutputs{Skipped: true, SkipReason: ev.Notice})
		return nil
	}
	if ev.Owner == "" {
		ev.Owner, ev.Repo = c.Owner, c.Repo
	}
	// Every log line is one line (so untrusted text inside it cannot start
	// a workflow command of its own) with secrets and secret-shaped text
	// redacted, even those the runner was not told to mask.
	logf := func(format string, args ...any) {
		line := escapeLine(report.Redact(fmt.Sprintf(format, args...), c.Secrets()))
		fmt.Fprintln(d.Log, line)
	}
	logf("anchor-review: reviewing %s/%s#%d (event %s%s)", ev.Owner, ev.Repo, ev.PRNumber, ev.Name, map[bool]string{true: ", manual rerun"}[ev.Rerun])

	if ev.CommentID != 0 {
		// Acknowledge the /anchor-review command before the review starts;
		// a token that may not react does not stop the review.
		if err := d.GitHub.ReactToComment(ctx, ev.Owner, ev.Repo, ev.CommentID, github.ReactionEyes); err != nil {
			logf("anchor-review: could not react to the %s comment: %v", Command, err)
		}
	}

	rv := review.Reviewer{GitHub: d.GitHub, Model: d.Model, Personas: d.Personas}
	opts := c.ReviewOptions()
	opts.Owner, opts.Repo, opts.PR, opts.Rerun = ev.Owner, ev.Repo, ev.PRNumber, ev.Rerun
	opts.Fence, opts.Logf, opts.PrecheckOnly = d.Fence, logf, d.MissingKey != nil
	// The repository configuration (read at the base commit) may change
	// the settings the workflow left at their defaults, the publisher's
	// included.
	rc := &RepoConfig{Config: c}
	opts.Configure = rc.Configure
	res, pr, err := rv.ReviewPR(ctx, opts)
	c = rc.Config
	res.Coverage.Settings = rc.Settings
	late := parent.Err() == nil && errors.Is(context.Cause(ctx), ErrDeadline) && (err != nil || res.Partial)
	if late {
		err = pastDeadline(&res, limit, err, logf)
	}
	ctx = parent
	if ctx.Err() != nil {
		// Cancelled (a newer push's run took over, or the job was
		// stopped): publish nothing, so no half-written report and no
		// check on a review that did not finish.
		msg := "anchor-review was cancelled before the review finished; nothing was posted"
		d.Actions.Warningf("%s", msg)
		d.Actions.AddStepSummary(msg)
		setNotReviewed(d.Actions)
		return fmt.Errorf("%w: cancelled: %w", ErrCannotRun, ctx.Err())
	}
	if errors.Is(err, repoconfig.ErrInvalid) {
		// Nothing is posted and no model was called: the maintainers fix
		// the file on the base branch.
		var ce *repoconfig.Error
		msg := report.Redact(escapeLine(err.Error()), c.Secrets())
		if errors.As(err, &ce) {
			for _, p := range ce.Problems {
				d.Actions.Errorf("%s: %s", ce.Path, escapeLine(p.String()))
			}
			msg = ce.Lines()
		}
		fmt.Fprint(d.Log, msg)
		d.Actions.AddStepSummary("anchor-review: not reviewed: " + msg)
		setNotReviewed(d.Actions)
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if errors.Is(err, review.ErrNeedsModel) {
		msg := "api-key is empty and this pull request needs a review: " + NoSecrets
		d.Actions.Errorf("%s", msg)
		d.Actions.AddStepSummary("anchor-review: not reviewed: " + msg)
		setNotReviewed(d.Actions)
		return fmt.Errorf("%w: %w", ErrUsage, d.MissingKey)
	}
	if err != nil && !errors.Is(err, review.ErrAllPersonasFailed) {
		if pr == nil || pr.Info == nil {
			// Nothing can be posted: the log and the job summary say why.
			msg := report.Redact(escapeLine(err.Error()), c.Secrets())
			d.Actions.Errorf("anchor-review could not run: %s", msg)
			d.Actions.AddStepSummary("anchor-review could not run: " + msg)
			setNotReviewed(d.Actions)
			return fmt.Errorf("%w: %w", ErrCannotRun, err)
		}
		// The PR was read, so the author can be told the review did not run.
		res.AllFailed, res.Partial, res.Verdict = true, true, review.Degraded
		res.Failure = err.Error()
		logf("anchor-review: %v", err)
	}
	if pr == nil {
		pr = &review.PR{}
	}
	ro := report.Options{ServerURL: c.ServerURL, Repo: ev.Owner + "/" + ev.Repo, HeadSHA: res.HeadSHA, FailOn: c.FailOn, Quiet: c.Quiet, Secrets: c.Secrets(), Version: d.Version, Pricing: c.Pricing}
	cost := report.EstimateCost(res, c.Pricing)
	res.Cost = &cost
	// Once publishing starts it finishes: a cancellation now would leave a
	// report without its check (or the reverse). It ends by the run's
	// deadline, and has at least half its reserve even when the review
	// overran its cut.
	pctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), later(deadline, time.Now().Add(reserve/2)))
	defer cancel()
	out := Publish(pctx, PublishDeps{GitHub: d.GitHub, Notifier: ActionsNotifier{d.Actions}, Logf: logf}, PublishOptions{
		Owner: ev.Owner, Repo: ev.Repo, PR: ev.PRNumber, BotLogin: c.BotLogin,
		Mode: c.Mode, FailOn: c.FailOn, Quiet: c.Quiet, Inline: c.Inline,
	}, res, pr, ro)
	out.ReportPath = writeReport(c.Workspace, res, c.Secrets(), logf)
	out.SARIFPath = writeSARIF(c.Workspace, c.Mode, res, c.Secrets(), logf)
	setOutputs(d.Actions, out)
	return Outcome(res, out, c.FailOn, err)
}

// pastDeadline turns a review the run's deadline cut short into an
// incomplete one whose check fails (whatever the incomplete input says: a
// run out of time chose nothing about its scope). A review that could not
// get its findings (err set) could not run at all: nothing it found was
// validated, so nothing is posted as a finding.
func pastDeadline(res *review.Result, limit time.Duration, err error, logf func(string, ...any)) error {
	msg := fmt.Sprintf("the run's deadline (deadline-minutes %d) passed before the review finished", int(limit/time.Minute))
	if limit < time.Minute {
		msg = fmt.Sprintf("the run's deadline (%v) passed before the review finished", limit)
	}
	logf("anchor-review: %s; publishing an incomplete review", msg)
	res.Partial, res.Verdict = true, review.Degraded
	res.Incomplete = append(res.Incomplete, msg)
	res.IncompleteConclusion = review.IncompleteFailure
	if err == nil {
		return nil
	}
	res.AllFailed = true
	res.Findings = nil
	if errors.Is(err, review.ErrAllPersonasFailed) || res.Failure == "" {
		res.Failure = msg
	}
	return fmt.Errorf("%s: %w", msg, err)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Outcome is the exit class of a published run: nil (exit 0), ErrBlocking
// (1) or ErrCannotRun (3). The Action and `review --post` both end with it,
// so the same outcome exits the same way. reviewErr is the review's own
// error, if any.
func Outcome(res review.Result, out StepOutputs, failOn string, reviewErr error) error {
	switch {
	case res.AllFailed:
		if reviewErr == nil {
			reviewErr = errors.New("every persona failed")
		}
		return fmt.Errorf("%w: %w", ErrCannotRun, reviewErr)
	case out.Skipped && out.Conclusion == "failure" && !out.CheckWritten:
		// Rule 4 carried a failure forward but the check run could not be
		// written (a read-only token): the exit code must carry it, or a
		// push after a failed review would pass.
		return fmt.Errorf("%w: the earlier review's failure is carried forward and the check run could not be written", ErrBlocking)
	case out.Skipped && out.Conclusion == report.ConclusionActionRequired && !out.CheckWritten:
		// on-new-commits skip left commits unreviewed and no check says
		// so: the step must not read as a pass.
		return fmt.Errorf("%w: new commits were not reviewed (on-new-commits: skip) and the check run could not be written", ErrBlocking)
	case out.Skipped:
		// SPEC Stage 1: a skip ends the run cleanly (exit 0). Under rule 4
		// the carried-forward check run, not the step, holds the verdict.
		return nil
	case out.Conclusion == "failure" && out.Blocking == 0 && res.Partial:
		return fmt.Errorf("%w: %s", ErrIncomplete, strings.Join(res.Incomplete, "; "))
	case out.Conclusion == "failure":
		return fmt.Errorf("%w: %d finding(s) at %s or worse", ErrBlocking, out.Blocking, failOn)
	}
	return nil
}

// StepOutputs are the step outputs of one run (SPEC section 3).
type StepOutputs struct {
	Skipped    bool
	SkipReason string
	// Findings counts the findings of the report the outputs describe:
	// this review's, or on a rule-4 skip the carried report's;
	// FindingsUnknown when that report does not record them all.
	Findings            int
	Verdict, Conclusion string
	CommentURL          string
	ReportPath          string
	SARIFPath           string
	// Cost is this run's estimated cost (pricing.Estimate.Output).
	Cost string
	// Blocking counts posted findings that meet fail-on (not an output).
	Blocking int
	// CheckWritten is true when the check run was created (not an output).
	CheckWritten bool
}

// setNotReviewed sets the outputs of a run that reviewed nothing: not
// skipped, and no count, verdict or conclusion that could read as clean.
func setNotReviewed(a *githubactions.Action) {
	writeOutputs(a, [][2]string{{OutputSkipped, "false"}, {OutputSkipReason, ""}, {OutputFindings, ""},
		{OutputVerdict, ""}, {OutputConclusion, ""}, {OutputCommentURL, ""}, {OutputReportPath, ""}, {OutputSARIFPath, ""}, {OutputCost, ""}})
}

func setOutputs(a *githubactions.Action, o StepOutputs) { writeOutputs(a, stepOutputs(o)) }

// writeOutputs writes the step outputs; a runner that gives no output file
// gets an error annotation (the step's exit code still carries the verdict).
func writeOutputs(a *githubactions.Action, outputs [][2]string) {
	if err := newOutputWriter(a).write(outputs); err != nil {
		a.Errorf("anchor-review: %s", escapeLine(err.Error()))
	}
}

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

// PublishDeps are what Publish writes through: GitHub, the notifier that
// takes what GitHub cannot, and the log.
type PublishDeps struct {
	GitHub   GitHub
	Notifier Notifier
	Logf     func(string, ...any)
}

// PublishOptions say where and how to publish.
type PublishOptions struct {
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
func Publish(ctx context.Context, d PublishDeps, po PublishOptions, res review.Result, pr *review.PR, ro report.Options) StepOutputs {
	p := publisher{gh: d.GitHub, a: d.Notifier, logf: d.Logf, owner: po.Owner, repo: po.Repo, n: po.PR, bot: po.BotLogin}
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
	conclusion, blocking := report.Conclusion(res, c.FailOn)
	out := StepOutputs{Skipped: res.Skipped, SkipReason: res.SkipReason, Findings: len(res.Findings), Verdict: string(res.Verdict), Conclusion: conclusion, Blocking: blocking}
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
		out.CheckWritten = p.check(ctx, res, &chk)
		out.Conclusion = chk.Conclusion
		if own := p.own(pr.Comments, p.bot); res.SkipRule == skip.RuleReviewed && res.Unreviewed == nil && len(own) > 0 {
			out.CommentURL = own[0].HTMLURL // the report that was carried forward
		}
		return out
	}

	readOnly := false
	if c.Mode == ModeComment {
		// Re-read the comments: another run may have posted since Stage 1
		// (two pushes racing), and there must still be one report.
		fresh, superseded := p.reread(ctx, pr, res)
		pr = fresh
		if superseded {
			chk := report.Check(res, ro)
			out.CheckWritten = p.check(ctx, res, &chk)
			return out
		}
		body := report.Comment(res, ro)
		if body == "" && len(p.own(pr.Comments, p.bot)) > 0 {
			// quiet and nothing to report, but an earlier report exists: it
			// is updated, so it never shows stale findings.
			loud := ro
			loud.Quiet = false
			body = report.Comment(res, loud)
		}
		url, err := p.comment(ctx, pr, body)
		var pe *github.PermissionError
		switch {
		case errors.As(err, &pe):
			readOnly = true
			p.a.Warningf("anchor-review cannot write the report comment: the token lacks %q (a fork PR's token is read-only); the report is in the job summary", pe.Permission)
		case err != nil:
			p.a.Errorf("anchor-review could not post the report comment: %s", err.Error())
		}
		out.CommentURL = url
	}
	chk := report.Check(res, ro)
	out.CheckWritten = p.check(ctx, res, &chk)
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
	now, okNow := skip.LastReport(skipComments(fresh), p.bot)
	then, okThen := skip.LastReport(skipComments(pr.Comments), p.bot)
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

func skipComments(cs []github.Comment) []skip.Comment {
	out := make([]skip.Comment, len(cs))
	for i, c := range cs {
		out[i] = skip.Comment{Author: c.Author, Body: c.Body}
	}
	return out
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
func (p publisher) check(ctx context.Context, res review.Result, chk *report.CheckOutput) bool {
	if res.HeadSHA == "" {
		return true
	}
	cr := github.CheckRun{Name: CheckName, HeadSHA: res.HeadSHA, Status: "completed", Conclusion: chk.Conclusion, Title: chk.Title, Summary: chk.Summary}
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
func (p publisher) comment(ctx context.Context, pr *review.PR, body string) (string, error) {
	var stale []github.Comment // reports this run could not edit
	if own := p.own(pr.Comments, p.bot); len(own) > 0 {
		edited, err := p.gh.EditComment(ctx, p.owner, p.repo, own[0].ID, body)
		var pe *github.PermissionError
		switch {
		case err == nil:
			p.logf("anchor-review: edited the report comment %s", edited.HTMLURL)
			p.remove(ctx, own[1:])
			return edited.HTMLURL, nil
		case errors.Is(err, github.ErrNotFound):
			// Deleted since Stage 1 read it: post the report anew.
			p.logf("anchor-review: the report comment %d is gone; posting a new one", own[0].ID)
		case errors.As(err, &pe):
			return "", err
		default:
			p.a.Warningf("anchor-review could not edit the report comment %d (%s); posting a fresh report and removing the stale one", own[0].ID, err.Error())
			stale = own
		}
	}
	if body == "" {
		// report.Comment renders nothing only under quiet with nothing to
		// say; a review that could not run is always reported.
		p.logf("anchor-review: quiet mode and nothing to report: no comment posted")
		return "", nil
	}
	created, err := p.gh.CreateComment(ctx, p.owner, p.repo, p.n, body)
	if err != nil {
		return "", err
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
		return created.HTMLURL, nil
	}
	own := p.own(all, author)
	if len(own) == 1 && own[0].ID == created.ID || len(own) == 0 {
		p.logf("anchor-review: posted the report comment %s", created.HTMLURL)
		return created.HTMLURL, nil
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
			return keep.HTMLURL, err
		}
		keep = edited
		p.logf("anchor-review: merged a concurrent duplicate into %s", keep.HTMLURL)
	}
	return keep.HTMLURL, nil
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

// ReportFile is the name of the report-path file under StepFileDir.
const ReportFile = "anchor-review-report.json"

// writeReport writes the whole result as JSON for report-path, under the
// workspace (writeStepFile). The result holds model text verbatim, and a
// model can echo a secret, so every secret is redacted from the encoded
// file (SPEC section 4: never in outputs).
func writeReport(workspace string, res review.Result, secrets []string, logf func(string, ...any)) string {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		logf("anchor-review: cannot encode the report: %v", err)
		return ""
	}
	path, err := writeStepFile(workspace, ReportFile, report.RedactJSON(b, secrets))
	if err != nil {
		logf("anchor-review: cannot write the report file: %v", err)
		return ""
	}
	return path
}

// escapeLine flattens untrusted text for one log line or workflow command
// message (report.LogLine: no line breaks, controls or "##[").
func escapeLine(s string) string { return report.LogLine(s) }
