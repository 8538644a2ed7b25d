package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// PoolDir is the directory under the root holding the validator's pool:
// pool.jsonl, recorded/ (the per-finding validator's verdicts:
// source.json, answers.jsonl) and recorded-per-file/ (the per-file
// validator's, the same layout).
const PoolDir = "validator"

// poolRecDir is the pool's directory of recorded verdicts of a validator
// batching mode.
func poolRecDir(batching string) string {
	if batching == review.ValidatePerFile {
		return recDir + "-per-file"
	}
	return recDir
}

// PoolItem is one candidate finding of the validator's labelled pool: a
// finding as a persona reported it on a case, and whether it is real.
type PoolItem struct {
	ID      string          `json:"id"`
	Case    string          `json:"case"` // "suite/name"
	Finding finding.Finding `json:"finding"`
	Real    bool            `json:"real"`
	Note    string          `json:"note"`
}

// Pool is the validator's labelled pool and its recorded answers.
type Pool struct {
	Items []PoolItem
	// Source and Answers are the per-finding validator's recorded verdicts
	// (recorded/), by item id; PerFile the per-file validator's
	// (recorded-per-file/), nil when none were recorded.
	Source  Source
	Answers map[string]finding.Validation
	PerFile *PoolVerdicts
}

// PoolVerdicts are recorded verdicts on pool items and who gave them.
type PoolVerdicts struct {
	Source  Source
	Answers map[string]finding.Validation // by item id
}

// Verdicts are the recorded verdicts of the validator batching mode, with
// their source (zero, nil when that mode was never recorded). As for the
// cases (Case.Verdicts), a model's verdict in one mode never stands in for
// the other's; verdicts scripted by hand serve both.
func (p *Pool) Verdicts(batching string) (Source, map[string]finding.Validation) {
	if batching != review.ValidatePerFile {
		return p.Source, p.Answers
	}
	if p.PerFile != nil {
		return p.PerFile.Source, p.PerFile.Answers
	}
	if p.Source.Kind == SourceScripted {
		return p.Source, p.Answers
	}
	return Source{}, nil
}

// LoadPool reads root/validator/pool.jsonl and its recorded answers. A
// missing pool is nil, nil.
func LoadPool(fsys fs.FS, root string) (*Pool, error) {
	dir := path.Join(root, PoolDir)
	b, err := fs.ReadFile(fsys, path.Join(dir, "pool.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("eval: pool: %w", err)
	}
	p := &Pool{Answers: map[string]finding.Validation{}}
	seen := map[string]bool{}
	err = eachLine(b, func(_ int, line []byte) error {
		var raw struct {
			ID      string          `json:"id"`
			Case    string          `json:"case"`
			Finding json.RawMessage `json:"finding"`
			Real    *bool           `json:"real"`
			Note    string          `json:"note"`
		}
		if err := decodeStrict(line, &raw); err != nil {
			return err
		}
		if raw.ID == "" || seen[raw.ID] || raw.Case == "" || raw.Real == nil {
			return errors.New("a unique id, case and real are required")
		}
		wrapped := fmt.Appendf(nil, `{"reviewer":"pool","findings":[%s],"residual_risks":[],"testing_gaps":[]}`, raw.Finding)
		a, err := ParseAnswer(wrapped)
		if err != nil {
			return err
		}
		seen[raw.ID] = true
		p.Items = append(p.Items, PoolItem{ID: raw.ID, Case: raw.Case, Finding: a.Findings[0], Real: *raw.Real, Note: raw.Note})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s/pool.jsonl%w", ErrCase, dir, err)
	}

	pv, err := loadPoolVerdicts(fsys, path.Join(dir, recDir), seen)
	if err != nil {
		return nil, err
	}
	p.Source, p.Answers = pv.Source, pv.Answers
	pf, err := loadPoolVerdicts(fsys, path.Join(dir, poolRecDir(review.ValidatePerFile)), seen)
	if err != nil {
		return nil, err
	}
	if pf.Source.Kind != "" {
		p.PerFile = &pf
	}
	return p, nil
}

// loadPoolVerdicts reads one directory of recorded pool verdicts
// (source.json, answers.jsonl); a missing directory is no verdicts.
func loadPoolVerdicts(fsys fs.FS, rec string, items map[string]bool) (PoolVerdicts, error) {
	pv := PoolVerdicts{Answers: map[string]finding.Validation{}}
	b, err := fs.ReadFile(fsys, path.Join(rec, sourceFile))
	if err == nil {
		if err := decodeStrict(b, &pv.Source); err != nil {
			return pv, fmt.Errorf("%w: %s: %w", ErrCase, path.Join(rec, sourceFile), err)
		}
		if err := pv.Source.check(); err != nil {
			return pv, fmt.Errorf("%w: %s: %w", ErrCase, path.Join(rec, sourceFile), err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return pv, fmt.Errorf("eval: pool: %w", err)
	}
	b, err = fs.ReadFile(fsys, path.Join(rec, "answers.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return pv, nil
	}
	if err != nil {
		return pv, fmt.Errorf("eval: pool: %w", err)
	}
	if pv.Source.Kind == "" {
		return pv, fmt.Errorf("%w: %s: answers without %s", ErrCase, rec, sourceFile)
	}
	err = eachLine(b, func(_ int, line []byte) error {
		var a struct {
			ID        string `json:"id"`
			Validated *bool  `json:"validated"`
			Reason    string `json:"reason"`
		}
		if err := decodeStrict(line, &a); err != nil || !items[a.ID] || a.Validated == nil || strings.TrimSpace(a.Reason) == "" {
			return fmt.Errorf("want {\"id\" of a pool item, \"validated\", \"reason\"} (%v)", err)
		}
		pv.Answers[a.ID] = finding.Validation{Validated: *a.Validated, Reason: a.Reason}
		return nil
	})
	if err != nil {
		return pv, fmt.Errorf("%w: %s/answers.jsonl%w", ErrCase, rec, err)
	}
	return pv, nil
}

// Confusion is the validator's confusion matrix: TP real and confirmed, FN
// real and rejected, FP not real and confirmed, TN not real and rejected.
// A failed validation counts as a rejection (the pipeline drops it) and is
// also counted in Failed.
type Confusion struct {
	TP     int `json:"tp"`
	FP     int `json:"fp"`
	TN     int `json:"tn"`
	FN     int `json:"fn"`
	Failed int `json:"failed"`
}

// Precision is TP/(TP+FP): of what it confirmed, the share that was real.
func (c Confusion) Precision() Ratio { return Ratio{c.TP, c.TP + c.FP} }

// Recall is TP/(TP+FN): of the real findings, the share it kept.
func (c Confusion) Recall() Ratio { return Ratio{c.TP, c.TP + c.FN} }

// Specificity is TN/(TN+FP): of the false findings, the share it dropped.
func (c Confusion) Specificity() Ratio { return Ratio{c.TN, c.TN + c.FP} }

// Accuracy is (TP+TN)/all.
func (c Confusion) Accuracy() Ratio { return Ratio{c.TP + c.TN, c.TP + c.TN + c.FP + c.FN} }

// PoolResult is the validator's verdict on one pool item. NotScored marks
// an item offline without a recorded verdict of the run's mode: it is
// left out of the confusion matrix, never counted as either answer.
type PoolResult struct {
	ID        string `json:"id"`
	Real      bool   `json:"real"`
	Validated bool   `json:"validated"`
	Reason    string `json:"reason"`
	Failed    bool   `json:"failed,omitempty"`
	NotScored bool   `json:"not_scored,omitempty"`
}

// ValidatorReport is the validator alone on the pool, in one batching mode.
type ValidatorReport struct {
	// Batching is the mode: review.ValidatePerFile or ValidatePerFinding.
	Batching string
	Source   Source
	Confusion
	// NotScored counts the items without a recorded verdict (offline).
	NotScored int
	Results   []PoolResult
}

// PoolFileBatch is the most pool items one per-file validator call judges.
// The pool holds several personas' words for one defect, which the
// product's synthesis would have merged before validation: a per-file call
// on the pool holds a handful of findings, as the product's calls do, not
// every item on a file.
const PoolFileBatch = 4

// ValidatorOptions is how RunValidator asks the validator.
type ValidatorOptions struct {
	// Model is the live model; nil answers from the pool's recordings.
	Model     llm.Completer
	ModelName string
	// Source labels a live run's verdicts.
	Source Source
	// Recorder, when set, saves every live verdict.
	Recorder *Recorder
	// Concurrency bounds the calls made at once; values below 1 mean 1.
	Concurrency int
	// Batching is the validator's mode: review.ValidatePerFile (the
	// product's default, and "") asks one call per file of a case, judging
	// the pool's findings on that file together; review.ValidatePerFinding
	// one call per item.
	Batching string
}

// RunValidator runs the validator alone over the pool in o.Batching mode:
// offline (o.Model nil) from the pool's recorded verdicts of that mode,
// live through the validator prompt and o.Model (at most o.Concurrency
// calls at once), each live verdict saved when o.Recorder is set. An item
// whose case is not among cases fails; offline, an item without a
// recorded verdict is not scored.
func RunValidator(ctx context.Context, p *Pool, cases []Case, o ValidatorOptions) (ValidatorReport, error) {
	if o.Batching == "" {
		o.Batching = review.ValidatePerFile
	}
	byID := map[string]Case{}
	for _, c := range cases {
		byID[c.ID()] = c
	}
	src, recorded := p.Verdicts(o.Batching)
	rep := ValidatorReport{Batching: o.Batching, Source: src, Results: make([]PoolResult, len(p.Items))}
	if o.Model != nil {
		rep.Source = o.Source
	}
	// The calls: one per item, or per file one judging up to
	// PoolFileBatch of its items together, in pool order.
	var calls [][]int
	byFile := map[string]int{}
	for i, it := range p.Items {
		k := it.Case + "\x00" + it.Finding.File
		if j, ok := byFile[k]; ok && o.Batching == review.ValidatePerFile && len(calls[j]) < PoolFileBatch {
			calls[j] = append(calls[j], i)
			continue
		}
		byFile[k] = len(calls)
		calls = append(calls, []int{i})
	}
	var g errgroup.Group
	g.SetLimit(max(o.Concurrency, 1))
	for _, idx := range calls {
		g.Go(func() error {
			var vs []finding.Validation
			var err error
			switch {
			case o.Model == nil:
				for _, i := range idx {
					it := p.Items[i]
					r := PoolResult{ID: it.ID, Real: it.Real}
					if v, ok := recorded[it.ID]; ok {
						r.Validated, r.Reason = v.Validated, v.Reason
					} else {
						r.NotScored, r.Reason = true, fmt.Sprintf("no recorded %s verdict", o.Batching)
					}
					rep.Results[i] = r
				}
				return nil
			case o.Batching == review.ValidatePerFile:
				vs, err = verifyFile(ctx, p.Items, idx, byID, o.Model, o.ModelName)
			default:
				var v finding.Validation
				v, err = verify(ctx, p.Items[idx[0]], byID, o.Model, o.ModelName)
				vs = []finding.Validation{v}
			}
			for k, i := range idx {
				it := p.Items[i]
				r := PoolResult{ID: it.ID, Real: it.Real}
				e := err
				if e == nil && vs[k].Reason == "" && !vs[k].Validated {
					e = fmt.Errorf("%w: no verdict for %s", ErrMalformed, it.ID)
				}
				if e == nil && o.Recorder != nil {
					e = o.Recorder.SavePoolVerdict(o.Batching, it.ID, vs[k])
				}
				if e != nil {
					r.Failed, r.Reason = true, e.Error()
				} else {
					r.Validated, r.Reason = vs[k].Validated, vs[k].Reason
				}
				rep.Results[i] = r
			}
			return nil
		})
	}
	_ = g.Wait()
	if err := ctx.Err(); err != nil {
		return ValidatorReport{}, fmt.Errorf("eval: validator: %w", err)
	}
	for _, r := range rep.Results {
		switch {
		case r.NotScored:
			rep.NotScored++
		case r.Failed:
			rep.Failed++
			if r.Real {
				rep.FN++
			} else {
				rep.TN++
			}
		case r.Real && r.Validated:
			rep.TP++
		case r.Real:
			rep.FN++
		case r.Validated:
			rep.FP++
		default:
			rep.TN++
		}
	}
	return rep, nil
}

// poolContext is the prompt context of a pool item's case.
func poolContext(it PoolItem, cases map[string]Case) (Case, prompt.Context, error) {
	c, ok := cases[it.Case]
	if !ok {
		return Case{}, prompt.Context{}, fmt.Errorf("eval: pool item %s: no case %q", it.ID, it.Case)
	}
	return c, prompt.Context{Repo: "eval/" + c.Name, Title: c.Title, Body: c.Body, Files: c.Files, Fence: prompt.NewFence()}, nil
}

// verify asks model, per finding, about one pool item.
func verify(ctx context.Context, it PoolItem, cases map[string]Case, model llm.Completer, modelName string) (finding.Validation, error) {
	c, pc, err := poolContext(it, cases)
	if err != nil {
		return finding.Validation{}, err
	}
	resp, err := model.Complete(ctx, prompt.ForValidator(it.Finding, pc, c.Head[it.Finding.File], modelName))
	if err != nil {
		return finding.Validation{}, err
	}
	// The validation schema's fields, severity included (the validator may
	// lower it): an answer the schema accepts is never counted as failed.
	var v struct {
		Validated *bool            `json:"validated"`
		Reason    string           `json:"reason"`
		Severity  finding.Severity `json:"severity"`
	}
	if err := decodeStrict(resp.JSON, &v); err != nil || v.Validated == nil {
		return finding.Validation{}, fmt.Errorf("%w: validator answer %s", ErrMalformed, resp.JSON)
	}
	return finding.Validation{Validated: *v.Validated, Reason: v.Reason, Severity: v.Severity}, nil
}

// verifyFile asks model, in one per-file call, about the pool items idx
// (one case, one file): one verdict each, in order. An item the answer
// gives no verdict, or two, gets a zero Validation with no reason, which
// RunValidator counts as failed, as the pipeline does.
func verifyFile(ctx context.Context, items []PoolItem, idx []int, cases map[string]Case, model llm.Completer, modelName string) ([]finding.Validation, error) {
	c, pc, err := poolContext(items[idx[0]], cases)
	if err != nil {
		return nil, err
	}
	fs := make([]finding.Finding, len(idx))
	for k, i := range idx {
		fs[k] = items[i].Finding
	}
	req, err := prompt.ValidatorRequest(fs, pc, c.Head[fs[0].File], modelName, 0, true)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	resp, err := model.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	var ans struct {
		Verdicts []struct {
			Finding   string           `json:"finding"`
			Validated *bool            `json:"validated"`
			Reason    string           `json:"reason"`
			Severity  finding.Severity `json:"severity"`
		} `json:"verdicts"`
	}
	if err := decodeStrict(resp.JSON, &ans); err != nil {
		return nil, fmt.Errorf("%w: validator answer %s", ErrMalformed, resp.JSON)
	}
	out := make([]finding.Validation, len(idx))
	count := make([]int, len(idx))
	for _, v := range ans.Verdicts {
		for k := range idx {
			if v.Finding == prompt.FindingID(k) && v.Validated != nil && strings.TrimSpace(v.Reason) != "" {
				out[k] = finding.Validation{Validated: *v.Validated, Reason: v.Reason, Severity: v.Severity}
				count[k]++
			}
		}
	}
	for k, n := range count {
		if n != 1 {
			out[k] = finding.Validation{}
		}
	}
	return out, nil
}
