package cli

import (
	"io"
	"net/http"
	"time"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/version"
	"github.com/anchor-review/anchor-review/prompts"
)

// Factory is what every command receives from the one place that builds
// the real dependencies (Main): the environment, the terminal, the HTTP
// client and the clock. A test builds one with fakes and calls Run, so the
// commands reach the fake GitHub and the fake model server through the
// same seams as production.
type Factory struct {
	// Getenv reads the environment (never the process's in tests).
	Getenv func(string) string
	// Stdout and Stderr are the terminal.
	Stdout, Stderr io.Writer
	// HTTPClient sends every request to GitHub and to the model endpoint;
	// nil builds the production transports (newGitHub, newModel).
	HTTPClient *http.Client
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// now is the factory's clock.
func (f *Factory) now() time.Time {
	if f.Now == nil {
		return time.Now()
	}
	return f.Now()
}

// newGitHub builds the real GitHub client. apiURL may be a GitHub
// Enterprise Server URL ending in /api/v3/.
func newGitHub(httpClient *http.Client, apiURL, token string) (*github.Client, error) {
	if httpClient == nil {
		// No client-wide Timeout: it would also cut the retry transport's
		// waits (a secondary rate limit asks for 60 s). Each attempt is
		// bounded instead: connecting, TLS and waiting for the headers.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ResponseHeaderTimeout = 60 * time.Second
		tr.TLSHandshakeTimeout = 15 * time.Second
		httpClient = &http.Client{Transport: tr}
	}
	// github.New's errors already name their package ("github: api url …").
	return github.New(httpClient, apiURL, token, github.WithUserAgent(version.UserAgent()))
}

// modelConfig is what the model client needs from flags or inputs.
type modelConfig struct {
	BaseURL, APIKey string
	// APIType and APIVersion select Azure's request shape and version
	// (the api-type and api-version inputs; llm.Config).
	APIType, APIVersion string
	// Schemas are the answer schemas by name; nil means prompts.Schemas().
	Schemas map[string][]byte
	// HTTPClient sends the requests; nil is llm's default.
	HTTPClient *http.Client
	// CallTimeout bounds one call and Budget all model work
	// (action.Config.ModelTime: model-timeout and deadline-minutes).
	CallTimeout, Budget time.Duration
}

// newModel builds the real model client over an OpenAI-compatible endpoint.
func newModel(c modelConfig) (*llm.Client, error) {
	if c.Schemas == nil {
		c.Schemas = prompts.Schemas()
	}
	// llm.New's errors already name their package ("llm: base URL …").
	return llm.New(llm.Config{
		BaseURL:         c.BaseURL,
		APIKey:          c.APIKey,
		APIType:         c.APIType,
		AzureAPIVersion: c.APIVersion,
		Schemas:         c.Schemas,
		UserAgent:       version.UserAgent(),
		HTTPClient:      c.HTTPClient,
		CallTimeout:     c.CallTimeout,
		Budget:          c.Budget,
	})
}
