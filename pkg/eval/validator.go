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
)

// PoolDir is the directory under the root holding the validator's pool:
// pool.jsonl, and recorded/ (source.json, answers.jsonl).
const PoolDir = "validator"

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
	Items   []PoolItem
	Source  Source                        // who wrote Answers
	Answers map[string]finding.Validation // by item id
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

	rec := path.Join(dir, recDir)
	if b, err = fs.ReadFile(fsys, path.Join(rec, sourceFile)); err == nil {
		if err := decodeStrict(b, &p.Source); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrCase, path.Join(rec, sourceFile), err)
		}
		if err := p.Source.check(); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrCase, path.Join(rec, sourceFile), err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("eval: pool: %w", err)
	}
	b, err = fs.ReadFile(fsys, path.Join(rec, "answers.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("eval: pool: %w", err)
	}
	if p.Source.Kind == "" {
		return nil, fmt.Errorf("%w: %s: answers without %s", ErrCase, rec, sourceFile)
	}
	err = eachLine(b, func(_ int, line []byte) error {
		var a struct {
			ID        string `json:"id"`
			Validated *bool  `json:"validated"`
			Reason    string `json:"reason"`
		}
		if err := decodeStrict(line, &a); err != nil || !seen[a.ID] || a.Validated == nil || strings.TrimSpace(a.Reason) == "" {
			return fmt.Errorf("want {\"id\" of a pool item, \"validated\", \"reason\"} (%v)", err)
		}
		p.Answers[a.ID] = finding.Validation{Validated: *a.Validated, Reason: a.Reason}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s/answers.jsonl%w", ErrCase, rec, err)
	}
	return p, nil
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

// PoolResult is the validator's verdict on one pool item.
type PoolResult struct {
	ID        string `json:"id"`
	Real      bool   `json:"real"`
	Validated bool   `json:"validated"`
	Reason    string `json:"reason"`
	Failed    bool   `json:"failed,omitempty"`
}

// ValidatorReport is the validator alone on the pool.
type ValidatorReport struct {
	Source Source
	Confusion
	Results []PoolResult
}

// ValidatorOptions is how RunValidator asks the validator.
type ValidatorOptions struct {
	// Model is the live model; nil answers from the pool's recordings.
	Model     llm.Completer
	ModelName string
	// Source labels a live run's verdicts.
	Source Source
	// Recorder, when set, saves every live verdict.
	Recorder *Recorder
	// Concurrency bounds the items asked at once; values below 1 mean 1.
	Concurrency int
}

// RunValidator runs the validator alone over the pool: offline (o.Model
// nil) from the pool's recorded answers, live through prompt.ForValidator
// and o.Model (one call per item, at most o.Concurrency at once), each live
// verdict saved when o.Recorder is set. An item whose case is not among
// cases fails.
func RunValidator(ctx context.Context, p *Pool, cases []Case, o ValidatorOptions) (ValidatorReport, error) {
	model, modelName, rec := o.Model, o.ModelName, o.Recorder
	byID := map[string]Case{}
	for _, c := range cases {
		byID[c.ID()] = c
	}
	rep := ValidatorReport{Source: p.Source, Results: make([]PoolResult, len(p.Items))}
	if model != nil {
		rep.Source = o.Source
	}
	var g errgroup.Group
	g.SetLimit(max(o.Concurrency, 1))
	for i, it := range p.Items {
		g.Go(func() error {
			r := PoolResult{ID: it.ID, Real: it.Real}
			v, err := verify(ctx, it, byID, p, model, modelName)
			if err == nil && model != nil && rec != nil {
				err = rec.SavePoolVerdict(it.ID, v)
			}
			if err != nil {
				r.Failed, r.Reason = true, err.Error()
			} else {
				r.Validated, r.Reason = v.Validated, v.Reason
			}
			rep.Results[i] = r
			return nil
		})
	}
	_ = g.Wait()
	if err := ctx.Err(); err != nil {
		return ValidatorReport{}, fmt.Errorf("eval: validator: %w", err)
	}
	for _, r := range rep.Results {
		switch {
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

func verify(ctx context.Context, it PoolItem, cases map[string]Case, p *Pool, model llm.Completer, modelName string) (finding.Validation, error) {
	c, ok := cases[it.Case]
	if !ok {
		return finding.Validation{}, fmt.Errorf("eval: pool item %s: no case %q", it.ID, it.Case)
	}
	if model == nil {
		v, ok := p.Answers[it.ID]
		if !ok {
			return finding.Validation{}, fmt.Errorf("%w for pool item %s", ErrNoRecording, it.ID)
		}
		return v, nil
	}
	pc := prompt.Context{Repo: "eval/" + c.Name, Title: c.Title, Body: c.Body, Files: c.Files, Fence: prompt.NewFence()}
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
