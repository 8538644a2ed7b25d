package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ScriptedNotice is the line every output carries when any answer was
// scripted by hand: those numbers test the scorer, not a model.
const ScriptedNotice = "NOTE: answers scripted by hand test the scorer, not a model: these numbers say nothing about any model's quality."

// PoolScriptedNotice is the line the validator's figures carry when its
// verdicts on the pool were scripted by hand.
const PoolScriptedNotice = "NOTE: the validator's verdicts on the pool are scripted by hand: these figures test the scorer, not a model."

// NoAnswersNotice is the line an output carries when nothing was scored.
const NoAnswersNotice = "NOTE: no case here has answers (record them with --live --record): the persona and pipeline tables are empty."

// jsonLine is one JSONL record; Kind is "pair", "persona", "overall",
// "pipeline-case", "pipeline", "validator" or "runs".
type jsonLine struct {
	Kind string `json:"kind"`
	Run  int    `json:"run,omitempty"` // 1..N with --runs N > 1
	// Answers says where the answers came from (summary lines).
	Answers  string `json:"answers,omitempty"`
	Scripted *bool  `json:"scripted,omitempty"`
	Persona  string `json:"persona,omitempty"`
	Case     string `json:"case,omitempty"`
	Cases    int    `json:"cases,omitempty"`
	Failed   any    `json:"failed"` // pair: reason or null; summary: count
	Counts
	Recall      Ratio           `json:"recall"`
	Precision   Ratio           `json:"precision"`
	F1          Ratio           `json:"f1"`
	SevAgree    Ratio           `json:"severity_agreement"`
	Calibration []AnchorStat    `json:"calibration"`
	Matched     []string        `json:"matched,omitempty"`
	Missed      []string        `json:"missed,omitempty"`
	ExcludedIDs []string        `json:"excluded_ids,omitempty"`
	Results     []FindingResult `json:"results,omitempty"`
}

// pipelineLine is the JSONL summary of the whole pipeline.
type pipelineLine struct {
	Kind               string       `json:"kind"`
	Run                int          `json:"run,omitempty"`
	Answers            string       `json:"answers"`
	Scripted           bool         `json:"scripted"`
	FailOn             string       `json:"fail_on"`
	Cases              int          `json:"cases"`
	BugCases           int          `json:"bug_cases"`
	CleanCases         int          `json:"clean_cases"`
	Failed             int          `json:"failed"`
	Incomplete         int          `json:"incomplete"`
	Posted             int          `json:"posted"`
	TP                 int          `json:"tp"`
	FP                 int          `json:"fp"`
	FN                 int          `json:"fn"`
	Duplicates         int          `json:"duplicates"`
	Precision          Ratio        `json:"posted_precision"`
	Recall             Ratio        `json:"recall"`
	SevAgree           Ratio        `json:"severity_agreement"`
	FindingsPerCleanPR Ratio        `json:"findings_per_clean_pr"`
	CleanFailing       int          `json:"clean_failing"`
	CleanFailShare     Ratio        `json:"clean_fail_share"`
	BugFailing         int          `json:"bug_failing"`
	BugFailShare       Ratio        `json:"bug_fail_share"`
	Batching           string       `json:"validator_batching"`
	Gated              int          `json:"gated"`
	Validated          int          `json:"validated"`
	Rejected           int          `json:"rejected"`
	DroppedReal        int          `json:"validator_dropped_real"`
	Unverified         int          `json:"unverified"`
	NotScored          []string     `json:"not_scored,omitempty"`
	Calibration        []AnchorStat `json:"calibration"`
}

// languageLine is the JSONL summary of the pipeline on one language's
// cases.
type languageLine struct {
	Kind               string `json:"kind"`
	Run                int    `json:"run,omitempty"`
	Answers            string `json:"answers"`
	Language           string `json:"language"`
	Cases              int    `json:"cases"`
	BugCases           int    `json:"bug_cases"`
	CleanCases         int    `json:"clean_cases"`
	Posted             int    `json:"posted"`
	Precision          Ratio  `json:"posted_precision"`
	Recall             Ratio  `json:"recall"`
	DuplicatesPerPR    Ratio  `json:"duplicates_per_pr"`
	FindingsPerCleanPR Ratio  `json:"findings_per_clean_pr"`
	CleanFailShare     Ratio  `json:"clean_fail_share"`
}

type validatorLine struct {
	Kind      string `json:"kind"`
	Run       int    `json:"run,omitempty"`
	Answers   string `json:"answers"`
	Scripted  bool   `json:"scripted"`
	Batching  string `json:"validator_batching"`
	Items     int    `json:"items"`
	NotScored int    `json:"not_scored"`
	Confusion
	Precision   Ratio        `json:"precision"`
	Recall      Ratio        `json:"recall"`
	Specificity Ratio        `json:"specificity"`
	Accuracy    Ratio        `json:"accuracy"`
	Results     []PoolResult `json:"results"`
}

// WriteJSONL writes r as JSON Lines: one line per pair, one summary line
// per persona, the overall line, then one line per pipeline case, the
// pipeline summary, and the validator's line when the pool ran. Summary
// lines say where the answers came from. Undefined ratios are null.
func WriteJSONL(w io.Writer, r Report) error { return writeJSONL(w, r, 0) }

func writeJSONL(w io.Writer, r Report, run int) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	encode := func(v any) error {
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("eval: write jsonl: %w", err)
		}
		return nil
	}
	answers, scripted := r.SourceLabel(), r.Scripted()
	for _, p := range r.Pairs {
		var failed any
		if p.Failed != "" {
			failed = p.Failed
		}
		if err := encode(jsonLine{
			Kind: "pair", Run: run, Persona: p.Persona, Case: p.Case, Failed: failed, Counts: p.Counts,
			Recall: p.Recall(), Precision: p.Precision(), F1: p.F1(), SevAgree: p.SeverityAgreement(), Calibration: p.Calibration,
			Matched: p.Matched, Missed: p.Missed, ExcludedIDs: p.ExcludedIDs, Results: p.Results,
		}); err != nil {
			return err
		}
	}
	summary := func(kind string, s Summary) error {
		return encode(jsonLine{
			Kind: kind, Run: run, Answers: answers, Scripted: &scripted, Persona: s.Persona, Cases: s.Cases, Failed: s.Failed, Counts: s.Counts,
			Recall: s.Recall(), Precision: s.Precision(), F1: s.F1(), SevAgree: s.SeverityAgreement(), Calibration: s.Calibration,
		})
	}
	for _, s := range r.Personas {
		if err := summary("persona", s); err != nil {
			return err
		}
	}
	if err := summary("overall", r.Overall); err != nil {
		return err
	}
	ps := r.Pipeline
	if ps.Cases > 0 {
		for _, c := range ps.Results {
			cl := struct {
				Kind string `json:"kind"`
				Run  int    `json:"run,omitempty"`
				CaseResult
				Precision Ratio `json:"posted_precision"`
				Recall    Ratio `json:"recall"`
			}{"pipeline-case", run, c, c.Precision(), c.Recall()}
			if err := encode(cl); err != nil {
				return err
			}
		}
		if err := encode(pipelineLine{
			Kind: "pipeline", Run: run, Answers: answers, Scripted: scripted, FailOn: FailOn,
			Cases: ps.Cases, BugCases: ps.BugCases, CleanCases: ps.CleanCases, Failed: ps.Failed, Incomplete: ps.Incomplete,
			Posted: ps.Findings, TP: ps.TP, FP: ps.FP, FN: ps.FN, Duplicates: ps.Duplicates,
			Precision: ps.Precision(), Recall: ps.Recall(), SevAgree: ps.SeverityAgreement(),
			FindingsPerCleanPR: ps.FindingsPerCleanPR(), CleanFailing: ps.CleanFailing, CleanFailShare: ps.CleanFailShare(),
			BugFailing: ps.BugFailing, BugFailShare: ps.BugFailShare(),
			Batching: ps.Batching, Gated: ps.Gated, Validated: ps.Validated, Rejected: ps.Rejected(), DroppedReal: ps.DroppedReal,
			Unverified: ps.Unverified, NotScored: ps.NotScored, Calibration: ps.Calibration,
		}); err != nil {
			return err
		}
		for _, l := range ps.ByLanguage() {
			if err := encode(languageLine{
				Kind: "pipeline-language", Run: run, Answers: answers, Language: l.Language,
				Cases: l.Cases, BugCases: l.BugCases, CleanCases: l.CleanCases, Posted: l.Findings,
				Precision: l.Precision(), Recall: l.Recall(), DuplicatesPerPR: l.DuplicatesPerPR(),
				FindingsPerCleanPR: l.FindingsPerCleanPR(), CleanFailShare: l.CleanFailShare(),
			}); err != nil {
				return err
			}
		}
		for _, y := range ps.Yield {
			if err := encode(struct {
				Kind    string `json:"kind"`
				Run     int    `json:"run,omitempty"`
				Answers string `json:"answers"`
				Yield
			}{"yield", run, answers, y}); err != nil {
				return err
			}
		}
	}
	if v := r.Validator; v != nil {
		if err := encode(validatorLine{
			Kind: "validator", Run: run, Answers: v.Source.Label(), Scripted: !v.Source.IsModel(), Batching: v.Batching,
			Items: len(v.Results), NotScored: v.NotScored,
			Confusion: v.Confusion, Precision: v.Precision(), Recall: v.Recall(), Specificity: v.Specificity(),
			Accuracy: v.Accuracy(), Results: v.Results,
		}); err != nil {
			return err
		}
	}
	return nil
}

// poolScripted reports whether the validator pool's verdicts, when it
// ran, were scripted by hand (the cases' answers say so apart:
// Report.Scripted).
func poolScripted(r Report) bool {
	return r.Validator != nil && r.Validator.Source.Kind == SourceScripted
}

// writeHeader says where the answers came from, and, when the cases'
// answers were scripted by hand, that their numbers are not a model's (the
// pool's verdicts carry their own note, PoolScriptedNotice).
func writeHeader(bw *bufio.Writer, r Report) {
	fmt.Fprintf(bw, "answers: %s\n", r.SourceLabel())
	if r.Scripted() {
		fmt.Fprintln(bw, ScriptedNotice)
	}
	if len(r.Sources) == 0 {
		fmt.Fprintln(bw, NoAnswersNotice)
	}
	if len(r.Unscored) > 0 {
		fmt.Fprintf(bw, "not scored (no recorded answers; run with --live to score them): %d %s\n",
			len(r.Unscored), plural(len(r.Unscored), "case", "cases"))
	}
}

// WriteTable writes r as fixed-width text: the answers' source (and the
// scripted notice), every pair, the per-persona summaries with the overall
// line, calibration per anchor (matched/scored findings and share), the
// whole pipeline per case and summed, and the validator alone. Columns:
// findings = tp + fp + dup + xhit (findings on excluded issues) + pre
// (flagged pre-existing, unscored); fn are misses, excl the excluded
// issues, off the false positives that sit on another persona's issue, sev
// the share of true positives at the labelled severity. "-" is an
// undefined ratio (0/0).
func WriteTable(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	if r.Validator != nil && len(r.Pairs) == 0 && len(r.Unscored) == 0 && len(r.Pipeline.Results) == 0 && len(r.Pipeline.NotScored) == 0 {
		// The pool alone (eval --pool only): no case was asked.
		writeValidator(bw, *r.Validator)
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("eval: write table: %w", err)
		}
		return nil
	}
	writeHeader(bw, r)
	fmt.Fprintln(bw)
	pw, cw := len("persona"), len("case")
	for _, s := range append(r.Personas, r.Overall) {
		pw = max(pw, len(s.Persona))
	}
	for _, p := range r.Pairs {
		cw = max(cw, len(p.Case))
	}
	for _, c := range r.Pipeline.Results {
		cw = max(cw, len(c.Case))
	}

	fmt.Fprintf(bw, "per persona, each alone (answers: %s)\n", r.SourceLabel())
	fmt.Fprintf(bw, "%-*s  %-*s  %8s %4s %4s %4s %4s %4s %4s %4s %4s  %s\n",
		pw, "persona", cw, "case", "findings", "tp", "fp", "fn", "excl", "dup", "xhit", "pre", "off", "status")
	for _, p := range r.Pairs {
		status := "ok"
		if p.Failed != "" {
			status = "failed: " + oneLine(p.Failed)
		}
		fmt.Fprintf(bw, "%-*s  %-*s  %8d %4d %4d %4d %4d %4d %4d %4d %4d  %s\n",
			pw, p.Persona, cw, p.Case, p.Findings, p.TP, p.FP, p.FN, p.Excluded, p.Duplicates,
			p.ExcludedHits, p.PreExisting, p.OffPersona, status)
	}

	fmt.Fprintln(bw)
	fmt.Fprintf(bw, "per persona summary (answers: %s)\n", r.SourceLabel())
	fmt.Fprintf(bw, "%-*s  %5s %6s %8s %4s %4s %4s %4s %4s %4s %4s %4s  %6s %9s %6s %6s\n",
		pw, "persona", "cases", "failed", "findings", "tp", "fp", "fn", "excl", "dup", "xhit", "pre", "off",
		"recall", "precision", "f1", "sev")
	row := func(s Summary) {
		fmt.Fprintf(bw, "%-*s  %5d %6d %8d %4d %4d %4d %4d %4d %4d %4d %4d  %6s %9s %6s %6s\n",
			pw, s.Persona, s.Cases, s.Failed, s.Findings, s.TP, s.FP, s.FN, s.Excluded, s.Duplicates,
			s.ExcludedHits, s.PreExisting, s.OffPersona, s.Recall(), s.Precision(), s.F1(), s.SeverityAgreement())
	}
	for _, s := range r.Personas {
		row(s)
	}
	fmt.Fprintln(bw, strings.Repeat("-", pw+2+5+1+6+1+8+9*5+2+6+1+9+1+6+1+6))
	row(r.Overall)

	fmt.Fprintln(bw)
	fmt.Fprintf(bw, "calibration (matched/scored findings at each anchor; answers: %s)\n", r.SourceLabel())
	fmt.Fprintf(bw, "%-*s", pw, "persona")
	for _, a := range r.Overall.Calibration {
		fmt.Fprintf(bw, "  %10s", fmt.Sprintf("@%d", a.Anchor))
	}
	fmt.Fprintln(bw)
	cal := func(name string, as []AnchorStat) {
		fmt.Fprintf(bw, "%-*s", pw, name)
		for _, a := range as {
			fmt.Fprintf(bw, "  %10s", cell(a))
		}
		fmt.Fprintln(bw)
	}
	for _, s := range append(r.Personas, r.Overall) {
		cal(s.Persona, s.Calibration)
	}
	if r.Pipeline.Cases > 0 {
		cal("pipeline", r.Pipeline.Calibration)
	}
	if r.Pipeline.Cases > 0 || len(r.Pipeline.NotScored) > 0 {
		writePipeline(bw, r, cw)
	}
	if r.Validator != nil {
		writeValidator(bw, *r.Validator)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("eval: write table: %w", err)
	}
	return nil
}

func writePipeline(bw *bufio.Writer, r Report, cw int) {
	defer writeYield(bw, r)
	ps := r.Pipeline
	fmt.Fprintln(bw)
	fmt.Fprintf(bw, "whole pipeline: posted findings after synthesis, gate and validator (%s), fail-on %s (answers: %s)\n", ps.Batching, FailOn, r.SourceLabel())
	if n := len(ps.NotScored); n > 0 {
		fmt.Fprintf(bw, "not scored in %s mode (a model's recording without verdicts of this validator mode; none is made up): %d %s: %s\n",
			ps.Batching, n, plural(n, "case", "cases"), strings.Join(ps.NotScored, ", "))
	}
	fmt.Fprintf(bw, "%-*s  %5s  %6s %4s %4s %4s %4s  %5s %5s %6s %6s  %-16s %-10s  %s\n",
		cw, "case", "clean", "posted", "tp", "fp", "fn", "dup", "gated", "valid", "dreal", "unver", "verdict", "check", "team")
	for _, c := range ps.Results {
		clean := "no"
		if c.Clean {
			clean = "yes"
		}
		team := strings.Join(c.Team, ",")
		if team == "" {
			team = "(no persona selected)"
		}
		if c.Failed != "" {
			team = "failed: " + oneLine(c.Failed)
		}
		fmt.Fprintf(bw, "%-*s  %5s  %6d %4d %4d %4d %4d  %5d %5d %6d %6d  %-16s %-10s  %s\n",
			cw, c.Case, clean, c.Findings, c.TP, c.FP, c.FN, c.Duplicates, c.Gated, c.Validated, c.DroppedReal, c.Unverified,
			c.Verdict, c.Conclusion, team)
	}
	fmt.Fprintf(bw, "cases %d (%d with bugs, %d clean), %d failed, %d incomplete (check failure without a complete review)\n", ps.Cases, ps.BugCases, ps.CleanCases, ps.Failed, ps.Incomplete)
	fmt.Fprintf(bw, "posted precision %s (%d/%d)   recall %s (%d/%d)   severity agreement %s   duplicates per PR %s (%d on %d)\n",
		ps.Precision(), ps.TP, ps.TP+ps.FP, ps.Recall(), ps.TP, ps.TP+ps.FN, ps.SeverityAgreement(), ps.DuplicatesPerPR(), ps.Duplicates, ps.Cases)
	fmt.Fprintf(bw, "findings per clean PR %s (%d on %d)   clean PRs whose check fails %s (%d/%d)   buggy PRs whose check fails %s (%d/%d)\n",
		ps.FindingsPerCleanPR(), ps.CleanFindings, ps.CleanCases, ps.CleanFailShare(), ps.CleanFailing, ps.CleanCases,
		ps.BugFailShare(), ps.BugFailing, ps.BugCases)
	fmt.Fprintf(bw, "validator in the pipeline (%s): %d gated, %d confirmed, %d rejected (%d of them on a labelled issue), %d without a verdict\n",
		ps.Batching, ps.Gated, ps.Validated, ps.Rejected(), ps.DroppedReal, ps.Unverified)
	writeLanguages(bw, ps)
}

// writeLanguages writes the pipeline's figures per language of the cases
// (case.json's), then over all.
func writeLanguages(bw *bufio.Writer, ps PipelineSummary) {
	ls := ps.ByLanguage()
	if len(ls) == 0 {
		return
	}
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "whole pipeline per language")
	// Rows are indented: a language named like a persona (go, python,
	// typescript) never reads as that persona's row.
	fmt.Fprintf(bw, "  %-12s %5s %4s %5s %6s  %9s %6s %7s %10s %10s\n",
		"language", "cases", "bug", "clean", "posted", "precision", "recall", "dup/PR", "clean-f/PR", "clean-fail")
	row := func(l LanguageSummary) {
		fmt.Fprintf(bw, "  %-12s %5d %4d %5d %6d  %9s %6s %7s %10s %10s\n",
			l.Language, l.Cases, l.BugCases, l.CleanCases, l.Findings, l.Precision(), l.Recall(),
			l.DuplicatesPerPR(), l.FindingsPerCleanPR(), l.CleanFailShare())
	}
	for _, l := range ls {
		row(l)
	}
	row(LanguageSummary{Language: "all", PipelineSummary: ps})
}

func writeValidator(bw *bufio.Writer, v ValidatorReport) {
	fmt.Fprintln(bw)
	fmt.Fprintf(bw, "validator alone (%s): %d labelled candidate findings (answers: %s)\n", v.Batching, len(v.Results), v.Source.Label())
	if v.Source.Kind == SourceScripted {
		fmt.Fprintln(bw, PoolScriptedNotice)
	}
	if v.NotScored > 0 {
		fmt.Fprintf(bw, "not scored: %d of %d items have no recorded %s verdict (record them with --live --record); the figures below are the other %d\n",
			v.NotScored, len(v.Results), v.Batching, len(v.Results)-v.NotScored)
	}
	fmt.Fprintf(bw, "%-10s  %9s %8s\n", "", "validated", "rejected")
	fmt.Fprintf(bw, "%-10s  %9d %8d\n", "real", v.TP, v.FN)
	fmt.Fprintf(bw, "%-10s  %9d %8d\n", "not real", v.FP, v.TN)
	fmt.Fprintf(bw, "precision %s   recall %s   specificity %s   accuracy %s   failed %d (counted as rejected)\n",
		v.Precision(), v.Recall(), v.Specificity(), v.Accuracy(), v.Failed)
}

// cell prints "m/n pp%" or "-" when no finding sat at the anchor.
func cell(a AnchorStat) string {
	if a.Findings == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d %3.0f%%", a.Matched, a.Findings, 100*a.Share.Float())
}

// oneLine keeps a failure reason on its row.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
