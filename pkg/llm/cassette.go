package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"sync"
)

// Entry is one cassette line: a recorded answer for (Persona, Key).
type Entry struct {
	Persona string          `json:"persona"`
	Key     string          `json:"key"`
	Label   string          `json:"label,omitempty"`
	Answer  json.RawMessage `json:"answer"`
}

var keyShape = regexp.MustCompile(`^[0-9a-f]{24}$`)

// Replay answers requests from recorded cassette entries. Use WithSchemas
// before Complete so replayed answers are validated like live ones.
type Replay struct {
	entries map[replayKey]Entry
	schemas *Schemas
}

type replayKey struct{ persona, key string }

// LoadCassette reads cassette files (JSONL, one Entry a line; blank lines
// allowed) from fsys. A bad line is an error naming file:line; a second
// entry for the same persona and key is an error too.
func LoadCassette(fsys fs.FS, paths ...string) (*Replay, error) {
	r := &Replay{entries: map[replayKey]Entry{}}
	for _, p := range paths {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("llm: cassette: %w", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 0, 64*1024), len(b)+1)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			e, err := parseEntry(line)
			if err != nil {
				return nil, fmt.Errorf("llm: cassette %s:%d: %w", p, n, err)
			}
			k := replayKey{e.Persona, e.Key}
			if _, dup := r.entries[k]; dup {
				return nil, fmt.Errorf("llm: cassette %s:%d: second answer for persona %s key %s", p, n, e.Persona, e.Key)
			}
			r.entries[k] = e
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("llm: cassette %s: %w", p, err)
		}
	}
	return r, nil
}

func parseEntry(line []byte) (Entry, error) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return e, err
	}
	switch {
	case e.Persona == "":
		return e, errors.New("missing persona")
	case !keyShape.MatchString(e.Key):
		return e, fmt.Errorf("key %q is not 24 lowercase hex characters", e.Key)
	case len(bytes.TrimSpace(e.Answer)) == 0 || e.Answer[0] != '{':
		return e, errors.New("answer is not a JSON object")
	}
	return e, nil
}

// WithSchemas sets the schemas replayed answers are validated against
// (keyed by Request.Schema, e.g. prompts.Schemas()) and returns r.
func (r *Replay) WithSchemas(src map[string][]byte) (*Replay, error) {
	s, err := NewSchemas(src)
	if err != nil {
		return nil, err
	}
	r.schemas = s
	return r, nil
}

// Len returns the number of recorded answers.
func (r *Replay) Len() int { return len(r.entries) }

// Complete returns the recorded answer for (r.Persona, RequestKey(r)),
// validated against the request's schema; a miss wraps ErrNoAnswer and
// an answer that fails the schema wraps ErrMalformed.
func (r *Replay) Complete(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	key := RequestKey(req)
	e, ok := r.entries[replayKey{req.Persona, key}]
	if !ok {
		return Response{}, fmt.Errorf("%w for persona %s key %s", ErrNoAnswer, req.Persona, key)
	}
	comp, err := r.schemas.get(req.Schema)
	if err != nil {
		return Response{}, err
	}
	js, err := comp.check(string(e.Answer))
	if err != nil {
		return Response{}, fmt.Errorf("%w: recorded answer for persona %s key %s: %v", ErrMalformed, req.Persona, key, err)
	}
	return Response{JSON: js}, nil
}

// recorder writes an Entry for every answer its next Completer gives.
type recorder struct {
	next Completer
	mu   sync.Mutex
	w    io.Writer
}

// NewRecorder returns a Completer that asks next and appends each
// successful answer to w as one cassette line (persona, RequestKey, the
// request's Label, the answer). It is safe for concurrent use; lines never
// interleave.
func NewRecorder(next Completer, w io.Writer) Completer {
	return &recorder{next: next, w: w}
}

func (rc *recorder) Complete(ctx context.Context, req Request) (Response, error) {
	resp, err := rc.next.Complete(ctx, req)
	if err != nil {
		return resp, err
	}
	line, err := json.Marshal(Entry{
		Persona: req.Persona,
		Key:     RequestKey(req),
		Label:   req.Label,
		Answer:  json.RawMessage(resp.JSON),
	})
	if err != nil {
		return resp, fmt.Errorf("llm: record: %w", err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if _, err := rc.w.Write(append(line, '\n')); err != nil {
		return resp, fmt.Errorf("llm: record: %w", err)
	}
	return resp, nil
}
