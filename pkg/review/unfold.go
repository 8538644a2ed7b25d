package review

import (
	"context"
	"slices"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/synth"
)

// unfold keeps folding's promise at Stage 5b (SPEC 8.1, issue 30): a test
// gap folded into a finding the validator refuted, could not judge, or
// lowered below the gap's severity is validated on its own, and posts
// with its own severity when confirmed (so it blocks if it would have
// blocked alone). gated are the findings the validator was given, kept
// those it confirmed. The gaps' validations come out of what
// max-validations leaves; a gap over it makes the review incomplete, as
// any finding does. A P0 gap at anchor 50 goes to the check's "below the
// bar", as it would have alone.
func (rn *reviewRun) unfold(ctx context.Context, gated, kept []finding.Finding, pass *validation) []finding.Finding {
	var gaps []finding.Finding
	for _, g := range gated {
		if g.TestGap == nil || len(g.TestGap.Findings) == 0 {
			continue
		}
		i := slices.IndexFunc(kept, func(k finding.Finding) bool { return k.File == g.File && k.Line == g.Line && k.Title == g.Title })
		host, confirmed := g, i >= 0
		if confirmed {
			host = kept[i]
		}
		out, below := synth.Unfold(&host, confirmed)
		if confirmed {
			kept[i] = host
		}
		if len(out)+len(below) > 0 {
			rn.o.logf("validate: %d test gaps folded into %s:%d (%s) validated on their own", len(out)+len(below), g.File, g.Line, outcome(confirmed))
		}
		gaps = append(gaps, out...)
		rn.res.BelowBar = append(rn.res.BelowBar, below...)
		uncount(rn.res.Coverage.DroppedByReason, len(out)+len(below))
	}
	synth.Sort(rn.res.BelowBar)
	if len(gaps) == 0 {
		return kept
	}
	cov := rn.res.Coverage
	limit := max(rn.o.MaxValidations-cov.Validated-len(cov.Rejections)-len(cov.OverBudget), 0)
	next := *pass
	next.gated, next.limit, next.order, next.verdicts = gaps, limit, nil, nil
	ok, _ := rn.validate(ctx, &next)
	kept = append(kept, ok...)
	synth.Sort(kept)
	return kept
}

func outcome(confirmed bool) string {
	if confirmed {
		return "lowered"
	}
	return "refuted or not judged"
}

// uncount takes n unfolded gaps off the folded count: each now ends where
// a finding of its own does.
func uncount(dropped map[string]int, n int) {
	if n == 0 || dropped == nil {
		return
	}
	dropped[synth.ReasonFolded] -= n
	if dropped[synth.ReasonFolded] <= 0 {
		delete(dropped, synth.ReasonFolded)
	}
}
