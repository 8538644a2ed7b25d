package action

import (
	"testing"
)

// TestParseAnswer: dismiss and restore are the command's second word, in
// any case; anything else is not an answer (a plain /anchor-review stays a
// re-review request).
func TestParseAnswer(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body string
		want Answer
		ok   bool
	}{
		{"/anchor-review dismiss a1b2c3 intended change\nsee #12", Answer{Verb: VerbDismiss, Words: "a1b2c3 intended change\nsee #12"}, true},
		{"  /anchor-review   DISMISS   ", Answer{Verb: VerbDismiss}, true},
		{"/anchor-review restore a1b2c3", Answer{Verb: VerbRestore, Words: "a1b2c3"}, true},
		{"/anchor-review please", Answer{}, false},
		{"/anchor-review dismissal a1b2c3 x", Answer{}, false},
		{"please /anchor-review dismiss a1b2c3 x", Answer{}, false},
		{"/anchor-reviewdismiss a1b2c3 x", Answer{}, false},
	} {
		got, ok := ParseAnswer(tt.body)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseAnswer(%q) = %+v, %v; want %+v, %v", tt.body, got, ok, tt.want, tt.ok)
		}
	}
}

// TestParseAnswerEvents: a dismiss in a PR comment is an answer, never a
// re-review; a reply in an inline thread (pull_request_review_comment,
// with in_reply_to_id as GitHub sends a reply) is an answer naming its
// thread; a review comment that starts a thread, or is no command, is a
// notice.
func TestParseAnswerEvents(t *testing.T) {
	t.Parallel()
	ev, err := ParseEvent(EventIssueComment, prComment(t, "created", "/anchor-review dismiss a1b2c3 intended", "MEMBER"), "")
	if err != nil {
		t.Fatal(err)
	}
	if ev.Answer == nil || ev.Answer.Verb != VerbDismiss || ev.Rerun || ev.Review || ev.Commenter != "Codertocat" || ev.PRNumber != 2 {
		t.Fatalf("issue_comment dismiss = %+v (answer %+v); want an answer, no review", ev, ev.Answer)
	}
	reply := func(body string, inReplyTo any) []byte {
		return edit(t, webhook(t, "pull_request_review_comment.created.json"), func(p map[string]any) {
			c := p["comment"].(map[string]any)
			c["body"], c["in_reply_to_id"] = body, inReplyTo
		})
	}
	ev, err = ParseEvent(EventReviewComment, reply("/anchor-review dismiss the API change is intended", 284312000), "")
	if err != nil {
		t.Fatal(err)
	}
	if ev.Answer == nil || ev.Answer.Thread != 284312000 || ev.Answer.Words != "the API change is intended" || ev.PRNumber != 2 ||
		ev.CommentID != 284312630 || ev.Commenter != "Codertocat" || ev.Review || ev.Owner != "Codertocat" {
		t.Fatalf("review-comment reply = %+v (answer %+v)", ev, ev.Answer)
	}
	for name, b := range map[string][]byte{
		"a thread's first comment":  reply("/anchor-review dismiss intended", nil),
		"not a command":             reply("looks fine", 284312000),
		"a plain re-review request": reply("/anchor-review", 284312000),
	} {
		ev, err := ParseEvent(EventReviewComment, b, "")
		if err != nil || ev.Answer != nil || ev.Review || ev.Notice == "" {
			t.Errorf("%s: %+v, %v; want a notice", name, ev, err)
		}
	}
}
