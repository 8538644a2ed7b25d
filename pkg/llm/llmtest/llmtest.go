// Package llmtest is a fake OpenAI-compatible chat-completion server for
// tests and the offline demo. It serves /chat/completions,
// /v1/chat/completions and Azure's
// /openai/deployments/{deployment}/chat/completions?api-version=…, answers
// each persona from a script of Replies (or a default handler), records
// every request, tracks peak concurrency, and validates every request body
// against OpenAI's published CreateChatCompletionRequest schema: an
// invalid body gets a 400 and is listed by Violations, so tests can assert
// the client never sends one.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/xeipuuv/gojsonschema"
)

// RequestSchemaFile is OpenAI's published request/response schema, copied
// into fixtures/openai.
const RequestSchemaFile = "openai/chat-completions.schema.json"

// Usage is the usage a Reply reports. CachedTokens nil leaves
// prompt_tokens_details out, as some compatible servers do.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	CachedTokens     *int
}

// Reply is one scripted answer.
type Reply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Headers are set on the response (e.g. Retry-After).
	Headers map[string]string
	// Body, when set, is written raw instead of a chat completion (an
	// error body, or garbage).
	Body string
	// Content is the model's message content in a 200 chat completion.
	Content string
	// Delay holds the answer back (the request's context cancels it): a
	// streamed answer ends after Delay.
	Delay time.Duration
	// FirstToken is when a streamed answer's first chunk is sent (the
	// provider has read the whole prompt); 0, or more than Delay, sends
	// the whole stream at Delay. A request that does not stream ignores it.
	FirstToken time.Duration
	// Usage overrides the computed usage.
	Usage *Usage
	// Whole answers a streamed request with one whole JSON answer, as a
	// server that ignores "stream" does.
	Whole bool
	// StreamError, when set, ends a streamed answer after its first piece
	// of content with an error event of this message (type server_error),
	// the way providers report a fault once the stream has begun.
	StreamError string
}

// Request is one request the server received.
type Request struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
	// Persona is read from the final message's "Reviewer: <name>" line.
	Persona string
	Model   string
	// Deployment and APIVersion are set for Azure-shaped paths.
	Deployment, APIVersion string
	// ResponseFormat is response_format.type ("json_schema", "json_object"
	// or ""); SchemaName and Strict come from its json_schema member.
	ResponseFormat string
	SchemaName     string
	Strict         bool
	// Schema is the response format's schema, raw.
	Schema json.RawMessage
	// Stream is the request's "stream"; IncludeUsage its
	// stream_options.include_usage (usage in a last chunk of its own).
	Stream, IncludeUsage bool
	Messages             []llm.Message
	// PromptTokens is the request's prompt as a provider bills it: the
	// response schema and the messages (role and content, decoded), at four
	// bytes a token. The JSON envelope and its escapes (a tab sent as \t, a
	// "<" as \u003c) are not the prompt and do not count.
	PromptTokens int
	// CachedTokens is the simulated cached prefix of the request, in
	// tokens, when the prompt-cache simulation is on (SimulatePromptCache).
	CachedTokens int
}

// Server is the fake model endpoint. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to give a client (OpenAI-style paths work with
	// and without /v1; for Azure give URL itself as the base).
	URL string

	srv    *httptest.Server
	schema *gojsonschema.Schema

	mu            sync.Mutex
	scripts       map[string][]Reply
	def           func(Request) Reply
	rejectSchema  bool
	requests      []Request
	violations    []string
	inFlight, max int
	seq           int
	// cache holds the prompt text of every answered request when the
	// prompt-cache simulation is on (nil when off).
	cache []string
}

// New starts a Server; Close stops it. It panics if the embedded OpenAI
// schema fixture is missing or does not compile (a build defect).
func New() *Server {
	s := &Server{scripts: map[string][]Reply{}, schema: requestSchema()}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Handler is the server's handler, for a client that serves requests in
// memory (internal/memhttp).
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.handle) }

// Client returns an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Script queues replies for a persona (or "validator"); each request from
// it takes the next one. After the queue runs dry the default handler
// answers.
func (s *Server) Script(persona string, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[persona] = append(s.scripts[persona], replies...)
}

// SetDefault sets the handler for requests without a scripted reply. Without
// one the server answers with an empty, schema-valid answer (see
// DefaultContent).
func (s *Server) SetDefault(h func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = h
}

// SimulatePromptCache turns on a provider-style prompt cache: a request's
// cached_tokens is the longest prefix of its response schema (OpenAI puts
// a structured-output schema before the system message) and messages
// (role and content, in order) that it shares with a request whose prompt
// had been read in full BEFORE it arrived: a streamed request's at its
// first chunk, any other's when its answer was sent. It is counted at
// four bytes a token in whole blocks of 128 tokens and only from 1,024
// tokens on, as OpenAI documents its automatic caching. Calls in flight
// together therefore share nothing, as with a real provider. Only a
// request answered 200 writes the cache.
func (s *Server) SimulatePromptCache(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache = nil
	if on {
		s.cache = []string{}
	}
}

// Cache simulation units (OpenAI's documented automatic prompt caching).
const (
	cacheMinTokens   = 1024
	cacheBlockTokens = 128
)

// PromptText is the messages as a provider tokenizes and caches them, in
// order, role then content: what the cache simulation compares.
func PromptText(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role)
		b.WriteByte('\n')
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

// CachedTokens is the simulated cached prefix of text after the earlier
// prompts in cache, in tokens: the rule SimulatePromptCache applies, exported
// so a test can predict the figures a run will report.
func CachedTokens(cache []string, text string) int {
	best := 0
	for _, c := range cache {
		n := min(len(c), len(text))
		i := 0
		for i < n && c[i] == text[i] {
			i++
		}
		best = max(best, i)
	}
	tokens := best / 4 / cacheBlockTokens * cacheBlockTokens
	if tokens < cacheMinTokens {
		return 0
	}
	return tokens
}

// RejectJSONSchema makes the server refuse response_format json_schema with
// a 400 naming response_format, as servers without structured outputs do.
func (s *Server) RejectJSONSchema(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejectSchema = on
}

// Requests returns every request received, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// RequestsFor returns the requests a persona made.
func (s *Server) RequestsFor(persona string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Persona == persona {
			out = append(out, r)
		}
	}
	return out
}

// Violations lists requests that broke the protocol: a body that fails
// OpenAI's request schema, an unknown path, an Azure path without
// api-version, or a final message without the persona header.
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.violations...)
}

// MaxInFlight returns the peak number of requests served at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max
}

// Fault and answer helpers.

// OK answers with content.
func OK(content string) Reply { return Reply{Content: content} }

// RateLimited is a 429 with Retry-After (seconds or an HTTP date).
func RateLimited(retryAfter string) Reply {
	return Reply{
		Status:  http.StatusTooManyRequests,
		Headers: map[string]string{"Retry-After": retryAfter},
		Body:    errorBody("Rate limit reached for requests. Please try again later.", "requests", "rate_limit_exceeded", ""),
	}
}

// RateLimitedMs is a 429 with OpenAI's retry-after-ms header.
func RateLimitedMs(ms string) Reply {
	r := RateLimited("")
	r.Headers = map[string]string{"retry-after-ms": ms}
	return r
}

// Quota is the billing 429 that must never be retried.
func Quota() Reply {
	return Reply{
		Status: http.StatusTooManyRequests,
		Body: errorBody("You exceeded your current quota, please check your plan and billing details.",
			"insufficient_quota", "insufficient_quota", ""),
	}
}

// Unauthorized is the 401 of a bad or revoked key.
func Unauthorized() Reply {
	return Reply{Status: http.StatusUnauthorized, Body: errorBody("Incorrect API key provided: sk-proj-****abcd.", "invalid_request_error", "invalid_api_key", "")}
}

// ModelNotFound is the 404 of a model (or deployment) the endpoint lacks.
func ModelNotFound() Reply {
	return Reply{Status: http.StatusNotFound, Body: errorBody("The model `gpt-nonexistent` does not exist or you do not have access to it.", "invalid_request_error", "model_not_found", "model")}
}

// ServerError is a 500.
func ServerError() Reply {
	return Reply{
		Status: http.StatusInternalServerError,
		Body:   errorBody("The server had an error while processing your request. Sorry about that!", "server_error", "", ""),
	}
}

// BadRequest is a 400 that is not about the response format.
func BadRequest(message string) Reply {
	return Reply{Status: http.StatusBadRequest, Body: errorBody(message, "invalid_request_error", "", "")}
}

// SchemaModeRejected is the 400 a server without structured outputs gives
// for response_format json_schema.
func SchemaModeRejected() Reply {
	return Reply{
		Status: http.StatusBadRequest,
		Body: errorBody("Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
			"invalid_request_error", "", "response_format"),
	}
}

// Malformed answers with content that parses as JSON but breaks the
// findings schema (a float confidence).
func Malformed() Reply {
	return OK(`Here you go: {"reviewer":"x","findings":[{"title":"t","severity":"P1","file":"a.go","line":1,` +
		`"why_it_matters":"w","autofix_class":"manual","owner":"human","requires_verification":true,` +
		`"confidence":0.85,"evidence":["e"],"pre_existing":false}],"residual_risks":[],"testing_gaps":[]}`)
}

// DefaultContent is the schema-valid empty answer the server gives without
// a script: a validation rejection for the validator, no findings otherwise.
func DefaultContent(r Request) string {
	if r.SchemaName == "validations" {
		return `{"verdicts":[]}`
	}
	if r.SchemaName == "validation" || r.Persona == llm.Validator {
		return `{"validated":false,"reason":"no scripted answer"}`
	}
	b, _ := json.Marshal(map[string]any{
		"reviewer": r.Persona, "findings": []any{}, "residual_risks": []any{}, "testing_gaps": []any{},
	})
	return string(b)
}

// findingBlock is a finding as a validator request shows it: after "## The
// finding" (one finding's request) or "### F<n>" (a per-file request), a
// data fence around its JSON.
var findingBlock = regexp.MustCompile(`(?s)(?:## The finding|### F\d+)\n\n(?:[^\n]*\n\n)?<<<DATA-[0-9A-Za-z]+\n(.*?)\nDATA-[0-9A-Za-z]+>>>`)

// Findings returns the findings a validator request asks about, in order,
// each as the JSON text the request shows: one for a per-finding request
// (schema "validation"), F1..Fn for a per-file one ("validations").
func (r Request) Findings() []string {
	var out []string
	for _, m := range r.Messages {
		for _, b := range findingBlock.FindAllStringSubmatch(m.Content, -1) {
			out = append(out, b[1])
		}
	}
	return out
}

// Verdicts answers a validator request with judge's verdict on each of its
// findings (a JSON object: validated, reason, optionally severity), given
// the finding's JSON: the verdict alone for a per-finding request, and for
// a per-file one {"verdicts": [...]} with each tagged by its id (F1, F2,
// ...), as the "validations" schema asks. In JSON-object mode, which names
// no schema, a request whose findings are numbered is a per-file one.
func Verdicts(r Request, judge func(finding string) string) Reply {
	fs := r.Findings()
	perFile := r.SchemaName == "validations"
	if r.SchemaName == "" {
		for _, m := range r.Messages {
			perFile = perFile || strings.Contains(m.Content, "\n### F1\n")
		}
	}
	if !perFile {
		f := ""
		if len(fs) > 0 {
			f = fs[0]
		}
		return OK(judge(f))
	}
	var vs []map[string]any
	for i, f := range fs {
		var v map[string]any
		if err := json.Unmarshal([]byte(judge(f)), &v); err != nil {
			return BadRequest("llmtest: a verdict is not a JSON object: " + err.Error())
		}
		v["finding"] = fmt.Sprintf("F%d", i+1)
		vs = append(vs, v)
	}
	b, _ := json.Marshal(map[string]any{"verdicts": vs})
	return OK(string(b))
}

func errorBody(message, typ, code, param string) string {
	nullable := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": typ, "code": nullable(code), "param": nullable(param),
	}})
	return string(b)
}

var azurePath = regexp.MustCompile(`^/openai/deployments/([^/]+)/chat/completions$`)

func (s *Server) handle(w http.ResponseWriter, hr *http.Request) {
	s.mu.Lock()
	s.inFlight++
	s.max = max(s.max, s.inFlight)
	s.seq++
	seq := s.seq
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()

	body, err := io.ReadAll(hr.Body)
	if err != nil {
		// The client gave up while sending (a cancelled call): nothing
		// arrived to answer or to judge.
		return
	}
	req := Request{Method: hr.Method, Path: hr.URL.Path, Query: hr.URL.RawQuery, Header: hr.Header.Clone(), Body: body}
	var problems []string
	switch m := azurePath.FindStringSubmatch(hr.URL.Path); {
	case hr.URL.Path == "/chat/completions" || hr.URL.Path == "/v1/chat/completions":
	case m != nil:
		req.Deployment = m[1]
		req.APIVersion = hr.URL.Query().Get("api-version")
		if req.APIVersion == "" {
			problems = append(problems, "azure path without api-version")
		}
	default:
		problems = append(problems, "unknown path "+hr.URL.Path)
	}
	if hr.Method != http.MethodPost {
		problems = append(problems, "method "+hr.Method)
	}
	problems = append(problems, s.validate(body)...)
	parse(&req)
	if req.Persona == "" {
		problems = append(problems, "final message does not start with "+strings.TrimSpace(llm.PersonaHeader))
	}

	text := req.SchemaName + "\n" + string(req.Schema) + "\n" + PromptText(req.Messages)
	req.PromptTokens = len(text)/4 + 1
	s.mu.Lock()
	simulate := s.cache != nil
	var cached int
	if simulate {
		cached = CachedTokens(s.cache, text)
		req.CachedTokens = cached
	}
	s.requests = append(s.requests, req)
	for _, p := range problems {
		s.violations = append(s.violations, fmt.Sprintf("request %d: %s", seq, p))
	}
	reject := s.rejectSchema && req.ResponseFormat == "json_schema"
	s.mu.Unlock()

	var reply Reply
	switch {
	case len(problems) > 0:
		reply = BadRequest("invalid request: " + strings.Join(problems, "; "))
	case reject:
		reply = SchemaModeRejected()
	default:
		reply = s.next(req)
	}

	ok := reply.Body == "" && (reply.Status == 0 || reply.Status == http.StatusOK)
	if simulate && ok && reply.Usage == nil {
		u := Usage{PromptTokens: req.PromptTokens, CompletionTokens: len(reply.Content)/4 + 1}
		u.CachedTokens = &cached
		reply.Usage = &u
	}
	if req.Stream && ok && !reply.Whole {
		s.stream(w, hr, seq, req, reply, text)
		return
	}
	if !wait(hr, reply.Delay) {
		return
	}
	for k, v := range reply.Headers {
		if v != "" {
			w.Header().Set(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if !ok {
		io.WriteString(w, reply.Body)
		return
	}
	if simulate {
		s.remember(text)
	}
	json.NewEncoder(w).Encode(completion(seq, req, reply))
}

// wait holds an answer back for d; false when the client gave up first.
func wait(hr *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-hr.Context().Done():
		return false
	case <-t.C:
		return true
	}
}

// remember adds a prompt, read in full, to the simulated cache.
func (s *Server) remember(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache != nil {
		s.cache = append(s.cache, text)
	}
}

// stream answers a "stream": true request as OpenAI does: server-sent
// events, each a "data: " line holding a chat.completion.chunk and a blank
// line; the first chunk (the assistant role, empty content) at
// reply.FirstToken, the content in pieces and a chunk with the
// finish_reason at reply.Delay, then with stream_options.include_usage a
// chunk with no choices and the usage (every earlier chunk says "usage":
// null), and "data: [DONE]". The prompt enters the simulated cache with the
// first chunk: the provider has read it in full by then.
func (s *Server) stream(w http.ResponseWriter, hr *http.Request, seq int, req Request, reply Reply, text string) {
	first := reply.FirstToken
	if first <= 0 || first > reply.Delay {
		first = reply.Delay
	}
	if !wait(hr, first) {
		return
	}
	for k, v := range reply.Headers {
		if v != "" {
			w.Header().Set(k, v)
		}
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	model := req.Model
	if model == "" {
		model = req.Deployment
	}
	created := time.Now().Unix()
	send := func(choices []any, usage any) {
		chunk := map[string]any{
			"id": fmt.Sprintf("chatcmpl-llmtest%06d", seq), "object": "chat.completion.chunk", "created": created,
			"model": model, "service_tier": "default", "system_fingerprint": "fp_llmtest", "choices": choices,
		}
		if req.IncludeUsage {
			chunk["usage"] = usage
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": finish}}
	}
	// Cached before the chunk is sent: a client that starts its next
	// request on it must find the prefix.
	s.remember(text)
	send(delta(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil), nil)
	if !wait(hr, reply.Delay-first) {
		return
	}
	const piece = 256 // bytes of content per chunk; split on rune boundaries
	for rest := reply.Content; rest != ""; {
		n := min(piece, len(rest))
		for n < len(rest) && !utf8.RuneStart(rest[n]) {
			n++
		}
		send(delta(map[string]any{"content": rest[:n]}, nil), nil)
		rest = rest[n:]
		if reply.StreamError != "" {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": reply.StreamError, "type": "server_error", "param": nil, "code": nil}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			return
		}
	}
	send(delta(map[string]any{}, "stop"), nil)
	if req.IncludeUsage {
		send([]any{}, completion(seq, req, reply)["usage"])
	}
	io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

func (s *Server) next(req Request) Reply {
	s.mu.Lock()
	q := s.scripts[req.Persona]
	if len(q) > 0 {
		s.scripts[req.Persona] = q[1:]
		s.mu.Unlock()
		return q[0]
	}
	def := s.def
	s.mu.Unlock()
	if def != nil {
		return def(req)
	}
	return OK(DefaultContent(req))
}

// parse fills the request's decoded fields; a body that does not decode
// leaves them empty (validate has reported it).
func parse(req *Request) {
	var b struct {
		Model         string `json:"model"`
		Messages      []llm.Message
		Stream        bool `json:"stream"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		ResponseFormat *struct {
			Type       string `json:"type"`
			JSONSchema *struct {
				Name   string          `json:"name"`
				Strict bool            `json:"strict"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if json.Unmarshal(req.Body, &b) != nil {
		return
	}
	req.Model = b.Model
	req.Messages = b.Messages
	req.Stream = b.Stream
	req.IncludeUsage = b.StreamOptions != nil && b.StreamOptions.IncludeUsage
	if rf := b.ResponseFormat; rf != nil {
		req.ResponseFormat = rf.Type
		if js := rf.JSONSchema; js != nil {
			req.SchemaName, req.Strict, req.Schema = js.Name, js.Strict, js.Schema
		}
	}
	if n := len(b.Messages); n > 0 {
		first, _, _ := strings.Cut(b.Messages[n-1].Content, "\n")
		if name, ok := strings.CutPrefix(first, llm.PersonaHeader); ok {
			req.Persona = strings.TrimSpace(name)
		}
	}
}

func (s *Server) validate(body []byte) []string {
	res, err := s.schema.Validate(gojsonschema.NewBytesLoader(body))
	if err != nil {
		return []string{"body is not JSON: " + err.Error()}
	}
	var out []string
	for _, e := range res.Errors() {
		out = append(out, "schema: "+e.String())
	}
	return out
}

// completion builds a chat.completion in the shape OpenAI documents.
func completion(seq int, req Request, reply Reply) map[string]any {
	u := Usage{PromptTokens: req.PromptTokens, CompletionTokens: len(reply.Content)/4 + 1, CachedTokens: new(int)}
	if reply.Usage != nil {
		u = *reply.Usage
	}
	usage := map[string]any{
		"prompt_tokens":     u.PromptTokens,
		"completion_tokens": u.CompletionTokens,
		"total_tokens":      u.PromptTokens + u.CompletionTokens,
		"completion_tokens_details": map[string]any{
			"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
		},
	}
	if u.CachedTokens != nil {
		usage["prompt_tokens_details"] = map[string]any{"cached_tokens": *u.CachedTokens, "audio_tokens": 0}
	}
	model := req.Model
	if model == "" {
		model = req.Deployment
	}
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest%06d", seq),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   model,
		"choices": []any{map[string]any{
			"index": 0,
			"message": map[string]any{
				"role": "assistant", "content": reply.Content, "refusal": nil, "annotations": []any{},
			},
			"logprobs":      nil,
			"finish_reason": "stop",
		}},
		"usage":        usage,
		"service_tier": "default",
	}
}

// Definition returns a schema document whose root is the named definition
// of OpenAI's schema fixture (e.g. "CreateChatCompletionResponse").
func Definition(name string) ([]byte, error) {
	b, err := fixtures.FS.ReadFile(RequestSchemaFile)
	if err != nil {
		return nil, fmt.Errorf("llmtest: %w", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("llmtest: parse %s: %w", RequestSchemaFile, err)
	}
	defs, _ := doc["definitions"].(map[string]any)
	if _, ok := defs[name]; !ok {
		return nil, fmt.Errorf("llmtest: %s has no definition %s", RequestSchemaFile, name)
	}
	return json.Marshal(map[string]any{
		"$schema":     doc["$schema"],
		"definitions": defs,
		"allOf":       []any{map[string]any{"$ref": "#/definitions/" + name}},
	})
}

func requestSchema() *gojsonschema.Schema {
	doc, err := Definition("CreateChatCompletionRequest")
	if err != nil {
		panic(err)
	}
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(doc))
	if err != nil {
		panic(fmt.Sprintf("llmtest: compile %s: %v", RequestSchemaFile, err))
	}
	return s
}
