package eval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// Answerer produces one persona's raw answer (a findings-schema JSON object)
// for one case. The live implementation builds the persona's own prompt and
// calls the model; Recorded replays fixtures.
type Answerer interface {
	Answer(ctx context.Context, persona string, c Case) ([]byte, error)
}

// ErrNoRecording is wrapped when Recorded has no answer for a pair.
var ErrNoRecording = errors.New("eval: no recorded answer")

// Recorded answers from files <Root>/<suite>/<case>/recorded/<persona>.json
// in FS. A zero FS means fixtures.FS, a zero Root means DefaultRoot.
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
	p := path.Join(root, c.Suite, c.Name, recDir, persona+".json")
	b, err := fs.ReadFile(fsys, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w for persona %q on case %q (want %s)", ErrNoRecording, persona, c.ID(), p)
	}
	if err != nil {
		return nil, fmt.Errorf("eval: read recording: %w", err)
	}
	return b, nil
}

// Options configure a Run.
type Options struct {
	// Personas restricts the personas evaluated (and the pipeline's team);
	// empty means all.
	Personas []string
	// Answerer gives each persona's answer for the per-persona scores.
	Answerer Answerer
	// Model is the live model. Nil means offline: only cases with recorded
	// answers are scored, the pipeline runs on them with the recorded
	// validator verdicts. Set, the pipeline asks it for the personas the
	// Answerer was not asked and for every validation.
	Model     llm.Completer
	ModelName string
	// Source labels a live run's answers (Kind SourceLive); offline each
	// case's recorded Source is used.
	Source Source
	// Team are the persona definitions the pipeline selects from; nil loads
	// prompts/.
	Team []persona.Persona
	// Judge, when set, is asked whether each line-overlap match is the same
	// issue.
	Judge Judge
	// Recorder, when set, saves every live answer and verdict.
	Recorder *Recorder
	// Concurrency bounds the pairs (and pipeline cases) run at once; values
	// below 1 mean 1.
	Concurrency int
	// NoPipeline skips the whole-pipeline scores.
	NoPipeline bool
	// ValidatorOnly, with Model set, asks Model as the validator only: the
	// personas answer from the recordings (offline's cases and pairs), so
	// a validator mode can be measured, and recorded, on answers already
	// recorded.
	ValidatorOnly bool
	// ValidatorBatching is the validator's mode in the pipeline and on the
	// pool: review.ValidatePerFile (the product's default, and "") or
	// review.ValidatePerFinding.
	ValidatorBatching string
	// Pool, when set, runs the validator alone on it; PoolCases are the
	// cases its items name (nil means the run's cases).
	Pool      *Pool
	PoolCases []Case
}

// Run evaluates every (persona, case) pair: for each case, each persona its
// ground truth names, and offline each that has a recorded answer, live
// each the pipeline selects (LivePersonas), restricted to o.Personas when
// that is non-empty; then, unless o.NoPipeline, the whole
// pipeline on each case. Offline (o.Model nil), cases without recorded
// answers are listed as not scored. An Answerer error or a malformed answer
// fails that pair, recorded in the report; Run itself fails only on an
// unknown persona in the restriction or a cancelled context.
func Run(ctx context.Context, cases []Case, o Options) (Report, error) {
	switch o.ValidatorBatching {
	case "", review.ValidatePerFile, review.ValidatePerFinding:
	default:
		return Report{}, fmt.Errorf("eval: validator batching must be %s or %s, got %q", review.ValidatePerFile, review.ValidatePerFinding, o.ValidatorBatching)
	}
	for _, p := range o.Personas {
		if !KnownPersona(p) {
			return Report{}, fmt.Errorf("eval: unknown persona %q (known: %s)", p, strings.Join(knownPersonas(), ", "))
		}
	}
	if o.Team == nil && !o.NoPipeline {
		team, err := persona.Load()
		if err != nil {
			return Report{}, fmt.Errorf("eval: %w", err)
		}
		o.Team = team
	}
	var scored, unscored []Case
	for _, c := range cases {
		if o.personasOffline() && len(c.Recorded) == 0 {
			unscored = append(unscored, c)
			continue
		}
		scored = append(scored, c)
	}

	if o.ValidatorOnly && o.Recorder != nil {
		// Verdicts recorded beside answers are one model's with them.
		for _, c := range scored {
			if c.Source.Kind != SourceRecorded || c.Source.Model != o.Recorder.Source.Model {
				return Report{}, fmt.Errorf("eval: %s: the answers replayed are %s; verdicts of %s cannot be recorded beside them",
					c.ID(), c.Source.Label(), o.Recorder.Source.Model)
			}
		}
	}

	type pair struct {
		persona string
		c       Case
	}
	var pairs []pair
	for _, c := range scored {
		personas := c.Personas()
		if !o.personasOffline() {
			// Live, a persona is asked what its labels expect of it, or
			// because the pipeline selects it: an old recording is no
			// reason to pay for an answer nobody uses.
			var err error
			if personas, err = LivePersonas(c, o.Team); err != nil {
				return Report{}, err
			}
		}
		for _, p := range personas {
			if len(o.Personas) == 0 || slices.Contains(o.Personas, p) {
				pairs = append(pairs, pair{p, c})
			}
		}
	}

	answers := newAnswerSet()
	results := make([]PairResult, len(pairs))
	var g errgroup.Group
	g.SetLimit(max(o.Concurrency, 1))
	for i, pr := range pairs {
		g.Go(func() error {
			results[i] = evaluate(ctx, pr.persona, pr.c, o, answers)
			return nil
		})
	}
	_ = g.Wait() // goroutines report through their slots, never by error
	if err := ctx.Err(); err != nil {
		return Report{}, fmt.Errorf("eval: run: %w", err)
	}
	r := Summarize(results)

	if !o.NoPipeline {
		pipe := make([]CaseResult, len(scored))
		for i, c := range scored {
			g.Go(func() error {
				pipe[i] = runPipeline(ctx, c, o, answers.of(c))
				return nil
			})
		}
		_ = g.Wait()
		if err := ctx.Err(); err != nil {
			return Report{}, fmt.Errorf("eval: run: %w", err)
		}
		r.Pipeline = SummarizePipeline(pipe)
		r.Pipeline.Batching = o.batching()
	}
	for _, c := range unscored {
		r.Unscored = append(r.Unscored, c.ID())
	}
	r.Sources = sourcesOf(scored, o)
	if o.Pool != nil {
		pc := o.PoolCases
		if pc == nil {
			pc = cases
		}
		v, err := RunValidator(ctx, o.Pool, pc, ValidatorOptions{Model: o.Model, ModelName: o.ModelName, Source: o.Source, Recorder: o.Recorder, Concurrency: o.Concurrency, Batching: o.batching()})
		if err != nil {
			return Report{}, err
		}
		r.Validator = &v
	}
	return r, nil
}

// sourcesOf lists the answer sources of the scored cases, with counts.
func sourcesOf(cases []Case, o Options) []SourceCount {
	var out []SourceCount
	for _, c := range cases {
		s := c.Source
		if !o.personasOffline() {
			s = o.Source
		}
		i := slices.IndexFunc(out, func(sc SourceCount) bool { return sc.Source == s })
		if i < 0 {
			out = append(out, SourceCount{Source: s})
			i = len(out) - 1
		}
		out[i].Cases++
	}
	return out
}

// answerSet keeps every parsed answer of the per-persona pass, so the
// pipeline reuses them instead of asking again.
type answerSet struct {
	mu sync.Mutex
	m  map[string]map[string][]byte // case id → persona → raw answer
}

func newAnswerSet() *answerSet { return &answerSet{m: map[string]map[string][]byte{}} }

func (s *answerSet) put(c Case, persona string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[c.ID()] == nil {
		s.m[c.ID()] = map[string][]byte{}
	}
	s.m[c.ID()][persona] = b
}

func (s *answerSet) of(c Case) map[string][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[c.ID()]
}

// evaluate gets, parses and scores one pair.
func evaluate(ctx context.Context, persona string, c Case, o Options, answers *answerSet) PairResult {
	if err := ctx.Err(); err != nil {
		return Failed(persona, c, err.Error())
	}
	b, err := o.Answerer.Answer(ctx, persona, c)
	if err != nil {
		return Failed(persona, c, err.Error())
	}
	if o.Recorder != nil && !o.personasOffline() {
		if err := o.Recorder.SavePersona(c, persona, b); err != nil {
			return Failed(persona, c, err.Error())
		}
	}
	a, err := ParseAnswer(b)
	if err != nil {
		return Failed(persona, c, err.Error())
	}
	if !strings.EqualFold(strings.TrimSpace(a.Reviewer), persona) {
		return Failed(persona, c, fmt.Sprintf("%s: answer names reviewer %q, want %q", ErrMalformed, a.Reviewer, persona))
	}
	answers.put(c, persona, b)
	rej, errs := judge(ctx, o.Judge, c, a.Findings, personaLane(persona))
	p := ScoreWith(persona, c, a, rej)
	p.JudgeErrors = errs
	return p
}

// judge asks j about every candidate match of fs; a judge error leaves the
// line-overlap match standing (the judge only ever removes matches) and is
// counted.
func judge(ctx context.Context, j Judge, c Case, fs []finding.Finding, inLane func(Issue) bool) (Rejections, int) {
	if j == nil {
		return nil, 0
	}
	errs := 0
	byID := map[string]Issue{}
	for _, is := range c.Truth {
		byID[is.ID] = is
	}
	rej := Rejections{}
	for _, e := range Candidates(c, fs, inLane) {
		same, reason, err := j.SameIssue(ctx, c, byID[e.Issue], fs[e.Finding])
		switch {
		case err != nil:
			errs++
		case !same:
			rej[e] = reason
		}
	}
	return rej, errs
}

// LivePersonas are the personas a live run asks on c, each alone: every
// persona its ground truth names, and every persona selection picks for
// the case from team (as the pipeline will; nil team loads prompts/). A
// persona with only an old recording behind it is not asked.
func LivePersonas(c Case, team []persona.Persona) ([]string, error) {
	if team == nil {
		var err error
		if team, err = persona.Load(); err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
	}
	var ps []string
	for _, is := range c.Truth {
		if len(is.Personas) == 0 {
			ps = append(ps, is.Persona)
		}
		ps = append(ps, is.Personas...)
	}
	sc, err := scope.Apply(&diff.Diff{Files: c.Files}, nil)
	if err != nil {
		return nil, fmt.Errorf("eval: %s: %w", c.ID(), err)
	}
	sel, err := persona.Select(team, persona.Signals{Files: sc.Files, ExecutableLines: sc.ExecutableLines}, nil)
	if err != nil {
		return nil, fmt.Errorf("eval: %s: %w", c.ID(), err)
	}
	for _, p := range sel {
		ps = append(ps, p.Name)
	}
	sortPersonas(ps)
	return slices.Compact(ps), nil
}

// batching is o.ValidatorBatching, the product's default when unset.
func (o Options) batching() string {
	if o.ValidatorBatching == "" {
		return review.ValidatePerFile
	}
	return o.ValidatorBatching
}

// personasOffline reports whether the personas answer from the recordings:
// offline, or live with ValidatorOnly.
func (o Options) personasOffline() bool { return o.Model == nil || o.ValidatorOnly }
