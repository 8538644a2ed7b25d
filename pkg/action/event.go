package action

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Events the action runs on.
const (
	EventPullRequest       = "pull_request"
	EventPullRequestTarget = "pull_request_target"
	EventWorkflowDispatch  = "workflow_dispatch"
)

// supported returns an ErrUnsupportedEvent error naming any event the
// action does not run on.
func supported(name string) error {
	switch name {
	case EventPullRequest, EventPullRequestTarget, EventWorkflowDispatch:
		return nil
	case "":
		return fmt.Errorf("%w: GITHUB_EVENT_NAME is empty; anchor-review runs on pull_request, pull_request_target and workflow_dispatch", ErrUnsupportedEvent)
	}
	return fmt.Errorf("%w: %q; anchor-review runs on pull_request, pull_request_target and workflow_dispatch", ErrUnsupportedEvent, name)
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
	// Rerun marks a deliberate re-review (workflow_dispatch): it bypasses
	// the already-reviewed skip rule and no other.
	Rerun bool

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
	Action      string      `json:"action"`
	Number      int         `json:"number"`
	PullRequest *prPayload  `json:"pull_request"`
	Repository  *repoRef    `json:"repository"`
	Inputs      inputValues `json:"inputs"`
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
// as a Rerun. Errors match ErrUnsupportedEvent, ErrNoPR or ErrPayload.
func ParseEvent(name string, payloadJSON []byte, prNumberInput string) (Event, error) {
	if err := supported(name); err != nil {
		return Event{}, err
	}

	var p payload
	if err := json.Unmarshal(payloadJSON, &p); err != nil {
		return Event{}, fmt.Errorf("%w: %s: %w", ErrPayload, name, err)
	}
	ev := Event{Name: name, Action: p.Action}

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
