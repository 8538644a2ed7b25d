package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// FailOn is the fail-on the pipeline scores assume: the action's default.
const FailOn = "P1"

// CaseResult is the whole pipeline on one case: what would have been posted
// after synthesis, the gate and the validator, scored against every issue
// of the case whichever persona it names (an off-persona catch is a catch).
type CaseResult struct {
	Case  string `json:"case"`
	Clean bool   `json:"clean"`
	// Language is the case's language (case.json), "" without one.
	Language string `json:"language,omitempty"`
	// Team are the personas that ran.
	Team []string `json:"team"`
	// Failed is non-empty when the review could not run.
	Failed string `json:"failed,omitempty"`
	// NotScored is non-empty when the case cannot be scored offline in the
	// run's validator batching mode: a model's recording holds no verdict
	// of that mode for what the pipeline gated. The case is left out of
	// every pipeline figure and listed instead.
	NotScored string `json:"not_scored,omitempty"`
	Counts
	Matched     []string        `json:"matched,omitempty"`
	Missed      []string        `json:"missed,omitempty"`
	Results     []FindingResult `json:"results,omitempty"`
	Calibration []AnchorStat    `json:"calibration"`
	// Gated counts the findings synthesis passed to the validator;
	// Validated the ones it confirmed; DroppedReal the ones it refuted that
	// sat on a labelled issue; Unverified the ones that got no verdict (no
	// recorded verdict, a failed call, over the budget): they make the
	// review incomplete, and are no rejection.
	Gated       int `json:"gated"`
	Validated   int `json:"validated"`
	DroppedReal int `json:"validator_dropped_real"`
	Unverified  int `json:"unverified"`
	// Verdict and Conclusion are the review's, from pkg/review and
	// pkg/report, with fail-on FailOn.
	Verdict    string `json:"verdict"`
	Conclusion string `json:"conclusion"`
	// Yield is each persona's part in this review (the personas that ran).
	Yield []Yield `json:"yield,omitempty"`
}

// PipelineSummary sums the pipeline over cases.
type PipelineSummary struct {
	// Batching is the validator batching mode the pipeline ran in.
	Batching                            string
	Cases, BugCases, CleanCases, Failed int
	// NotScored lists the cases left out (CaseResult.NotScored), by id.
	NotScored []string
	Counts
	// CleanFindings are the findings posted on clean cases.
	CleanFindings int
	// CleanFailing / BugFailing count cases whose check would fail.
	CleanFailing, BugFailing                  int
	Gated, Validated, DroppedReal, Unverified int
	// Incomplete counts cases whose review was incomplete (verdict
	// degraded): their check fails whatever the findings.
	Incomplete  int
	Calibration []AnchorStat
	Results     []CaseResult
	// Yield sums the cases' yields by persona, in SPEC order.
	Yield []Yield
}

// LanguageSummary is the pipeline summed over one language's cases.
type LanguageSummary struct {
	Language string
	PipelineSummary
}

// NoLanguage is the per-language row of the cases that name no language.
const NoLanguage = "(none)"

// ByLanguage sums the scored cases per language, in name order, then the
// cases without a language (the scripted suite) as NoLanguage; nil when no
// case names one.
func (s PipelineSummary) ByLanguage() []LanguageSummary {
	by := map[string][]CaseResult{}
	for _, r := range s.Results {
		by[r.Language] = append(by[r.Language], r)
	}
	if len(by) == 1 && by[""] != nil {
		return nil // no case names its language (the scripted suite)
	}
	var out []LanguageSummary
	for _, l := range slices.Sorted(maps.Keys(by)) {
		if l != "" {
			out = append(out, LanguageSummary{Language: l, PipelineSummary: SummarizePipeline(by[l])})
		}
	}
	if rs := by[""]; rs != nil {
		// Cases without a case.json language (the scripted suite): a row of
		// their own, so the rows add up to the "all" row.
		out = append(out, LanguageSummary{Language: NoLanguage, PipelineSummary: SummarizePipeline(rs)})
	}
	return out
}

// Rejected is the gated findings the validator refuted (a verdict, not a
// failure).
func (s PipelineSummary) Rejected() int { return s.Gated - s.Validated - s.Unverified }

// DuplicatesPerPR is the posted duplicates (a labelled issue posted more
// than once) over the cases.
func (s PipelineSummary) DuplicatesPerPR() Ratio { return Ratio{s.Duplicates, s.Cases} }

// FindingsPerCleanPR is CleanFindings/CleanCases.
func (s PipelineSummary) FindingsPerCleanPR() Ratio { return Ratio{s.CleanFindings, s.CleanCases} }

// CleanFailShare is the share of clean PRs whose check would fail.
func (s PipelineSummary) CleanFailShare() Ratio { return Ratio{s.CleanFailing, s.CleanCases} }

// BugFailShare is the share of buggy PRs whose check would fail.
func (s PipelineSummary) BugFailShare() Ratio { return Ratio{s.BugFailing, s.BugCases} }

// SummarizePipeline sums case results (sorted by case).
func SummarizePipeline(rs []CaseResult) PipelineSummary {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b CaseResult) int {
		if a.Case < b.Case {
			return -1
		}
		if a.Case > b.Case {
			return 1
		}
		return 0
	})
	var scored []CaseResult
	var notScored []string
	for _, r := range rs {
		if r.NotScored != "" {
			notScored = append(notScored, r.Case)
			continue
		}
		scored = append(scored, r)
	}
	rs = scored
	s := PipelineSummary{Calibration: calibration(nil), Results: rs, Yield: sumYield(rs), NotScored: notScored}
	for _, r := range rs {
		s.Cases++
		if r.Failed != "" {
			s.Failed++
		}
		s.Counts.add(r.Counts)
		s.Calibration = addCalibration(s.Calibration, r.Calibration)
		s.Gated += r.Gated
		s.Validated += r.Validated
		s.DroppedReal += r.DroppedReal
		s.Unverified += r.Unverified
		if r.Verdict == string(review.Degraded) {
			s.Incomplete++
		}
		failing := r.Conclusion == report.ConclusionFailure
		if r.Clean {
			s.CleanCases++
			s.CleanFindings += r.Findings
			if failing {
				s.CleanFailing++
			}
		} else {
			s.BugCases++
			if failing {
				s.BugFailing++
			}
		}
	}
	return s
}

// runPipeline reviews c with the real orchestrator (selection, synthesis,
// gate, validator, verdict) over the personas' answers, then scores what it
// would post. answers are the per-persona pass's raw answers, reused.
func runPipeline(ctx context.Context, c Case, o Options, answers map[string][]byte) CaseResult {
	cr := CaseResult{Case: c.ID(), Clean: c.Clean(), Calibration: calibration(nil)}
	if c.Meta != nil {
		cr.Language = c.Meta.Language
	}
	restrict := o.Personas
	if o.personasOffline() {
		// Offline, the team is the personas with a recorded answer (within
		// the restriction): the others have nothing to say. One whose
		// recording does not parse stays in the team and fails there, so
		// the review is incomplete, as it would be live.
		restrict = nil
		for _, p := range c.Recorded {
			if len(o.Personas) == 0 || slices.Contains(o.Personas, p) {
				restrict = append(restrict, p)
			}
		}
		sortPersonas(restrict)
		if len(restrict) == 0 {
			cr.Failed = "no usable recorded answer"
			cr.Verdict, cr.Conclusion = string(review.Degraded), report.ConclusionFailure
			return pipelineMisses(c, cr)
		}
	}
	batching := o.batching()
	m := &caseModel{c: c, answers: answers, live: o.Model, validator: o.Model, rec: o.Recorder, batching: batching, noVerdict: map[string]bool{}}
	if o.ValidatorOnly {
		m.live = nil
	}
	rv := review.Reviewer{Model: m, Personas: o.Team}
	head := func(_ context.Context, p string) (string, bool, error) {
		s, ok := c.Head[p]
		return s, ok, nil
	}
	res, err := rv.ReviewDiff(ctx, review.Options{
		Owner: "eval", Repo: c.Name, // the prompt's "Repository: eval/<case>", as in the per-persona pass
		Mode: review.ModeComment, Validate: true, Personas: restrict,
		Model: o.ModelName, MaxConcurrency: max(o.Concurrency, 1), MaxValidations: -1,
		ValidatorBatching: batching,
	}, &diff.Diff{Files: c.Files}, c.Title, c.Body, head)
	if m.validator == nil && len(m.noVerdict) > 0 && c.Source.IsModel() && c.Verdicts(batching) == nil {
		// A model's recording with no verdict of this mode: the validator
		// was never asked this way, and its answer is not invented.
		cr.NotScored = fmt.Sprintf("no recorded %s validator verdicts (record them with --live --validator-batching %s --record)", batching, batching)
		return cr
	}
	for _, p := range res.Coverage.Personas {
		cr.Team = append(cr.Team, p.Name)
	}
	cr.Verdict = string(res.Verdict)
	cr.Conclusion, _ = report.Conclusion(res, FailOn)
	cr.Yield = yieldOf(res)
	if err != nil {
		cr.Failed = err.Error()
		if !errors.Is(err, review.ErrAllPersonasFailed) {
			cr.Verdict, cr.Conclusion = string(review.Degraded), report.ConclusionFailure
		}
		return pipelineMisses(c, cr)
	}
	rej, errs := judge(ctx, o.Judge, c, res.Findings, anyLane)
	p := score("pipeline", c, res.Findings, anyLane, rej)
	p.JudgeErrors = errs
	cr.Counts, cr.Matched, cr.Missed, cr.Results, cr.Calibration = p.Counts, p.Matched, p.Missed, p.Results, p.Calibration
	cr.Gated = res.Coverage.Validated + len(res.Coverage.Rejections) + len(res.Coverage.OverBudget)
	cr.Validated = res.Coverage.Validated
	cr.Unverified = len(res.Coverage.OverBudget)
	for _, rj := range res.Coverage.Rejections {
		switch {
		case m.noVerdict[VerdictKey(normFile(rj.File), rj.Line)]:
			cr.Unverified++
		case slices.ContainsFunc(c.Truth, func(is Issue) bool { return !is.Excluded && Overlaps(rj.File, []int{rj.Line}, is) }):
			cr.DroppedReal++
		}
	}
	return cr
}

// pipelineMisses counts every non-excluded issue of c as missed.
func pipelineMisses(c Case, cr CaseResult) CaseResult {
	for _, is := range c.Truth {
		if is.Excluded {
			cr.Excluded++
			continue
		}
		cr.FN++
		cr.Missed = append(cr.Missed, is.ID)
	}
	return cr
}

// caseModel is the model the pipeline talks to for one case: persona
// requests get the answers of the per-persona pass (or, live, the live
// model's); validator requests get the recorded verdicts offline, the live
// model's answer live.
type caseModel struct {
	c       Case
	answers map[string][]byte
	live    llm.Completer // personas without an answer; nil: none
	// validator answers validator requests live; nil: the recordings.
	validator llm.Completer
	rec       *Recorder
	// batching is the validator batching mode: which recorded verdicts
	// answer offline, and where live verdicts are recorded.
	batching string

	mu sync.Mutex
	// noVerdict holds the "file:line" of every validation that got no
	// verdict from the model or the recording.
	noVerdict map[string]bool
}

// Complete implements llm.Completer.
func (m *caseModel) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	if req.Persona == llm.Validator {
		return m.validate(ctx, req)
	}
	if b, ok := m.answers[req.Persona]; ok {
		a, err := ParseAnswer(b)
		if err != nil {
			return llm.Response{}, err
		}
		js, err := json.Marshal(a)
		if err != nil {
			return llm.Response{}, fmt.Errorf("eval: %w", err)
		}
		// A replay carries no usage: estimate it, so the yield table's
		// tokens say what the call would have cost.
		use := llm.Usage{PromptTokens: prompt.RequestTokens(req), CompletionTokens: prompt.EstimateTokens(string(b))}
		return llm.Response{JSON: js, Usage: use}, nil
	}
	if m.live == nil {
		return llm.Response{}, fmt.Errorf("%w for persona %s on %s", llm.ErrNoAnswer, req.Persona, m.c.ID())
	}
	resp, err := m.live.Complete(ctx, req)
	if err == nil && m.rec != nil {
		err = m.rec.SavePersona(m.c, req.Persona, resp.JSON)
	}
	return resp, err
}

func (m *caseModel) validate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Schema == prompt.ValidationsSchema {
		return m.validateFile(ctx, req)
	}
	resp, err := m.verdict(ctx, req)
	if err != nil {
		file, line := splitLabel(req.Label)
		m.missing(file, line)
	}
	return resp, err
}

// missing notes that the finding at file:line got no verdict.
func (m *caseModel) missing(file string, line int) {
	m.mu.Lock()
	m.noVerdict[VerdictKey(normFile(file), line)] = true
	m.mu.Unlock()
}

// validateFile answers a per-file validator request (schema
// "validations", one verdict per finding F1..Fn): offline from the
// recorded per-file verdicts of each finding's file:line (the request's
// label names them), live from the model, each verdict recorded.
func (m *caseModel) validateFile(ctx context.Context, req llm.Request) (llm.Response, error) {
	file, lines := splitFileLabel(req.Label)
	if m.validator == nil {
		type fileVerdict struct {
			Finding string `json:"finding"`
			finding.Validation
		}
		var ans struct {
			Verdicts []fileVerdict `json:"verdicts"`
		}
		rec := m.c.Verdicts(m.batching)
		for k, line := range lines {
			v, ok := rec[VerdictKey(normFile(file), line)]
			if !ok {
				m.missing(file, line)
				continue
			}
			ans.Verdicts = append(ans.Verdicts, fileVerdict{Finding: prompt.FindingID(k), Validation: v})
		}
		if len(ans.Verdicts) == 0 {
			return llm.Response{}, fmt.Errorf("%w: no recorded %s validator verdict for %s on %s", llm.ErrNoAnswer, m.batching, req.Label, m.c.ID())
		}
		js, err := json.Marshal(ans)
		if err != nil {
			return llm.Response{}, fmt.Errorf("eval: %w", err)
		}
		return llm.Response{JSON: js}, nil
	}
	resp, err := m.validator.Complete(ctx, req)
	if err != nil {
		for _, line := range lines {
			m.missing(file, line)
		}
		return resp, err
	}
	if m.rec != nil {
		var ans struct {
			Verdicts []struct {
				Finding string `json:"finding"`
				finding.Validation
			} `json:"verdicts"`
		}
		if json.Unmarshal(resp.JSON, &ans) == nil {
			for _, v := range ans.Verdicts {
				for k, line := range lines {
					if v.Finding == prompt.FindingID(k) {
						if err := m.rec.SaveVerdict(m.c, m.batching, file, line, v.Validation); err != nil {
							return resp, err
						}
					}
				}
			}
		}
	}
	return resp, nil
}

// verdict is the recorded verdict on req's finding, or the live model's.
func (m *caseModel) verdict(ctx context.Context, req llm.Request) (llm.Response, error) {
	if m.validator == nil {
		file, line := splitLabel(req.Label)
		v, ok := m.c.Verdicts(m.batching)[VerdictKey(normFile(file), line)]
		if !ok {
			return llm.Response{}, fmt.Errorf("%w: no recorded %s validator verdict for %s on %s", llm.ErrNoAnswer, m.batching, req.Label, m.c.ID())
		}
		js, err := json.Marshal(v)
		if err != nil {
			return llm.Response{}, fmt.Errorf("eval: %w", err)
		}
		return llm.Response{JSON: js}, nil
	}
	resp, err := m.validator.Complete(ctx, req)
	if err == nil && m.rec != nil {
		var v finding.Validation
		if json.Unmarshal(resp.JSON, &v) == nil {
			file, line := splitLabel(req.Label)
			err = m.rec.SaveVerdict(m.c, m.batching, file, line, v)
		}
	}
	return resp, err
}

// splitLabel splits a validator label "file:line".
func splitLabel(label string) (string, int) {
	for i := len(label) - 1; i >= 0; i-- {
		if label[i] == ':' {
			n := 0
			for _, r := range label[i+1:] {
				if r < '0' || r > '9' {
					return label, 0
				}
				n = n*10 + int(r-'0')
			}
			return label[:i], n
		}
	}
	return label, 0
}

// splitFileLabel splits a per-file validator label "file:line,line,...".
func splitFileLabel(label string) (string, []int) {
	i := strings.LastIndexByte(label, ':')
	if i < 0 {
		return label, nil
	}
	var lines []int
	for _, f := range strings.Split(label[i+1:], ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return label, nil
		}
		lines = append(lines, n)
	}
	return label[:i], lines
}
