package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// The files of a recorded/ directory besides <persona>.json.
const (
	sourceFile = "source.json"
	// validatorFile holds the per-finding validator's verdicts,
	// validatorPerFileFile the per-file validator's.
	validatorFile        = "validator.jsonl"
	validatorPerFileFile = "validator-per-file.jsonl"
)

// verdictFile is the recorded/ file of a validator batching mode.
func verdictFile(batching string) string {
	if batching == review.ValidatePerFile {
		return validatorPerFileFile
	}
	return validatorFile
}

// Source kinds: who wrote a set of answers.
const (
	// SourceScripted: written by hand, to exercise the scorer.
	SourceScripted = "scripted"
	// SourceRecorded: a model's answers, saved by `eval --live --record`.
	SourceRecorded = "recorded"
	// SourceLive: a model's answers, asked during this run.
	SourceLive = "live"
)

// Source says where answers came from. Every table and JSONL summary
// prints its Label, so a scripted number is never read as a model's.
type Source struct {
	Kind  string `json:"source"`
	Model string `json:"model,omitempty"`
	// Date is the day the answers were recorded or asked, YYYY-MM-DD (UTC).
	Date string `json:"date,omitempty"`
	Note string `json:"note,omitempty"`
}

// Label is the source in words: "scripted by hand", "recorded from MODEL
// on DATE" or "live from MODEL on DATE"; "no answers" for the zero Source.
func (s Source) Label() string {
	switch s.Kind {
	case SourceScripted:
		return "scripted by hand"
	case SourceRecorded:
		return "recorded from " + s.Model + " on " + s.Date
	case SourceLive:
		return "live from " + s.Model + " on " + s.Date
	}
	return "no answers"
}

// IsModel reports whether the answers came from a model (recorded or live):
// only then do the numbers say anything about a model.
func (s Source) IsModel() bool { return s.Kind == SourceRecorded || s.Kind == SourceLive }

func (s Source) check() error {
	switch s.Kind {
	case SourceScripted:
		if s.Model != "" {
			return errors.New(`a scripted source names no model`)
		}
		return nil
	case SourceRecorded:
		if strings.TrimSpace(s.Model) == "" {
			return errors.New("a recorded source needs the model")
		}
		if _, err := time.Parse(time.DateOnly, s.Date); err != nil {
			return fmt.Errorf("a recorded source needs the date as YYYY-MM-DD: %w", err)
		}
		return nil
	}
	return fmt.Errorf(`source must be %q or %q, got %q`, SourceScripted, SourceRecorded, s.Kind)
}

// loadRecorded reads recorded/: source.json (required as soon as anything is
// recorded), <persona>.json answers and validator.jsonl verdicts.
func loadRecorded(fsys fs.FS, dir string, c *Case) error {
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCase, err)
	}
	hasSource := false
	for _, e := range entries {
		name := e.Name()
		switch p, isJSON := strings.CutSuffix(name, ".json"); {
		case e.IsDir():
			return fmt.Errorf("%w: %s: unexpected directory", ErrCase, path.Join(dir, name))
		case name == sourceFile:
			b, err := fs.ReadFile(fsys, path.Join(dir, name))
			if err != nil {
				return fmt.Errorf("%w: %w", ErrCase, err)
			}
			if err := decodeStrict(b, &c.Source); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrCase, path.Join(dir, name), err)
			}
			if err := c.Source.check(); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrCase, path.Join(dir, name), err)
			}
			hasSource = true
		case name == validatorFile || name == validatorPerFileFile:
			b, err := fs.ReadFile(fsys, path.Join(dir, name))
			if err != nil {
				return fmt.Errorf("%w: %w", ErrCase, err)
			}
			v, err := parseVerdicts(b)
			if err != nil {
				return fmt.Errorf("%w: %s%w", ErrCase, path.Join(dir, name), err)
			}
			if name == validatorFile {
				c.Validator = v
			} else {
				c.ValidatorPerFile = v
			}
		case isJSON && KnownPersona(p):
			c.Recorded = append(c.Recorded, p)
		default:
			return fmt.Errorf("%w: %s: want <persona>.json for a known persona, %s, %s or %s",
				ErrCase, path.Join(dir, name), sourceFile, validatorFile, validatorPerFileFile)
		}
	}
	if !hasSource && len(entries) > 0 {
		return fmt.Errorf("%w: %s: recorded answers without %s (who wrote them, and when?)", ErrCase, dir, sourceFile)
	}
	return nil
}

// verdictLine is one line of validator.jsonl: the validator's verdict on the
// finding at file:line.
type verdictLine struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Validated *bool  `json:"validated"`
	Reason    string `json:"reason"`
	// Severity is the validator's lower severity, when it gave one.
	Severity finding.Severity `json:"severity,omitempty"`
}

// VerdictKey keys a validator verdict: "file:line", the Label pkg/prompt
// gives validator requests.
func VerdictKey(file string, line int) string { return file + ":" + strconv.Itoa(line) }

func parseVerdicts(b []byte) (map[string]finding.Validation, error) {
	out := map[string]finding.Validation{}
	err := eachLine(b, func(_ int, line []byte) error {
		var v verdictLine
		if err := decodeStrict(line, &v); err != nil {
			return err
		}
		if normFile(v.File) == "" || v.Line < 1 || v.Validated == nil || strings.TrimSpace(v.Reason) == "" {
			return errors.New("file, line >= 1, validated and reason are required")
		}
		k := VerdictKey(normFile(v.File), v.Line)
		if _, dup := out[k]; dup {
			return fmt.Errorf("a second verdict for %s", k)
		}
		if v.Severity != "" && !v.Severity.Valid() {
			return fmt.Errorf("severity %q is not P0..P3", v.Severity)
		}
		out[k] = finding.Validation{Validated: *v.Validated, Reason: v.Reason, Severity: v.Severity}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Recorder saves a live run's answers under Dir/<suite>/<case>/recorded/,
// the layout Load reads back: <persona>.json (valid JSON re-indented for
// review, other bytes as received), validator.jsonl, and source.json naming
// the model and the day. It is safe for concurrent use.
type Recorder struct {
	Dir    string
	Source Source // Kind SourceRecorded, Model and Date set
	// VerdictsOnly, a validator batching mode, records that mode's
	// verdicts alone next to answers already recorded under Dir (a
	// --validator-only run): a case's recorded/ keeps its persona answers
	// and source.json, which must name the same model, and only the mode's
	// verdict file is replaced. Empty records everything afresh.
	VerdictsOnly string

	mu      sync.Mutex
	started map[string]bool // cases whose old recordings are cleared
	keys    map[string]bool // verdicts written, "case\x00file:line"
}

// dir returns the case's recorded/ directory, started.
func (r *Recorder) dir(c Case) (string, error) {
	for _, n := range []string{c.Suite, c.Name} {
		if !filepath.IsLocal(n) || strings.ContainsAny(n, `/\`) {
			return "", fmt.Errorf("eval: record: unsafe name %q", n)
		}
	}
	dir := filepath.Join(r.Dir, c.Suite, c.Name, recDir)
	return dir, r.start(c.ID(), dir)
}

// start begins the recording of a case in dir the first time it is called
// for key: as startPool, or, with VerdictsOnly, by removing that mode's
// verdict file alone from a recording of the same model.
func (r *Recorder) start(key, dir string) error {
	if r.VerdictsOnly == "" {
		return r.startPool(key, dir)
	}
	if r.started == nil {
		r.started, r.keys = map[string]bool{}, map[string]bool{}
	}
	if r.started[key] {
		return nil
	}
	var old Source
	b, err := os.ReadFile(filepath.Join(dir, sourceFile))
	if err != nil {
		return fmt.Errorf("eval: record verdicts: %w (a verdicts-only recording goes next to recorded answers)", err)
	}
	if err := decodeStrict(b, &old); err != nil || old.Kind != SourceRecorded || old.Model != r.Source.Model {
		return fmt.Errorf("eval: record verdicts: %s names %q, not %q: one recording holds one model's answers (%v)",
			filepath.Join(dir, sourceFile), old.Model, r.Source.Model, err)
	}
	if err := os.Remove(filepath.Join(dir, verdictFile(r.VerdictsOnly))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("eval: record verdicts: %w", err)
	}
	r.started[key] = true
	return nil
}

// startPool begins the recording of key in dir the first time it is called
// for key: the last recording is removed whole (no stale answer survives)
// and source.json names the model and the day.
func (r *Recorder) startPool(key, dir string) error {
	if r.started == nil {
		r.started, r.keys = map[string]bool{}, map[string]bool{}
	}
	if r.started[key] {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("eval: record: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("eval: record: %w", err)
	}
	b, err := json.MarshalIndent(r.Source, "", "  ")
	if err != nil {
		return fmt.Errorf("eval: record: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, sourceFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("eval: record: %w", err)
	}
	r.started[key] = true
	return nil
}

// appendLine appends v to the JSONL file name.
func appendLine(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("eval: record: %w", err)
	}
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("eval: record: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("eval: record: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("eval: record: %w", err)
	}
	return nil
}

// SavePersona writes one persona's raw answer.
func (r *Recorder) SavePersona(c Case, persona string, b []byte) error {
	if !KnownPersona(persona) {
		return fmt.Errorf("eval: record: unknown persona %q", persona)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	dir, err := r.dir(c)
	if err != nil {
		return err
	}
	out := b
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") == nil {
		buf.WriteByte('\n')
		out = buf.Bytes()
	}
	if err := os.WriteFile(filepath.Join(dir, persona+".json"), out, 0o644); err != nil {
		return fmt.Errorf("eval: record: %w", err)
	}
	return nil
}

// SavePoolVerdict appends the validator's live verdict in batching mode on
// pool item id to Dir/validator/recorded/answers.jsonl (per finding) or
// Dir/validator/recorded-per-file/answers.jsonl (per file), with
// source.json, the layout LoadPool reads. Each mode's recording replaces
// that mode's directory whole.
func (r *Recorder) SavePoolVerdict(batching, id string, v finding.Validation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	sub := poolRecDir(batching)
	dir := filepath.Join(r.Dir, PoolDir, sub)
	if err := r.startPool(PoolDir+"/"+sub, dir); err != nil {
		return err
	}
	ok := v.Validated
	return appendLine(filepath.Join(dir, "answers.jsonl"), struct {
		ID        string `json:"id"`
		Validated *bool  `json:"validated"`
		Reason    string `json:"reason"`
	}{id, &ok, v.Reason})
}

// SaveVerdict appends one verdict of the validator in batching mode
// (review.ValidatePerFinding or review.ValidatePerFile) for the finding at
// file:line, to that mode's file (validator.jsonl or
// validator-per-file.jsonl). Verdicts are keyed by file:line (the validator
// request's label): a second finding on the same line keeps the first
// verdict.
func (r *Recorder) SaveVerdict(c Case, batching, file string, line int, v finding.Validation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	dir, err := r.dir(c)
	if err != nil {
		return err
	}
	name := verdictFile(batching)
	key := c.ID() + "\x00" + name + "\x00" + VerdictKey(file, line)
	if r.keys[key] {
		return nil
	}
	r.keys[key] = true
	ok := v.Validated
	return appendLine(filepath.Join(dir, name), verdictLine{File: file, Line: line, Validated: &ok, Reason: v.Reason, Severity: v.Severity})
}
