package action

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/github"
)

// webhook reads a real webhook payload (octokit/webhooks examples) from
// fixtures/github.
func webhook(t testing.TB, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(fixtures.FS, "github/"+name)
	if err != nil {
		t.Fatalf("reading fixture: %v", err)
	}
	return b
}

// edit decodes a payload, lets f change it, and encodes it again: how the
// fork and deleted-fork variants are derived from the real same-repo payloads.
func edit(t testing.TB, b []byte, f func(p map[string]any)) []byte {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	f(p)
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func pr(p map[string]any) map[string]any { return p["pull_request"].(map[string]any) }

const (
	helloSHA  = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	helloBody = "This is a pretty simple change that we need to pull into master."
)

// opened is the Event the real "opened" payload yields.
func opened(name string) Event {
	return Event{
		Name: name, Action: "opened", Owner: "Codertocat", Repo: "Hello-World", PRNumber: 2,
		Review: true, HasPR: true, HeadSHA: helloSHA, HeadRepo: "Codertocat/Hello-World",
		Title: "Update the README with new information.", Body: helloBody, State: "open",
	}
}

func TestParseEvent(t *testing.T) {
	t.Parallel()
	notice := func(action string) string {
		return `pull_request action "` + action + `" does not start a review (reviewed: opened, synchronize, reopened, ready_for_review)`
	}
	change := func(e Event, f func(*Event)) Event { f(&e); return e }
	tests := []struct {
		name    string
		event   string
		payload []byte
		prInput string
		want    Event
	}{
		{name: "opened", event: "pull_request", payload: webhook(t, "pull_request.opened.json"), want: opened("pull_request")},
		{name: "opened, pr-number input ignored", event: "pull_request", payload: webhook(t, "pull_request.opened.json"), prInput: "99",
			want: opened("pull_request")},
		{name: "pull_request_target", event: "pull_request_target", payload: webhook(t, "pull_request.opened.json"),
			want: opened("pull_request_target")},
		{name: "opened with null body", event: "pull_request", payload: webhook(t, "pull_request.opened.with-null-body.json"),
			want: change(opened("pull_request"), func(e *Event) { e.Body = "" })},
		{name: "synchronize", event: "pull_request", payload: webhook(t, "pull_request.synchronize.json"),
			want: change(opened("pull_request"), func(e *Event) { e.Action = "synchronize" })},
		{name: "reopened", event: "pull_request", payload: webhook(t, "pull_request.reopened.json"),
			want: change(opened("pull_request"), func(e *Event) { e.Action = "reopened" })},
		{name: "ready_for_review", event: "pull_request", payload: webhook(t, "pull_request.ready_for_review.json"),
			want: change(opened("pull_request"), func(e *Event) { e.Action = "ready_for_review" })},
		{name: "closed", event: "pull_request", payload: webhook(t, "pull_request.closed.json"),
			want: change(opened("pull_request"), func(e *Event) {
				e.Action, e.State, e.Review, e.Notice = "closed", "closed", false, notice("closed")
			})},
		{name: "converted_to_draft", event: "pull_request", payload: webhook(t, "pull_request.converted_to_draft.json"),
			want: change(opened("pull_request"), func(e *Event) {
				e.Action, e.Draft, e.Review, e.Notice = "converted_to_draft", true, false, notice("converted_to_draft")
			})},
		{name: "labeled", event: "pull_request", payload: webhook(t, "pull_request.labeled.json"),
			want: change(opened("pull_request"), func(e *Event) {
				e.Action, e.Review, e.Notice = "labeled", false, notice("labeled")
			})},
		{name: "fork", event: "pull_request_target",
			payload: edit(t, webhook(t, "pull_request.opened.json"), func(p map[string]any) {
				pr(p)["head"].(map[string]any)["repo"].(map[string]any)["full_name"] = "mallory/Hello-World"
			}),
			want: change(opened("pull_request_target"), func(e *Event) { e.HeadRepo, e.Fork = "mallory/Hello-World", true })},
		{name: "deleted fork", event: "pull_request",
			payload: edit(t, webhook(t, "pull_request.opened.json"), func(p map[string]any) {
				pr(p)["head"].(map[string]any)["repo"] = nil
			}),
			want: change(opened("pull_request"), func(e *Event) { e.HeadRepo, e.Fork = "", true })},
		{name: "same repo, different case", event: "pull_request",
			payload: edit(t, webhook(t, "pull_request.opened.json"), func(p map[string]any) {
				pr(p)["head"].(map[string]any)["repo"].(map[string]any)["full_name"] = "codertocat/hello-world"
			}),
			want: change(opened("pull_request"), func(e *Event) { e.HeadRepo = "codertocat/hello-world" })},
		{name: "merged", event: "pull_request",
			payload: edit(t, webhook(t, "pull_request.closed.json"), func(p map[string]any) { pr(p)["merged"] = true }),
			want: change(opened("pull_request"), func(e *Event) {
				e.Action, e.State, e.Merged, e.Review, e.Notice = "closed", "closed", true, false, notice("closed")
			})},
		{name: "number only at top level", event: "pull_request",
			payload: edit(t, webhook(t, "pull_request.opened.json"), func(p map[string]any) { delete(pr(p), "number") }),
			want:    opened("pull_request")},
		{name: "base repo missing falls back to repository", event: "pull_request",
			payload: edit(t, webhook(t, "pull_request.opened.json"), func(p map[string]any) {
				delete(pr(p)["base"].(map[string]any), "repo")
			}),
			want: opened("pull_request")},
		{name: "workflow_dispatch with pr-number input", event: "workflow_dispatch", payload: webhook(t, "workflow_dispatch.json"), prInput: "17",
			want: Event{Name: "workflow_dispatch", Owner: "octo-org", Repo: "octo-repo", PRNumber: 17, Review: true, Rerun: true}},
		{name: "workflow_dispatch with inputs.pr-number", event: "workflow_dispatch",
			payload: edit(t, webhook(t, "workflow_dispatch.json"), func(p map[string]any) { p["inputs"] = map[string]any{"pr-number": "23"} }),
			want:    Event{Name: "workflow_dispatch", Owner: "octo-org", Repo: "octo-repo", PRNumber: 23, Review: true, Rerun: true}},
		{name: "workflow_dispatch with inputs.pr_number as a number", event: "workflow_dispatch",
			payload: edit(t, webhook(t, "workflow_dispatch.json"), func(p map[string]any) { p["inputs"] = map[string]any{"pr_number": 5} }),
			want:    Event{Name: "workflow_dispatch", Owner: "octo-org", Repo: "octo-repo", PRNumber: 5, Review: true, Rerun: true}},
		{name: "workflow_dispatch empty pr-number falls through to pr_number", event: "workflow_dispatch",
			payload: edit(t, webhook(t, "workflow_dispatch.json"), func(p map[string]any) {
				p["inputs"] = map[string]any{"pr-number": "", "pr_number": "8"}
			}),
			want: Event{Name: "workflow_dispatch", Owner: "octo-org", Repo: "octo-repo", PRNumber: 8, Review: true, Rerun: true}},
		{name: "workflow_dispatch input wins over payload", event: "workflow_dispatch", prInput: "#3",
			payload: edit(t, webhook(t, "workflow_dispatch.json"), func(p map[string]any) { p["inputs"] = map[string]any{"pr-number": "23"} }),
			want:    Event{Name: "workflow_dispatch", Owner: "octo-org", Repo: "octo-repo", PRNumber: 3, Review: true, Rerun: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseEvent(tt.event, tt.payload, tt.prInput)
			if err != nil {
				t.Fatalf("ParseEvent() error = %v; want nil", err)
			}
			if got != tt.want {
				t.Errorf("ParseEvent() =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestParseEventErrors(t *testing.T) {
	t.Parallel()
	opened := webhook(t, "pull_request.opened.json")
	dispatch := webhook(t, "workflow_dispatch.json")
	tests := []struct {
		name    string
		event   string
		payload []byte
		prInput string
		want    error
		msg     string // a part of the message
	}{
		{"push", "push", []byte(`{}`), "", ErrUnsupportedEvent, `"push"`},
		{"issues event", "issues", webhook(t, "issue_comment.created.json"), "", ErrUnsupportedEvent, `"issues"`},
		{"no event name", "", opened, "", ErrUnsupportedEvent, "GITHUB_EVENT_NAME is empty"},
		{"unsupported before payload", "schedule", []byte("not json"), "", ErrUnsupportedEvent, `"schedule"`},
		{"dispatch without pr-number", "workflow_dispatch", dispatch, "", ErrNoPR, "pr-number"},
		{"dispatch with bad pr-number", "workflow_dispatch", dispatch, "abc", ErrNoPR, `input pr-number: is not a positive integer`},
		{"dispatch with zero pr-number", "workflow_dispatch", dispatch, "0", ErrNoPR, "input pr-number"},
		{"dispatch with bad inputs.pr-number", "workflow_dispatch",
			edit(t, dispatch, func(p map[string]any) { p["inputs"] = map[string]any{"pr-number": "twelve"} }), "", ErrNoPR, "inputs.pr-number"},
		{"dispatch with boolean inputs.pr_number", "workflow_dispatch",
			edit(t, dispatch, func(p map[string]any) { p["inputs"] = map[string]any{"pr_number": true} }), "", ErrNoPR, "inputs.pr_number: true is not a string or number"},
		{"dispatch without repository", "workflow_dispatch",
			edit(t, dispatch, func(p map[string]any) { delete(p, "repository") }), "4", ErrPayload, "no repository"},
		{"pull_request without number", "pull_request",
			edit(t, opened, func(p map[string]any) { delete(p, "number"); delete(pr(p), "number") }), "", ErrNoPR, "no pull request number"},
		{"pull_request without pull_request", "pull_request",
			edit(t, opened, func(p map[string]any) { delete(p, "pull_request") }), "", ErrPayload, "no pull_request"},
		{"pull_request without action", "pull_request",
			edit(t, opened, func(p map[string]any) { delete(p, "action") }), "", ErrPayload, "no action"},
		{"pull_request with a bad repo name", "pull_request",
			edit(t, opened, func(p map[string]any) {
				pr(p)["base"].(map[string]any)["repo"].(map[string]any)["full_name"] = "nope"
			}), "", ErrPayload, `"nope" is not owner/name`},
		// Issue 12, item 15: names outside GitHub's character set would
		// send requests to other paths; numbers past 2^31-1 are no PRs.
		{"repo name climbing out", "pull_request",
			edit(t, opened, func(p map[string]any) {
				pr(p)["base"].(map[string]any)["repo"].(map[string]any)["full_name"] = "../x"
			}), "", ErrPayload, `"../x" is not owner/name`},
		{"repo name with a query", "pull_request",
			edit(t, opened, func(p map[string]any) {
				pr(p)["base"].(map[string]any)["repo"].(map[string]any)["full_name"] = "o/r?x=1#"
			}), "", ErrPayload, `"o/r?x=1#" is not owner/name`},
		{"repo named ..", "workflow_dispatch",
			edit(t, dispatch, func(p map[string]any) { p["repository"].(map[string]any)["full_name"] = "o/.." }), "4", ErrPayload, `"o/.." is not owner/name`},
		{"PR number past 2^31-1", "pull_request",
			edit(t, opened, func(p map[string]any) { p["number"] = 2147483648; pr(p)["number"] = 2147483648 }), "", ErrPayload, "out of range"},
		{"not JSON", "pull_request", []byte("{"), "", ErrPayload, "pull_request"},
		{"empty payload", "pull_request_target", nil, "", ErrPayload, "pull_request_target"},
		{"number of the wrong type", "pull_request",
			edit(t, opened, func(p map[string]any) { p["number"] = "2" }), "", ErrPayload, "number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseEvent(tt.event, tt.payload, tt.prInput)
			if !errors.Is(err, tt.want) {
				t.Fatalf("ParseEvent() = %+v, %v; want error %v", got, err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("ParseEvent() error = %q; want it to contain %q", err, tt.msg)
			}
			if got != (Event{}) {
				t.Errorf("ParseEvent() event = %+v; want the zero Event with an error", got)
			}
		})
	}
}

func TestReadEvent(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{"/event.json": webhook(t, "workflow_dispatch.json")}
	read := func(name string) ([]byte, error) {
		b, ok := files[name]
		if !ok {
			return nil, os.ErrNotExist
		}
		return b, nil
	}
	tests := []struct {
		name    string
		c       Config
		want    Event
		wantErr error
	}{
		{"dispatch", Config{EventName: "workflow_dispatch", EventPath: "/event.json", PRNumber: 9},
			Event{Name: "workflow_dispatch", Owner: "octo-org", Repo: "octo-repo", PRNumber: 9, Review: true, Rerun: true}, nil},
		{"dispatch without pr-number", Config{EventName: "workflow_dispatch", EventPath: "/event.json"}, Event{}, ErrNoPR},
		{"unsupported event reads nothing", Config{EventName: "push", EventPath: "/missing.json"}, Event{}, ErrUnsupportedEvent},
		{"no event path", Config{EventName: "pull_request"}, Event{}, ErrPayload},
		{"missing file", Config{EventName: "pull_request", EventPath: "/missing.json"}, Event{}, os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadEvent(tt.c, read)
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Errorf("ReadEvent() = %+v, %v; want %+v, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func FuzzParseEvent(f *testing.F) {
	// Small seeds (more in testdata/fuzz/FuzzParseEvent): the fuzzer
	// minimizes slowly on the 20 KB real payloads, which TestParseEvent covers.
	f.Add("workflow_dispatch", []byte(`{"inputs":{"pr-number":"3"},"repository":{"full_name":"a/b"}}`), "")
	f.Add("pull_request_target", []byte(`{"action":"opened","pull_request":{"number":1,"head":{"repo":null},"base":{"repo":{"full_name":"a/b"}}}}`), "")
	f.Add("issue_comment", []byte(`{"action":"created","issue":{"number":4,"pull_request":{}},"comment":{"id":9,"body":"/anchor-review","author_association":"MEMBER","user":{"login":"x\ny"}},"repository":{"full_name":"a/b"}}`), "")
	f.Fuzz(func(t *testing.T, name string, payload []byte, prInput string) {
		ev, err := ParseEvent(name, payload, prInput)
		if err != nil {
			if !errors.Is(err, ErrUnsupportedEvent) && !errors.Is(err, ErrNoPR) && !errors.Is(err, ErrPayload) {
				t.Fatalf("ParseEvent() error %v matches no sentinel", err)
			}
			return
		}
		if (ev.PRNumber < 1 && (ev.Review || name != EventIssueComment)) || ev.Owner == "" || ev.Repo == "" {
			t.Fatalf("ParseEvent() = %+v without error; want a PR number and a repository", ev)
		}
		if ev.Commenter != "" && (ev.Review || ev.Notice != "") {
			t.Fatalf("ParseEvent() = %+v; want a command left to Authorize (no Review, no Notice)", ev)
		}
		if ev.Commenter == "" && ev.Review == (ev.Notice != "") {
			t.Fatalf("ParseEvent() = %+v; want exactly one of Review and Notice", ev)
		}
		if ev.Rerun != (name == EventWorkflowDispatch || (name == EventIssueComment && ev.Commenter != "")) {
			t.Fatalf("ParseEvent(%q).Rerun = %v", name, ev.Rerun)
		}
		if strings.ContainsAny(ev.Notice, "\r\n") {
			t.Fatalf("ParseEvent().Notice = %q; want one line", ev.Notice)
		}
	})
}

// prComment is the real issue_comment payload moved onto a pull request
// (issue.pull_request present, as GitHub sends it for PR comments) with the
// given body and author_association.
func prComment(t testing.TB, action, body, association string) []byte {
	return edit(t, webhook(t, "issue_comment.created.json"), func(p map[string]any) {
		p["action"] = action
		issue := p["issue"].(map[string]any)
		issue["number"] = 2
		issue["pull_request"] = map[string]any{
			"url":      "https://api.github.com/repos/Codertocat/Hello-World/pulls/2",
			"html_url": "https://github.com/Codertocat/Hello-World/pull/2",
		}
		c := p["comment"].(map[string]any)
		c["body"], c["author_association"] = body, association
	})
}

func TestParseIssueCommentEvent(t *testing.T) {
	t.Parallel()
	const id = 492700400 // the fixture's comment id
	// A command is left to Authorize whatever author_association says:
	// that field is no permission.
	command := Event{Name: "issue_comment", Action: "created", Owner: "Codertocat", Repo: "Hello-World", PRNumber: 2, Rerun: true, CommentID: id, Commenter: "Codertocat"}
	notCommand := Event{Name: "issue_comment", Action: "created", Owner: "Codertocat", Repo: "Hello-World", Notice: "the comment is not an /anchor-review command: nothing to do"}
	tests := []struct {
		name    string
		payload []byte
		want    Event
	}{
		{"owner", prComment(t, "created", "/anchor-review", "OWNER"), command},
		{"member, with words after", prComment(t, "created", "  /anchor-review please\nthanks", "MEMBER"), command},
		{"collaborator", prComment(t, "created", "/anchor-review", "COLLABORATOR"), command},
		{"contributor (a private org member, maybe)", prComment(t, "created", "/anchor-review", "CONTRIBUTOR"), command},
		{"drive-by commenter", prComment(t, "created", "/anchor-review", "NONE"), command},
		{"not the command", prComment(t, "created", "LGTM", "OWNER"), notCommand},
		{"command not first", prComment(t, "created", "please /anchor-review", "OWNER"), notCommand},
		{"a longer word", prComment(t, "created", "/anchor-reviewer", "OWNER"), notCommand},
		{"edited comment", prComment(t, "edited", "/anchor-review", "OWNER"),
			Event{Name: "issue_comment", Action: "edited", Owner: "Codertocat", Repo: "Hello-World",
				Notice: `issue_comment action "edited" does not start a review (only a created /anchor-review comment does)`}},
		{"comment on an issue", edit(t, webhook(t, "issue_comment.created.json"), func(p map[string]any) {
			p["comment"].(map[string]any)["body"] = "/anchor-review"
		}), Event{Name: "issue_comment", Action: "created", Owner: "Codertocat", Repo: "Hello-World",
			Notice: "the comment is on an issue, not a pull request: nothing to review"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEvent("issue_comment", tt.payload, "99")
			if err != nil {
				t.Fatalf("ParseEvent: %v", err)
			}
			if got != tt.want {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
	t.Run("a command without an author is a payload error", func(t *testing.T) {
		b := edit(t, prComment(t, "created", "/anchor-review", "OWNER"), func(p map[string]any) { delete(p["comment"].(map[string]any), "user") })
		if _, err := ParseEvent("issue_comment", b, ""); !errors.Is(err, ErrPayload) {
			t.Fatalf("err = %v; want ErrPayload", err)
		}
	})
	t.Run("no comment is a payload error", func(t *testing.T) {
		b := edit(t, prComment(t, "created", "/anchor-review", "OWNER"), func(p map[string]any) { delete(p, "comment") })
		if _, err := ParseEvent("issue_comment", b, ""); !errors.Is(err, ErrPayload) {
			t.Fatalf("err = %v; want ErrPayload", err)
		}
	})
}

// TestAuthorize: an /anchor-review command runs only for a commenter whose
// base role on the repository allows pushing (admin, or write, which
// maintain and write-based custom roles read as); read, triage, none and
// any failed read of the permission leave a notice and no review.
func TestAuthorize(t *testing.T) {
	t.Parallel()
	pending := func() Event {
		ev, err := ParseEvent("issue_comment", prComment(t, "created", "/anchor-review", "COLLABORATOR"), "")
		if err != nil || ev.Commenter != "Codertocat" || ev.Review {
			t.Fatalf("ParseEvent = %+v, %v; want a command left to Authorize", ev, err)
		}
		return ev
	}
	tests := []struct {
		name   string
		perm   github.Permission
		err    error
		review bool
		notice string
	}{
		{"admin", github.Permission{Level: "admin", Role: "admin"}, nil, true, ""},
		{"maintain", github.Permission{Level: "write", Role: "maintain"}, nil, true, ""},
		{"write", github.Permission{Level: "write", Role: "write"}, nil, true, ""},
		{"custom role on write", github.Permission{Level: "write", Role: "Release Manager"}, nil, true, ""},
		{"triage (COLLABORATOR in the payload)", github.Permission{Level: "read", Role: "triage"}, nil, false,
			"/anchor-review by Codertocat ignored: their role on Codertocat/Hello-World is triage (permission read); only admin, maintain or write may request a review"},
		{"read", github.Permission{Level: "read", Role: "read"}, nil, false, "is read (permission read)"},
		{"none", github.Permission{Level: "none", Role: "none"}, nil, false, "is none (permission none)"},
		{"empty answer", github.Permission{}, nil, false, "is none (permission none)"},
		{"role maintain but permission read", github.Permission{Level: "read", Role: "maintain"}, nil, false, "permission read"},
		{"403", github.Permission{}, &github.APIError{Op: "read the permission of Codertocat on Codertocat/Hello-World", Status: 403, Message: "Resource not accessible by integration"}, false,
			"could not read their permission on Codertocat/Hello-World (github: read the permission of Codertocat on Codertocat/Hello-World: HTTP 403: Resource not accessible by integration)"},
		{"404", github.Permission{}, &github.APIError{Status: 404, Message: "Not Found"}, false, "could not read their permission"},
		{"5xx", github.Permission{Level: "admin", Role: "admin"}, errors.New("github: HTTP 502"), false, "could not read their permission"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := pending()
			ev.Authorize(tt.perm, tt.err)
			if ev.Review != tt.review || !strings.Contains(ev.Notice, tt.notice) || (tt.review && ev.Notice != "") || (!tt.review && ev.Notice == "") {
				t.Fatalf("Authorize: Review %v, Notice %q; want Review %v, Notice containing %q", ev.Review, ev.Notice, tt.review, tt.notice)
			}
			if !ev.Rerun || ev.PRNumber != 2 {
				t.Errorf("Authorize changed the command: %+v", ev)
			}
		})
	}
}
