package review

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/synth"
	"golang.org/x/sync/errgroup"
)

// dispatch runs every (persona, part) call in parallel under the bound.
// Each goroutine writes its own slot, so the output order is fixed. With
// o.WarmCache the first persona's call of each part goes first, streamed,
// and the rest of the part's calls follow at its first token (or its end,
// when none comes, or after Options.WarmupHold): by then the provider has
// read its prompt, so its prompt cache can serve the shared prefix when
// they arrive, at the cost of one time-to-first-token rather than one
// whole latency. A provider that reports no cached tokens for the first
// call released so stops the warming (warmth).
func (rn *reviewRun) dispatch(ctx context.Context) ([]synth.PersonaResult, []PersonaRun) {
	o, team, parts, pc, calls := rn.o, rn.team, rn.parts, rn.pc, rn.calls
	type slot struct {
		answer finding.Answer
		resp   llm.Response
		err    error
	}
	slots := make([][]slot, len(team))
	for i := range team {
		slots[i] = make([]slot, len(parts))
	}
	warm := o.WarmCache && len(team) > 1
	ready := make([]*release, len(parts)) // part j's warm-up has been read
	for j := range ready {
		ready[j] = newRelease()
	}
	call := func(ctx context.Context, i, j int) {
		p := team[i]
		c := pc
		c.Files, c.Levels, c.Fence = parts[j].Files, parts[j].Levels, o.Fence
		c.PathInstructions = pathInstructions(o.repo.PathInstructions, parts[j].Files)
		req := prompt.ForPersona(c, p.Persona, o.modelFor(p.Persona))
		req.AllowRepair = calls.take
		if warm && i == 0 {
			req.OnFirstToken = ready[j].open
			defer ready[j].open()
		}
		s := &slots[i][j]
		if !calls.take() {
			s.err = calls.refused()
			return
		}
		resp, err := rn.r.Model.Complete(ctx, req)
		if llm.Fatal(err) {
			calls.halt(err)
		} else if err != nil && calls.halted() != nil {
			err = errHalted // cancelled by another call's fatal error
		}
		s.resp, s.err = resp, err
		if err == nil {
			s.err = decodeStrict(resp.JSON, &s.answer)
		}
	}
	// The warm-ups are started first, so a call waiting for its part's
	// warm-up never holds a slot its warm-up needs.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.MaxConcurrency)
	for i := range team {
		for j := range parts {
			g.Go(func() error {
				released := warm && i > 0 && rn.warm.follow(gctx, ready[j])
				call(gctx, i, j)
				if released {
					s := slots[i][j]
					rn.warm.observe(s.resp.Usage, s.err)
				}
				return nil // one persona's failure never stops the others
			})
		}
	}
	_ = g.Wait()

	var results []synth.PersonaResult
	runs := make([]PersonaRun, len(team))
	for i, p := range team {
		run := PersonaRun{Name: p.Name, Reason: p.Reason, Model: o.modelFor(p.Persona)}
		merged := finding.Answer{Reviewer: p.Name}
		var errs []string
		for _, s := range slots[i] {
			if !errors.Is(s.err, errOverCalls) && !errors.Is(s.err, errHalted) {
				run.Calls++
				run.Usage.add(s.resp)
			}
			if s.err != nil {
				errs = append(errs, s.err.Error())
				continue
			}
			merged.Findings = append(merged.Findings, s.answer.Findings...)
			merged.TestingGaps = append(merged.TestingGaps, s.answer.TestingGaps...)
			merged.ResidualRisks = append(merged.ResidualRisks, s.answer.ResidualRisks...)
		}
		switch {
		case len(slots[i]) == 0:
		case len(errs) == len(slots[i]):
			run.Failed = errs[0]
			if calls.halted() == nil { // a fatal error is said once, by run
				o.logf("dispatch: %s failed: %s", p.Name, errs[0])
			}
		default:
			if len(errs) > 0 {
				// Some chunks answered: the persona counts as run, the
				// review as partial.
				run.ChunksFailed = len(errs)
				o.logf("dispatch: %s: %d of %d chunks failed: %s", p.Name, len(errs), len(slots[i]), errs[0])
			}
			// The persona's own name wins over whatever the model wrote.
			for k := range merged.Findings {
				merged.Findings[k].Reviewers = []string{p.Name}
			}
			results = append(results, synth.PersonaResult{Persona: p.Name, Answer: merged})
			run.Findings = len(merged.Findings)
			o.logf("dispatch: %s answered with %d findings", p.Name, run.Findings)
		}
		runs[i] = run
	}
	return results, runs
}

// decodeStrict decodes schema-checked JSON, refusing unknown fields a second
// time so nothing the model invents can reach the pipeline.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
}

// add counts one model call and its tokens (all its attempts).
func (u *Usage) add(resp llm.Response) {
	u.Calls++
	u.PromptTokens += resp.Usage.PromptTokens
	u.CachedTokens += resp.Usage.CachedTokens
	u.CompletionTokens += resp.Usage.CompletionTokens
}

// sum adds v's calls and tokens to u.
func (u *Usage) sum(v Usage) {
	u.Calls += v.Calls
	u.PromptTokens += v.PromptTokens
	u.CachedTokens += v.CachedTokens
	u.CompletionTokens += v.CompletionTokens
}
