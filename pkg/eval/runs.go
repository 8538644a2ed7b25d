package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Metric is one headline number over repeated runs: its value in each run
// (NaN where undefined) and their mean, population standard deviation,
// minimum and maximum over the defined values.
type Metric struct {
	Name                   string
	Values                 []float64
	Mean, Stddev, Min, Max float64
	Defined                int // runs where the value was defined
}

// headline returns the named headline values of one report, in order.
func headline(r Report) []struct {
	name string
	v    Ratio
} {
	type nv = struct {
		name string
		v    Ratio
	}
	out := []nv{
		{"persona recall (all)", r.Overall.Recall()},
		{"persona precision (all)", r.Overall.Precision()},
		{"persona f1 (all)", r.Overall.F1()},
		{"persona severity agreement (all)", r.Overall.SeverityAgreement()},
	}
	for _, s := range r.Personas {
		out = append(out, nv{"f1 " + s.Persona, s.F1()})
	}
	p := r.Pipeline
	if p.Cases > 0 {
		out = append(out,
			nv{"pipeline posted precision", p.Precision()},
			nv{"pipeline recall", p.Recall()},
			nv{"pipeline severity agreement", p.SeverityAgreement()},
			nv{"pipeline findings per clean PR", p.FindingsPerCleanPR()},
			nv{"pipeline clean PRs failing the check", p.CleanFailShare()},
			nv{"pipeline buggy PRs failing the check", p.BugFailShare()},
		)
	}
	if v := r.Validator; v != nil {
		out = append(out, nv{"validator accuracy", v.Accuracy()}, nv{"validator precision", v.Precision()}, nv{"validator recall", v.Recall()})
	}
	return out
}

// Spread summarizes repeated runs: every headline metric of the first run
// (a metric missing from a later run counts as undefined there).
func Spread(reports []Report) []Metric {
	if len(reports) == 0 {
		return nil
	}
	var out []Metric
	for _, h := range headline(reports[0]) {
		m := Metric{Name: h.name}
		for _, r := range reports {
			v := math.NaN()
			for _, x := range headline(r) {
				if x.name == h.name {
					v = x.v.Float()
				}
			}
			m.Values = append(m.Values, v)
		}
		m.summarize()
		out = append(out, m)
	}
	return out
}

func (m *Metric) summarize() {
	m.Mean, m.Stddev, m.Min, m.Max = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	var sum float64
	for _, v := range m.Values {
		if math.IsNaN(v) {
			continue
		}
		if m.Defined == 0 || v < m.Min {
			m.Min = v
		}
		if m.Defined == 0 || v > m.Max {
			m.Max = v
		}
		m.Defined++
		sum += v
	}
	if m.Defined == 0 {
		return
	}
	m.Mean = sum / float64(m.Defined)
	var ss float64
	for _, v := range m.Values {
		if !math.IsNaN(v) {
			ss += (v - m.Mean) * (v - m.Mean)
		}
	}
	m.Stddev = math.Sqrt(ss / float64(m.Defined))
}

// num prints three decimals, or "-" for NaN.
func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// jnum is a JSON number rounded to four decimals, or null for NaN.
type jnum float64

func (v jnum) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(v)) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, math.Round(float64(v)*1e4)/1e4, 'f', -1, 64), nil
}

// WriteSpreadTable writes the spread of n runs whose answers came from
// source.
func WriteSpreadTable(w io.Writer, ms []Metric, source string) error {
	bw := bufio.NewWriter(w)
	n := 0
	if len(ms) > 0 {
		n = len(ms[0].Values)
	}
	fmt.Fprintf(bw, "\nspread over %d runs (answers: %s)\n", n, source)
	fmt.Fprintf(bw, "%-40s  %6s %6s %6s %6s %4s\n", "metric", "mean", "stddev", "min", "max", "runs")
	for _, m := range ms {
		fmt.Fprintf(bw, "%-40s  %6s %6s %6s %6s %4d\n", m.Name, num(m.Mean), num(m.Stddev), num(m.Min), num(m.Max), m.Defined)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("eval: write spread: %w", err)
	}
	return nil
}

// WriteSpreadJSONL writes one "runs" line per metric.
func WriteSpreadJSONL(w io.Writer, ms []Metric, source string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, m := range ms {
		vals := make([]jnum, len(m.Values))
		for i, v := range m.Values {
			vals[i] = jnum(v)
		}
		if err := enc.Encode(struct {
			Kind    string `json:"kind"`
			Answers string `json:"answers"`
			Metric  string `json:"metric"`
			Runs    int    `json:"runs"`
			Defined int    `json:"defined"`
			Mean    jnum   `json:"mean"`
			Stddev  jnum   `json:"stddev"`
			Min     jnum   `json:"min"`
			Max     jnum   `json:"max"`
			Values  []jnum `json:"values"`
		}{"runs", source, m.Name, len(m.Values), m.Defined, jnum(m.Mean), jnum(m.Stddev), jnum(m.Min), jnum(m.Max), vals}); err != nil {
			return fmt.Errorf("eval: write jsonl: %w", err)
		}
	}
	return nil
}

// WriteRunsJSONL writes every run's lines, each tagged with its run number
// (1..N) when there is more than one.
func WriteRunsJSONL(w io.Writer, reports []Report) error {
	for i, r := range reports {
		run := 0
		if len(reports) > 1 {
			run = i + 1
		}
		if err := writeJSONL(w, r, run); err != nil {
			return err
		}
	}
	return nil
}
