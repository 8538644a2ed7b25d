package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/inline"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

// AnswerMarker opens every reply anchor-review writes to a dismiss or
// restore command, so no reader mistakes it for a report or a command.
const AnswerMarker = "<!-- anchor-review:answer -->"

// answerer answers a dismiss or restore command (SPEC 9.1): it reads the
// commenter's permission, the pull request, the base's configuration and
// our report, and either refuses with one reply that says why (changing
// nothing) or re-publishes the report and the check with the finding
// answered. No review runs and no model is called.
type answerer struct {
	gh   GitHub
	n    Notifier
	logf func(string, ...any)
	c    Config
	ev   Event
	// now is the clock of the dismissal's time; time.Now when nil.
	now func() time.Time
	// version is the binary's, for the report's Coverage.
	version string
	// runs lists the check runs that make a report ours, each head read
	// once per command (run sets it).
	runs skip.Runs
}

// answerTarget is the finding a command answers, as our report records
// it, and its inline thread when it has one.
type answerTarget struct {
	finding marker.Finding
	thread  *github.Comment // our inline comment that starts its thread
}

// refusal is a command refused: why, in one sentence for the reply.
type refusal struct{ why string }

func (r *refusal) Error() string { return r.why }

func refuse(format string, args ...any) error { return &refusal{fmt.Sprintf(format, args...)} }

// run answers the command and returns the step outputs.
func (a answerer) run(ctx context.Context) (StepOutputs, error) {
	a.runs = onceEach(review.ReportRuns(ctx, a.gh, a.ev.Owner, a.ev.Repo))
	ev, ans := a.ev, a.ev.Answer
	info, err := a.gh.PullRequest(ctx, ev.Owner, ev.Repo, ev.PRNumber)
	if err != nil {
		return StepOutputs{}, fmt.Errorf("%w: %w", ErrCannotRun, err)
	}
	c, err := a.baseConfig(ctx, info)
	if err != nil {
		return StepOutputs{}, err
	}
	a.c = c
	// A review publishing meanwhile rewrites the report: the command is
	// decided again on the report as it is then, never written over it.
	for attempt := 1; ; attempt++ {
		out, err := a.answer(ctx, info)
		if !errors.Is(err, errReportMoved) || attempt == 3 {
			return out, err
		}
		a.logf("anchor-review: the report changed while the %s was decided; deciding again on the new one", ans.Verb)
	}
}

// errReportMoved: the report was rewritten between reading it and editing
// it (a review published meanwhile).
var errReportMoved = errors.New("the report changed while the command was answered")

// answer reads our report, decides the command and, when accepted,
// re-publishes.
func (a answerer) answer(ctx context.Context, info *github.PR) (StepOutputs, error) {
	ev, ans, c := a.ev, a.ev.Answer, a.c
	comments, err := a.gh.IssueComments(ctx, ev.Owner, ev.Repo, ev.PRNumber)
	if err != nil {
		return StepOutputs{}, fmt.Errorf("%w: %w", ErrCannotRun, err)
	}
	rep := skip.LastReportComment(review.SkipComments(comments), c.BotLogin, a.runs)
	rc, meta, found := rep.Comment, rep.Meta, rep.OK
	var threads []github.Comment
	if found && (ans.Thread != 0 || slices.ContainsFunc(meta.Findings, func(f marker.Finding) bool { return f.Inline != "" })) {
		// Our inline comments: the thread a reply answers, and the thread
		// that gets the reply naming who and why.
		if threads, err = a.gh.ReviewComments(ctx, ev.Owner, ev.Repo, ev.PRNumber); err != nil {
			return StepOutputs{}, fmt.Errorf("%w: %w", ErrCannotRun, err)
		}
	}
	dismissals, target, err := a.decide(ctx, info, found, meta, threads)
	var rf *refusal
	if errors.As(err, &rf) {
		// Where the command was written: its thread, or the conversation.
		a.reply(ctx, nil, a.refusalText(rf.why))
		a.logf("anchor-review: %s %s by %s refused: %s", Command, ans.Verb, ev.Commenter, rf.why)
		return StepOutputs{Skipped: true, SkipReason: "refused: " + rf.why}, nil
	}
	if err != nil {
		return StepOutputs{}, err
	}
	return a.republish(ctx, repubInput{pr: info, report: rc, meta: meta, dismissals: dismissals, target: target, threads: threads})
}

// baseConfig is the run's configuration with the repository configuration
// at the base applied (dismiss-by may be set there), read and validated as
// a review reads it. A repository without the file still gets the
// organization's defaults (the config input): they are applied under an
// empty file, as a review applies them.
func (a answerer) baseConfig(ctx context.Context, info *github.PR) (Config, error) {
	text, found, err := a.gh.FileContent(ctx, a.ev.Owner, a.ev.Repo, repoconfig.Path, info.BaseSHA)
	if err != nil {
		return a.c, fmt.Errorf("%w: read %s at the base: %w", ErrCannotRun, repoconfig.Path, err)
	}
	if !found && a.c.Org == nil {
		return a.c, nil // nothing to apply
	}
	f, err := repoconfig.Parse([]byte(text)) // "" when absent: an empty file
	if err == nil {
		var c Config
		if c, _, err = ApplyRepoConfig(a.c, f); err == nil {
			return c, nil
		}
	}
	return a.c, fmt.Errorf("%w: %w", ErrUsage, err)
}

// decide checks the command against the rules, most basic first (who may
// answer, then what), and returns the dismissals as they stand after it.
// A refusal is a *refusal; target holds what was resolved so far (the
// refusal replies in the thread the command came from).
func (a answerer) decide(ctx context.Context, info *github.PR, found bool, m marker.Meta, threads []github.Comment) ([]marker.Dismissal, answerTarget, error) {
	ev, ans, c := a.ev, a.ev.Answer, a.c
	var t answerTarget
	if ans.Thread != 0 {
		t.thread = a.ourThread(threads, ans.Thread)
	}
	if c.DismissBy == DismissByNobody {
		return nil, t, refuse("this repository does not take dismissals (dismiss-by: nobody); a finding is answered by a fix")
	}
	perm, permErr := a.gh.Permission(ctx, ev.Owner, ev.Repo, ev.Commenter)
	switch {
	case permErr != nil:
		return nil, t, refuse("could not read the permission of %s on the repository, so the command was not run", ev.Commenter)
	case !perm.CanWrite():
		return nil, t, refuse("only people with %s permission may %s a finding; %s has %s", commandRoles, ans.Verb, ev.Commenter, cmp.Or(perm.Level, "none"))
	case c.DismissBy == DismissByOthers && strings.EqualFold(ev.Commenter, info.Author):
		return nil, t, refuse("the pull request's author cannot %s its findings (dismiss-by: others): a gate the author alone cannot open; ask a reviewer with write access", ans.Verb)
	case !found:
		return nil, t, refuse("this pull request has no anchor-review report whose findings could be answered")
	}
	words := ans.Words
	var mf *marker.Finding
	ids := findingIDs(m)
	if ans.Thread != 0 {
		if t.thread == nil {
			return nil, t, refuse("this thread is not one of anchor-review's findings; use `%s %s <id> <reason>` in a pull request comment", Command, ans.Verb)
		}
		mk, _ := inline.ParseMarker(t.thread.Body)
		for i := range m.Findings {
			if m.Findings[i].Inline == mk.Fingerprint {
				mf = &m.Findings[i]
			}
		}
		if mf == nil {
			return nil, t, refuse("the finding of this thread is not in the current report (it was resolved or the report was rewritten)")
		}
		if first, rest := firstWord(words); strings.EqualFold(first, ids[mf.Fingerprint]) {
			words = rest // the id, written in the thread as well
		}
	} else {
		id, rest := firstWord(words)
		id, words = strings.ToLower(id), rest
		if id == "" {
			return nil, t, refuse("no finding id: write `%s %s <id>%s`; each finding's id is in the report's table", Command, ans.Verb, map[bool]string{true: " <reason>"}[ans.Verb == VerbDismiss])
		}
		mf = pickInstance(m, ids, id, ans.Verb == VerbRestore)
		if mf == nil {
			return nil, t, refuse("%s is not the id of a finding in the current report (its ids: %s)", quoteID(id), listIDs(m, ids))
		}
		t.thread = a.threadOf(threads, mf.Inline)
	}
	t.finding = *mf
	t.finding.ID = ids[mf.Fingerprint]
	current := slices.IndexFunc(m.Dismissals, func(d marker.Dismissal) bool { return covers(d, *mf) })
	if ans.Verb == VerbRestore {
		if current < 0 {
			return nil, t, refuse("finding %s is not dismissed: nothing to restore", quoteID(t.finding.ID))
		}
		return slices.Delete(slices.Clone(m.Dismissals), current, current+1), t, nil
	}
	// The reason as the record will keep it: what sanitizing leaves (an
	// image or a hidden comment alone is no reason).
	reason := report.Reason(words, report.Options{ServerURL: c.ServerURL, Secrets: c.Secrets()})
	switch {
	case current >= 0:
		d := m.Dismissals[current]
		return nil, t, refuse("finding %s is already dismissed (by %s); `%s restore %s` undoes that", quoteID(t.finding.ID), d.By, Command, t.finding.ID)
	case reason == "":
		return nil, t, refuse("a dismissal needs a reason, on the record: `%s dismiss %s <reason>`", Command, t.finding.ID)
	}
	kept := slices.Clone(m.Dismissals)
	if len(kept) >= marker.MaxDismissals {
		// A lapsed dismissal is history (its lines changed, the finding
		// was judged afresh): the oldest makes room, so a long-lived PR
		// never holds a finding no person can answer.
		lapsed := slices.IndexFunc(kept, func(d marker.Dismissal) bool { return !d.Applies() })
		if lapsed < 0 {
			return nil, t, refuse("this pull request already has %d dismissals in force, the most a report records", marker.MaxDismissals)
		}
		kept = slices.Delete(kept, lapsed, lapsed+1)
	}
	now := time.Now
	if a.now != nil {
		now = a.now
	}
	d := marker.Dismissal{
		ID: t.finding.ID, Fingerprint: mf.Fingerprint, File: mf.File, Line: mf.Line, Severity: mf.Severity, Title: mf.Title,
		Reviewer: mf.Reviewer, By: ev.Commenter, At: now().UTC().Format(time.RFC3339), Reason: reason, Head: m.HeadSHA,
	}
	// The lines the person looked at, so a later review keeps the finding
	// dismissed only while they read the same.
	text, ok, err := a.gh.FileContent(ctx, ev.Owner, ev.Repo, mf.File, m.HeadSHA)
	if err == nil && ok {
		d.Lines = marker.LinesKey(text, mf.Line)
	} else {
		a.logf("anchor-review: could not read %s at %s (%v): the dismissal holds at this head only", mf.File, m.HeadSHA, err)
	}
	return append(kept, d), t, nil
}

// covers reports whether dismissal d answers the instance mf of its
// problem (marker.Dismissal.Covers, as review.ApplyDismissals applies
// them).
func covers(d marker.Dismissal, mf marker.Finding) bool { return d.Covers(mf.Fingerprint, mf.Line) }

// pickInstance is the finding of m that a command naming id answers: of
// the instances sharing the id, the first not yet dismissed (a restore:
// the first dismissed), else the first; nil when no finding has the id.
func pickInstance(m marker.Meta, ids map[string]string, id string, dismissed bool) *marker.Finding {
	var first *marker.Finding
	for i := range m.Findings {
		mf := &m.Findings[i]
		if ids[mf.Fingerprint] != id {
			continue
		}
		if first == nil {
			first = mf
		}
		if slices.ContainsFunc(m.Dismissals, func(d marker.Dismissal) bool { return covers(d, *mf) }) == dismissed {
			return mf
		}
	}
	return first
}

// repubInput is what re-publishing needs once a command is accepted.
type repubInput struct {
	pr         *github.PR
	report     skip.Comment // our report comment
	meta       marker.Meta
	dismissals []marker.Dismissal
	target     answerTarget
	threads    []github.Comment
}

// republish edits the report and writes the check on the report's head
// with the dismissals as they now stand, then replies in the finding's
// thread (or acknowledges the PR comment).
func (a answerer) republish(ctx context.Context, in repubInput) (StepOutputs, error) {
	ev, c := a.ev, a.c
	res := review.Reissue(in.meta, ev.Owner+"/"+ev.Repo, ev.PRNumber)
	read := func(ctx context.Context, path string) (string, bool, error) {
		return a.gh.FileContent(ctx, ev.Owner, ev.Repo, path, in.meta.HeadSHA)
	}
	review.ApplyDismissals(ctx, &res, in.dismissals, read)
	team, coverage := report.EarlierSections(in.report.Body)
	ro := report.Options{ServerURL: c.ServerURL, Repo: ev.Owner + "/" + ev.Repo, HeadSHA: in.meta.HeadSHA, FailOn: c.FailOn,
		Secrets: c.Secrets(), Version: a.version, Pricing: c.Pricing,
		Amend: &report.Amendment{Meta: in.meta, Team: team, Coverage: coverage}, Inline: inlineLinks(res, in.meta, in.threads, c.BotLogin)}
	if err := a.unchanged(ctx, in.report); err != nil {
		return StepOutputs{}, err
	}
	p := publisher{gh: a.gh, a: a.n, logf: a.logf, owner: ev.Owner, repo: ev.Repo, n: ev.PRNumber, bot: c.BotLogin, prURL: in.pr.HTMLURL}
	conclusion, blocking := report.Conclusion(res, c.FailOn)
	out := StepOutputs{Findings: len(res.Findings), Verdict: string(res.Verdict), Conclusion: conclusion, Blocking: blocking}
	body := report.Comment(res, ro)
	edited, err := a.gh.EditComment(ctx, ev.Owner, ev.Repo, in.report.ID, body)
	if err != nil {
		// Nothing changed: the report still holds the earlier dismissals,
		// and no check says otherwise.
		a.n.Errorf("anchor-review could not update the report comment, so the %s was not recorded: %s", ev.Answer.Verb, err.Error())
		return StepOutputs{}, fmt.Errorf("%w: %w", ErrCannotRun, err)
	}
	// Another run's edit in the same moment (a second dismissal, a
	// review) can overwrite this one: the comment API has no
	// compare-and-swap. Read it back before anything else claims the
	// change; when it is gone, the command is decided again.
	if err := a.unchanged(ctx, skip.Comment{ID: in.report.ID, Author: in.report.Author, Body: cmp.Or(edited.Body, body)}); err != nil {
		return StepOutputs{}, err
	}
	out.CommentURL = edited.HTMLURL
	chk := report.Check(res, ro)
	out.CheckWritten = p.check(ctx, res, &chk, edited.ID)
	out.Conclusion = chk.Conclusion
	a.n.AddStepSummary(report.JobSummary(res, ro))
	f := in.target.finding
	who := report.Code(ev.Commenter, ro)
	var text string
	if ev.Answer.Verb == VerbRestore {
		text = fmt.Sprintf("**anchor-review:** finding `%s` restored by %s: it counts again toward the check.", f.ID, who)
	} else {
		d := in.dismissals[len(in.dismissals)-1]
		text = fmt.Sprintf("**anchor-review:** finding `%s` dismissed by %s: %s\n\nIt no longer blocks the merge while its lines stay as they are. `%s restore %s` undoes this.",
			f.ID, who, report.Clip(report.Sanitize(d.Reason, ro), marker.MaxReason), Command, f.ID)
	}
	if in.target.thread != nil {
		a.reply(ctx, in.target.thread, AnswerMarker+"\n"+text+"\n")
	}
	if ev.Answer.Thread == 0 && ev.CommentID != 0 {
		if err := a.gh.ReactToComment(ctx, ev.Owner, ev.Repo, ev.CommentID, "+1"); err != nil {
			a.logf("anchor-review: could not react to the %s comment: %v", Command, err)
		}
	}
	a.logf("anchor-review: finding %s %sed by %s; the report and the check on %s are updated (%s)", f.ID, strings.TrimSuffix(ev.Answer.Verb, "e"), ev.Commenter, short(in.meta.HeadSHA), out.Conclusion)
	return out, nil
}

// unchanged checks, just before the edit, that our report is still the one
// the command was decided on: errReportMoved when a review rewrote it.
func (a answerer) unchanged(ctx context.Context, was skip.Comment) error {
	ctx, cancel := halfLeft(ctx)
	defer cancel()
	fresh, err := a.gh.IssueComments(ctx, a.ev.Owner, a.ev.Repo, a.ev.PRNumber)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCannotRun, err)
	}
	now := skip.LastReportComment(review.SkipComments(fresh), a.c.BotLogin, a.runs)
	if !now.OK || now.Comment.ID != was.ID || now.Comment.Body != was.Body {
		return errReportMoved
	}
	return nil
}

// refusalText is the one reply to a refused command.
func (a answerer) refusalText(why string) string {
	o := report.Options{ServerURL: a.c.ServerURL, Secrets: a.c.Secrets()}
	return AnswerMarker + "\n**anchor-review:** `" + Command + " " + a.ev.Answer.Verb + "` by " + report.Code(a.ev.Commenter, o) +
		" was not carried out: " + report.Sanitize(why, o) + ". Nothing changed.\n"
}

// reply answers the command where it was written: in the finding's thread
// (a reply there), or in the pull request's conversation. A reply that
// cannot be posted is logged; it changes nothing.
func (a answerer) reply(ctx context.Context, thread *github.Comment, body string) {
	var err error
	switch {
	case a.ev.Answer.Thread != 0:
		// In the thread the command replied in, ours or not.
		_, err = a.gh.ReplyToReviewComment(ctx, a.ev.Owner, a.ev.Repo, a.ev.PRNumber, a.ev.Answer.Thread, body)
	case thread != nil:
		_, err = a.gh.ReplyToReviewComment(ctx, a.ev.Owner, a.ev.Repo, a.ev.PRNumber, thread.ID, body)
	default:
		_, err = a.gh.CreateComment(ctx, a.ev.Owner, a.ev.Repo, a.ev.PRNumber, body)
	}
	if err != nil {
		a.n.Warningf("anchor-review could not post its reply to the %s command: %s", Command, err.Error())
	}
}

// ourThread is the inline comment id when it is ours: our identity and our
// inline marker on its first line.
func (a answerer) ourThread(threads []github.Comment, id int64) *github.Comment {
	for i, c := range threads {
		if c.ID == id && strings.EqualFold(c.Author, a.c.BotLogin) {
			if _, ok := inline.ParseMarker(c.Body); ok {
				return &threads[i]
			}
		}
	}
	return nil
}

// threadOf is our open inline comment with inline fingerprint fp.
func (a answerer) threadOf(threads []github.Comment, fp string) *github.Comment {
	if fp == "" {
		return nil
	}
	for i, c := range threads {
		if c.InReplyTo != 0 || !strings.EqualFold(c.Author, a.c.BotLogin) {
			continue
		}
		if mk, ok := inline.ParseMarker(c.Body); ok && mk.Fingerprint == fp && mk.ResolvedIn == "" {
			return &threads[i]
		}
	}
	return nil
}

// inlineLinks rebuilds what the earlier report knew of the findings'
// inline comments: each one's fingerprint (the metadata keeps it, for
// stats) and its link, while the comment is open.
func inlineLinks(res review.Result, m marker.Meta, threads []github.Comment, bot string) *report.InlineStatus {
	inlineFP := map[string]string{}
	for _, f := range m.Findings {
		if f.Inline != "" {
			inlineFP[f.Fingerprint] = f.Inline
		}
	}
	if len(inlineFP) == 0 {
		return nil
	}
	url := map[string]string{}
	for _, c := range threads {
		if mk, ok := inline.ParseMarker(c.Body); ok && c.InReplyTo == 0 && mk.ResolvedIn == "" && strings.EqualFold(c.Author, bot) {
			url[mk.Fingerprint] = c.HTMLURL
		}
	}
	st := &report.InlineStatus{Links: map[int]string{}, Fingerprints: map[int]string{}}
	for _, f := range append(slices.Clip(res.Findings), res.Dismissed...) {
		fp := inlineFP[finding.Fingerprint(f)]
		if fp == "" {
			continue
		}
		st.Fingerprints[f.Number] = fp
		if u := url[fp]; u != "" {
			st.Links[f.Number] = u
		}
	}
	return st
}

// findingIDs are the short ids of m's findings by fingerprint: those the
// report recorded, else (a report written before ids) as the report
// computes them.
func findingIDs(m marker.Meta) map[string]string {
	var fps []string
	for _, f := range m.Findings {
		fps = append(fps, f.Fingerprint)
	}
	computed := finding.ShortIDs(fps)
	ids := map[string]string{}
	for i, f := range m.Findings {
		ids[f.Fingerprint] = cmp.Or(f.ID, computed[i])
	}
	return ids
}

func listIDs(m marker.Meta, ids map[string]string) string {
	var out []string
	for _, f := range m.Findings {
		if id := "`" + ids[f.Fingerprint] + "`"; !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// quoteID shows an id the commenter typed: as code when it could be one,
// else not at all (the reply never echoes arbitrary text).
func quoteID(id string) string {
	if len(id) > 0 && len(id) <= 16 && !strings.ContainsFunc(id, func(r rune) bool { return !unicode.Is(unicode.ASCII_Hex_Digit, r) }) {
		return "`" + id + "`"
	}
	return "the id given"
}

// firstWord splits s at its first white space.
func firstWord(s string) (string, string) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// onceEach lists the check runs of each head once: the command reads our
// report up to three times (decide, check before the edit, read back), and
// the runs that vouch for it do not change meanwhile.
func onceEach(runs skip.Runs) skip.Runs {
	seen := map[string][]skip.CheckRun{}
	return func(head string) ([]skip.CheckRun, error) {
		if rs, ok := seen[head]; ok {
			return rs, nil
		}
		rs, err := runs(head)
		if err == nil {
			seen[head] = rs
		}
		return rs, err
	}
}
