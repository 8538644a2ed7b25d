package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// DefaultRoot is the directory of fixtures.FS that holds the suites.
const DefaultRoot = "eval"

// The suites: directories under the root, each holding case directories.
const (
	// SuiteScripted holds the hand-written cases: invented code, and
	// answers scripted by hand. Its numbers test the scorer, not a model.
	SuiteScripted = "scripted"
	// SuiteReal holds real code with known defects and real clean changes.
	SuiteReal = "real"
)

// Suites returns the suites in report order.
func Suites() []string { return []string{SuiteScripted, SuiteReal} }

// The files a case directory holds.
const (
	diffFile  = "diff.patch"
	prFile    = "pr.json"
	truthFile = "ground_truth.jsonl"
	metaFile  = "case.json"
	headDir   = "head"
	recDir    = "recorded"
)

// ErrCase is wrapped by every error about a malformed case.
var ErrCase = errors.New("eval: bad case")

// Issue is one ground-truth problem of a case: a real defect the diff
// introduces, where it is, and the personas that may catch it.
type Issue struct {
	ID string `json:"id"`
	// Persona is the first of Personas (the scripted format's one field).
	Persona  string   `json:"persona"`
	Personas []string `json:"personas"`
	File     string   `json:"file"`
	// Line..LineEnd is a range in the file's new version; LineEnd equals
	// Line for a one-line issue.
	Line        int              `json:"line"`
	LineEnd     int              `json:"line_end"`
	Severity    finding.Severity `json:"severity"`
	Category    string           `json:"category,omitempty"`
	Description string           `json:"description"`
	// Excluded marks an issue no reviewer could find from the diff, title and
	// body alone (seed 002): it is neither a miss nor a match.
	Excluded       bool   `json:"excluded"`
	ExcludedReason string `json:"excluded_reason,omitempty"`
}

// Expects reports whether persona p is one of the issue's personas.
func (is Issue) Expects(p string) bool {
	if len(is.Personas) == 0 {
		return is.Persona == p
	}
	return slices.Contains(is.Personas, p)
}

// end is LineEnd, or Line when LineEnd is unset.
func (is Issue) end() int { return max(is.LineEnd, is.Line) }

// Meta is a case's case.json: where the code came from and under what
// licence. Real cases must have one; scripted cases may.
type Meta struct {
	Kind     string   `json:"kind"` // "real" or "scripted"
	Clean    bool     `json:"clean"`
	Language string   `json:"language"`
	Source   string   `json:"source"`
	Fix      string   `json:"fix"`
	CVE      string   `json:"cve"`
	License  string   `json:"license"`
	Files    []string `json:"files"`
	Notes    string   `json:"notes"`
}

// Case is one evaluation case: a pull request and its ground truth.
type Case struct {
	Suite string // SuiteScripted or SuiteReal
	Name  string // directory name in the suite
	Meta  *Meta  // case.json; nil when the case has none
	Title string
	Body  string
	Diff  []byte       // the unified diff, git headers included
	Files []*diff.File // Diff parsed by pkg/diff, as the pipeline parses it
	Truth []Issue      // in file order
	// Head holds the full head versions of files under head/, by path.
	Head map[string]string
	// Recorded lists the personas with a recorded answer, sorted; Source
	// says who wrote them (zero when there are none).
	Recorded []string
	Source   Source
	// Validator holds the recorded verdicts of the per-finding validator
	// (validator.jsonl), ValidatorPerFile those of the per-file validator
	// (validator-per-file.jsonl), each keyed "file:line"; nil when the file
	// is absent.
	Validator        map[string]finding.Validation
	ValidatorPerFile map[string]finding.Validation
}

// Verdicts are the recorded verdicts of the validator batching mode
// (review.ValidatePerFinding or review.ValidatePerFile), nil when none were
// recorded in that mode. A verdict a model gave in one mode is never
// replayed as the other mode's: a per-file call sees the file's findings
// together, and may judge them otherwise. Verdicts scripted by hand are
// written for the finding, not for a mode, and serve both.
func (c Case) Verdicts(batching string) map[string]finding.Validation {
	if batching == review.ValidatePerFile {
		if c.ValidatorPerFile == nil && c.Source.Kind == SourceScripted {
			return c.Validator
		}
		return c.ValidatorPerFile
	}
	return c.Validator
}

// ID is "suite/name", unique over every suite.
func (c Case) ID() string { return c.Suite + "/" + c.Name }

// Clean reports whether the case holds no defect: case.json says so, or,
// without one, the ground truth is empty.
func (c Case) Clean() bool {
	if c.Meta != nil {
		return c.Meta.Clean
	}
	return len(c.Truth) == 0
}

// Personas returns the personas evaluated alone on c: every persona its
// ground truth names plus every persona with a recorded answer, in SPEC
// order.
func (c Case) Personas() []string {
	var ps []string
	for _, is := range c.Truth {
		if len(is.Personas) == 0 {
			ps = append(ps, is.Persona)
		}
		ps = append(ps, is.Personas...)
	}
	ps = append(ps, c.Recorded...)
	sortPersonas(ps)
	return slices.Compact(ps)
}

// LoadDefault loads the scripted suite shipped in fixtures.FS.
func LoadDefault() ([]Case, error) { return LoadSuite(fixtures.FS, DefaultRoot, SuiteScripted) }

// LoadSuite reads every case directory of root/suite in fsys, sorted by
// name. Files that are not directories (a README) are ignored; a missing
// suite directory is zero cases. Every broken case is reported, all of them
// joined into the error (each wrapping ErrCase, naming the file, and the
// line for ground truth); the cases that loaded are returned with it.
func LoadSuite(fsys fs.FS, root, suite string) ([]Case, error) {
	if !slices.Contains(Suites(), suite) {
		return nil, fmt.Errorf("eval: unknown suite %q (known: %s)", suite, strings.Join(Suites(), ", "))
	}
	dir := path.Join(root, suite)
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("eval: read cases: %w", err)
	}
	var cases []Case
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c, err := LoadCase(fsys, path.Join(dir, e.Name()), suite)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cases = append(cases, c)
	}
	return cases, errors.Join(errs...)
}

// LoadCase reads the case directory dir of fsys as a case of suite (its
// name is the directory's). A real case's ground truth spells out every
// label field (see ParseTruth). Every error wraps ErrCase, except an unknown
// suite.
func LoadCase(fsys fs.FS, dir, suite string) (Case, error) {
	if !slices.Contains(Suites(), suite) {
		return Case{}, fmt.Errorf("eval: unknown suite %q (known: %s)", suite, strings.Join(Suites(), ", "))
	}
	c := Case{Suite: suite, Name: path.Base(dir)}

	metaPath := path.Join(dir, metaFile)
	b, err := fs.ReadFile(fsys, metaPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return Case{}, fmt.Errorf("%w: %w", ErrCase, err)
	default:
		var m Meta
		if err := decodeStrict(b, &m); err != nil {
			return Case{}, fmt.Errorf("%w: %s: %w", ErrCase, metaPath, err)
		}
		c.Meta = &m
	}

	prPath := path.Join(dir, prFile)
	if b, err = fs.ReadFile(fsys, prPath); err != nil {
		return Case{}, fmt.Errorf("%w: %w", ErrCase, err)
	}
	var pr struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
	}
	if err := decodeStrict(b, &pr); err != nil {
		return Case{}, fmt.Errorf("%w: %s: %w", ErrCase, prPath, err)
	}
	if pr.Title == nil || strings.TrimSpace(*pr.Title) == "" || pr.Body == nil {
		return Case{}, fmt.Errorf("%w: %s: title (non-empty) and body are required", ErrCase, prPath)
	}
	c.Title, c.Body = *pr.Title, *pr.Body

	diffPath := path.Join(dir, diffFile)
	if c.Diff, err = fs.ReadFile(fsys, diffPath); err != nil {
		return Case{}, fmt.Errorf("%w: %w", ErrCase, err)
	}
	d, err := diff.Parse(c.Diff)
	if err != nil {
		return Case{}, fmt.Errorf("%w: %s: %w", ErrCase, diffPath, err)
	}
	if len(d.Files) == 0 {
		return Case{}, fmt.Errorf("%w: %s: the diff changes no file", ErrCase, diffPath)
	}
	c.Files = d.Files

	truthPath := path.Join(dir, truthFile)
	if b, err = fs.ReadFile(fsys, truthPath); err != nil {
		return Case{}, fmt.Errorf("%w: %w", ErrCase, err)
	}
	if c.Truth, err = parseTruth(b, suite == SuiteReal); err != nil {
		return Case{}, fmt.Errorf("%w: %s%w", ErrCase, truthPath, err)
	}
	for _, is := range c.Truth {
		if !newSideRange(c.Files, is.File, is.Line, is.LineEnd) {
			return Case{}, fmt.Errorf("%w: %s: issue %q: %s:%d-%d is not on the new side of any hunk in %s",
				ErrCase, truthPath, is.ID, is.File, is.Line, is.LineEnd, diffFile)
		}
	}

	if c.Head, err = loadHead(fsys, path.Join(dir, headDir)); err != nil {
		return Case{}, err
	}
	if err := loadRecorded(fsys, path.Join(dir, recDir), &c); err != nil {
		return Case{}, err
	}
	return c, nil
}

// loadHead reads head/** into a map keyed by the path under head/.
func loadHead(fsys fs.FS, dir string) (map[string]string, error) {
	head := map[string]string{}
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		head[strings.TrimPrefix(p, dir+"/")] = string(b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCase, dir, err)
	}
	return head, nil
}

// newSideRange reports whether line..end are all on the new side of a hunk
// of file, with the review pipeline's own parser.
func newSideRange(files []*diff.File, file string, line, end int) bool {
	f := fileOf(files, file)
	if f == nil {
		return false
	}
	for n := line; n <= end; n++ {
		if _, ok := f.NewLine(n); !ok {
			return false
		}
	}
	return true
}

// fileOf finds file (normalized) among files, or nil.
func fileOf(files []*diff.File, file string) *diff.File {
	for _, f := range files {
		if f.Path() == normFile(file) {
			return f
		}
	}
	return nil
}

// ParseTruth parses ground-truth JSONL: one Issue a line, blank lines
// allowed. An issue names its personas in `personas` (a list), `persona`
// (one, the scripted format), or both (then `persona` must be the first of
// `personas`); `line_end` defaults to `line`. Unknown fields, unknown
// personas, invalid severities, duplicate ids and an excluded issue without
// a reason are errors; each error starts with ":<line>: " so callers can
// prefix the file name.
func ParseTruth(b []byte) ([]Issue, error) { return parseTruth(b, false) }

// parseTruth is ParseTruth; explicit (the real suite's format) also
// requires every label to spell out personas, line_end, category and
// excluded, so no label leans on a default.
func parseTruth(b []byte, explicit bool) ([]Issue, error) {
	var out []Issue
	seen := map[string]bool{}
	err := eachLine(b, func(_ int, line []byte) error {
		var raw struct {
			ID             *string  `json:"id"`
			Persona        *string  `json:"persona"`
			Personas       []string `json:"personas"`
			File           *string  `json:"file"`
			Line           *int     `json:"line"`
			LineEnd        *int     `json:"line_end"`
			Severity       *string  `json:"severity"`
			Category       *string  `json:"category"`
			Description    *string  `json:"description"`
			Excluded       *bool    `json:"excluded"`
			ExcludedReason *string  `json:"excluded_reason"`
		}
		if err := decodeStrict(line, &raw); err != nil {
			return err
		}
		personas := slices.Clone(raw.Personas)
		if raw.Persona != nil {
			if len(personas) == 0 {
				personas = []string{*raw.Persona}
			} else if personas[0] != *raw.Persona {
				return fmt.Errorf("persona %q must be the first of personas %q", *raw.Persona, personas)
			}
		}
		if explicit {
			for _, k := range []struct {
				key string
				set bool
			}{{"personas", raw.Personas != nil}, {"line_end", raw.LineEnd != nil}, {"category", raw.Category != nil}, {"excluded", raw.Excluded != nil}} {
				if !k.set {
					return fmt.Errorf("%s is required in a real case", k.key)
				}
			}
		}
		switch {
		case raw.ID == nil || *raw.ID == "":
			return fmt.Errorf("id is required")
		case seen[*raw.ID]:
			return fmt.Errorf("duplicate id %q", *raw.ID)
		case len(personas) == 0:
			return fmt.Errorf("personas (or persona) is required")
		case raw.File == nil || normFile(*raw.File) == "":
			return fmt.Errorf("file is required")
		case raw.Line == nil || *raw.Line < 1:
			return fmt.Errorf("line must be an integer >= 1")
		case raw.LineEnd != nil && *raw.LineEnd < *raw.Line:
			return fmt.Errorf("line_end %d is before line %d", *raw.LineEnd, *raw.Line)
		case raw.Severity == nil || !finding.Severity(*raw.Severity).Valid():
			return fmt.Errorf("severity must be P0, P1, P2 or P3")
		case raw.Description == nil || strings.TrimSpace(*raw.Description) == "":
			return fmt.Errorf("description is required")
		}
		for _, p := range personas {
			if !KnownPersona(p) {
				return fmt.Errorf("persona %q: each persona must be one of %s", p, strings.Join(knownPersonas(), ", "))
			}
		}
		if len(slices.Compact(slices.Sorted(slices.Values(personas)))) != len(personas) {
			return fmt.Errorf("personas %q lists a persona twice", personas)
		}
		is := Issue{
			ID: *raw.ID, Persona: personas[0], Personas: personas, File: normFile(*raw.File),
			Line: *raw.Line, LineEnd: *raw.Line,
			Severity: finding.Severity(*raw.Severity), Description: *raw.Description,
		}
		if raw.LineEnd != nil {
			is.LineEnd = *raw.LineEnd
		}
		if raw.Category != nil {
			is.Category = *raw.Category
		}
		if raw.Excluded != nil {
			is.Excluded = *raw.Excluded
		}
		if raw.ExcludedReason != nil {
			is.ExcludedReason = *raw.ExcludedReason
		}
		if is.Excluded != (strings.TrimSpace(is.ExcludedReason) != "") {
			return fmt.Errorf("excluded_reason is required exactly when excluded is true")
		}
		seen[is.ID] = true
		out = append(out, is)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decodeStrict decodes exactly one JSON value, rejecting unknown fields and
// trailing data.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// normFile normalizes a path for matching: forward slashes, no leading "./"
// or "/", cleaned.
func normFile(p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	p = strings.TrimLeft(p, "/")
	if p == "" {
		return ""
	}
	p = path.Clean(p)
	if p == "." {
		return ""
	}
	return p
}

// knownPersonas returns the shipped personas (SPEC section 1, Stage 3, then
// the stack personas of section 7.5) in persona.Names order (the order
// reports use).
func knownPersonas() []string { return persona.Names() }

// KnownPersona reports whether name is one of the shipped personas.
func KnownPersona(name string) bool { return slices.Contains(knownPersonas(), name) }

// sortPersonas sorts names in SPEC order; unknown names go last, by name.
func sortPersonas(ps []string) {
	known := knownPersonas()
	rank := func(p string) int {
		if i := slices.Index(known, p); i >= 0 {
			return i
		}
		return len(known)
	}
	slices.SortStableFunc(ps, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
}
