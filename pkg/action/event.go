package action

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/anchor-review/anchor-review/pkg/github"
)

// Events the action runs on.
const (
	EventPullRequest       = "pull_request"
	EventPullRequestTarget = "pull_request_target"
	EventWorkflowDispatch  = "workflow_dispatch"
	EventIssueComment      = "issue_comment"
	// EventReviewComment is a reply in an inline thread: only the
	// dismiss and restore commands run on it.
	EventReviewComment = "pull_request_review_comment"
)

// Command is the PR comment that asks for a full re-review.
const Command = "/anchor-review"

// commandRoles names, for messages, who may run Command: people who may
// push to the repository, not drive-by commenters (each review spends the
// repository's model budget). The check itself is
// github.Permission.CanWrite, on the permission read from the API: the
// payload's author_association says COLLABORATOR for read-only and triage
// collaborators, and CONTRIBUTOR for members whose membership is private.
const commandRoles = "admin, maintain or write"

const supportedEvents = "pull_request, pull_request_target, workflow_dispatch, issue_comment (the " + Command + " command) and pull_request_review_comment (" + Command + " dismiss or restore in a finding's thread)"

// supported returns an ErrUnsupportedEvent error naming any event the
// action does not run on.
func supported(name string) error {
	switch name {
	case EventPullRequest, EventPullRequestTarget, EventWorkflowDispatch, EventIssueComment, EventReviewComment:
		return nil
	case "":
		return fmt.Errorf("%w: GITHUB_EVENT_NAME is empty; anchor-review runs on "+supportedEvents, ErrUnsupportedEvent)
	}
	return fmt.Errorf("%w: %q; anchor-review runs on "+supportedEvents, ErrUnsupportedEvent, name)
}

// reviewAction reports whether a pull_request action starts a review.
func reviewAction(action string) bool {
	switch action {
	case "opened", "synchronize", "reopened", "ready_for_review":
		return true
	}
	return false
}

// Event is what the action needs from the event that started the run.
type Event struct {
	Name     string // GITHUB_EVENT_NAME
	Action   string // the pull_request action ("opened", ...); "" for workflow_dispatch
	Owner    string // the base repository's owner
	Repo     string // the base repository's name
	PRNumber int

	// Review is true when the run should review PRNumber. When false,
	// Notice says why, and the caller prints it and exits 0.
	Review bool
	Notice string
	// Rerun marks a deliberate re-review (workflow_dispatch, or the
	// /anchor-review comment): it bypasses the already-reviewed skip rule
	// and no other.
	Rerun bool
	// CommentID is the /anchor-review comment to acknowledge with a
	// reaction; 0 for other events.
	CommentID int64
	// Commenter is the login of the /anchor-review comment's author. A
	// command comes back from ParseEvent with Review false until
	// Authorize has seen the commenter's permission on the repository.
	Commenter string
	// Answer is a dismiss or restore command (a person answering a
	// finding); nil for every other event. It never reviews: Review stays
	// false, and the run answers the command instead.
	Answer *Answer

	// HasPR is true when the payload carried the pull request, so the
	// fields below are set. A workflow_dispatch payload names no PR: the
	// caller fetches it.
	HasPR    bool
	HeadSHA  string
	HeadRepo string // head.repo.full_name; "" when the fork was deleted
	// Fork is true when the head repository differs from the base
	// repository, or was deleted. A fork PR's token is usually read-only.
	Fork   bool
	Title  string
	Body   string // "" for a null body
	Draft  bool
	State  string
	Merged bool
}

type repoRef struct {
	FullName string `json:"full_name"`
}

type payload struct {
	Action      string          `json:"action"`
	Number      int             `json:"number"`
	PullRequest *prPayload      `json:"pull_request"`
	Repository  *repoRef        `json:"repository"`
	Inputs      inputValues     `json:"inputs"`
	Issue       *issuePayload   `json:"issue"`
	Comment     *commentPayload `json:"comment"`
}

// issuePayload is the issue of an issue_comment event; PullRequest is
// present (an object of URLs) only when the issue is a pull request.
type issuePayload struct {
	Number      int             `json:"number"`
	PullRequest json.RawMessage `json:"pull_request"`
}

type commentPayload struct {
	ID   int64   `json:"id"`
	Body *string `json:"body"`
	// InReplyTo is the thread's first comment, for a reply in an inline
	// thread (pull_request_review_comment).
	InReplyTo int64 `json:"in_reply_to_id"`
	User      *struct {
		Login string `json:"login"`
	} `json:"user"`
}

type prPayload struct {
	Number int     `json:"number"`
	State  string  `json:"state"`
	Title  string  `json:"title"`
	Body   *string `json:"body"`
	Draft  bool    `json:"draft"`
	Merged bool    `json:"merged"`
	Head   struct {
		SHA  string   `json:"sha"`
		Repo *repoRef `json:"repo"`
	} `json:"head"`
	Base struct {
		Repo *repoRef `json:"repo"`
	} `json:"base"`
}

type inputValues map[string]json.RawMessage

// ParseEvent interprets the event named name with its JSON payload (the
// file at GITHUB_EVENT_PATH). prNumberInput is the pr-number input, used by
// workflow_dispatch and ignored for pull_request events, whose payload names
// the PR.
//
// pull_request and pull_request_target with action opened, synchronize,
// reopened or ready_for_review review the PR; any other action returns
// Review false with a Notice. workflow_dispatch reviews the PR named by
// prNumberInput, else by the payload's inputs.pr-number or inputs.pr_number,
// as a Rerun. issue_comment: an /anchor-review command on a PR comes back
// as a Rerun of that PR with Commenter set and Review false, for the caller
// to Authorize; any other comment is a Notice (see fromComment). Errors
// match ErrUnsupportedEvent, ErrNoPR or ErrPayload.
func ParseEvent(name string, payloadJSON []byte, prNumberInput string) (Event, error) {
	if err := supported(name); err != nil {
		return Event{}, err
	}

	var p payload
	if err := json.Unmarshal(payloadJSON, &p); err != nil {
		return Event{}, fmt.Errorf("%w: %s: %w", ErrPayload, name, err)
	}
	ev := Event{Name: name, Action: p.Action}

	if name == EventIssueComment {
		return ev, ev.fromComment(p)
	}
	if name == EventReviewComment {
		return ev, ev.fromReviewComment(p)
	}
	if name == EventWorkflowDispatch {
		if err := ev.setRepo(p.Repository, "repository"); err != nil {
			return Event{}, err
		}
		n, err := dispatchPR(prNumberInput, p.Inputs)
		if err != nil {
			return Event{}, err
		}
		ev.PRNumber, ev.Review, ev.Rerun = n, true, true
		return ev, nil
	}

	pr := p.PullRequest
	if pr == nil {
		return Event{}, fmt.Errorf("%w: %s payload has no pull_request", ErrPayload, name)
	}
	if p.Action == "" {
		return Event{}, fmt.Errorf("%w: %s payload has no action", ErrPayload, name)
	}
	base, where := pr.Base.Repo, "pull_request.base.repo"
	if base == nil {
		base, where = p.Repository, "repository"
	}
	if err := ev.setRepo(base, where); err != nil {
		return Event{}, err
	}
	ev.PRNumber = pr.Number
	if ev.PRNumber == 0 {
		ev.PRNumber = p.Number
	}
	if ev.PRNumber < 1 {
		return Event{}, fmt.Errorf("%w: %s payload has no pull request number", ErrNoPR, name)
	}
	if ev.PRNumber > math.MaxInt32 {
		return Event{}, fmt.Errorf("%w: %s payload's pull request number %d is out of range (1 to %d)", ErrPayload, name, ev.PRNumber, math.MaxInt32)
	}

	ev.HasPR = true
	ev.HeadSHA = pr.Head.SHA
	if pr.Head.Repo != nil {
		ev.HeadRepo = pr.Head.Repo.FullName
	}
	// GitHub repository names are case-insensitive. A deleted fork leaves
	// head.repo null: treat it as a fork, the conservative reading.
	ev.Fork = ev.HeadRepo == "" || !strings.EqualFold(ev.HeadRepo, ev.Owner+"/"+ev.Repo)
	ev.Title = pr.Title
	if pr.Body != nil {
		ev.Body = *pr.Body
	}
	ev.Draft, ev.State, ev.Merged = pr.Draft, pr.State, pr.Merged

	if reviewAction(p.Action) {
		ev.Review = true
		return ev, nil
	}
	ev.Notice = fmt.Sprintf("%s action %q does not start a review (reviewed: opened, synchronize, reopened, ready_for_review)", name, p.Action)
	return ev, nil
}

// fromComment interprets an issue_comment event: only a created comment on
// a pull request whose body starts with the /anchor-review command may
// review the PR (a Rerun, once Authorize accepts its author); anything
// else is a notice. The payload's author_association is not read: it is
// no permission (see commandRoles). The head SHA is not in this payload
// (and GITHUB_SHA is the default branch's): the review reads it from the
// pull request.
func (ev *Event) fromComment(p payload) error {
	if err := ev.setRepo(p.Repository, "repository"); err != nil {
		return err
	}
	if p.Issue == nil || p.Comment == nil {
		return fmt.Errorf("%w: issue_comment payload has no issue or comment", ErrPayload)
	}
	body := ""
	if p.Comment.Body != nil {
		body = *p.Comment.Body
	}
	login := ""
	if p.Comment.User != nil {
		login = p.Comment.User.Login
	}
	isPR := len(p.Issue.PullRequest) > 0 && string(p.Issue.PullRequest) != "null"
	switch {
	case p.Action != "created":
		ev.Notice = fmt.Sprintf("issue_comment action %q does not start a review (only a created %s comment does)", escapeLine(truncate(p.Action, 40)), Command)
		return nil
	case !isPR:
		ev.Notice = "the comment is on an issue, not a pull request: nothing to review"
		return nil
	case !IsCommand(body):
		ev.Notice = "the comment is not an " + Command + " command: nothing to do"
		return nil
	}
	if p.Issue.Number < 1 {
		return fmt.Errorf("%w: issue_comment payload has no issue number", ErrNoPR)
	}
	if p.Issue.Number > math.MaxInt32 {
		return fmt.Errorf("%w: issue_comment payload's issue number %d is out of range (1 to %d)", ErrPayload, p.Issue.Number, math.MaxInt32)
	}
	if login == "" {
		// No author to authorize: nobody may run it.
		return fmt.Errorf("%w: issue_comment payload has no comment.user.login", ErrPayload)
	}
	ev.PRNumber, ev.CommentID, ev.Commenter = p.Issue.Number, p.Comment.ID, login
	if a, ok := ParseAnswer(body); ok {
		ev.Answer = &a
		return nil
	}
	ev.Rerun = true
	return nil
}

// fromReviewComment interprets a pull_request_review_comment event: a
// created reply in an inline thread whose body is /anchor-review dismiss
// or restore answers the thread's finding; anything else is a notice.
func (ev *Event) fromReviewComment(p payload) error {
	if err := ev.setRepo(p.Repository, "repository"); err != nil {
		return err
	}
	if p.PullRequest == nil || p.Comment == nil {
		return fmt.Errorf("%w: pull_request_review_comment payload has no pull_request or comment", ErrPayload)
	}
	body := ""
	if p.Comment.Body != nil {
		body = *p.Comment.Body
	}
	a, ok := ParseAnswer(body)
	switch {
	case p.Action != "created":
		ev.Notice = fmt.Sprintf("pull_request_review_comment action %q does nothing (only a created %s dismiss or restore reply does)", escapeLine(truncate(p.Action, 40)), Command)
		return nil
	case !ok:
		ev.Notice = "the review comment is not an " + Command + " dismiss or restore command: nothing to do"
		return nil
	case p.Comment.InReplyTo == 0:
		ev.Notice = Command + " " + a.Verb + " in a review comment answers the finding of the thread it replies in; this comment starts no thread of ours: nothing to do"
		return nil
	}
	n := p.PullRequest.Number
	if n == 0 {
		n = p.Number
	}
	if n < 1 || n > math.MaxInt32 {
		return fmt.Errorf("%w: pull_request_review_comment payload's pull request number %d is out of range (1 to %d)", ErrPayload, n, math.MaxInt32)
	}
	if p.Comment.User == nil || p.Comment.User.Login == "" {
		return fmt.Errorf("%w: pull_request_review_comment payload has no comment.user.login", ErrPayload)
	}
	a.Thread = p.Comment.InReplyTo
	ev.PRNumber, ev.CommentID, ev.Commenter, ev.Answer = n, p.Comment.ID, p.Comment.User.Login, &a
	return nil
}

// Verbs of an Answer.
const (
	VerbDismiss = "dismiss"
	VerbRestore = "restore"
)

// Answer is a person's answer to a posted finding: /anchor-review dismiss
// <id> <reason> (or dismiss <reason> in the finding's inline thread), or
// /anchor-review restore <id>. Its text is untrusted.
type Answer struct {
	Verb string // VerbDismiss or VerbRestore
	// Words is what follows the verb, trimmed: "<id> <reason>" in a PR
	// comment, "<reason>" (or "<id> <reason>") in a thread.
	Words string
	// Thread is the inline thread's first comment when the command is a
	// reply in it; 0 for a PR comment.
	Thread int64
}

// ParseAnswer reads a dismiss or restore command: the comment's first
// word is exactly /anchor-review and its second, in any case, dismiss or
// restore.
func ParseAnswer(body string) (Answer, bool) {
	if !IsCommand(body) {
		return Answer{}, false
	}
	rest := strings.TrimPrefix(strings.TrimLeftFunc(body, unicode.IsSpace), Command)
	rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
	end := strings.IndexFunc(rest, unicode.IsSpace)
	if end < 0 {
		end = len(rest)
	}
	verb := strings.ToLower(rest[:end])
	if verb != VerbDismiss && verb != VerbRestore {
		return Answer{}, false
	}
	return Answer{Verb: verb, Words: strings.TrimSpace(rest[end:])}, true
}

// Authorize decides an /anchor-review command from its author's permission
// on the repository, as read from the API (perm, or readErr when the read
// failed): admin, maintain or write makes ev a review; anyone else, and any
// failed read (403, 404, 5xx), gets a Notice and no review. Failing closed
// costs a maintainer one more comment; failing open would spend the
// repository's model budget on anyone's say-so.
func (ev *Event) Authorize(perm github.Permission, readErr error) {
	who := escapeLine(truncate(ev.Commenter, 40))
	switch {
	case readErr != nil:
		ev.Notice = fmt.Sprintf("%s by %s ignored: could not read their permission on %s/%s (%s); only %s permission may request a review",
			Command, who, ev.Owner, ev.Repo, escapeLine(truncate(readErr.Error(), 200)), commandRoles)
	case !perm.CanWrite():
		ev.Notice = fmt.Sprintf("%s by %s ignored: their role on %s/%s is %s (permission %s); only %s may request a review",
			Command, who, ev.Owner, ev.Repo, escapeLine(truncate(cmp.Or(perm.Role, "none"), 40)), escapeLine(truncate(cmp.Or(perm.Level, "none"), 20)), commandRoles)
	default:
		ev.Review, ev.Notice = true, ""
	}
}

// IsCommand reports whether a comment body is the /anchor-review command:
// its first word, after leading white space, is exactly /anchor-review.
func IsCommand(body string) bool {
	rest, ok := strings.CutPrefix(strings.TrimLeftFunc(body, unicode.IsSpace), Command)
	if !ok {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return rest == "" || unicode.IsSpace(r)
}

// ReadEvent reads the payload at c.EventPath with readFile (os.ReadFile in
// production) and parses it with ParseEvent for c.EventName and the
// pr-number input. An unsupported event fails before any file is read.
func ReadEvent(c Config, readFile func(string) ([]byte, error)) (Event, error) {
	if err := supported(c.EventName); err != nil {
		return Event{}, err
	}
	if c.EventPath == "" {
		return Event{}, fmt.Errorf("%w: GITHUB_EVENT_PATH is empty", ErrPayload)
	}
	b, err := readFile(c.EventPath)
	if err != nil {
		return Event{}, fmt.Errorf("%w: reading GITHUB_EVENT_PATH: %w", ErrPayload, err)
	}
	pr := ""
	if c.PRNumber > 0 {
		pr = strconv.Itoa(c.PRNumber)
	}
	return ParseEvent(c.EventName, b, pr)
}

func (ev *Event) setRepo(r *repoRef, where string) error {
	if r == nil {
		return fmt.Errorf("%w: %s payload has no %s", ErrPayload, ev.Name, where)
	}
	owner, repo, ok := SplitRepository(r.FullName)
	if !ok {
		return fmt.Errorf("%w: %s.full_name %q is not owner/name", ErrPayload, where, r.FullName)
	}
	ev.Owner, ev.Repo = owner, repo
	return nil
}

// dispatchPR finds the PR number of a workflow_dispatch run: the pr-number
// input first, then the payload's inputs.
func dispatchPR(input string, inputs inputValues) (int, error) {
	if strings.TrimSpace(input) != "" {
		n, err := ParsePRNumber(input)
		if err != nil {
			return 0, fmt.Errorf("%w: input pr-number: %w", ErrNoPR, err)
		}
		return n, nil
	}
	for _, key := range []string{"pr-number", "pr_number"} {
		raw, ok := inputs[key]
		if !ok {
			continue
		}
		s, err := inputText(raw)
		if err != nil {
			return 0, fmt.Errorf("%w: inputs.%s: %w", ErrNoPR, key, err)
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		n, err := ParsePRNumber(s)
		if err != nil {
			return 0, fmt.Errorf("%w: inputs.%s: %w", ErrNoPR, key, err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("%w: workflow_dispatch needs the pr-number input", ErrNoPR)
}

// inputText reads a workflow_dispatch input value: GitHub sends strings,
// but a number is accepted too.
func inputText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("%s is not a string or number", truncate(string(raw), 40))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
