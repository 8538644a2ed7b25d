package eval

import (
	"bufio"
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
)

// DefaultRoot is the directory of fixtures.FS that holds the shipped cases.
const DefaultRoot = "eval"

// The files every case directory holds.
const (
	diffFile  = "diff.patch"
	prFile    = "pr.json"
	truthFile = "ground_truth.jsonl"
	recDir    = "recorded"
)

// ErrCase is wrapped by every error about a malformed case.
var ErrCase = errors.New("eval: bad case")

// Issue is one ground-truth problem of a case: a real defect the diff
// introduces, and the persona expected to catch it.
type Issue struct {
	ID          string           `json:"id"`
	Persona     string           `json:"persona"`
	File        string           `json:"file"`
	Line        int              `json:"line"` // in the file's new version
	Severity    finding.Severity `json:"severity"`
	Description string           `json:"description"`
	// Excluded marks an issue no reviewer could find from the diff, title and
	// body alone (seed 002): it is neither a miss nor a match.
	Excluded       bool   `json:"excluded"`
	ExcludedReason string `json:"excluded_reason,omitempty"`
}

// Case is one evaluation case: a pull request and its ground truth.
type Case struct {
	Name  string // directory name under the root
	Title string
	Body  string
	Diff  []byte       // the unified diff, git headers included
	Files []*diff.File // Diff parsed by pkg/diff, as the pipeline parses it
	Truth []Issue      // in file order
	// Recorded lists the personas with a recorded answer, sorted.
	Recorded []string
}

// Personas returns the personas evaluated on c: every persona its ground
// truth names plus every persona with a recorded answer, in SPEC order.
func (c Case) Personas() []string {
	var ps []string
	for _, is := range c.Truth {
		ps = append(ps, is.Persona)
	}
	ps = append(ps, c.Recorded...)
	sortPersonas(ps)
	return slices.Compact(ps)
}

// LoadDefault loads the cases shipped in fixtures.FS.
func LoadDefault() ([]Case, error) { return Load(fixtures.FS, DefaultRoot) }

// Load reads every case directory under root in fsys, sorted by name. Files
// that are not directories (a README) are ignored. Every problem names the
// file, and the line for ground truth.
func Load(fsys fs.FS, root string) ([]Case, error) {
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		return nil, fmt.Errorf("eval: read cases: %w", err)
	}
	var cases []Case
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c, err := loadCase(fsys, root, e.Name())
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%w: no case directories under %s", ErrCase, root)
	}
	return cases, nil
}

func loadCase(fsys fs.FS, root, name string) (Case, error) {
	dir := path.Join(root, name)
	c := Case{Name: name}

	prPath := path.Join(dir, prFile)
	b, err := fs.ReadFile(fsys, prPath)
	if err != nil {
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
	c.Files = d.Files

	truthPath := path.Join(dir, truthFile)
	if b, err = fs.ReadFile(fsys, truthPath); err != nil {
		return Case{}, fmt.Errorf("%w: %w", ErrCase, err)
	}
	if c.Truth, err = ParseTruth(b); err != nil {
		return Case{}, fmt.Errorf("%w: %s%w", ErrCase, truthPath, err)
	}
	for _, is := range c.Truth {
		if !newSideLine(c.Files, is.File, is.Line) {
			return Case{}, fmt.Errorf("%w: %s: issue %q: %s:%d is not on the new side of any hunk in %s",
				ErrCase, truthPath, is.ID, is.File, is.Line, diffFile)
		}
	}

	recs, err := fs.ReadDir(fsys, path.Join(dir, recDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Case{}, fmt.Errorf("%w: %w", ErrCase, err)
	}
	for _, r := range recs {
		p, ok := strings.CutSuffix(r.Name(), ".json")
		if r.IsDir() || !ok || !KnownPersona(p) {
			return Case{}, fmt.Errorf("%w: %s: want <persona>.json for a known persona",
				ErrCase, path.Join(dir, recDir, r.Name()))
		}
		c.Recorded = append(c.Recorded, p)
	}
	return c, nil
}

// newSideLine reports whether line is on the new side of a hunk of file,
// with the review pipeline's own parser.
func newSideLine(files []*diff.File, file string, line int) bool {
	for _, f := range files {
		if f.Path() == normFile(file) {
			_, ok := f.NewLine(line)
			return ok
		}
	}
	return false
}

// ParseTruth parses ground-truth JSONL: one Issue a line, blank lines
// allowed. Unknown fields, unknown personas, invalid severities, duplicate
// ids and an excluded issue without a reason are errors; each error starts
// with ":<line>: " so callers can prefix the file name.
func ParseTruth(b []byte) ([]Issue, error) {
	var out []Issue
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var raw struct {
			ID             *string `json:"id"`
			Persona        *string `json:"persona"`
			File           *string `json:"file"`
			Line           *int    `json:"line"`
			Severity       *string `json:"severity"`
			Description    *string `json:"description"`
			Excluded       *bool   `json:"excluded"`
			ExcludedReason *string `json:"excluded_reason"`
		}
		if err := decodeStrict(line, &raw); err != nil {
			return nil, fmt.Errorf(":%d: %w", n, err)
		}
		fail := func(format string, a ...any) error {
			return fmt.Errorf(":%d: "+format, append([]any{n}, a...)...)
		}
		switch {
		case raw.ID == nil || *raw.ID == "":
			return nil, fail("id is required")
		case seen[*raw.ID]:
			return nil, fail("duplicate id %q", *raw.ID)
		case raw.Persona == nil || !KnownPersona(*raw.Persona):
			return nil, fail("persona must be one of %s", strings.Join(knownPersonas(), ", "))
		case raw.File == nil || normFile(*raw.File) == "":
			return nil, fail("file is required")
		case raw.Line == nil || *raw.Line < 1:
			return nil, fail("line must be an integer >= 1")
		case raw.Severity == nil || !finding.Severity(*raw.Severity).Valid():
			return nil, fail("severity must be P0, P1, P2 or P3")
		case raw.Description == nil || strings.TrimSpace(*raw.Description) == "":
			return nil, fail("description is required")
		}
		is := Issue{
			ID: *raw.ID, Persona: *raw.Persona, File: normFile(*raw.File), Line: *raw.Line,
			Severity: finding.Severity(*raw.Severity), Description: *raw.Description,
		}
		if raw.Excluded != nil {
			is.Excluded = *raw.Excluded
		}
		if raw.ExcludedReason != nil {
			is.ExcludedReason = *raw.ExcludedReason
		}
		if is.Excluded != (strings.TrimSpace(is.ExcludedReason) != "") {
			return nil, fail("excluded_reason is required exactly when excluded is true")
		}
		seen[is.ID] = true
		out = append(out, is)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf(": %w", err)
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
