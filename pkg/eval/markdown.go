package eval

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes a summary for humans (a workflow artifact, a job
// summary): where the answers came from, per-persona scores, the whole
// pipeline, the validator alone, and the spread over runs when there were
// several. reports are the runs, first to last; the tables show the first.
func WriteMarkdown(w io.Writer, reports []Report) error {
	if len(reports) == 0 {
		return nil
	}
	r := reports[0]
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# anchor-review evaluation")
	fmt.Fprintln(bw)
	fmt.Fprintf(bw, "Answers: **%s**.", mdEscape(r.SourceLabel()))
	if len(reports) > 1 {
		fmt.Fprintf(bw, " %d runs; the tables show run 1, the spread table all runs.", len(reports))
	}
	fmt.Fprintln(bw)
	if r.Scripted() {
		fmt.Fprintln(bw)
		fmt.Fprintf(bw, "> %s\n", ScriptedNotice)
	}
	if poolScripted(r) {
		fmt.Fprintln(bw)
		fmt.Fprintf(bw, "> %s\n", PoolScriptedNotice)
	}
	if len(r.Sources) == 0 {
		fmt.Fprintln(bw)
		fmt.Fprintf(bw, "> %s\n", NoAnswersNotice)
	}
	if len(r.Unscored) > 0 {
		fmt.Fprintf(bw, "\nNot scored (no answers): %d %s.\n", len(r.Unscored), plural(len(r.Unscored), "case", "cases"))
	}

	fmt.Fprintln(bw, "\n## Each persona alone")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "| persona | cases | failed | findings | tp | fp | fn | off-persona | recall | precision | F1 | severity agreement |")
	fmt.Fprintln(bw, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range append(r.Personas, r.Overall) {
		fmt.Fprintf(bw, "| %s | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s |\n", s.Persona, s.Cases, s.Failed, s.Findings,
			s.TP, s.FP, s.FN, s.OffPersona, s.Recall(), s.Precision(), s.F1(), s.SeverityAgreement())
	}
	fmt.Fprintln(bw, "\nCalibration (matched/scored findings per anchor):")
	fmt.Fprintln(bw)
	fmt.Fprint(bw, "| persona |")
	for _, a := range r.Overall.Calibration {
		fmt.Fprintf(bw, " @%d |", a.Anchor)
	}
	fmt.Fprint(bw, "\n|---|")
	fmt.Fprint(bw, strings.Repeat("---:|", len(r.Overall.Calibration)))
	fmt.Fprintln(bw)
	cal := append(r.Personas, r.Overall)
	if r.Pipeline.Cases > 0 {
		cal = append(cal, Summary{Persona: "pipeline", Calibration: r.Pipeline.Calibration})
	}
	for _, s := range cal {
		fmt.Fprintf(bw, "| %s |", s.Persona)
		for _, a := range s.Calibration {
			fmt.Fprintf(bw, " %s |", cell(a))
		}
		fmt.Fprintln(bw)
	}

	if p := r.Pipeline; p.Cases > 0 {
		fmt.Fprintf(bw, "\n## Whole pipeline (posted after synthesis, gate and validator %s; fail-on %s)\n\n", p.Batching, FailOn)
		if len(p.NotScored) > 0 {
			fmt.Fprintf(bw, "Not scored in %s mode (a model's recording without verdicts of this validator mode): %s.\n\n", p.Batching, strings.Join(p.NotScored, ", "))
		}
		fmt.Fprintln(bw, "| metric | value |")
		fmt.Fprintln(bw, "|---|---:|")
		fmt.Fprintf(bw, "| cases (with bugs / clean / failed / incomplete review) | %d (%d / %d / %d / %d) |\n", p.Cases, p.BugCases, p.CleanCases, p.Failed, p.Incomplete)
		fmt.Fprintf(bw, "| posted precision | %s (%d/%d) |\n", p.Precision(), p.TP, p.TP+p.FP)
		fmt.Fprintf(bw, "| recall (any persona) | %s (%d/%d) |\n", p.Recall(), p.TP, p.TP+p.FN)
		fmt.Fprintf(bw, "| severity agreement | %s |\n", p.SeverityAgreement())
		fmt.Fprintf(bw, "| findings per clean PR | %s (%d on %d) |\n", p.FindingsPerCleanPR(), p.CleanFindings, p.CleanCases)
		fmt.Fprintf(bw, "| clean PRs whose check fails | %s (%d/%d) |\n", p.CleanFailShare(), p.CleanFailing, p.CleanCases)
		fmt.Fprintf(bw, "| buggy PRs whose check fails | %s (%d/%d) |\n", p.BugFailShare(), p.BugFailing, p.BugCases)
		fmt.Fprintf(bw, "| duplicates posted (per PR) | %d (%s) |\n", p.Duplicates, p.DuplicatesPerPR())
		fmt.Fprintf(bw, "| validator (%s): gated / confirmed / rejected / rejected on a labelled issue / without a verdict | %d / %d / %d / %d / %d |\n",
			p.Batching, p.Gated, p.Validated, p.Rejected(), p.DroppedReal, p.Unverified)
		if ls := p.ByLanguage(); len(ls) > 0 {
			fmt.Fprintln(bw, "\nPer language:")
			fmt.Fprintln(bw)
			fmt.Fprintln(bw, "| language | cases | with bugs | clean | posted | precision | recall | duplicates per PR | findings per clean PR | clean PRs failing |")
			fmt.Fprintln(bw, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
			for _, l := range append(ls, LanguageSummary{Language: "all", PipelineSummary: p}) {
				fmt.Fprintf(bw, "| %s | %d | %d | %d | %d | %s | %s | %s | %s | %s |\n", l.Language, l.Cases, l.BugCases, l.CleanCases, l.Findings,
					l.Precision(), l.Recall(), l.DuplicatesPerPR(), l.FindingsPerCleanPR(), l.CleanFailShare())
			}
		}
		if len(p.Yield) > 0 {
			fmt.Fprintln(bw, "\nPer-persona yield (tokens estimated where an answer is replayed):")
			fmt.Fprintln(bw)
			fmt.Fprintln(bw, "| persona | cases | calls | tokens | gated | validated | posted | posted alone | folded |")
			fmt.Fprintln(bw, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
			for _, y := range p.Yield {
				fmt.Fprintf(bw, "| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", y.Persona, y.Cases, y.Calls, y.Tokens, y.Gated, y.Validated, y.Posted, y.PostedAlone, y.Folded)
			}
		}
	}
	if v := r.Validator; v != nil {
		fmt.Fprintf(bw, "\n## Validator alone (%s; %d labelled candidate findings; answers: %s)\n\n", v.Batching, len(v.Results), mdEscape(v.Source.Label()))
		if v.NotScored > 0 {
			fmt.Fprintf(bw, "Not scored: %d of %d items have no recorded %s verdict; the figures are the other %d.\n\n", v.NotScored, len(v.Results), v.Batching, len(v.Results)-v.NotScored)
		}
		fmt.Fprintln(bw, "| | validated | rejected |")
		fmt.Fprintln(bw, "|---|---:|---:|")
		fmt.Fprintf(bw, "| real | %d | %d |\n| not real | %d | %d |\n\n", v.TP, v.FN, v.FP, v.TN)
		fmt.Fprintf(bw, "Precision %s, recall %s, specificity %s, accuracy %s; %d failed (counted as rejected).\n",
			v.Precision(), v.Recall(), v.Specificity(), v.Accuracy(), v.Failed)
	}
	if len(reports) > 1 {
		fmt.Fprintf(bw, "\n## Spread over %d runs\n\n", len(reports))
		fmt.Fprintln(bw, "| metric | mean | stddev | min | max | runs defined |")
		fmt.Fprintln(bw, "|---|---:|---:|---:|---:|---:|")
		for _, m := range Spread(reports) {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %d |\n", m.Name, num(m.Mean), num(m.Stddev), num(m.Min), num(m.Max), m.Defined)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("eval: write markdown: %w", err)
	}
	return nil
}

// mdEscape keeps a model name from breaking the Markdown.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;").Replace(s)
}
