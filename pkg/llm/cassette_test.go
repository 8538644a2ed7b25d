package llm_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/prompts"
)

// fenced is the request sample.jsonl recorded, asked with a given fence.
func fenced(persona, fence string) llm.Request {
	return llm.Request{
		Persona: persona, Schema: "findings", Model: "any", Fence: fence,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Untrusted data between " + fence + " markers."},
			{Role: llm.RoleUser, Content: llm.PersonaHeader + persona + "\nReview the diff."},
		},
	}
}

func sampleReplay(t *testing.T) *llm.Replay {
	t.Helper()
	r, err := llm.LoadCassette(fixtures.FS, "cassettes/sample.jsonl")
	if err != nil {
		t.Fatalf("LoadCassette: %v", err)
	}
	if r, err = r.WithSchemas(prompts.Schemas()); err != nil {
		t.Fatalf("WithSchemas: %v", err)
	}
	return r
}

func TestReplay(t *testing.T) {
	t.Parallel()
	r := sampleReplay(t)
	if r.Len() != 3 {
		t.Errorf("Len: got %d; want 3", r.Len())
	}
	validator := llm.Request{Persona: llm.Validator, Schema: "validation", Key: llm.Key("finding-1")}
	tests := []struct {
		name     string
		req      llm.Request
		wantErr  error
		wantText string // in the JSON, or in the error
	}{
		{"hit, key from messages, fence A", fenced("correctness", "fence-aaaa"), nil, `"confidence":75`},
		{"hit, same messages, other fence", fenced("correctness", "fence-bbbb"), nil, `"title":"Nil map write panics"`},
		{"hit, explicit key", validator, nil, `{"reason":"m is nil when New is called without options.","validated":true}`},
		{"miss, other persona", fenced("security", "fence-aaaa"), llm.ErrNoAnswer, "no recorded answer for persona security key "},
		{"miss, other key", llm.Request{Persona: llm.Validator, Schema: "validation", Key: llm.Key("finding-2")}, llm.ErrNoAnswer,
			"persona validator key " + llm.Key("finding-2")},
		{"recorded answer breaks the schema", fenced("testing", "fence-cccc"), llm.ErrMalformed, "confidence"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := r.Complete(context.Background(), tc.req)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantText) {
					t.Fatalf("got %v; want %v containing %q", err, tc.wantErr, tc.wantText)
				}
				return
			}
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if !strings.Contains(string(resp.JSON), tc.wantText) {
				t.Errorf("got %s; want it to contain %s", resp.JSON, tc.wantText)
			}
			if strings.Contains(string(resp.JSON), "null") {
				t.Errorf("got %s; want the recorded null suggested_fix dropped", resp.JSON)
			}
		})
	}
	noSchemas, err := llm.LoadCassette(fixtures.FS, "cassettes/sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noSchemas.Complete(context.Background(), validator); err == nil || !strings.Contains(err.Error(), "no schema") {
		t.Errorf("replay without schemas: got %v; want a no-schema error", err)
	}
}

func TestLoadCassetteErrors(t *testing.T) {
	t.Parallel()
	good := `{"persona":"p","key":"0123456789abcdef01234567","answer":{}}`
	tests := []struct {
		name, content, want string
	}{
		{"not JSON", good + "\n\n{oops\n", "bad.jsonl:3:"},
		{"unknown field", `{"persona":"p","key":"0123456789abcdef01234567","answer":{},"model":"x"}`, "bad.jsonl:1: json: unknown field"},
		{"missing persona", `{"key":"0123456789abcdef01234567","answer":{}}`, "bad.jsonl:1: missing persona"},
		{"short key", `{"persona":"p","key":"abc","answer":{}}`, `bad.jsonl:1: key "abc"`},
		{"uppercase key", `{"persona":"p","key":"0123456789ABCDEF01234567","answer":{}}`, "not 24 lowercase hex"},
		{"answer not an object", `{"persona":"p","key":"0123456789abcdef01234567","answer":[1]}`, "bad.jsonl:1: answer is not a JSON object"},
		{"no answer", `{"persona":"p","key":"0123456789abcdef01234567"}`, "answer is not a JSON object"},
		{"duplicate", good + "\n" + good + "\n", "bad.jsonl:2: second answer for persona p"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"bad.jsonl": {Data: []byte(tc.content)}}
			_, err := llm.LoadCassette(fsys, "bad.jsonl")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v; want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := llm.LoadCassette(fstest.MapFS{}, "missing.jsonl"); err == nil {
		t.Errorf("missing file: got nil error; want one")
	}
}

// syncBuffer is a concurrency-safe writer that also checks writes are whole lines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func TestRecorderRoundTrip(t *testing.T) {
	t.Parallel()
	s := fakeServer(t)
	c, _ := newClient(t, s, nil)
	s.SetDefault(func(r llmtest.Request) llmtest.Reply {
		if r.Persona == llm.Validator {
			return llmtest.OK(`{"validated":true,"reason":"seen"}`)
		}
		return llmtest.OK(goodAnswer(r.Persona))
	})
	var out syncBuffer
	rec := llm.NewRecorder(c, &out)

	personas := []string{"correctness", "testing", "security", "maintainability", "reliability", "performance"}
	live := make([][]byte, len(personas))
	var wg sync.WaitGroup
	for i, p := range personas {
		wg.Go(func() {
			req := fenced(p, fmt.Sprintf("live-fence-%d", i))
			req.Label = "round trip: " + p
			resp, err := rec.Complete(context.Background(), req)
			if err != nil {
				t.Errorf("record %s: %v", p, err)
				return
			}
			live[i] = resp.JSON
		})
	}
	wg.Wait()
	vreq := llm.Request{Persona: llm.Validator, Schema: "validation", Model: "m", Key: llm.Key("f", "1"),
		Messages: []llm.Message{{Role: llm.RoleUser, Content: llm.PersonaHeader + "validator\nIs it real?"}}}
	if _, err := rec.Complete(context.Background(), vreq); err != nil {
		t.Fatal(err)
	}
	// A failed call records nothing.
	s.Script("broken", llmtest.BadRequest("no"))
	if _, err := rec.Complete(context.Background(), fenced("broken", "x")); err == nil {
		t.Fatal("broken persona: got nil error; want one")
	}

	if got := strings.Count(out.buf.String(), "\n"); got != len(personas)+1 {
		t.Fatalf("got %d cassette lines; want %d:\n%s", got, len(personas)+1, out.buf.String())
	}
	if !strings.Contains(out.buf.String(), `"label":"round trip: security"`) {
		t.Errorf("cassette lacks the request label:\n%s", out.buf.String())
	}
	r, err := llm.LoadCassette(fstest.MapFS{"rec.jsonl": {Data: out.buf.Bytes()}}, "rec.jsonl")
	if err != nil {
		t.Fatalf("LoadCassette of the recording: %v", err)
	}
	if r, err = r.WithSchemas(prompts.Schemas()); err != nil {
		t.Fatal(err)
	}
	for i, p := range personas {
		resp, err := r.Complete(context.Background(), fenced(p, "replay-fence")) // a new run's fence
		if err != nil {
			t.Fatalf("replay %s: %v", p, err)
		}
		if !bytes.Equal(resp.JSON, live[i]) {
			t.Errorf("replay %s: got %s; want the live answer %s", p, resp.JSON, live[i])
		}
	}
	if _, err := r.Complete(context.Background(), vreq); err != nil {
		t.Errorf("replay validator: %v", err)
	}
}
