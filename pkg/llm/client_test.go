package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/internal/sleeptest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/prompts"
)

const testKey = "sk-proj-TESTKEY0123456789abcdefXYZ"

// sleeper records the waits the client asks for and returns at once.
type sleeper = sleeptest.Recorder

// fakeServer starts llmtest and, at cleanup, fails the test if any request
// broke OpenAI's request schema or the persona-header contract.
func fakeServer(t *testing.T) *llmtest.Server {
	t.Helper()
	s := llmtest.New()
	t.Cleanup(func() {
		s.Close()
		if v := s.Violations(); len(v) > 0 {
			t.Errorf("schema violations: got %d; want 0: %v", len(v), v)
		}
	})
	return s
}

func newClient(t *testing.T, s *llmtest.Server, mod func(*llm.Config)) (*llm.Client, *sleeper) {
	t.Helper()
	sl := &sleeper{}
	cfg := llm.Config{
		BaseURL:    s.URL + "/v1",
		APIKey:     testKey,
		HTTPClient: s.Client(),
		Sleep:      sl.Sleep,
		Schemas:    prompts.Schemas(),
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, sl
}

func request(persona string) llm.Request {
	schema := "findings"
	if persona == llm.Validator {
		schema = "validation"
	}
	return llm.Request{
		Persona: persona,
		Schema:  schema,
		Model:   "gpt-4o-mini",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You review pull requests. Shared rubric and diff."},
			{Role: llm.RoleUser, Content: llm.PersonaHeader + persona + "\nHunt for " + persona + " problems."},
		},
	}
}

func goodAnswer(persona string) string {
	return strings.Replace(answerWith(goodFinding()), `"reviewer":"correctness"`, `"reviewer":"`+persona+`"`, 1)
}

func TestCompleteOK(t *testing.T) {
	t.Parallel()
	s := fakeServer(t)
	c, _ := newClient(t, s, nil)
	s.Script("correctness", llmtest.OK(goodAnswer("correctness")))
	resp, err := c.Complete(context.Background(), request("correctness"))
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if resp.Attempts != 1 || resp.Repaired {
		t.Errorf("got attempts %d repaired %v; want 1 false", resp.Attempts, resp.Repaired)
	}
	if !strings.Contains(string(resp.JSON), `"confidence":75`) {
		t.Errorf("got JSON %s; want the finding", resp.JSON)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests; want 1", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/chat/completions" || r.ResponseFormat != "json_schema" || r.SchemaName != "findings" || !r.Strict {
		t.Errorf("got path %s format %s name %s strict %v; want /v1/chat/completions json_schema findings true",
			r.Path, r.ResponseFormat, r.SchemaName, r.Strict)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("got Authorization %q; want the bearer key", got)
	}
	if got := r.Header.Get("User-Agent"); got != llm.DefaultUserAgent {
		t.Errorf("got User-Agent %q; want %q", got, llm.DefaultUserAgent)
	}
	if r.Model != "gpt-4o-mini" || r.Persona != "correctness" {
		t.Errorf("got model %s persona %s; want gpt-4o-mini correctness", r.Model, r.Persona)
	}
	want, _ := llm.StrictSchema(prompts.FindingsSchema())
	if string(r.Schema) != string(want) {
		t.Errorf("sent schema differs from StrictSchema(findings.schema.json)")
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	good := llmtest.OK(goodAnswer("correctness"))
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	tests := []struct {
		name         string
		replies      []llmtest.Reply
		wantErr      error // nil: success
		wantStatus   int   // for an *APIError
		wantRequests int
		wantSleeps   []time.Duration // exact waits; nil with maxSleeps set: jittered
		maxSleeps    []time.Duration // upper bounds of jittered waits
	}{
		{name: "429 Retry-After 1", replies: []llmtest.Reply{llmtest.RateLimited("1"), good},
			wantRequests: 2, wantSleeps: []time.Duration{time.Second}},
		{name: "429 retry-after-ms 250", replies: []llmtest.Reply{llmtest.RateLimitedMs("250"), good},
			wantRequests: 2, wantSleeps: []time.Duration{250 * time.Millisecond}},
		{name: "429 Retry-After 3600 clamped to 30s", replies: []llmtest.Reply{llmtest.RateLimited("3600"), good},
			wantRequests: 2, wantSleeps: []time.Duration{30 * time.Second}},
		{name: "429 Retry-After huge clamped", replies: []llmtest.Reply{llmtest.RateLimited("1e300"), good},
			wantRequests: 2, wantSleeps: []time.Duration{30 * time.Second}},
		{name: "429 Retry-After in the past: no wait", replies: []llmtest.Reply{llmtest.RateLimited(past), good},
			wantRequests: 2, wantSleeps: []time.Duration{}},
		{name: "429 Retry-After garbage: backoff", replies: []llmtest.Reply{llmtest.RateLimited("soon"), good},
			wantRequests: 2, maxSleeps: []time.Duration{time.Second}},
		{name: "429 Retry-After negative: backoff", replies: []llmtest.Reply{llmtest.RateLimited("-5"), good},
			wantRequests: 2, maxSleeps: []time.Duration{time.Second}},
		{name: "quota 429 never retried", replies: []llmtest.Reply{llmtest.Quota(), good},
			wantErr: llm.ErrQuota, wantStatus: 429, wantRequests: 1, wantSleeps: []time.Duration{}},
		{name: "400 never retried", replies: []llmtest.Reply{llmtest.BadRequest("messages too long"), good},
			wantStatus: 400, wantRequests: 1, wantSleeps: []time.Duration{}},
		{name: "401 never retried", replies: []llmtest.Reply{{Status: 401, Body: `{"error":{"message":"bad key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`}, good},
			wantStatus: 401, wantRequests: 1, wantSleeps: []time.Duration{}},
		{name: "500 x2 then OK", replies: []llmtest.Reply{llmtest.ServerError(), llmtest.ServerError(), good},
			wantRequests: 3, maxSleeps: []time.Duration{time.Second, 2 * time.Second}},
		{name: "503 with an HTML body then OK", replies: []llmtest.Reply{{Status: 503, Body: "<html>upstream down</html>"}, good},
			wantRequests: 2, maxSleeps: []time.Duration{time.Second}},
		{name: "500 x4: gives up after MaxAttempts", replies: []llmtest.Reply{llmtest.ServerError(), llmtest.ServerError(), llmtest.ServerError(), llmtest.ServerError(), good},
			wantStatus: 500, wantRequests: 4, maxSleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := fakeServer(t)
			c, sl := newClient(t, s, nil)
			s.Script("correctness", tc.replies...)
			resp, err := c.Complete(context.Background(), request("correctness"))
			if got := len(s.Requests()); got != tc.wantRequests {
				t.Errorf("got %d requests; want %d", got, tc.wantRequests)
			}
			if resp.Attempts != tc.wantRequests {
				t.Errorf("got Attempts %d; want %d", resp.Attempts, tc.wantRequests)
			}
			wantOK := tc.wantErr == nil && tc.wantStatus == 0
			if wantOK && err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if !wantOK {
				if err == nil {
					t.Fatalf("Complete: got nil error; want one")
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("got %v; want errors.Is %v", err, tc.wantErr)
				}
				var api *llm.APIError
				if !errors.As(err, &api) || api.Status != tc.wantStatus {
					t.Errorf("got %v; want *APIError status %d", err, tc.wantStatus)
				}
			}
			slept := sl.Waits()
			if tc.wantSleeps != nil {
				if fmt.Sprint(slept) != fmt.Sprint(tc.wantSleeps) {
					t.Errorf("got sleeps %v; want %v", slept, tc.wantSleeps)
				}
				return
			}
			if len(slept) != len(tc.maxSleeps) {
				t.Fatalf("got sleeps %v; want %d of them", slept, len(tc.maxSleeps))
			}
			for i, d := range slept {
				if d < 0 || d > tc.maxSleeps[i] {
					t.Errorf("sleep %d: got %v; want within [0, %v]", i, d, tc.maxSleeps[i])
				}
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		h      map[string]string
		want   time.Duration
		wantOK bool
	}{
		{map[string]string{"Retry-After": "1"}, time.Second, true},
		{map[string]string{"Retry-After": " 2 "}, 2 * time.Second, true},
		{map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond, true},
		{map[string]string{"Retry-After": "0"}, 0, true},
		{map[string]string{"retry-after-ms": "1500", "Retry-After": "9"}, 1500 * time.Millisecond, true},
		{map[string]string{"retry-after-ms": "x", "Retry-After": "9"}, 9 * time.Second, true},
		{map[string]string{"Retry-After": now.Add(3 * time.Second).Format(http.TimeFormat)}, 3 * time.Second, true},
		{map[string]string{"Retry-After": now.Add(-3 * time.Second).Format(http.TimeFormat)}, 0, true},
		{map[string]string{"Retry-After": "-1"}, 0, false},
		{map[string]string{"Retry-After": "NaN"}, 0, false},
		{map[string]string{"Retry-After": "Inf"}, 0, false},
		{map[string]string{"Retry-After": "tomorrow"}, 0, false},
		{map[string]string{}, 0, false},
	}
	for _, tc := range tests {
		h := http.Header{}
		for k, v := range tc.h {
			h.Set(k, v)
		}
		got, ok := llm.RetryAfter(h, now)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("RetryAfter(%v): got %v %v; want %v %v", tc.h, got, ok, tc.want, tc.wantOK)
		}
	}
}

func TestFallbackToJSONObject(t *testing.T) {
	t.Parallel()
	s := fakeServer(t)
	s.RejectJSONSchema(true)
	c, sl := newClient(t, s, nil)

	resp, err := c.Complete(context.Background(), request("correctness"))
	if err != nil {
		t.Fatalf("first Complete: %v", err)
	}
	if resp.Attempts != 2 {
		t.Errorf("first call: got %d attempts; want 2 (rejected, then json_object)", resp.Attempts)
	}
	if !c.JSONObjectMode() {
		t.Errorf("JSONObjectMode: got false; want true after a rejection")
	}
	if _, err := c.Complete(context.Background(), request(llm.Validator)); err != nil {
		t.Fatalf("second Complete: %v", err)
	}
	reqs := s.Requests()
	var formats []string
	for _, r := range reqs {
		formats = append(formats, r.ResponseFormat)
	}
	if got, want := strings.Join(formats, ","), "json_schema,json_object,json_object"; got != want {
		t.Errorf("got formats %s; want %s", got, want)
	}
	for _, r := range reqs[1:] {
		last := r.Messages[len(r.Messages)-1].Content
		if !strings.HasPrefix(last, llm.PersonaHeader+r.Persona+"\n") {
			t.Errorf("json_object request: final message %q does not start with the persona header", last)
		}
		if !strings.Contains(last, "JSON Schema") || !strings.Contains(last, `"additionalProperties": false`) {
			t.Errorf("json_object request: final message lacks the schema: %q", last)
		}
	}
	if !strings.Contains(reqs[2].Messages[len(reqs[2].Messages)-1].Content, `"validated"`) {
		t.Errorf("validator request in json_object mode lacks the validation schema")
	}
	if len(sl.Waits()) != 0 {
		t.Errorf("got sleeps %v; want none for a fallback", sl.Waits())
	}
}

func TestFallbackConcurrent(t *testing.T) {
	t.Parallel()
	s := fakeServer(t)
	s.RejectJSONSchema(true)
	c, _ := newClient(t, s, nil)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = c.Complete(context.Background(), request(fmt.Sprintf("p%d", i)))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	// Each call is rejected at most once; a later call goes straight to json_object.
	if got := len(s.Requests()); got < 8 || got > 16 {
		t.Errorf("got %d requests; want between 8 and 16", got)
	}
	if _, err := c.Complete(context.Background(), request("late")); err != nil {
		t.Fatal(err)
	}
	if got := s.RequestsFor("late"); len(got) != 1 || got[0].ResponseFormat != "json_object" {
		t.Errorf("late call: got %d requests; want 1 in json_object mode", len(got))
	}
}

func TestRepair(t *testing.T) {
	t.Parallel()
	t.Run("malformed then good", func(t *testing.T) {
		t.Parallel()
		s := fakeServer(t)
		c, _ := newClient(t, s, nil)
		bad := llmtest.Malformed()
		s.Script("correctness", bad, llmtest.OK(goodAnswer("correctness")))
		resp, err := c.Complete(context.Background(), request("correctness"))
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if !resp.Repaired || resp.Attempts != 2 {
			t.Errorf("got repaired %v attempts %d; want true 2", resp.Repaired, resp.Attempts)
		}
		reqs := s.Requests()
		if len(reqs) != 2 {
			t.Fatalf("got %d requests; want 2", len(reqs))
		}
		m := reqs[1].Messages
		if len(m) != 4 {
			t.Fatalf("repair request: got %d messages; want 4", len(m))
		}
		if m[2].Role != llm.RoleAssistant || m[2].Content != bad.Content {
			t.Errorf("repair request: message 3 is %s %q; want the assistant's malformed answer", m[2].Role, m[2].Content)
		}
		if !strings.HasPrefix(m[3].Content, llm.PersonaHeader+"correctness\n") || !strings.Contains(m[3].Content, "confidence") {
			t.Errorf("repair request: final message %q; want the persona header and the confidence error", m[3].Content)
		}
	})
	t.Run("malformed twice", func(t *testing.T) {
		t.Parallel()
		s := fakeServer(t)
		c, _ := newClient(t, s, nil)
		s.Script("correctness", llmtest.Malformed(), llmtest.OK("I found nothing."))
		resp, err := c.Complete(context.Background(), request("correctness"))
		if !errors.Is(err, llm.ErrMalformed) {
			t.Fatalf("got %v; want ErrMalformed", err)
		}
		// Wrapped once: the caller names the persona, the client its package.
		if msg := err.Error(); !strings.HasPrefix(msg, "llm: malformed answer: ") || strings.Count(msg, "llm:") != 1 || strings.Contains(msg, "correctness") {
			t.Errorf("got error %q; want one \"llm: malformed answer: \" prefix and no persona name", msg)
		}
		if resp.JSON != nil || resp.Attempts != 2 {
			t.Errorf("got JSON %s attempts %d; want nil 2", resp.JSON, resp.Attempts)
		}
	})
	t.Run("validator answer wrong schema then right", func(t *testing.T) {
		t.Parallel()
		s := fakeServer(t)
		c, _ := newClient(t, s, nil)
		s.Script(llm.Validator, llmtest.OK(`{"validated":"yes"}`), llmtest.OK(`{"validated":true,"reason":"real"}`))
		resp, err := c.Complete(context.Background(), request(llm.Validator))
		if err != nil || !resp.Repaired {
			t.Fatalf("got %v repaired %v; want success after repair", err, resp.Repaired)
		}
		if string(resp.JSON) != `{"reason":"real","validated":true}` {
			t.Errorf("got %s; want the normalized validation", resp.JSON)
		}
	})
}

func TestCallTimeout(t *testing.T) {
	t.Parallel()
	s := fakeServer(t)
	c, sl := newClient(t, s, func(c *llm.Config) { c.CallTimeout = time.Second })
	s.Script("correctness", llmtest.Reply{Content: goodAnswer("correctness"), Delay: time.Minute})
	resp, err := c.Complete(context.Background(), request("correctness"))
	if !errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("got %v; want ErrTimeout", err)
	}
	// The server may not have read the request before the client gave up
	// on a loaded machine, so count on the client's side.
	if resp.Attempts != 1 || len(s.Requests()) > 1 {
		t.Errorf("got %d attempts, %d requests served; want 1 attempt (a timeout is not retried)", resp.Attempts, len(s.Requests()))
	}
	if len(sl.Waits()) != 0 {
		t.Errorf("got sleeps %v; want none", sl.Waits())
	}
}

func TestBudget(t *testing.T) {
	t.Parallel()
	t.Run("slow answer spends it", func(t *testing.T) {
		t.Parallel()
		s := fakeServer(t)
		c, _ := newClient(t, s, func(c *llm.Config) { c.Budget = time.Second })
		s.Script("correctness", llmtest.Reply{Content: goodAnswer("correctness"), Delay: time.Minute})
		if _, err := c.Complete(context.Background(), request("correctness")); !errors.Is(err, llm.ErrBudget) {
			t.Fatalf("got %v; want ErrBudget", err)
		}
		served := len(s.Requests())
		resp, err := c.Complete(context.Background(), request("testing"))
		if !errors.Is(err, llm.ErrBudget) {
			t.Fatalf("second call: got %v; want ErrBudget", err)
		}
		if resp.Attempts != 0 || len(s.Requests()) != served {
			t.Errorf("second call: got %d attempts; want 0 (nothing sent once the budget is spent)", resp.Attempts)
		}
		if _, calls := c.Total(); calls > 1 {
			t.Errorf("Total calls: got %d; want at most 1", calls)
		}
	})
	t.Run("retry wait beyond it", func(t *testing.T) {
		t.Parallel()
		s := fakeServer(t)
		s.Script("correctness", llmtest.RateLimited("3600"))
		c, sl := newClient(t, s, func(c *llm.Config) { c.Budget = 10 * time.Second; c.MaxRetryAfter = time.Hour })
		_, err := c.Complete(context.Background(), request("correctness"))
		if !errors.Is(err, llm.ErrBudget) {
			t.Fatalf("got %v; want ErrBudget", err)
		}
		var api *llm.APIError
		if !errors.As(err, &api) || api.Status != 429 {
			t.Errorf("got %v; want the 429 wrapped too", err)
		}
		if len(sl.Waits()) != 0 {
			t.Errorf("got sleeps %v; want none (the wait would pass the budget)", sl.Waits())
		}
	})
}

func TestRedaction(t *testing.T) {
	t.Parallel()
	echo := func(status int, raw bool) func(llmtest.Request) llmtest.Reply {
		return func(r llmtest.Request) llmtest.Reply {
			headers := fmt.Sprintf("Authorization: %s api-key: %s", r.Header.Get("Authorization"), r.Header.Get("api-key"))
			if raw {
				return llmtest.Reply{Status: status, Body: "proxy refused request with headers " + headers}
			}
			return llmtest.Reply{Status: status, Body: fmt.Sprintf(
				`{"error":{"message":"Incorrect API key provided: %s. %s","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
				testKey, headers)}
		}
	}
	tests := []struct {
		name   string
		status int
		raw    bool
		azure  bool
	}{
		{"401 JSON echo", 401, false, false},
		{"401 JSON echo azure", 401, false, true},
		{"403 raw echo", 403, true, false},
		{"500 raw echo after retries", 500, true, false},
		{"429 raw echo", 429, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := fakeServer(t)
			s.SetDefault(echo(tc.status, tc.raw))
			c, _ := newClient(t, s, func(c *llm.Config) {
				c.Azure = tc.azure
				if tc.azure {
					c.BaseURL = s.URL
				}
			})
			_, err := c.Complete(context.Background(), request("security"))
			if err == nil {
				t.Fatal("got nil error; want one")
			}
			if !strings.Contains(err.Error(), "[REDACTED]") {
				t.Errorf("error %q: want the echoed secret replaced by [REDACTED]", err)
			}
			// Every error in the chain, not just the outermost text.
			for _, e := range chain(err) {
				if msg := e.Error(); strings.Contains(msg, testKey) || strings.Contains(msg, "TESTKEY") {
					t.Errorf("error %T %q contains the API key", e, msg)
				}
			}
			var api *llm.APIError
			if errors.As(err, &api) && (strings.Contains(api.Message, "TESTKEY") || strings.Contains(api.Code, "TESTKEY")) {
				t.Errorf("APIError fields carry the key: %+v", api)
			}
		})
	}
}

func chain(err error) []error {
	out := []error{err}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if next := u.Unwrap(); next != nil {
			out = append(out, chain(next)...)
		}
	case interface{ Unwrap() []error }:
		for _, next := range u.Unwrap() {
			out = append(out, chain(next)...)
		}
	}
	return out
}

func TestUsage(t *testing.T) {
	t.Parallel()
	s := fakeServer(t)
	c, _ := newClient(t, s, nil)
	cached := 40
	s.Script("with-details", llmtest.Reply{Content: goodAnswer("x"), Usage: &llmtest.Usage{PromptTokens: 100, CompletionTokens: 10, CachedTokens: &cached}})
	s.Script("without-details", llmtest.Reply{Content: goodAnswer("x"), Usage: &llmtest.Usage{PromptTokens: 7, CompletionTokens: 3}})
	// A repaired call sums both answers' usage; the failed 500 has none.
	s.Script("repaired",
		llmtest.ServerError(),
		llmtest.Reply{Content: llmtest.Malformed().Content, Usage: &llmtest.Usage{PromptTokens: 200, CompletionTokens: 20, CachedTokens: &cached}},
		llmtest.Reply{Content: goodAnswer("x"), Usage: &llmtest.Usage{PromptTokens: 300, CompletionTokens: 30, CachedTokens: &cached}},
	)
	tests := []struct {
		persona string
		want    llm.Usage
	}{
		{"with-details", llm.Usage{PromptTokens: 100, CachedTokens: 40, CompletionTokens: 10}},
		{"without-details", llm.Usage{PromptTokens: 7, CompletionTokens: 3}},
		{"repaired", llm.Usage{PromptTokens: 500, CachedTokens: 80, CompletionTokens: 50}},
	}
	var sum llm.Usage
	for _, tc := range tests {
		resp, err := c.Complete(context.Background(), request(tc.persona))
		if err != nil {
			t.Fatalf("%s: %v", tc.persona, err)
		}
		if resp.Usage != tc.want {
			t.Errorf("%s: got usage %+v; want %+v", tc.persona, resp.Usage, tc.want)
		}
		if resp.Wall <= 0 {
			t.Errorf("%s: got wall %v; want > 0", tc.persona, resp.Wall)
		}
		sum = sum.Add(tc.want)
	}
	total, calls := c.Total()
	if total != sum || calls != len(tests) {
		t.Errorf("Total: got %+v %d; want %+v %d", total, calls, sum, len(tests))
	}
}

func TestConcurrentCallsAndTotal(t *testing.T) {
	t.Parallel()
	s := fakeServer(t)
	s.SetDefault(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: llmtest.DefaultContent(r), Delay: 5 * time.Millisecond,
			Usage: &llmtest.Usage{PromptTokens: 10, CompletionTokens: 1}}
	})
	c, _ := newClient(t, s, nil)
	const n = 12
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { _, errs[i] = c.Complete(context.Background(), request(fmt.Sprintf("p%02d", i))) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	total, calls := c.Total()
	if calls != n || total.PromptTokens != 10*n || total.CompletionTokens != n {
		t.Errorf("Total: got %+v %d; want prompt %d completion %d calls %d", total, calls, 10*n, n, n)
	}
	if s.MaxInFlight() < 2 {
		t.Errorf("MaxInFlight: got %d; want > 1 for concurrent calls", s.MaxInFlight())
	}
}

func TestAzure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		base        func(url string) string
		version     string
		wantVersion string
	}{
		{"default version", func(u string) string { return u }, "", "2024-10-21"},
		{"base with trailing /openai", func(u string) string { return u + "/openai/" }, "", "2024-10-21"},
		{"explicit version", func(u string) string { return u }, "2025-01-01-preview", "2025-01-01-preview"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := fakeServer(t)
			c, _ := newClient(t, s, func(c *llm.Config) {
				c.BaseURL = tc.base(s.URL)
				c.Azure = true
				c.AzureAPIVersion = tc.version
			})
			r := request("correctness")
			r.Model = "gpt-4.1-review" // a deployment name with a dot stays as is
			if _, err := c.Complete(context.Background(), r); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			got := s.Requests()[0]
			if got.Path != "/openai/deployments/gpt-4.1-review/chat/completions" {
				t.Errorf("got path %s; want /openai/deployments/gpt-4.1-review/chat/completions", got.Path)
			}
			if got.APIVersion != tc.wantVersion {
				t.Errorf("got api-version %q; want %q", got.APIVersion, tc.wantVersion)
			}
			if got.Header.Get("api-key") != testKey || got.Header.Get("Authorization") != "" {
				t.Errorf("got api-key %q Authorization %q; want the key in api-key only",
					got.Header.Get("api-key"), got.Header.Get("Authorization"))
			}
		})
	}
}

func TestIsAzureURL(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"https://myres.openai.azure.com/":                      true,
		"https://MyRes.OpenAI.Azure.com":                       true,
		"https://eastus.api.cognitiveservices.azure.com/":      true,
		"https://api.openai.com/v1":                            false,
		"https://openai.azure.com.evil.example/":               false,
		"http://localhost:8080/openai/deployments/x":           false,
		"https://gateway.example/proxy/myres.openai.azure.com": false,
	}
	for u, want := range tests {
		if got := llm.IsAzureURL(u); got != want {
			t.Errorf("IsAzureURL(%q): got %v; want %v", u, got, want)
		}
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  llm.Config
		want string
	}{
		{"relative base URL", llm.Config{BaseURL: "localhost:8080", Schemas: prompts.Schemas()}, "not an absolute URL"},
		{"no schemas", llm.Config{BaseURL: "http://x"}, "no schemas"},
		{"bad schema", llm.Config{BaseURL: "http://x", Schemas: map[string][]byte{"findings": []byte(`{"type":3}`)}}, `schema "findings"`},
	}
	for _, tc := range tests {
		_, err := llm.New(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v; want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestCompleteRequestErrors(t *testing.T) {
	t.Parallel()
	s := fakeServer(t)
	c, _ := newClient(t, s, nil)
	r := request("correctness")
	r.Schema = "verdict"
	if _, err := c.Complete(context.Background(), r); err == nil || !strings.Contains(err.Error(), `no schema named "verdict"`) {
		t.Errorf("unknown schema: got %v; want no schema named", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Complete(ctx, request("correctness")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: got %v; want context.Canceled", err)
	}
	if got := len(s.Requests()); got != 0 {
		t.Errorf("got %d requests; want 0", got)
	}
}

// BenchmarkRateLimitedRealSleep measures what one 429 with Retry-After: 1
// costs with the real sleeper: attempts and wall time per call.
func BenchmarkRateLimitedRealSleep(b *testing.B) {
	s := llmtest.New()
	defer s.Close()
	c, err := llm.New(llm.Config{BaseURL: s.URL, APIKey: testKey, HTTPClient: s.Client(), Schemas: prompts.Schemas()})
	if err != nil {
		b.Fatal(err)
	}
	attempts := 0
	for b.Loop() {
		s.Script("correctness", llmtest.RateLimited("1"))
		resp, err := c.Complete(context.Background(), request("correctness"))
		if err != nil {
			b.Fatal(err)
		}
		attempts += resp.Attempts
	}
	b.ReportMetric(float64(attempts)/float64(b.N), "attempts/op")
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"1", "0.25", "-1", "1e309", "NaN", "Wed, 21 Oct 2015 07:28:00 GMT", "", "soon"} {
		f.Add(s, s)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, seconds, ms string) {
		h := http.Header{}
		h.Set("Retry-After", seconds)
		h.Set("retry-after-ms", ms)
		d, ok := llm.RetryAfter(h, now)
		if d < 0 {
			t.Fatalf("RetryAfter(%q, %q): got negative %v", seconds, ms, d)
		}
		if !ok && d != 0 {
			t.Fatalf("RetryAfter(%q, %q): got %v with ok=false; want 0", seconds, ms, d)
		}
	})
}

// TestNoKeySendsNoCredential: a keyless endpoint (an Ollama service
// container) gets no Authorization or api-key header at all, on the wire.
func TestNoKeySendsNoCredential(t *testing.T) {
	t.Parallel()
	for _, azure := range []bool{false, true} {
		t.Run(fmt.Sprintf("azure=%v", azure), func(t *testing.T) {
			t.Parallel()
			s := fakeServer(t)
			c, _ := newClient(t, s, func(c *llm.Config) {
				c.APIKey, c.Azure = "", azure
				if azure {
					c.BaseURL = s.URL // Azure paths start at the host
				}
			})
			if _, err := c.Complete(context.Background(), request("correctness")); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			h := s.Requests()[0].Header
			for _, name := range []string{"Authorization", "Api-Key"} {
				if v, ok := h[name]; ok {
					t.Errorf("header %s = %q sent; want none without a key", name, v)
				}
			}
		})
	}
}

// TestUnauthorizedNamesAPIKey: a 401 is fatal and says to check api-key,
// whether a key was sent or none was.
func TestUnauthorizedNamesAPIKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{testKey: "refused the api-key", "": "wants an api-key, and none was set"} {
		s := fakeServer(t)
		c, _ := newClient(t, s, func(c *llm.Config) { c.APIKey = key })
		s.Script("correctness", llmtest.Unauthorized())
		_, err := c.Complete(context.Background(), request("correctness"))
		if !llm.Fatal(err) || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("key %q: got %v (fatal %v); want a fatal error saying %q", key, err, llm.Fatal(err), want)
		}
		if n := len(s.Requests()); n != 1 {
			t.Errorf("key %q: %d requests; want 1 (a 401 is not retried)", key, n)
		}
	}
}

// TestUnreachableEndpoint: a base-url where nothing listens fails the call
// after its attempts with a fatal error naming base-url, and every later
// call of the client fails at once, without a request (a wrong base-url
// costs one call's retries, not every persona's).
func TestUnreachableEndpoint(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	ln.Close() // connection refused from now on
	sl := &sleeper{}
	c, err := llm.New(llm.Config{BaseURL: base, APIKey: testKey, Sleep: sl.Sleep, Schemas: prompts.Schemas()})
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.Complete(context.Background(), request("correctness"))
	if !errors.Is(err, llm.ErrUnreachable) || !llm.Fatal(err) || !strings.Contains(err.Error(), "base-url") {
		t.Fatalf("first call: %v; want a fatal ErrUnreachable naming base-url", err)
	}
	if first.Attempts != llm.DefaultMaxAttempts {
		t.Errorf("first call made %d attempts; want %d", first.Attempts, llm.DefaultMaxAttempts)
	}
	second, err := c.Complete(context.Background(), request("security"))
	if !errors.Is(err, llm.ErrUnreachable) || second.Attempts != 0 {
		t.Errorf("second call: %v after %d attempts; want ErrUnreachable at once", err, second.Attempts)
	}
	if n := len(sl.Waits()); n != llm.DefaultMaxAttempts-1 {
		t.Errorf("%d backoff waits; want %d (the first call's only)", n, llm.DefaultMaxAttempts-1)
	}
}

// TestUnreachableEndpointConcurrentCalls: personas calling at once do not
// each retry a refused endpoint: one call retries, the others wait for its
// answer, and all end with the same fatal error.
func TestUnreachableEndpointConcurrentCalls(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	sl := &sleeper{}
	c, err := llm.New(llm.Config{BaseURL: base, APIKey: testKey, Sleep: sl.Sleep, Schemas: prompts.Schemas()})
	if err != nil {
		t.Fatal(err)
	}
	const calls = 8
	attempts := make([]int, calls)
	errs := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			resp, err := c.Complete(context.Background(), request("correctness"))
			attempts[i], errs[i] = resp.Attempts, err
		})
	}
	wg.Wait()
	total := 0
	for i := range calls {
		total += attempts[i]
		if !errors.Is(errs[i], llm.ErrUnreachable) {
			t.Errorf("call %d: %v; want ErrUnreachable", i, errs[i])
		}
	}
	// Each call's first attempt, plus the one probing call's retries.
	if max := calls + llm.DefaultMaxAttempts - 1; total > max {
		t.Errorf("%d requests in all; want at most %d", total, max)
	}
}

// TestAPIType: the request shape follows APIType, not only the host name:
// azure on any host (a private endpoint), openai on an Azure host (Azure's
// OpenAI-compatible v1 API).
func TestAPIType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, apiType string
		wantPath      string
	}{
		{"azure on another host", llm.APITypeAzure, "/openai/deployments/review-deploy/chat/completions"},
		{"openai", llm.APITypeOpenAI, "/v1/chat/completions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := fakeServer(t)
			c, _ := newClient(t, s, func(c *llm.Config) {
				c.APIType, c.AzureAPIVersion = tc.apiType, "2025-04-01-preview"
				if tc.apiType == llm.APITypeAzure {
					c.BaseURL = s.URL
				}
			})
			r := request("correctness")
			r.Model = "review-deploy"
			if _, err := c.Complete(context.Background(), r); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			got := s.Requests()[0]
			if got.Path != tc.wantPath {
				t.Errorf("path %s; want %s", got.Path, tc.wantPath)
			}
			if tc.apiType == llm.APITypeAzure && got.APIVersion != "2025-04-01-preview" {
				t.Errorf("api-version %q; want 2025-04-01-preview", got.APIVersion)
			}
		})
	}
	if _, err := llm.New(llm.Config{BaseURL: "https://x.example/v1", APIType: "bedrock", Schemas: prompts.Schemas()}); err == nil {
		t.Error("New accepted API type bedrock")
	}
}

// A request with OnFirstToken is streamed: the hook runs once, at the
// first chunk, long before the answer is complete; the answer and the
// usage (from the last chunk) are those of a non-streamed call. A repair
// round does not call it again.
func TestStreamFirstToken(t *testing.T) {
	t.Parallel()
	s := fakeServer(t)
	c, _ := newClient(t, s, nil)
	cached := 40
	usage := &llmtest.Usage{PromptTokens: 100, CompletionTokens: 10, CachedTokens: &cached}
	s.Script("correctness",
		// Wide margins: the first chunk at once, the end 3 s later.
		llmtest.Reply{Content: llmtest.Malformed().Content, FirstToken: time.Millisecond, Delay: 3 * time.Second, Usage: usage},
		llmtest.Reply{Content: goodAnswer("correctness"), Usage: usage},
	)
	r := request("correctness")
	start := time.Now()
	var firsts []time.Duration
	r.OnFirstToken = func() { firsts = append(firsts, time.Since(start)) }
	resp, err := c.Complete(context.Background(), r)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if len(firsts) != 1 || firsts[0] >= 2*time.Second {
		t.Errorf("OnFirstToken ran at %v; want once, at the first chunk (1 ms), not at the end (3 s)", firsts)
	}
	if !resp.Repaired || !strings.Contains(string(resp.JSON), `"confidence":75`) {
		t.Errorf("got repaired %t JSON %s; want the repaired answer", resp.Repaired, resp.JSON)
	}
	if want := (llm.Usage{PromptTokens: 200, CachedTokens: 80, CompletionTokens: 20}); resp.Usage != want {
		t.Errorf("got usage %+v; want %+v (both answers, from their last chunks)", resp.Usage, want)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || !reqs[0].Stream || !reqs[0].IncludeUsage {
		t.Fatalf("got %d requests, the first streamed %t with usage %t; want 2, streamed with include_usage", len(reqs), len(reqs) > 0 && reqs[0].Stream, len(reqs) > 0 && reqs[0].IncludeUsage)
	}
	if plain, _ := c.Complete(context.Background(), request("correctness")); plain.Attempts != 1 || s.Requests()[2].Stream {
		t.Errorf("a request without OnFirstToken was streamed; want a plain request")
	}
}

// A server that ignores "stream" and answers one whole JSON document (the
// way some gateways and small local servers do) is read as that answer, in
// one request: not retried as a broken stream, its usage kept, and the
// first-token hook still run (the answer is its first token).
func TestStreamAnsweredWhole(t *testing.T) {
	t.Parallel()
	s := fakeServer(t)
	c, _ := newClient(t, s, nil)
	usage := &llmtest.Usage{PromptTokens: 100, CompletionTokens: 10}
	s.Script("correctness", llmtest.Reply{Content: goodAnswer("correctness"), Usage: usage, Whole: true})
	r := request("correctness")
	hooked := 0
	r.OnFirstToken = func() { hooked++ }
	resp, err := c.Complete(context.Background(), r)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if resp.Attempts != 1 || len(s.Requests()) != 1 || !s.Requests()[0].Stream {
		t.Errorf("got %d attempts, %d requests; want one streamed request", resp.Attempts, len(s.Requests()))
	}
	if !strings.Contains(string(resp.JSON), `"confidence":75`) || resp.Repaired {
		t.Errorf("got JSON %s (repaired %t); want the whole answer as sent", resp.JSON, resp.Repaired)
	}
	if want := (llm.Usage{PromptTokens: 100, CompletionTokens: 10}); resp.Usage != want {
		t.Errorf("got usage %+v; want %+v", resp.Usage, want)
	}
	if hooked != 1 {
		t.Errorf("OnFirstToken ran %d times; want once", hooked)
	}
}

// A server that refuses streaming (a 400 naming stream_options) is asked
// again without it, and the client never streams again.
func TestStreamRejected(t *testing.T) {
	t.Parallel()
	s := fakeServer(t)
	c, _ := newClient(t, s, nil)
	s.Script("correctness", llmtest.BadRequest("Unrecognized request argument supplied: stream_options"),
		llmtest.OK(goodAnswer("correctness")), llmtest.OK(goodAnswer("correctness")))
	r := request("correctness")
	r.OnFirstToken = func() {}
	for range 2 {
		if _, err := c.Complete(context.Background(), r); err != nil {
			t.Fatalf("Complete: %v", err)
		}
	}
	var streamed []bool
	for _, q := range s.Requests() {
		streamed = append(streamed, q.Stream)
	}
	if fmt.Sprint(streamed) != "[true false false]" {
		t.Errorf("streamed per request: %v; want [true false false]", streamed)
	}
}

// A streamed answer that the server ends with an error event ("data:
// {"error": ...}", the way providers report a fault after the stream has
// begun) is a transient fault: asked again, not taken for a 4xx refusal
// that fails the call (and with it the persona).
func TestStreamErrorEventRetried(t *testing.T) {
	t.Parallel()
	s := fakeServer(t)
	c, _ := newClient(t, s, nil)
	s.Script("correctness",
		llmtest.Reply{Content: goodAnswer("correctness"), StreamError: "The server had an error while processing your request."},
		llmtest.OK(goodAnswer("correctness")))
	r := request("correctness")
	r.OnFirstToken = func() {}
	resp, err := c.Complete(context.Background(), r)
	if err != nil {
		t.Fatalf("Complete: %v; want the fault retried", err)
	}
	if resp.Attempts != 2 || resp.Repaired || !strings.Contains(string(resp.JSON), `"confidence":75`) {
		t.Errorf("attempts %d, repaired %t, JSON %s; want the answer of a second attempt, no repair", resp.Attempts, resp.Repaired, resp.JSON)
	}
}
