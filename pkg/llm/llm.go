// Package llm asks a chat-completion model for answers that must validate
// against a JSON Schema, and gives back only schema-valid JSON.
//
// A [Client] talks to any OpenAI-compatible endpoint through go-openai,
// including Azure OpenAI. Each [Request] names the schema its answer must
// follow ("findings" or "validation"); the caller supplies the schema
// documents in [Config].Schemas, keyed by name (prompts.Schemas() returns
// them), because this package imports nothing from the rest of the module.
// The model is asked in strict JSON-schema mode, with a strict-mode schema
// derived from the original by [StrictSchema]; a server that rejects that
// mode is asked in JSON-object mode with the schema in the prompt from then
// on. Answers are parsed leniently ([ExtractJSON]) and validated strictly
// against the original schema; one repair round sends the validation errors
// back, and a second failure is [ErrMalformed].
//
// Faults: 429 and 5xx answers and transport errors are retried with
// exponential backoff and full jitter, honouring Retry-After and
// retry-after-ms (clamped); a quota 429 is [ErrQuota] and other 4xx are
// never retried; each HTTP request has a timeout ([ErrTimeout]) and the
// client as a whole a time budget ([ErrBudget]). Error texts never carry the
// API key.
//
// A [Replay] answers from recorded cassettes (JSONL, one entry a line) and
// [NewRecorder] writes them; both speak [Completer], like the Client.
package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"
)

// PersonaHeader starts the final message of every request, followed by the
// persona name ("Reviewer: correctness"), so logs and the fake model server
// can tell who is asking.
const PersonaHeader = "Reviewer: "

// Validator is the Persona of Stage 5b validation requests.
const Validator = "validator"

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Chat roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Request is one question to the model.
type Request struct {
	// Persona is the persona name, or Validator.
	Persona string
	// Schema names the schema the answer must follow ("findings",
	// "validation"); it is also the response format's name.
	Schema string
	// Model is the model (on Azure, the deployment) to ask.
	Model string
	// Messages are sent in order; the last starts with PersonaHeader.
	Messages []Message
	// Fence is the random per-run token that fences untrusted data in the
	// messages; RequestKey replaces it so keys are stable across runs.
	Fence string
	// Key is a stable hash of the asked data (see Key); empty means
	// RequestKey computes it from the messages.
	Key string
	// Label is free text a Recorder writes next to the answer, never sent
	// to the model: pkg/prompt sets the persona name, or "file:line" of
	// the finding for the validator, "file:line,line,..." (each finding's
	// line in turn) for a per-file validator request.
	Label string
	// AllowRepair, when set, is asked before the one repair request of a
	// malformed answer; false skips the repair and the call fails with
	// ErrMalformed. Callers use it to keep a hard cap on requests.
	AllowRepair func() bool `json:"-"`
	// OnFirstToken, when set, makes the Client stream the answer (with
	// stream_options.include_usage, so the usage still arrives) and call it
	// once, at the first chunk of the first answer: by then the endpoint
	// has read the whole prompt, which is when a provider's prompt cache
	// can serve its prefix to other requests. It may never be called (an
	// error before any chunk, a server without streaming, a Replay): a
	// caller waiting on it waits for Complete to return too.
	OnFirstToken func() `json:"-"`
}

// Usage counts tokens.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CachedTokens     int `json:"cached_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Add returns the field-wise sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CachedTokens:     u.CachedTokens + v.CachedTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
	}
}

// Response is a schema-valid answer.
type Response struct {
	// JSON is the answer, compact, validated against the request's schema.
	JSON []byte
	// Usage sums the tokens of every request the call made.
	Usage Usage
	// Attempts counts the HTTP requests the call made (retries, the
	// JSON-object fallback and the repair included); 0 for a replay.
	Attempts int
	// Repaired is true when the first answer was malformed and the repair
	// round produced the valid one.
	Repaired bool
	// Wall is the call's elapsed time, sleeps included.
	Wall time.Duration
}

// Completer answers requests; *Client and *Replay implement it.
type Completer interface {
	Complete(ctx context.Context, r Request) (Response, error)
}

// Errors callers tell apart with errors.Is. They carry no "llm:" prefix:
// Client.Complete adds it once to every error it returns.
var (
	// ErrMalformed: the answer failed the schema, also after one repair.
	ErrMalformed = errors.New("malformed answer")
	// ErrQuota: the endpoint refused for billing or quota; never retried.
	ErrQuota = errors.New("quota exhausted")
	// ErrBudget: the client's total time budget is spent.
	ErrBudget = errors.New("time budget exhausted")
	// ErrTimeout: one HTTP request took longer than Config.CallTimeout.
	ErrTimeout = errors.New("call timed out")
	// ErrUnreachable: no attempt of a call reached the endpoint (connection
	// refused, or its host not found): base-url is wrong or the server is
	// down. Fatal; once seen, the client's later calls fail at once.
	ErrUnreachable = errors.New("the model endpoint cannot be reached")
	// ErrNoAnswer: a Replay has no recorded answer for the request.
	ErrNoAnswer = errors.New("no recorded answer")
)

// Key returns a stable identifier of the asked data: the lowercase hex of
// the SHA-256 of parts joined by "\x00", first 24 characters.
func Key(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])[:24]
}

// RequestKey returns r.Key, or when it is empty the Key of the messages'
// roles and contents in order, with r.Fence replaced by "FENCE" so the key
// does not change from run to run.
func RequestKey(r Request) string {
	if r.Key != "" {
		return r.Key
	}
	parts := make([]string, 0, 2*len(r.Messages))
	for _, m := range r.Messages {
		c := m.Content
		if r.Fence != "" {
			c = strings.ReplaceAll(c, r.Fence, "FENCE")
		}
		parts = append(parts, m.Role, c)
	}
	return Key(parts...)
}
