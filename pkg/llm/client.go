package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
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
	// redacted from every error text.
	APIKey string
	// Azure selects Azure OpenAI; it is also inferred from a BaseURL host
	// under openai.azure.com or cognitiveservices.azure.com. On Azure the
	// request's Model is the deployment name.
	Azure bool
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
	if IsAzureURL(cfg.BaseURL) {
		cfg.Azure = true
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
	failures := 0
	onFirst := func() {
		if r.OnFirstToken != nil {
			r.OnFirstToken()
		}
	}
	for {
		if ctx.Err() != nil {
			return "", context.Cause(ctx)
		}
		if !time.Now().Before(c.deadline) {
			return "", ErrBudget
		}
		jsonObject := c.jsonObject.Load()
		req := c.chatRequest(r, msgs, comp, jsonObject)
		stream := r.OnFirstToken != nil && !c.noStream.Load()
		resp.Attempts++
		out, hdr, err := c.send(ctx, req, stream, onFirst)
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
		case isAPI && api.Status != http.StatusTooManyRequests && api.Status < 500:
			return "", err
		}
		// 429, 5xx, or a transport error: transient.
		failures++
		if failures >= c.cfg.MaxAttempts {
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
	got := &captured{}
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
		return out, got.header, &APIError{
			Status:  oe.HTTPStatusCode,
			Code:    c.redact(codeString(oe.Code)),
			Type:    c.redact(oe.Type),
			Message: c.redact(truncate(oe.Message)),
		}
	case errors.As(err, &re):
		return out, got.header, &APIError{
			Status:  re.HTTPStatusCode,
			Message: c.redact(truncate(string(re.Body))),
		}
	}
	return out, got.header, c.safe(err)
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

type captured struct{ header http.Header }

type capturingDoer struct {
	hc        *http.Client
	userAgent string
}

func (d capturingDoer) Do(req *http.Request) (*http.Response, error) {
	// go-openai sends Go's default User-Agent; the endpoint's operator sees
	// which tool, at which version, is calling.
	req.Header.Set("User-Agent", d.userAgent)
	resp, err := d.hc.Do(req)
	if c, ok := req.Context().Value(captureKey{}).(*captured); ok && resp != nil {
		c.header = resp.Header.Clone()
	}
	return resp, err
}
