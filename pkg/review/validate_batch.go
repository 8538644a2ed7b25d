package review

import (
	"context"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/prompt"
)

// validations is the answer of a per-file validator call (schema
// "validations").
type validations struct {
	Verdicts []fileVerdict `json:"verdicts"`
}

// fileVerdict is one verdict of it: the finding's id and the validation's
// own fields (promoted, so the strict decoder knows them all).
type fileVerdict struct {
	Finding string `json:"finding"`
	finding.Validation
}

// validatePerFile is Stage 5b with validator-batching per-file (SPEC 7.3):
// one call per file judges every finding of order in it, each answered on
// its own and matched back by its id (F1, F2, ...). A finding the answer
// gives no verdict for, or two, fails validation like a malformed answer.
// The file is read once and sent once, whole with its own diff in place
// (when its head version was read): fewer calls and tokens than one call
// per finding.
func (rn *reviewRun) validatePerFile(ctx context.Context, v *validation) {
	o, gated, order, parts, pc, verdicts := rn.o, v.gated, v.order, v.parts, v.pc, v.verdicts
	// Group by file, keeping the order of the first finding of each.
	var files []string
	byFile := map[string][]int{}
	for _, i := range order {
		p := gated[i].File
		if _, ok := byFile[p]; !ok {
			files = append(files, p)
		}
		byFile[p] = append(byFile[p], i)
	}
	fail := func(idx []int, reason string) {
		for _, i := range idx {
			verdicts[i] = failedVerdict(reason)
		}
	}
	phased(ctx, o.MaxConcurrency, len(files), rn.warm, func(gctx context.Context, k int) {
		file := files[k]
		content, found, err := rn.head(gctx, file)
		if err != nil {
			fail(byFile[file], "validator failed (head file unavailable)")
			return
		}
		var idx []int
		var fs []finding.Finding
		for _, i := range byFile[file] {
			if v := outsideFile(gated[i], content, found); v != nil {
				verdicts[i] = v
				continue
			}
			idx = append(idx, i)
			fs = append(fs, gated[i])
		}
		if len(fs) == 0 {
			return
		}
		// The head file is sent whole (or its changed blocks), and beside
		// it the file's own diff: its deleted lines and hunks. The other
		// files' diff would be resent in every call of the run while
		// sharing no cached prefix with the persona calls (a findings
		// and a validations request differ from their first token, the
		// schema), so a per-file call carries its file's part alone.
		part := partFor(o, pc, parts, fs[0])
		if found {
			part = ownFile(part, file)
		}
		req, err := prompt.ValidatorRequest(fs, part, content, o.ValidatorModel, o.MaxInputTokens, true)
		if err != nil {
			// Too many findings for one request: one call each.
			o.logf("validate: the %d findings of %s do not fit one request; validating them one by one", len(fs), file)
			for k, i := range idx {
				verdicts[i] = rn.validateOne(gctx, fs[k], partFor(o, pc, parts, fs[k]), content)
			}
			return
		}
		resp, err := rn.ask(gctx, req)
		if err != nil {
			fail(idx, err.Error())
			return
		}
		var ans validations
		if err := decodeStrict(resp.JSON, &ans); err != nil {
			fail(idx, validatorFailure(err))
			return
		}
		got := map[string][]finding.Validation{}
		for _, v := range ans.Verdicts {
			got[v.Finding] = append(got[v.Finding], v.Validation)
		}
		for k, i := range idx {
			switch vs := got[prompt.FindingID(k)]; len(vs) {
			case 1:
				verdicts[i] = &verdict{Validation: vs[0]}
			case 0:
				verdicts[i] = failedVerdict("validator failed (no verdict for this finding)")
			default:
				verdicts[i] = failedVerdict("validator failed (two verdicts for this finding)")
			}
		}
	})
}
