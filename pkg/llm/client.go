package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Values of Config.APIType.
const (
	APITypeAuto   = ""
	APITypeOpenAI = "openai"
	APITypeAzure  = "azure"
)

// Defaults for the zero values of Config.
const (
	DefaultBaseURL         = "https://api.openai.com/v1"
	DefaultUserAgent       = "anchor-review"
	DefaultAzureAPIVersion = "2024-10-21" // the first GA version with json_schema
	DefaultCallTimeout     = 120 * time.Second
	DefaultBudget          = 10 * time.Minute
	DefaultMaxAttempts     = 4
	DefaultBaseDelay       = time.Second
	DefaultMaxDelay        = 30 * time.Second
	DefaultMaxRetryAfter   = 30 * time.Second
)

// Config configures a Client. Zero values take the defaults above.
type Config struct {
	// BaseURL is any OpenAI-compatible endpoint, e.g.
	// "https://api.openai.com/v1" or "http://localhost:8000/v1".
	BaseURL string
	// APIKey is sent as a bearer token (Azure: the api-key header) and is
	// redacted from every error text. Empty sends no credential header.
	APIKey string
	// Azure selects Azure OpenAI; it is also inferred from a BaseURL host
	// under openai.azure.com or cognitiveservices.azure.com unless APIType
	// says otherwise. On Azure the request's Model is the deployment name.
	Azure bool
	// APIType names the request shape: APITypeAuto (Azure by host name),
	// APITypeOpenAI (even on an Azure host: Azure's OpenAI-compatible
	// /openai/v1 endpoint, a gateway in front of Azure) or APITypeAzure
	// (any host: a private endpoint or a proxy under another name).
	APIType string
	// AzureAPIVersion is the api-version query value on Azure.
	AzureAPIVersion string
	// UserAgent is the User-Agent of every request (default
	// DefaultUserAgent; the command line passes "anchor-review/VERSION").
	UserAgent string
	// HTTPClient sends the requests (default: a new http.Client).
	HTTPClient *http.Client
	// CallTimeout bounds one HTTP request; a request that exceeds it fails
	// the call with ErrTimeout and is not retried.
	CallTimeout time.Duration
	// Budget bounds the wall time of everything the client does, from New
	// on; once spent, calls fail with ErrBudget.
	Budget time.Duration
	// MaxAttempts bounds the requests per answer for 429, 5xx and transport
	// errors (the first attempt included).
	MaxAttempts int
	// BaseDelay and MaxDelay shape the exponential backoff with full
	// jitter: retry n sleeps a random time in [0, min(MaxDelay, BaseDelay·2ⁿ)].
	BaseDelay, MaxDelay time.Duration
	// MaxRetryAfter clamps a server's Retry-After / retry-after-ms.
	MaxRetryAfter time.Duration
	// MaxCompletionTokens, when positive, caps each answer's tokens.
	MaxCompletionTokens int
	// Sleep waits between attempts (default: a timer that honours ctx).
	Sleep func(ctx context.Context, d time.Duration) error
	// Schemas are the answer schemas (JSON Schema draft-07) keyed by the
	// name a Request gives in Schema, e.g. prompts.Schemas().
	Schemas map[string][]byte
}

// Client asks an OpenAI-compatible chat-completion endpoint for
// schema-valid answers. It is safe for concurrent use.
type Client struct {
	api      *openai.Client
	cfg      Config
	schemas  *Schemas
	redact   func(string) string
	deadline time.Time

	// jsonObject is set once a server rejects json_schema mode; from then on
	// every request uses json_object mode with the schema in the prompt.
	jsonObject atomic.Bool
	// unreachable holds the ErrUnreachable of the first call whose every
	// attempt failed to connect: later calls return it without a request,
	// so a wrong base-url costs one call's retries, not every persona's.
	unreachable atomic.Pointer[error]
	// probe is closed when the call retrying an endpoint that refused to
	// connect ends; while it is open, other calls that could not connect
	// wait for it instead of retrying on their own (nil: no probe).
	probeMu sync.Mutex
	probe   chan struct{}
	// noStream is set once a server rejects a streamed request; from then
	// on no request streams (Request.OnFirstToken is not called).
	noStream atomic.Bool

	mu    sync.Mutex
	total Usage
	calls int
}

// New returns a Client for cfg.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("llm: base URL %q is not an absolute URL", cfg.BaseURL)
	}
	if len(cfg.Schemas) == 0 {
		return nil, errors.New("llm: no schemas configured")
	}
	switch cfg.APIType {
	case APITypeAzure:
		cfg.Azure = true
	case APITypeOpenAI:
		cfg.Azure = false
	case APITypeAuto:
		cfg.Azure = cfg.Azure || IsAzureURL(cfg.BaseURL)
	default:
		return nil, fmt.Errorf("llm: API type %q is not one of %s, %s", cfg.APIType, APITypeOpenAI, APITypeAzure)
	}
	cfg.CallTimeout = orDefault(cfg.CallTimeout, DefaultCallTimeout)
	cfg.Budget = orDefault(cfg.Budget, DefaultBudget)
	cfg.BaseDelay = orDefault(cfg.BaseDelay, DefaultBaseDelay)
	cfg.MaxDelay = orDefault(cfg.MaxDelay, DefaultMaxDelay)
	cfg.MaxRetryAfter = orDefault(cfg.MaxRetryAfter, DefaultMaxRetryAfter)
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	sch, err := NewSchemas(cfg.Schemas)
	if err != nil {
		return nil, err
	}

	var oc openai.ClientConfig
	if cfg.Azure {
		if cfg.AzureAPIVersion == "" {
			cfg.AzureAPIVersion = DefaultAzureAPIVersion
		}
		// go-openai appends /openai/deployments/{model}; accept a base URL
		// that already ends in /openai.
		base := strings.TrimSuffix(strings.TrimRight(cfg.BaseURL, "/"), "/openai")
		oc = openai.DefaultAzureConfig(cfg.APIKey, base)
		oc.APIVersion = cfg.AzureAPIVersion
		oc.AzureModelMapperFunc = func(model string) string { return model }
	} else {
		oc = openai.DefaultConfig(cfg.APIKey)
		oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	oc.HTTPClient = capturingDoer{hc: cfg.HTTPClient, userAgent: cfg.UserAgent}

	return &Client{
		api:      openai.NewClientWithConfig(oc),
		cfg:      cfg,
		schemas:  sch,
		redact:   redactor(cfg.APIKey),
		deadline: time.Now().Add(cfg.Budget),
	}, nil
}

// IsAzureURL reports whether base is an Azure OpenAI endpoint
// (*.openai.azure.com or *.cognitiveservices.azure.com).
func IsAzureURL(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	return strings.HasSuffix(h, ".openai.azure.com") || strings.HasSuffix(h, ".cognitiveservices.azure.com")
}

// JSONObjectMode reports whether the client has fallen back to JSON-object
// mode because the server rejected JSON-schema mode.
func (c *Client) JSONObjectMode() bool { return c.jsonObject.Load() }

// Total returns the tokens used by every call so far and the number of
// calls (Complete invocations that sent at least one request).
func (c *Client) Total() (Usage, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total, c.calls
}

// Complete asks the model and returns a schema-valid answer. A malformed
// answer gets one repair round; a second one is ErrMalformed.
func (c *Client) Complete(ctx context.Context, r Request) (resp Response, err error) {
	start := time.Now()
	defer func() {
		resp.Wall = time.Since(start)
		if resp.Attempts > 0 {
			c.mu.Lock()
			c.total = c.total.Add(resp.Usage)
			c.calls++
			c.mu.Unlock()
		}
		if err != nil {
			resp.JSON = nil
			// The one "llm:" prefix: the sentinels and the inner errors carry
			// none, and the caller, which knows the persona, names it.
			err = fmt.Errorf("llm: %w", err)
		}
	}()
	comp, err := c.schemas.get(r.Schema)
	if err != nil {
		return resp, err
	}
	if len(r.Messages) == 0 {
		return resp, errors.New("request has no messages")
	}
	if hook := r.OnFirstToken; hook != nil {
		// Once per call: a retry or the repair round streams again.
		var once sync.Once
		r.OnFirstToken = func() { once.Do(hook) }
	}

	content, err := c.exchange(ctx, r, r.Messages, comp, &resp)
	if err != nil {
		return resp, err
	}
	js, first := comp.check(content)
	if first == nil {
		resp.JSON = js
		return resp, nil
	}

	if r.AllowRepair != nil && !r.AllowRepair() {
		return resp, fmt.Errorf("%w: %v (no repair: the caller's call budget is spent)", ErrMalformed, first)
	}
	if content == "" {
		content = "(empty answer)"
	}
	repair := append(append([]Message(nil), r.Messages...),
		Message{Role: RoleAssistant, Content: content},
		Message{Role: RoleUser, Content: repairPrompt(r.Persona, first)},
	)
	content, err = c.exchange(ctx, r, repair, comp, &resp)
	if err != nil {
		return resp, fmt.Errorf("repair after %v: %w", first, err)
	}
	js, second := comp.check(content)
	if second != nil {
		return resp, fmt.Errorf("%w: %v", ErrMalformed, second)
	}
	resp.JSON = js
	resp.Repaired = true
	return resp, nil
}

func repairPrompt(persona string, problem error) string {
	var b strings.Builder
	b.WriteString(PersonaHeader + persona + "\n")
	b.WriteString("Your previous answer does not validate against the required JSON Schema.\n")
	var se *SchemaError
	if errors.As(problem, &se) {
		b.WriteString("Problems:\n")
		for _, p := range se.Problems {
			b.WriteString("- " + p + "\n")
		}
	}
	b.WriteString("Answer again with the complete, corrected JSON object and nothing else.")
	return b.String()
}

// schemaPrompt is appended to the request's final message in JSON-object
// mode, where the server does not enforce the schema.
const schemaPrompt = "\n\nAnswer with one JSON object, and nothing else, that validates against this JSON Schema:\n"

// exchange sends msgs until an answer arrives, retrying transient faults.
// It returns the answer's raw content.
func (c *Client) exchange(ctx context.Context, r Request, msgs []Message, comp *compiled, resp *Response) (string, error) {
	failures, unconnected := 0, 0
	defer c.endProbe(&unconnected)
	for {
		if ctx.Err() != nil {
			return "", context.Cause(ctx)
		}
		if e := c.unreachable.Load(); e != nil {
			return "", *e
		}
		if !time.Now().Before(c.deadline) {
			return "", ErrBudget
		}
		jsonObject := c.jsonObject.Load()
		req := c.chatRequest(r, msgs, comp, jsonObject)
		// Only a request with OnFirstToken streams: send calls it only then.
		stream := r.OnFirstToken != nil && !c.noStream.Load()
		resp.Attempts++
		out, hdr, err := c.send(ctx, req, stream, r.OnFirstToken)
		if err == nil {
			resp.Usage = resp.Usage.Add(usageOf(out.Usage))
			if len(out.Choices) == 0 {
				return "", nil
			}
			return out.Choices[0].Message.Content, nil
		}
		var api *APIError
		isAPI := errors.As(err, &api)
		switch {
		case errors.Is(err, ErrTimeout), errors.Is(err, ErrBudget), ctx.Err() != nil:
			return "", err
		case isAPI && api.quota():
			return "", fmt.Errorf("%w: %w", ErrQuota, err)
		case isAPI && api.rejectsSchemaMode() && !jsonObject:
			// Not a fault of this request: ask again in JSON-object mode,
			// and keep that mode for the client's life (once in it, a
			// second rejection is an ordinary 4xx below).
			c.jsonObject.Store(true)
			continue
		case isAPI && stream && api.rejectsStreaming():
			// Streaming only times a cache warm-up: ask again without it,
			// and never stream again on this client.
			c.noStream.Store(true)
			continue
		case isAPI && api.Status != 0 && api.Status != http.StatusTooManyRequests && api.Status < 500:
			// Status 0 is an error event inside a stream that began with
			// 200: the server's fault after the request was taken, retried
			// below like a 5xx.
			return "", err
		}
		// 429, 5xx, or a transport error: transient.
		if notConnected(err) {
			if wait := c.joinProbe(unconnected); wait != nil {
				// Another call is already finding out whether the endpoint
				// is there: its answer is this call's.
				select {
				case <-wait:
				case <-ctx.Done():
					return "", context.Cause(ctx)
				}
				continue
			}
			unconnected++
		}
		failures++
		if failures >= c.cfg.MaxAttempts {
			if unconnected == failures {
				e := fmt.Errorf("%w: base-url %s: no attempt of %d connected (check base-url, and that the server is up): %w", ErrUnreachable, c.cfg.BaseURL, failures, err)
				c.unreachable.CompareAndSwap(nil, &e)
				return "", *c.unreachable.Load()
			}
			return "", fmt.Errorf("gave up after %d attempts: %w", failures, err)
		}
		d := c.backoff(failures, hdr)
		if time.Now().Add(d).After(c.deadline) {
			return "", fmt.Errorf("%w: retry in %v would pass it: %w", ErrBudget, d, err)
		}
		if d > 0 {
			if serr := c.cfg.Sleep(ctx, d); serr != nil {
				return "", serr
			}
		}
	}
}

func (c *Client) chatRequest(r Request, msgs []Message, comp *compiled, jsonObject bool) openai.ChatCompletionRequest {
	last := len(r.Messages) - 1
	out := make([]openai.ChatCompletionMessage, len(msgs))
	for i, m := range msgs {
		content := m.Content
		if jsonObject && i == last {
			content += schemaPrompt + string(comp.original)
		}
		out[i] = openai.ChatCompletionMessage{Role: m.Role, Content: content}
	}
	req := openai.ChatCompletionRequest{
		Model:               r.Model,
		Messages:            out,
		MaxCompletionTokens: c.cfg.MaxCompletionTokens,
		// Temperature stays unset: go-openai drops 0 (omitempty), and
		// reasoning models refuse anything but their default.
	}
	if jsonObject {
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	} else {
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name:   r.Schema,
				Schema: json.RawMessage(comp.strict),
				Strict: true,
			},
		}
	}
	return req
}

// send makes one HTTP request under the call timeout and the budget,
// streamed when stream is set (see receive). Its error is ErrTimeout,
// ErrBudget, the caller's context error, an *APIError or a redacted
// transport error.
func (c *Client) send(ctx context.Context, req openai.ChatCompletionRequest, stream bool, onFirst func()) (openai.ChatCompletionResponse, http.Header, error) {
	budgetCtx, cancelBudget := context.WithDeadlineCause(ctx, c.deadline, ErrBudget)
	defer cancelBudget()
	callCtx, cancelCall := context.WithTimeoutCause(budgetCtx, c.cfg.CallTimeout, ErrTimeout)
	defer cancelCall()
	got := &captured{stream: stream}
	callCtx = context.WithValue(callCtx, captureKey{}, got)

	var out openai.ChatCompletionResponse
	var err error
	if stream {
		out, err = c.receive(callCtx, req, onFirst)
	} else {
		out, err = c.api.CreateChatCompletion(callCtx, req)
	}
	if err == nil {
		return out, got.header, nil
	}
	if callCtx.Err() != nil {
		cause := context.Cause(callCtx)
		if errors.Is(cause, ErrTimeout) {
			return out, nil, fmt.Errorf("%w after %v", ErrTimeout, c.cfg.CallTimeout)
		}
		return out, nil, cause
	}
	var oe *openai.APIError
	var re *openai.RequestError
	switch {
	case errors.As(err, &oe):
		return out, got.header, c.apiError(&APIError{
			Status:  oe.HTTPStatusCode,
			Code:    c.redact(codeString(oe.Code)),
			Type:    c.redact(oe.Type),
			Message: c.redact(truncate(oe.Message)),
		})
	case errors.As(err, &re):
		return out, got.header, c.apiError(&APIError{
			Status:  re.HTTPStatusCode,
			Message: c.redact(truncate(string(re.Body))),
		})
	}
	return out, got.header, c.safe(err)
}

// apiError adds what to check to an error answer: a 401 is about the key
// (api-key), and without one, that the endpoint wants one.
func (c *Client) apiError(e *APIError) *APIError {
	if e.Status == http.StatusUnauthorized {
		e.Hint = "the endpoint refused the api-key"
		if c.cfg.APIKey == "" {
			e.Hint = "the endpoint wants an api-key, and none was set"
		}
	}
	return e
}

// receive sends req streamed, with the usage asked for in the last chunk,
// calls onFirst at the first chunk, and gathers the chunks into one
// response: the content in order, the usage of the chunk that carries it.
func (c *Client) receive(ctx context.Context, req openai.ChatCompletionRequest, onFirst func()) (openai.ChatCompletionResponse, error) {
	req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	s, err := c.api.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	defer s.Close()
	var out openai.ChatCompletionResponse
	var content strings.Builder
	chose := false
	for {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, err
		}
		onFirst()
		if chunk.Usage != nil {
			out.Usage = *chunk.Usage
		}
		for _, ch := range chunk.Choices {
			if ch.Index == 0 {
				chose = true
				content.WriteString(ch.Delta.Content)
			}
		}
	}
	if chose {
		out.Choices = []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: RoleAssistant, Content: content.String()}}}
	}
	return out, nil
}

// safe returns err, or when its text carries a secret, a new error with the
// redacted text (the original is not wrapped, so it cannot leak through
// errors.Unwrap).
func (c *Client) safe(err error) error {
	msg := err.Error()
	if red := c.redact(msg); red != msg {
		return errors.New(red)
	}
	return err
}

// backoff returns the wait before retry n (1-based): the server's
// Retry-After when it gives a usable one (clamped), else full jitter.
func (c *Client) backoff(n int, hdr http.Header) time.Duration {
	if d, ok := RetryAfter(hdr, time.Now()); ok {
		return min(d, c.cfg.MaxRetryAfter)
	}
	ceil := c.cfg.MaxDelay
	if n-1 < 32 {
		ceil = min(c.cfg.BaseDelay<<(n-1), c.cfg.MaxDelay)
	}
	if ceil <= 0 {
		return 0
	}
	return rand.N(ceil + 1)
}

// RetryAfter reads the wait a 429/5xx answer asks for: retry-after-ms
// (OpenAI, milliseconds) first, then Retry-After as seconds or an HTTP date.
// ok is false when neither is present and usable (negative, not a number,
// not finite); a date in the past means no wait.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if d, ok := parseDuration(v, float64(time.Millisecond)); ok {
			return d, true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if d, ok := parseDuration(v, float64(time.Second)); ok {
		return d, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func parseDuration(v string, unit float64) (time.Duration, bool) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	ns := f * unit
	if ns >= float64(math.MaxInt64) { // 2^63 itself overflows the conversion
		return time.Duration(math.MaxInt64), true
	}
	return time.Duration(ns), true
}

// joinProbe makes this call the one that retries an endpoint that refused
// to connect (nil), or returns the channel of the call already doing so.
// unconnected > 0 means this call is that one.
func (c *Client) joinProbe(unconnected int) <-chan struct{} {
	c.probeMu.Lock()
	defer c.probeMu.Unlock()
	if unconnected > 0 || c.probe == nil {
		if c.probe == nil {
			c.probe = make(chan struct{})
		}
		return nil
	}
	return c.probe
}

// endProbe releases the calls waiting on this one, if it was the probe.
func (c *Client) endProbe(unconnected *int) {
	if *unconnected == 0 {
		return
	}
	c.probeMu.Lock()
	defer c.probeMu.Unlock()
	if c.probe != nil {
		close(c.probe)
		c.probe = nil
	}
}

// notConnected reports whether a request failed before reaching any
// server: the connection was refused or the host name does not resolve.
func notConnected(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns) && dns.IsNotFound
}

func usageOf(u openai.Usage) Usage {
	out := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	if u.PromptTokensDetails != nil {
		out.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	return out
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// captureKey carries a *captured through a request's context so the doer
// can hand the response headers (Retry-After) back; go-openai's errors do
// not carry them.
type captureKey struct{}

type captured struct {
	header http.Header
	// stream: the request asked for a stream. A server that ignores
	// "stream" and answers one whole JSON document (some gateways, small
	// local servers) is read as that answer, not as a broken stream.
	stream bool
}

type capturingDoer struct {
	hc        *http.Client
	userAgent string
}

func (d capturingDoer) Do(req *http.Request) (*http.Response, error) {
	// go-openai sends Go's default User-Agent; the endpoint's operator sees
	// which tool, at which version, is calling.
	req.Header.Set("User-Agent", d.userAgent)
	// With no key, no credential header at all (go-openai sends an empty
	// Azure api-key header): a keyless local server sees no credential.
	if req.Header.Get("api-key") == "" {
		req.Header.Del("api-key")
	}
	resp, err := d.hc.Do(req)
	if c, ok := req.Context().Value(captureKey{}).(*captured); ok && resp != nil {
		c.header = resp.Header.Clone()
		if c.stream && resp.StatusCode == http.StatusOK && isJSON(resp.Header) {
			resp.Body = asStream(resp.Body)
		}
	}
	return resp, err
}

// isJSON reports whether a response says its body is one JSON document
// (not text/event-stream).
func isJSON(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// maxWholeAnswer bounds the whole answer read when a server answers a
// streamed request without streaming.
const maxWholeAnswer = 32 << 20

// asStream turns a whole chat-completion answer into the one chunk and the
// [DONE] line of an event stream, so go-openai's stream reader returns it:
// its content as the delta, its usage with it. A body that is no answer
// passes through as it came, for the reader to report.
func asStream(body io.ReadCloser) io.ReadCloser {
	defer body.Close()
	raw, err := io.ReadAll(io.LimitReader(body, maxWholeAnswer))
	var whole openai.ChatCompletionResponse
	if err != nil || json.Unmarshal(raw, &whole) != nil || len(whole.Choices) == 0 {
		return io.NopCloser(bytes.NewReader(raw))
	}
	chunk := openai.ChatCompletionStreamResponse{ID: whole.ID, Object: "chat.completion.chunk", Created: whole.Created, Model: whole.Model}
	for _, ch := range whole.Choices {
		chunk.Choices = append(chunk.Choices, openai.ChatCompletionStreamChoice{
			Index:        ch.Index,
			Delta:        openai.ChatCompletionStreamChoiceDelta{Role: ch.Message.Role, Content: ch.Message.Content},
			FinishReason: ch.FinishReason,
		})
	}
	if whole.Usage.TotalTokens > 0 || whole.Usage.PromptTokens > 0 {
		u := whole.Usage
		chunk.Usage = &u
	}
	b, _ := json.Marshal(chunk) // a value decoded from JSON encodes again
	return io.NopCloser(strings.NewReader("data: " + string(b) + "\n\ndata: [DONE]\n\n"))
}
