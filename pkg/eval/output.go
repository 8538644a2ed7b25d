package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// jsonLine is one JSONL record; Kind is "pair", "persona" or "overall".
type jsonLine struct {
	Kind    string `json:"kind"`
	Persona string `json:"persona"`
	Case    string `json:"case,omitempty"`
	Cases   int    `json:"cases,omitempty"`
	Failed  any    `json:"failed"` // pair: reason or null; summary: count
	Counts
	Recall      Ratio           `json:"recall"`
	Precision   Ratio           `json:"precision"`
	F1          Ratio           `json:"f1"`
	Calibration []AnchorStat    `json:"calibration"`
	Matched     []string        `json:"matched,omitempty"`
	Missed      []string        `json:"missed,omitempty"`
	ExcludedIDs []string        `json:"excluded_ids,omitempty"`
	Results     []FindingResult `json:"results,omitempty"`
}

// WriteJSONL writes r as JSON Lines: one line per pair, then one summary line
// per persona, then the overall line, in the report's (stable) order.
// Undefined ratios are null.
func WriteJSONL(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, p := range r.Pairs {
		var failed any
		if p.Failed != "" {
			failed = p.Failed
		}
		if err := enc.Encode(jsonLine{
			Kind: "pair", Persona: p.Persona, Case: p.Case, Failed: failed, Counts: p.Counts,
			Recall: p.Recall(), Precision: p.Precision(), F1: p.F1(), Calibration: p.Calibration,
			Matched: p.Matched, Missed: p.Missed, ExcludedIDs: p.ExcludedIDs, Results: p.Results,
		}); err != nil {
			return fmt.Errorf("eval: write jsonl: %w", err)
		}
	}
	write := func(kind string, s Summary) error {
		if err := enc.Encode(jsonLine{
			Kind: kind, Persona: s.Persona, Cases: s.Cases, Failed: s.Failed, Counts: s.Counts,
			Recall: s.Recall(), Precision: s.Precision(), F1: s.F1(), Calibration: s.Calibration,
		}); err != nil {
			return fmt.Errorf("eval: write jsonl: %w", err)
		}
		return nil
	}
	for _, s := range r.Personas {
		if err := write("persona", s); err != nil {
			return err
		}
	}
	return write("overall", r.Overall)
}

// WriteTable writes r as a fixed-width text table in three parts: every
// pair, the per-persona summaries with the overall line, and calibration
// (matched/scored findings and share, per anchor). Columns: findings =
// tp + fp + dup + xhit (findings on excluded issues) + pre (flagged
// pre-existing, unscored); fn are misses, excl the excluded issues, off the
// false positives that sit on another persona's issue. "-" is an undefined
// ratio (0/0).
func WriteTable(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	pw, cw := len("persona"), len("case")
	for _, s := range append(r.Personas, r.Overall) {
		pw = max(pw, len(s.Persona))
	}
	for _, p := range r.Pairs {
		cw = max(cw, len(p.Case))
	}

	fmt.Fprintln(bw, "per case")
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
	fmt.Fprintln(bw, "per persona")
	fmt.Fprintf(bw, "%-*s  %5s %6s %8s %4s %4s %4s %4s %4s %4s %4s %4s  %6s %9s %6s\n",
		pw, "persona", "cases", "failed", "findings", "tp", "fp", "fn", "excl", "dup", "xhit", "pre", "off",
		"recall", "precision", "f1")
	row := func(s Summary) {
		fmt.Fprintf(bw, "%-*s  %5d %6d %8d %4d %4d %4d %4d %4d %4d %4d %4d  %6s %9s %6s\n",
			pw, s.Persona, s.Cases, s.Failed, s.Findings, s.TP, s.FP, s.FN, s.Excluded, s.Duplicates,
			s.ExcludedHits, s.PreExisting, s.OffPersona, s.Recall(), s.Precision(), s.F1())
	}
	for _, s := range r.Personas {
		row(s)
	}
	fmt.Fprintln(bw, strings.Repeat("-", pw+2+5+1+6+1+8+9*5+2+6+1+9+1+6))
	row(r.Overall)

	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "calibration (matched/scored findings at each anchor)")
	fmt.Fprintf(bw, "%-*s", pw, "persona")
	for _, a := range r.Overall.Calibration {
		fmt.Fprintf(bw, "  %10s", fmt.Sprintf("@%d", a.Anchor))
	}
	fmt.Fprintln(bw)
	for _, s := range append(r.Personas, r.Overall) {
		fmt.Fprintf(bw, "%-*s", pw, s.Persona)
		for _, a := range s.Calibration {
			fmt.Fprintf(bw, "  %10s", cell(a))
		}
		fmt.Fprintln(bw)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("eval: write table: %w", err)
	}
	return nil
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
