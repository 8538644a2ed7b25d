package evalcorpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/persona"
)

// Label is one line of a real case's ground_truth.jsonl.
type Label struct {
	ID             string   `json:"id"`
	File           string   `json:"file"`
	Line           int      `json:"line"`
	LineEnd        int      `json:"line_end"`
	Severity       string   `json:"severity"`
	Category       string   `json:"category"`
	Personas       []string `json:"personas"`
	Persona        string   `json:"persona"`
	Description    string   `json:"description"`
	Excluded       bool     `json:"excluded"`
	ExcludedReason string   `json:"excluded_reason,omitempty"`
}

// PR is a case's pr.json.
type PR struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// Categories are the label categories the corpus uses.
var Categories = []string{"correctness", "security", "reliability", "performance", "api-contract", "testing", "data", "concurrency", "maintainability"}

var (
	cveRE = regexp.MustCompile(`^CVE-\d{4}-\d{4,}$`)
	// provenanceRE is module@version, npm:NAME@VERSION or github:OWNER/REPO@COMMIT.
	provenanceRE = regexp.MustCompile(`^(npm:[^@\s]+|github:[\w.-]+/[\w.-]+|[\w.-]+(/[\w.~-]+)+)@[\w.+-]+$`)
	severityRE   = regexp.MustCompile(`^P[0-3]$`)
)

// Checked is what Check learnt of a valid case.
type Checked struct {
	Case   Case
	Labels []Label
}

// Check reads the case in dir and reports every way it breaks the shared
// format, joined into one error; nil means the case is sound.
func Check(dir string) (*Checked, error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	var c Case
	if err := readJSON(filepath.Join(dir, "case.json"), &c); err != nil {
		return nil, err
	}
	var pr PR
	if err := readJSON(filepath.Join(dir, "pr.json"), &pr); err != nil {
		return nil, err
	}
	patch, err := os.ReadFile(filepath.Join(dir, "diff.patch"))
	if err != nil {
		return nil, fmt.Errorf("diff.patch: %w", err)
	}
	d, err := diff.Parse(patch)
	if err != nil {
		return nil, fmt.Errorf("diff.patch: %w", err)
	}
	labels, err := readLabels(filepath.Join(dir, "ground_truth.jsonl"))
	if err != nil {
		return nil, err
	}

	if strings.TrimSpace(pr.Title) == "" {
		bad("pr.json: empty title")
	}
	if c.Kind != "real" {
		bad("case.json: kind %q, want \"real\"", c.Kind)
	}
	if !slices.Contains(Languages, c.Language) {
		bad("case.json: language %q is not one of %v", c.Language, Languages)
	}
	for field, v := range map[string]string{"source": c.Source, "fix": c.Fix, "notes": c.Notes} {
		if strings.TrimSpace(v) == "" {
			bad("case.json: empty %s", field)
		}
	}
	if !provenanceRE.MatchString(c.Source) {
		bad("case.json: source %q is not module@version, npm:NAME@VERSION or github:OWNER/REPO@COMMIT", c.Source)
	}
	if !c.Clean && !provenanceRE.MatchString(c.Fix) {
		bad("case.json: fix %q is not module@version, npm:NAME@VERSION or github:OWNER/REPO@COMMIT (name other fixes in notes)", c.Fix)
	}
	if c.CVE != "" && !cveRE.MatchString(c.CVE) {
		bad("case.json: cve %q is not CVE-YYYY-NNNN", c.CVE)
	}
	if !slices.Contains(Licenses, c.License) {
		bad("case.json: licence %q is not in the permissive allow-list %v", c.License, Licenses)
	}

	if len(d.Files) == 0 {
		bad("diff.patch: no files")
	}
	added := map[string][]int{}    // file -> added new-side lines
	spans := map[string][][2]int{} // file -> new-side [first, last] of each hunk
	var paths []string
	for _, f := range d.Files {
		paths = append(paths, f.Path())
		if err := countHunks(f); err != nil {
			bad("diff.patch: %s: %w", f.Path(), err)
		}
		for _, h := range f.Hunks {
			spans[f.Path()] = append(spans[f.Path()], [2]int{h.NewStart, h.NewStart + h.NewLines - 1})
			for _, l := range h.Lines {
				if l.Kind == diff.Add {
					added[f.Path()] = append(added[f.Path()], l.NewNo)
				}
			}
		}
	}
	files := slices.Clone(c.Files)
	sort.Strings(files)
	sort.Strings(paths)
	if !slices.Equal(files, paths) {
		bad("case.json: files %v, but the diff changes %v", c.Files, paths)
	}

	if c.Clean && len(labels) > 0 {
		bad("ground_truth.jsonl: a clean case has %d labels", len(labels))
	}
	if !c.Clean && len(labels) == 0 {
		bad("ground_truth.jsonl: a bug case has no labels")
	}
	ids := map[string]bool{}
	for _, l := range labels {
		where := fmt.Sprintf("ground_truth.jsonl: %s", l.ID)
		if l.ID == "" || ids[l.ID] {
			bad("%s: empty or repeated id", where)
		}
		ids[l.ID] = true
		if !severityRE.MatchString(l.Severity) {
			bad("%s: severity %q is not P0..P3", where, l.Severity)
		}
		if !slices.Contains(Categories, l.Category) {
			bad("%s: category %q is not one of %v", where, l.Category, Categories)
		}
		if len(l.Personas) == 0 || l.Persona != l.Personas[0] {
			bad("%s: persona %q must be the first of personas %v", where, l.Persona, l.Personas)
		}
		for _, p := range l.Personas {
			if !slices.Contains(persona.Names(), p) {
				bad("%s: unknown persona %q", where, p)
			}
		}
		if d := strings.TrimSpace(l.Description); d == "" || strings.Contains(d, "\n") {
			bad("%s: description must be one non-empty line", where)
		}
		lines, ok := added[l.File]
		switch {
		case !ok:
			bad("%s: file %q has no added lines in the diff", where, l.File)
		case l.Line < 1 || l.LineEnd < l.Line:
			bad("%s: bad range %d-%d", where, l.Line, l.LineEnd)
		case !slices.ContainsFunc(spans[l.File], func(s [2]int) bool { return l.Line >= s[0] && l.LineEnd <= s[1] }):
			bad("%s: range %s:%d-%d is not inside the new side of one hunk", where, l.File, l.Line, l.LineEnd)
		case !slices.ContainsFunc(lines, func(n int) bool { return n >= l.Line && n <= l.LineEnd }):
			bad("%s: range %s:%d-%d overlaps no added line", where, l.File, l.Line, l.LineEnd)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(dir), err)
	}
	return &Checked{Case: c, Labels: labels}, nil
}

// countHunks recounts each hunk's lines against its header: Parse stops a
// hunk when its counts are used up, so a count that is too large would
// swallow the next header and one too small leaves stray lines; both are
// errors there, and this states the invariant directly.
func countHunks(f *diff.File) error {
	for i, h := range f.Hunks {
		var oldN, newN int
		for _, l := range h.Lines {
			if l.Kind != diff.Add {
				oldN++
			}
			if l.Kind != diff.Delete {
				newN++
			}
		}
		if oldN != h.OldLines || newN != h.NewLines {
			return fmt.Errorf("hunk %d header says -%d +%d, body has -%d +%d", i+1, h.OldLines, h.NewLines, oldN, newN)
		}
	}
	return nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

func readLabels(path string) ([]Label, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Label
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var l Label
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("ground_truth.jsonl:%d: %w", n, err)
		}
		for _, key := range []string{`"line_end"`, `"severity"`, `"category"`, `"personas"`, `"excluded"`} {
			if !strings.Contains(line, key) {
				return nil, fmt.Errorf("ground_truth.jsonl:%d: missing %s", n, key)
			}
		}
		out = append(out, l)
	}
	return out, sc.Err()
}
