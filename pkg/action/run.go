package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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
	// ReplyToReviewComment answers in an inline thread (dismissals).
	ReplyToReviewComment(ctx context.Context, owner, repo string, n int, id int64, body string) (github.Comment, error)
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
	// Now is the clock a dismissal records; time.Now when nil (tests fix
	// it).
	Now func() time.Time
	// MissingKey, when set, is the configuration error of an empty api-key
	// on a run that gets no secrets (a fork or Dependabot PR): only the
	// skip pre-check runs, and a PR it does not skip fails with it.
	MissingKey error
}

// CheckName is the check run's name, the one branch protection requires.
const CheckName = marker.CheckName

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

	// Every log line is one line (so untrusted text inside it cannot start
	// a workflow command of its own) with secrets and secret-shaped text
	// redacted, even those the runner was not told to mask.
	logf := func(format string, args ...any) {
		line := escapeLine(report.Redact(fmt.Sprintf(format, args...), c.Secrets()))
		fmt.Fprintln(d.Log, line)
	}
	if ev.Answer != nil {
		// A person answering a finding: no review and no model call. The
		// answerer reads the commenter's permission itself, and refuses
		// with a reply that says why.
		a := answerer{gh: d.GitHub, n: ActionsNotifier{d.Actions}, logf: logf, c: c, ev: ev, version: d.Version, now: d.Now}
		out, err := a.run(ctx)
		switch {
		case err == nil && out.Skipped:
			d.Actions.Noticef("anchor-review: %s", escapeLine(report.Redact(out.SkipReason, c.Secrets())))
			setOutputs(d.Actions, out)
		case err == nil:
			setOutputs(d.Actions, out)
		case errors.Is(err, ErrUsage):
			setNotReviewed(d.Actions) // the caller reports a usage error
		default:
			d.Actions.Errorf("anchor-review: %s", escapeLine(report.Redact(err.Error(), c.Secrets())))
			setNotReviewed(d.Actions)
		}
		return err
	}
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
	out := Publish(pctx, PublishOptions{
		GitHub: d.GitHub, Notifier: ActionsNotifier{d.Actions}, Logf: logf,
		Owner: ev.Owner, Repo: ev.Repo, PR: ev.PRNumber, BotLogin: c.BotLogin,
		Mode: c.Mode, FailOn: c.FailOn, Quiet: c.Quiet, Inline: c.Inline,
	}, res, pr, ro)
	if out.Published != nil {
		res = *out.Published
	}
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
	// Published is the result as published when dismissals changed it
	// (not an output): the report file and SARIF follow it, so a dismissed
	// finding is not a posted one there either.
	Published *review.Result
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
