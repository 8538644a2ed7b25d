package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/anchor-review/anchor-review/fixtures"
)

// Answerer produces one persona's raw answer (a findings-schema JSON object)
// for one case. The live implementation builds the persona's own prompt and
// calls the model; Recorded replays fixtures.
type Answerer interface {
	Answer(ctx context.Context, persona string, c Case) ([]byte, error)
}

// ErrNoRecording is wrapped when Recorded has no answer for a pair.
var ErrNoRecording = errors.New("eval: no recorded answer")

// Recorded answers from files <Root>/<case>/recorded/<persona>.json in FS.
// A zero FS means fixtures.FS, a zero Root means DefaultRoot.
type Recorded struct {
	FS   fs.FS
	Root string
}

// Answer implements Answerer.
func (r Recorded) Answer(ctx context.Context, persona string, c Case) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fsys, root := r.FS, r.Root
	if fsys == nil {
		fsys = fixtures.FS
	}
	if root == "" {
		root = DefaultRoot
	}
	p := path.Join(root, c.Name, recDir, persona+".json")
	b, err := fs.ReadFile(fsys, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w for persona %q on case %q (want %s)", ErrNoRecording, persona, c.Name, p)
	}
	if err != nil {
		return nil, fmt.Errorf("eval: read recording: %w", err)
	}
	return b, nil
}

// Recorder wraps an Answerer and writes every answer it gets to
// <Dir>/<case>/recorded/<persona>.json, the layout Recorded reads, so a live
// run can refresh the fixtures. Valid JSON is re-indented for review; other
// bytes are written as received.
type Recorder struct {
	Next Answerer
	Dir  string
}

// Answer implements Answerer.
func (r Recorder) Answer(ctx context.Context, persona string, c Case) ([]byte, error) {
	b, err := r.Next.Answer(ctx, persona, c)
	if err != nil {
		return nil, err
	}
	if !filepath.IsLocal(persona) || !filepath.IsLocal(c.Name) || strings.ContainsAny(persona+c.Name, `/\`) {
		return nil, fmt.Errorf("eval: record: unsafe name %q/%q", c.Name, persona)
	}
	dir := filepath.Join(r.Dir, c.Name, recDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("eval: record: %w", err)
	}
	out := b
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") == nil {
		buf.WriteByte('\n')
		out = buf.Bytes()
	}
	if err := os.WriteFile(filepath.Join(dir, persona+".json"), out, 0o644); err != nil {
		return nil, fmt.Errorf("eval: record: %w", err)
	}
	return b, nil
}

// Run evaluates every (persona, case) pair: for each case, each persona its
// ground truth names or that has a recorded answer, restricted to personas
// when that is non-empty. Pairs run in parallel, at most concurrency at once
// (values below 1 mean 1). An Answerer error or a malformed answer fails
// that pair, recorded in the report; Run itself fails only on an unknown
// persona in the restriction or a cancelled context.
func Run(ctx context.Context, cases []Case, personas []string, ans Answerer, concurrency int) (Report, error) {
	for _, p := range personas {
		if !KnownPersona(p) {
			return Report{}, fmt.Errorf("eval: unknown persona %q (known: %s)", p, strings.Join(knownPersonas(), ", "))
		}
	}
	type pair struct {
		persona string
		c       Case
	}
	var pairs []pair
	for _, c := range cases {
		for _, p := range c.Personas() {
			if len(personas) == 0 || slices.Contains(personas, p) {
				pairs = append(pairs, pair{p, c})
			}
		}
	}

	results := make([]PairResult, len(pairs))
	var g errgroup.Group
	g.SetLimit(max(concurrency, 1))
	for i, pr := range pairs {
		g.Go(func() error {
			results[i] = evaluate(ctx, pr.persona, pr.c, ans)
			return nil
		})
	}
	_ = g.Wait() // goroutines report through their slots, never by error
	if err := ctx.Err(); err != nil {
		return Report{}, fmt.Errorf("eval: run: %w", err)
	}
	return Summarize(results), nil
}

// evaluate gets, parses and scores one pair.
func evaluate(ctx context.Context, persona string, c Case, ans Answerer) PairResult {
	if err := ctx.Err(); err != nil {
		return Failed(persona, c, err.Error())
	}
	b, err := ans.Answer(ctx, persona, c)
	if err != nil {
		return Failed(persona, c, err.Error())
	}
	a, err := ParseAnswer(b)
	if err != nil {
		return Failed(persona, c, err.Error())
	}
	if !strings.EqualFold(strings.TrimSpace(a.Reviewer), persona) {
		return Failed(persona, c, fmt.Sprintf("%s: answer names reviewer %q, want %q", ErrMalformed, a.Reviewer, persona))
	}
	return Score(persona, c, a)
}
