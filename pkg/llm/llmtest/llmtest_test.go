package llmtest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/xeipuuv/gojsonschema"
)

const validBody = `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"shared"},{"role":"user","content":"Reviewer: correctness\nreview"}],"response_format":{"type":"json_object"}}`

func post(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func keys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func TestResponseShape(t *testing.T) {
	t.Parallel()
	s := llmtest.New()
	defer s.Close()
	status, body := post(t, s.URL+"/v1/chat/completions", validBody)
	if status != 200 {
		t.Fatalf("got status %d %s; want 200", status, body)
	}
	doc, err := llmtest.Definition("CreateChatCompletionResponse")
	if err != nil {
		t.Fatal(err)
	}
	res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(doc), gojsonschema.NewBytesLoader(body))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid() {
		t.Errorf("response does not validate against CreateChatCompletionResponse: %v", res.Errors())
	}

	raw, err := fixtures.FS.ReadFile("openai/chat-completions.examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var examples map[string]map[string]any
	if err := json.Unmarshal(raw, &examples); err != nil {
		t.Fatal(err)
	}
	want := examples["Default"]
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	pairs := []struct {
		name      string
		got, want map[string]any
	}{
		{"response", got, want},
		{"choice", got["choices"].([]any)[0].(map[string]any), want["choices"].([]any)[0].(map[string]any)},
		{"message", got["choices"].([]any)[0].(map[string]any)["message"].(map[string]any),
			want["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)},
		{"usage", got["usage"].(map[string]any), want["usage"].(map[string]any)},
		{"prompt_tokens_details", got["usage"].(map[string]any)["prompt_tokens_details"].(map[string]any),
			want["usage"].(map[string]any)["prompt_tokens_details"].(map[string]any)},
	}
	for _, p := range pairs {
		if g, w := strings.Join(keys(p.got), ","), strings.Join(keys(p.want), ","); g != w {
			t.Errorf("%s keys: got %s; want %s (as in the published example)", p.name, g, w)
		}
	}
	if v := s.Violations(); len(v) != 0 {
		t.Errorf("got violations %v; want none", v)
	}
}

func TestViolations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, body, want string
	}{
		{"empty messages", "/chat/completions", `{"model":"m","messages":[]}`, "schema"},
		{"unknown role", "/chat/completions", `{"model":"m","messages":[{"role":"robot","content":"Reviewer: x\n"}]}`, "schema"},
		{"missing model", "/chat/completions", `{"messages":[{"role":"user","content":"Reviewer: x\n"}]}`, "model"},
		{"bad response_format", "/chat/completions", `{"model":"m","messages":[{"role":"user","content":"Reviewer: x\n"}],"response_format":{"type":"yaml"}}`, "schema"},
		{"json_schema without a name", "/chat/completions", `{"model":"m","messages":[{"role":"user","content":"Reviewer: x\n"}],"response_format":{"type":"json_schema","json_schema":{"strict":true}}}`, "schema"},
		{"not JSON", "/chat/completions", `{`, "not JSON"},
		{"unknown path", "/v2/complete", validBody, "unknown path"},
		{"azure without api-version", "/openai/deployments/d/chat/completions", validBody, "api-version"},
		{"no persona header", "/chat/completions", `{"model":"m","messages":[{"role":"user","content":"review this"}]}`, "Reviewer:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := llmtest.New()
			defer s.Close()
			status, body := post(t, s.URL+tc.path, tc.body)
			if status != 400 {
				t.Errorf("got status %d; want 400", status)
			}
			v := s.Violations()
			if len(v) == 0 || !strings.Contains(strings.Join(v, "\n"), tc.want) {
				t.Errorf("got violations %v; want one mentioning %q", v, tc.want)
			}
			if !strings.Contains(string(body), `"error"`) {
				t.Errorf("got body %s; want an OpenAI error object", body)
			}
			if len(s.Requests()) != 1 {
				t.Errorf("got %d recorded requests; want 1", len(s.Requests()))
			}
		})
	}
}

func TestScriptsAndRecording(t *testing.T) {
	t.Parallel()
	s := llmtest.New()
	defer s.Close()
	s.Script("correctness", llmtest.OK(`{"n":1}`), llmtest.Quota())
	var contents []string
	var statuses []int
	for range 3 {
		status, body := post(t, s.URL+"/chat/completions", validBody)
		statuses = append(statuses, status)
		var c struct {
			Choices []struct{ Message struct{ Content string } }
		}
		json.Unmarshal(body, &c)
		if len(c.Choices) > 0 {
			contents = append(contents, c.Choices[0].Message.Content)
		}
	}
	if got, want := statuses, []int{200, 429, 200}; !slices.Equal(got, want) {
		t.Errorf("got statuses %v; want %v", got, want)
	}
	if len(contents) != 2 || contents[0] != `{"n":1}` || !strings.Contains(contents[1], `"reviewer":"correctness"`) {
		t.Errorf("got contents %q; want the scripted one then the default answer", contents)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Persona != "correctness" || reqs[0].Model != "gpt-4o-mini" || reqs[0].ResponseFormat != "json_object" {
		t.Errorf("got requests %+v; want 3 from correctness, gpt-4o-mini, json_object", reqs)
	}

	// Azure path shape.
	status, _ := post(t, s.URL+"/openai/deployments/my-dep/chat/completions?api-version=2024-10-21", validBody)
	last := s.Requests()[3]
	if status != 200 || last.Deployment != "my-dep" || last.APIVersion != "2024-10-21" {
		t.Errorf("azure: got status %d deployment %q version %q; want 200 my-dep 2024-10-21", status, last.Deployment, last.APIVersion)
	}

	s.RejectJSONSchema(true)
	schemaBody := strings.Replace(validBody, `{"type":"json_object"}`,
		`{"type":"json_schema","json_schema":{"name":"findings","strict":true,"schema":{"type":"object"}}}`, 1)
	status, body := post(t, s.URL+"/chat/completions", schemaBody)
	if status != 400 || !strings.Contains(string(body), "response_format") {
		t.Errorf("json_schema while rejecting: got %d %s; want 400 naming response_format", status, body)
	}
	if r := s.Requests()[4]; r.SchemaName != "findings" || !r.Strict {
		t.Errorf("got schema name %q strict %v; want findings true", r.SchemaName, r.Strict)
	}
	if v := s.Violations(); len(v) != 0 {
		t.Errorf("got violations %v; want none", v)
	}
}

func TestMaxInFlight(t *testing.T) {
	t.Parallel()
	s := llmtest.New()
	defer s.Close()
	// Each request waits until all four have arrived, so the peak is exactly 4.
	var arrived sync.WaitGroup
	arrived.Add(4)
	s.SetDefault(func(r llmtest.Request) llmtest.Reply {
		arrived.Done()
		arrived.Wait()
		return llmtest.Reply{Content: llmtest.DefaultContent(r), Delay: time.Millisecond}
	})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { post(t, s.URL+"/chat/completions", validBody) })
	}
	wg.Wait()
	if got := s.MaxInFlight(); got != 4 {
		t.Errorf("MaxInFlight: got %d; want 4", got)
	}
}

func TestSimulatePromptCache(t *testing.T) {
	t.Parallel()
	s := llmtest.New()
	defer s.Close()
	s.SimulatePromptCache(true)
	shared := strings.Repeat("x", 4*3000) // 3,000 tokens
	req := func(tail string) string {
		b, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{
			{"role": "system", "content": shared},
			{"role": "user", "content": "Reviewer: a\n" + tail},
		}})
		return string(b)
	}
	cached := func(body []byte) int {
		var r struct {
			Usage struct {
				Details struct {
					Cached int `json:"cached_tokens"`
				} `json:"prompt_tokens_details"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		return r.Usage.Details.Cached
	}
	_, first := post(t, s.URL+"/v1/chat/completions", req("one"))
	_, second := post(t, s.URL+"/v1/chat/completions", req("two"))
	if got := cached(first); got != 0 {
		t.Errorf("first request cached %d; want 0 (cold cache)", got)
	}
	// The shared prefix is 3,000 tokens plus the role line: whole blocks of
	// 128 tokens of it are cached.
	if got := cached(second); got != 2944 {
		t.Errorf("second request cached %d; want 2944", got)
	}
	_, third := post(t, s.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"Reviewer: a\nshort"}]}`)
	if got := cached(third); got != 0 {
		t.Errorf("a prefix under 1,024 tokens cached %d; want 0", got)
	}
	// Each recorded request carries the cached count it was answered with.
	var got []int
	for _, r := range s.Requests() {
		got = append(got, r.CachedTokens)
	}
	if fmt.Sprint(got) != "[0 2944 0]" {
		t.Errorf("Requests' CachedTokens: %v; want [0 2944 0]", got)
	}
}

// prompt_tokens counts the prompt a provider tokenizes: the messages'
// roles and decoded content, not the JSON that carries them. A message of
// 6,000 tabs and angle brackets is sent as 24,000 bytes of escapes
// (\t, \u003c) but is 1,500 tokens of prompt, so a repeated prompt
// leaves less than a cache block uncached.
func TestPromptTokensCountDecodedContent(t *testing.T) {
	t.Parallel()
	s := llmtest.New()
	defer s.Close()
	s.SimulatePromptCache(true)
	body, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{
		{"role": "user", "content": strings.Repeat("\t<", 3000)},
	}})
	body = []byte(strings.Replace(string(body), `"content":"`, `"content":"Reviewer: a\n`, 1))
	var usage [2]struct {
		Usage struct {
			Prompt  int `json:"prompt_tokens"`
			Details struct {
				Cached int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	for i := range usage {
		_, b := post(t, s.URL+"/v1/chat/completions", string(body))
		if err := json.Unmarshal(b, &usage[i]); err != nil {
			t.Fatal(err)
		}
	}
	if len(body) < 24000 {
		t.Fatalf("body is %d bytes; want the escapes to make it over 24,000", len(body))
	}
	if p := usage[0].Usage.Prompt; p < 1500 || p > 1510 {
		t.Errorf("prompt_tokens = %d for 6,000 characters of content; want about 1,500", p)
	}
	if u := usage[1].Usage.Prompt - usage[1].Usage.Details.Cached; u < 0 || u > 128 {
		t.Errorf("repeated prompt: %d tokens uncached; want less than one cache block", u)
	}
}

// A "stream": true request is answered as OpenAI streams: server-sent
// events of chat.completion.chunk objects, the first (the role) at
// FirstToken, the content, a finish_reason chunk, with include_usage a
// last chunk with no choices and the usage (null in every other chunk),
// and data: [DONE].
func TestStreamWireFormat(t *testing.T) {
	t.Parallel()
	s := llmtest.New()
	defer s.Close()
	content := strings.Repeat("é", 300) // 600 bytes: three chunks, split on rune boundaries
	s.Script("correctness", llmtest.Reply{Content: content, FirstToken: 5 * time.Millisecond, Delay: 50 * time.Millisecond})
	body := strings.Replace(validBody, `"response_format"`, `"stream":true,"stream_options":{"include_usage":true},"response_format"`, 1)
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("got Content-Type %q; want text/event-stream", ct)
	}
	raw, _ := io.ReadAll(resp.Body)
	events := strings.Split(strings.TrimSuffix(string(raw), "\n\n"), "\n\n")
	if last := events[len(events)-1]; last != "data: [DONE]" {
		t.Fatalf("last event %q; want data: [DONE]", last)
	}
	var got strings.Builder
	var usage map[string]any
	for i, e := range events[:len(events)-1] {
		data, ok := strings.CutPrefix(e, "data: ")
		if !ok {
			t.Fatalf("event %d %q does not start with data: ", i, e)
		}
		var chunk struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta        map[string]any `json:"delta"`
				FinishReason *string        `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if chunk.Object != "chat.completion.chunk" {
			t.Errorf("event %d: object %q; want chat.completion.chunk", i, chunk.Object)
		}
		if !strings.Contains(data, `"usage":`) {
			t.Errorf("event %d has no usage member; with include_usage every chunk has one", i)
		}
		if i == 0 && (len(chunk.Choices) != 1 || chunk.Choices[0].Delta["role"] != "assistant") {
			t.Errorf("first chunk %s; want the assistant role", data)
		}
		if chunk.Usage != nil {
			if i != len(events)-2 || len(chunk.Choices) != 0 {
				t.Errorf("usage in event %d of %d with %d choices; want only the last, with none", i, len(events)-1, len(chunk.Choices))
			}
			usage = chunk.Usage
		}
		for _, c := range chunk.Choices {
			if s, ok := c.Delta["content"].(string); ok {
				got.WriteString(s)
			}
		}
	}
	if got.String() != content {
		t.Errorf("streamed content %q; want %q", got.String(), content)
	}
	if usage == nil || usage["prompt_tokens"] == nil {
		t.Errorf("got usage %v; want the prompt tokens in the last chunk", usage)
	}
	if r := s.Requests()[0]; !r.Stream || !r.IncludeUsage {
		t.Errorf("recorded stream %t include_usage %t; want both", r.Stream, r.IncludeUsage)
	}
}

// The simulated cache serves a prefix only to a request that arrives after
// the request that wrote it was read in full: a streamed one at its first
// chunk, any other at its end. A request sent while the other is still
// being read, or answered but not streamed, gets nothing.
func TestSimulatePromptCacheTiming(t *testing.T) {
	t.Parallel()
	shared := strings.Repeat("x", 4*3000)
	body := func(tail string, stream bool) string {
		b, _ := json.Marshal(map[string]any{"model": "m", "stream": stream, "messages": []map[string]string{
			{"role": "system", "content": shared},
			{"role": "user", "content": "Reviewer: " + tail + "\n" + tail},
		}})
		return string(b)
	}
	for _, tc := range []struct {
		name   string
		stream bool
		// atFirstChunk sends the second request once the first one's
		// response headers (sent with its first chunk) have arrived; else
		// once the server has received the first, plus wait.
		atFirstChunk bool
		wait         time.Duration
		want         int
	}{
		{name: "streamed, at its first chunk", stream: true, atFirstChunk: true, want: 2944},
		{name: "streamed, before its first chunk", stream: true},
		{name: "not streamed, after the time of a first chunk, before its end", wait: 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := llmtest.New()
			defer s.Close()
			s.SimulatePromptCache(true)
			// Wide margins: the machine may be loaded. Before its first
			// chunk is before 1.5 s; a first chunk at 50 ms.
			reply := llmtest.Reply{Content: "{}", FirstToken: 50 * time.Millisecond, Delay: 1500 * time.Millisecond}
			if tc.stream && !tc.atFirstChunk {
				reply.FirstToken = reply.Delay
			}
			s.Script("a", reply)
			first := make(chan *http.Response, 1)
			go func() {
				resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(body("a", tc.stream)))
				if err != nil {
					t.Error(err)
					first <- nil
					return
				}
				first <- resp
			}()
			var resp *http.Response
			if tc.atFirstChunk {
				resp = <-first
			} else {
				for len(s.Requests()) == 0 {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(tc.wait)
			}
			post(t, s.URL+"/v1/chat/completions", body("b", false))
			if resp == nil {
				resp = <-first
			}
			if resp != nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			var got int
			for _, r := range s.Requests() {
				if r.Persona == "b" {
					got = r.CachedTokens
				}
			}
			if got != tc.want {
				t.Errorf("second request cached %d; want %d", got, tc.want)
			}
		})
	}
}

// Verdicts answers a validator request in the shape its schema asks for,
// judging each finding the request shows: the verdict alone for one
// finding, {"verdicts": [...]} tagged F1..Fn for a per-file request.
func TestVerdicts(t *testing.T) {
	t.Parallel()
	fs := []finding.Finding{
		{Title: "Loop reads one past the end", Severity: finding.P1, File: "a.go", Line: 3, Evidence: []string{"for i := 0; i <= n; i++ {"}},
		{Title: "Mean divides by zero", Severity: finding.P2, File: "a.go", Line: 7, Evidence: []string{"return sum / n"}},
	}
	c := prompt.Context{Repo: "o/r", Title: "t", Fence: "f00d"}
	judge := func(f string) string {
		ok := strings.Contains(f, "Loop reads")
		return fmt.Sprintf(`{"validated":%t,"reason":"checked"}`, ok)
	}
	one := llmtest.Request{SchemaName: "validation", Messages: prompt.ForValidator(fs[1], c, "", "m").Messages}
	if got := one.Findings(); len(got) != 1 || !strings.Contains(got[0], "Mean divides by zero") {
		t.Errorf("Findings of a per-finding request: %q; want the one finding", got)
	}
	if got := llmtest.Verdicts(one, judge).Content; got != `{"validated":false,"reason":"checked"}` {
		t.Errorf("per-finding answer %s; want the verdict alone", got)
	}
	file := llmtest.Request{SchemaName: "validations", Messages: prompt.ForValidatorFile(fs, c, "", "m").Messages}
	want := `{"verdicts":[{"finding":"F1","reason":"checked","validated":true},{"finding":"F2","reason":"checked","validated":false}]}`
	if got := llmtest.Verdicts(file, judge).Content; got != want {
		t.Errorf("per-file answer %s; want %s", got, want)
	}
}
