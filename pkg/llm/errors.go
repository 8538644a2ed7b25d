package llm

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"
)

// APIError is an error answer from the endpoint, with every secret
// redacted from its text.
type APIError struct {
	Status  int    // HTTP status
	Code    string // the error's code (or empty)
	Type    string // the error's type (or empty)
	Message string // the server's message, redacted and truncated
	// Hint says what to check, in our words (a 401 names api-key).
	Hint string
}

// Error describes the answer: status, code and type, the redacted message.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "http %d %s", e.Status, http.StatusText(e.Status))
	if e.Code != "" || e.Type != "" {
		fmt.Fprintf(&b, " (%s)", strings.Trim(e.Code+" "+e.Type, " "))
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return b.String()
}

func (e *APIError) quota() bool {
	if e.Status != http.StatusTooManyRequests {
		return false
	}
	return e.Code == "insufficient_quota" || e.Type == "insufficient_quota" ||
		(e.Code == "" && e.Type == "" && strings.Contains(e.Message, "insufficient_quota"))
}

// rejectsSchemaMode: a 400 that names the response format, the way servers
// without structured outputs refuse json_schema.
func (e *APIError) rejectsSchemaMode() bool {
	if e.Status != http.StatusBadRequest {
		return false
	}
	s := strings.ToLower(e.Message + " " + e.Code + " " + e.Type)
	return strings.Contains(s, "response_format") || strings.Contains(s, "json_schema")
}

// rejectsStreaming: a 400 that names streaming or its options, the way a
// server without streaming (or without stream_options) refuses it.
func (e *APIError) rejectsStreaming() bool {
	if e.Status != http.StatusBadRequest {
		return false
	}
	return strings.Contains(strings.ToLower(e.Message+" "+e.Code+" "+e.Type), "stream")
}

const redacted = "[REDACTED]"

// Credential shapes a server echoing request headers would show, beyond
// the configured key itself: an Authorization value, an api-key header
// value, an OpenAI-style secret key.
var (
	authValue   = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}`)
	apiKeyValue = regexp.MustCompile(`(?i)(api[-_]key["']?\s*[:=]\s*["']?)[^\s"',;}\]]+`)
	secretKey   = regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`)
)

func redactor(key string) func(string) string {
	return func(s string) string {
		if key != "" {
			s = strings.ReplaceAll(s, key, redacted)
		}
		s = authValue.ReplaceAllString(s, "${1} "+redacted)
		s = apiKeyValue.ReplaceAllString(s, "${1}"+redacted)
		return secretKey.ReplaceAllString(s, redacted)
	}
}

// maxMessage bounds a server message kept in an error.
const maxMessage = 1000

func truncate(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func codeString(code any) string {
	switch c := code.(type) {
	case nil:
		return ""
	case string:
		return c
	case float64:
		return fmt.Sprintf("%g", c)
	}
	return fmt.Sprint(code)
}

// Fatal reports whether err means the endpoint refuses the whole run, so
// no other call can succeed either: a bad or missing key (401), a key
// without access (403), an unknown model or deployment (404), or no quota
// (ErrQuota), or no endpoint at base-url (ErrUnreachable). The review stops
// at the first one.
func Fatal(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrQuota) || errors.Is(err, ErrUnreachable) {
		return true
	}
	var api *APIError
	if errors.As(err, &api) {
		switch api.Status {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
			return true
		}
	}
	return false
}
