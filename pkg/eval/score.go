package eval

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// LineTolerance is how far (in lines) a finding may sit outside a
// ground-truth issue's line range and still match it.
const LineTolerance = 3

// Outcome says what the scorer made of one finding.
type Outcome string

// Outcomes. Only TruePositive and FalsePositive enter precision and
// calibration; the others are reported and counted separately.
const (
	// TruePositive: matched an in-lane, non-excluded issue not matched before.
	TruePositive Outcome = "tp"
	// FalsePositive: matched no in-lane issue. When it sits on another
	// persona's issue it is still a false positive for this persona, and is
	// also counted as OffPersona.
	FalsePositive Outcome = "fp"
	// Duplicate: matched no issue itself, and the nearest in-lane issue
	// within tolerance was taken by another finding of the same answer.
	// Neither TP nor FP: the issue is found once; the echo is noise, not a
	// wrong claim.
	Duplicate Outcome = "duplicate"
	// ExcludedHit: matched no issue itself, and the nearest in-lane issue
	// within tolerance is an excluded one. Not a false positive (the issue
	// is real), not a true positive (no one is scored on it).
	ExcludedHit Outcome = "excluded"
	// PreExisting: the finding says pre_existing, so the pipeline would never
	// post it; it is not scored. Ground truth is, by construction, introduced
	// by the diff, so a real issue flagged pre-existing stays a miss.
	PreExisting Outcome = "pre-existing"
)

// Ratio is an exact fraction; a zero denominator means undefined (0/0), which
// the table prints as "-" and JSON as null.
type Ratio struct{ Num, Den int }

// Defined reports whether the denominator is non-zero.
func (r Ratio) Defined() bool { return r.Den != 0 }

// Float returns Num/Den, or NaN when undefined.
func (r Ratio) Float() float64 {
	if !r.Defined() {
		return math.NaN()
	}
	return float64(r.Num) / float64(r.Den)
}

// String prints three decimals, or "-" when undefined.
func (r Ratio) String() string {
	if !r.Defined() {
		return "-"
	}
	return strconv.FormatFloat(r.Float(), 'f', 3, 64)
}

// MarshalJSON writes the value rounded to four decimals, or null.
func (r Ratio) MarshalJSON() ([]byte, error) {
	if !r.Defined() {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, math.Round(r.Float()*1e4)/1e4, 'f', -1, 64), nil
}

// Counts are the tallies of one (persona, case) pair, or a sum of them.
type Counts struct {
	Findings     int `json:"findings"`      // findings in the answer(s)
	TP           int `json:"tp"`            // true positives
	FP           int `json:"fp"`            // false positives (OffPersona included)
	FN           int `json:"fn"`            // in-lane, non-excluded issues not matched
	Excluded     int `json:"excluded"`      // in-lane excluded issues
	Duplicates   int `json:"duplicates"`    // second and later findings on a matched issue
	ExcludedHits int `json:"excluded_hits"` // findings on an excluded issue
	OffPersona   int `json:"off_persona"`   // false positives on another persona's issue
	PreExisting  int `json:"pre_existing"`  // findings marked pre_existing (unscored)
	// SevAgree counts true positives whose severity equals the issue's.
	SevAgree int `json:"severity_agree"`
	// JudgeRejected counts line-overlap matches the judge model said were
	// another issue (only with --judge-model).
	JudgeRejected int `json:"judge_rejected"`
	// JudgeErrors counts judge calls that failed; their line-overlap
	// matches stand.
	JudgeErrors int `json:"judge_errors"`
}

func (c *Counts) add(o Counts) {
	c.Findings += o.Findings
	c.TP += o.TP
	c.FP += o.FP
	c.FN += o.FN
	c.Excluded += o.Excluded
	c.Duplicates += o.Duplicates
	c.ExcludedHits += o.ExcludedHits
	c.OffPersona += o.OffPersona
	c.PreExisting += o.PreExisting
	c.SevAgree += o.SevAgree
	c.JudgeRejected += o.JudgeRejected
	c.JudgeErrors += o.JudgeErrors
}

// SeverityAgreement is SevAgree/TP: of the issues found, the share found at
// the labelled severity.
func (c Counts) SeverityAgreement() Ratio { return Ratio{c.SevAgree, c.TP} }

// Recall is TP/(TP+FN); undefined when the persona had no issue to find.
func (c Counts) Recall() Ratio { return Ratio{c.TP, c.TP + c.FN} }

// Precision is TP/(TP+FP); undefined when no finding was scored.
func (c Counts) Precision() Ratio { return Ratio{c.TP, c.TP + c.FP} }

// F1 is 2TP/(2TP+FP+FN), the harmonic mean of precision and recall where
// both are defined. It is 0 when only one is defined (findings on a clean
// case, or misses with no findings) and undefined only when there was
// nothing to find and nothing was found.
func (c Counts) F1() Ratio { return Ratio{2 * c.TP, 2*c.TP + c.FP + c.FN} }

// AnchorStat is calibration at one anchor: of the scored findings (TP+FP)
// at that anchor, how many matched ground truth.
type AnchorStat struct {
	Anchor   int   `json:"anchor"`
	Findings int   `json:"findings"`
	Matched  int   `json:"matched"`
	Share    Ratio `json:"share"`
}

// FindingResult is the scorer's verdict on one finding.
type FindingResult struct {
	File       string           `json:"file"`
	Line       int              `json:"line"`
	Confidence int              `json:"confidence"`
	Severity   finding.Severity `json:"severity"`
	Title      string           `json:"title"`
	// Lines are every line the finding points at (its own and its
	// evidence's), when there is more than its own.
	Lines []int `json:"lines,omitempty"`
	// Judge is "rejected" when the judge model said the only overlapping
	// issue(s) were another problem.
	Judge   string  `json:"judge,omitempty"`
	Outcome Outcome `json:"outcome"`
	// Issue is the ground-truth id the finding matched, duplicated, or (for
	// an off-persona false positive) landed on.
	Issue string `json:"issue,omitempty"`
}

// PairResult is the score of one persona on one case.
type PairResult struct {
	Persona string
	Case    string
	// Failed is non-empty when the persona gave no usable answer; its
	// in-lane issues then count as misses.
	Failed string
	Counts
	Matched     []string // issue ids found
	Missed      []string // issue ids not found
	ExcludedIDs []string // in-lane excluded issue ids
	Results     []FindingResult
	Calibration []AnchorStat
}

// Failed scores a pair whose answer could not be obtained or parsed: every
// in-lane issue is a miss, no finding is scored.
func Failed(persona string, c Case, reason string) PairResult {
	p := newPair(persona, c, personaLane(persona))
	p.Failed = reason
	for _, is := range c.Truth {
		if is.Expects(persona) && !is.Excluded {
			p.FN++
			p.Missed = append(p.Missed, is.ID)
		}
	}
	return p
}

// personaLane is the lane of a persona evaluated alone: the issues that
// list it among their personas.
func personaLane(persona string) func(Issue) bool {
	return func(is Issue) bool { return is.Expects(persona) }
}

// anyLane is the whole pipeline's lane: every issue, whoever was meant to
// catch it.
func anyLane(Issue) bool { return true }

// newPair starts a pair result with its excluded issues counted.
func newPair(persona string, c Case, inLane func(Issue) bool) PairResult {
	p := PairResult{Persona: persona, Case: c.ID(), Calibration: calibration(nil)}
	for _, is := range c.Truth {
		if inLane(is) && is.Excluded {
			p.Excluded++
			p.ExcludedIDs = append(p.ExcludedIDs, is.ID)
		}
	}
	return p
}

// Edge is a candidate match: the finding at index Finding (in the answer,
// or in the posted list) overlapping issue Issue.
type Edge struct {
	Finding int
	Issue   string
}

// Rejections are candidate matches a judge model said describe another
// issue, with its reason; they do not count as matches.
type Rejections map[Edge]string

// Score is the pure scorer of one persona alone: ScoreWith with no judge.
func Score(persona string, c Case, a finding.Answer) PairResult {
	return ScoreWith(persona, c, a, nil)
}

// ScoreWith matches a's findings against c's ground truth for persona: a
// finding matches an issue that lists persona among its personas when
// Overlaps says so and the judge did not reject the pair. Each issue is
// matched at most once; among several ways to assign findings to issues,
// the scorer picks one with the most true positives (maximum bipartite
// matching), preferring earlier findings and closer lines, so a stray
// finding cannot steal the only issue another finding could match.
func ScoreWith(persona string, c Case, a finding.Answer, rej Rejections) PairResult {
	return score(persona, c, a.Findings, personaLane(persona), rej)
}

// findingLines are the new-side lines a finding points at: its own line,
// then the line of each code quote in its evidence found on the new side of
// its file in the diff (the occurrence nearest the finding's line), and any
// "line N" or "<file>:N" reference its evidence makes.
func findingLines(c Case, f finding.Finding) []int {
	lines := []int{f.Line}
	df := fileOf(c.Files, f.File)
	for _, ev := range f.Evidence {
		lines = append(lines, referencedLines(ev, normFile(f.File))...)
		if df == nil {
			continue
		}
		for _, q := range quotes(ev) {
			if n, ok := locate(df, q, f.Line); ok {
				lines = append(lines, n)
			}
		}
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

// minQuote is the shortest quote (spaces removed) searched for: shorter
// ones ("}", "err") occur everywhere and would point anywhere.
const minQuote = 8

var (
	backtickQuote = regexp.MustCompile("`([^`]+)`")
	lineRef       = regexp.MustCompile(`(?i)\blines?\s+(\d+)(?:\s*(?:-|–|to)\s*(\d+))?`)
)

// quotes returns the code an evidence string quotes: every backticked span,
// and each of its lines as a whole (minus a "path:N:" prefix and a leading
// diff marker), whitespace-collapsed.
func quotes(ev string) []string {
	var out []string
	for _, m := range backtickQuote.FindAllStringSubmatch(ev, -1) {
		out = append(out, m[1])
	}
	for l := range strings.Lines(ev) {
		l = strings.TrimSpace(l)
		out = append(out, l)
		if i := strings.Index(l, ": "); i > 0 && !strings.ContainsAny(l[:i], " \t") && strings.ContainsAny(l[:i], ":.") {
			l = l[i+2:] // "file.go:53: code" or "file.go: code"
		}
		if t := strings.TrimLeft(l, "+- "); t != out[len(out)-1] {
			out = append(out, t)
		}
	}
	var keep []string
	for _, q := range out {
		if q = collapse(q); len(strings.ReplaceAll(q, " ", "")) >= minQuote {
			keep = append(keep, q)
		}
	}
	return keep
}

// referencedLines reads "line 53", "lines 53-60" and "<file>:53" in ev.
func referencedLines(ev, file string) []int {
	var out []int
	for _, m := range lineRef.FindAllStringSubmatch(ev, -1) {
		a, _ := strconv.Atoi(m[1])
		b := a
		if m[2] != "" {
			b, _ = strconv.Atoi(m[2])
		}
		for n := a; n <= b && n-a < 200; n++ {
			out = append(out, n)
		}
	}
	if file != "" {
		re := regexp.MustCompile(regexp.QuoteMeta(path.Base(file)) + `:(\d+)`)
		for _, m := range re.FindAllStringSubmatch(ev, -1) {
			n, _ := strconv.Atoi(m[1])
			out = append(out, n)
		}
	}
	return slices.DeleteFunc(out, func(n int) bool { return n < 1 })
}

// locate finds the new-side line whose text contains q (whitespace
// collapsed), the one nearest near on a tie of several.
func locate(f *diff.File, q string, near int) (int, bool) {
	best, found := 0, false
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Kind == diff.Delete || !strings.Contains(collapse(l.Text), q) {
				continue
			}
			if !found || abs(l.NewNo-near) < abs(best-near) {
				best, found = l.NewNo, true
			}
		}
	}
	return best, found
}

// collapse trims s and turns every run of white space into one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// Overlaps reports whether a finding pointing at lines of file matches is
// by place: the same file, and one of the lines inside is's range widened
// by LineTolerance on each side.
func Overlaps(file string, lines []int, is Issue) bool {
	return normFile(file) == is.File && slices.ContainsFunc(lines, func(n int) bool {
		return n >= is.Line-LineTolerance && n <= is.end()+LineTolerance
	})
}

// distance is how far the nearest of lines is from is's range (0 inside).
func distance(lines []int, is Issue) int {
	best := -1
	for _, n := range lines {
		d := 0
		if n < is.Line {
			d = is.Line - n
		} else if n > is.end() {
			d = n - is.end()
		}
		if best < 0 || d < best {
			best = d
		}
	}
	return best
}

// Candidates lists every (finding, issue) pair of the lane that overlaps by
// place, findings in order: what a judge model is asked about.
func Candidates(c Case, fs []finding.Finding, inLane func(Issue) bool) []Edge {
	var out []Edge
	for i, f := range fs {
		if f.PreExisting {
			continue
		}
		lines := findingLines(c, f)
		for _, is := range c.Truth {
			if inLane(is) && !is.Excluded && Overlaps(f.File, lines, is) {
				out = append(out, Edge{Finding: i, Issue: is.ID})
			}
		}
	}
	return out
}

// score matches fs against the issues inLane selects; a false positive on
// an issue outside the lane counts as OffPersona.
func score(persona string, c Case, fs []finding.Finding, inLane func(Issue) bool, rej Rejections) PairResult {
	p := newPair(persona, c, inLane)

	var lane, laneExcl []int // indices into c.Truth
	for i, is := range c.Truth {
		if inLane(is) {
			if is.Excluded {
				laneExcl = append(laneExcl, i)
			} else {
				lane = append(lane, i)
			}
		}
	}
	lines := make([][]int, len(fs))
	for i, f := range fs {
		lines[i] = findingLines(c, f)
	}
	near := func(i, j int) bool { return Overlaps(fs[i].File, lines[i], c.Truth[j]) }
	dist := func(i, j int) int { return distance(lines[i], c.Truth[j]) }
	nearest := func(i int, cands, excl []int) int {
		best := -1
		for _, j := range slices.Concat(cands, excl) {
			if !near(i, j) {
				continue
			}
			if best < 0 || dist(i, j) < dist(i, best) || (dist(i, j) == dist(i, best) && j < best) {
				best = j
			}
		}
		return best
	}

	// Candidate issues per scored finding, closest first; a pair the judge
	// rejected is no candidate.
	cand := make([][]int, len(fs))
	rejected := make([]bool, len(fs))
	for i, f := range fs {
		if f.PreExisting {
			continue
		}
		for _, j := range lane {
			if !near(i, j) {
				continue
			}
			if _, no := rej[Edge{Finding: i, Issue: c.Truth[j].ID}]; no {
				rejected[i] = true
				p.JudgeRejected++
				continue
			}
			cand[i] = append(cand[i], j)
		}
		slices.SortStableFunc(cand[i], func(x, y int) int { return dist(i, x) - dist(i, y) })
	}

	// Kuhn's augmenting paths: findings in answer order.
	owner := map[int]int{} // issue index → finding index
	var try func(i int, seen map[int]bool) bool
	try = func(i int, seen map[int]bool) bool {
		for _, j := range cand[i] {
			if seen[j] {
				continue
			}
			seen[j] = true
			if k, taken := owner[j]; !taken || try(k, seen) {
				owner[j] = i
				return true
			}
		}
		return false
	}
	for i := range fs {
		try(i, map[int]bool{})
	}
	matchedBy := make(map[int]int, len(owner)) // finding index → issue index
	for j, i := range owner {
		matchedBy[i] = j
	}

	p.Findings = len(fs)
	for i, f := range fs {
		r := FindingResult{File: f.File, Line: f.Line, Confidence: f.Confidence, Severity: f.Severity, Title: f.Title}
		if len(lines[i]) > 1 {
			r.Lines = lines[i]
		}
		if j, ok := matchedBy[i]; ok {
			r.Outcome, r.Issue = TruePositive, c.Truth[j].ID
			p.TP++
			if f.Severity == c.Truth[j].Severity {
				p.SevAgree++
			}
		} else if f.PreExisting {
			r.Outcome = PreExisting
			p.PreExisting++
		} else if j := nearest(i, cand[i], laneExcl); j >= 0 {
			// An unmatched finding near in-lane ground truth is attributed
			// to the closest such issue (the earlier one on a tie).
			r.Issue = c.Truth[j].ID
			if c.Truth[j].Excluded {
				r.Outcome = ExcludedHit
				p.ExcludedHits++
			} else {
				r.Outcome = Duplicate
				p.Duplicates++
			}
		} else {
			r.Outcome = FalsePositive
			p.FP++
			if rejected[i] {
				r.Judge = "rejected"
			}
			for _, is := range c.Truth {
				if !inLane(is) && Overlaps(f.File, lines[i], is) {
					r.Issue = is.ID
					p.OffPersona++
					break
				}
			}
		}
		p.Results = append(p.Results, r)
	}
	for _, j := range lane {
		if _, ok := owner[j]; ok {
			p.Matched = append(p.Matched, c.Truth[j].ID)
		} else {
			p.Missed = append(p.Missed, c.Truth[j].ID)
			p.FN++
		}
	}
	p.Calibration = calibration(p.Results)
	return p
}

// calibration tallies scored findings (TP and FP) per anchor.
func calibration(rs []FindingResult) []AnchorStat {
	out := make([]AnchorStat, len(finding.Anchors()))
	for k, anchor := range finding.Anchors() {
		out[k].Anchor = anchor
		for _, r := range rs {
			if r.Confidence != anchor || (r.Outcome != TruePositive && r.Outcome != FalsePositive) {
				continue
			}
			out[k].Findings++
			if r.Outcome == TruePositive {
				out[k].Matched++
			}
		}
		out[k].Share = Ratio{out[k].Matched, out[k].Findings}
	}
	return out
}

func addCalibration(dst, src []AnchorStat) []AnchorStat {
	if dst == nil {
		dst = calibration(nil)
	}
	for k := range dst {
		dst[k].Findings += src[k].Findings
		dst[k].Matched += src[k].Matched
		dst[k].Share = Ratio{dst[k].Matched, dst[k].Findings}
	}
	return dst
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Summary aggregates pairs: one persona over its cases, or everything. The
// ratios are micro-averaged (computed from summed counts), so a case with
// more issues weighs more.
type Summary struct {
	Persona string // the persona, or "all" for the overall line
	Cases   int    // pairs summed
	Failed  int    // pairs whose answer was unusable
	Counts
	Calibration []AnchorStat
}

// Report is the result of a run: every pair, then one summary per persona,
// then the overall summary. Pairs and Personas are in SPEC persona order,
// pairs within a persona by case name.
type Report struct {
	Pairs    []PairResult
	Personas []Summary
	Overall  Summary
	// Pipeline is the whole pipeline per case and summed (empty when the
	// run skipped it).
	Pipeline PipelineSummary
	// Unscored lists the cases without answers (offline, no recording).
	Unscored []string
	// Sources says where the scored answers came from, with case counts.
	Sources []SourceCount
	// Validator is the validator alone on the labelled pool, when it ran.
	Validator *ValidatorReport
}

// SourceCount is one answer source and how many scored cases it answered.
type SourceCount struct {
	Source Source
	Cases  int
}

// Scripted reports whether any scored answers were scripted by hand: such
// numbers test the scorer, not a model.
func (r Report) Scripted() bool {
	for _, s := range r.Sources {
		if !s.Source.IsModel() {
			return true
		}
	}
	return false
}

// SourceLabel is every source's label with its case count, e.g.
// "scripted by hand (13 cases)".
func (r Report) SourceLabel() string {
	if len(r.Sources) == 0 {
		return "no answers"
	}
	var parts []string
	for _, s := range r.Sources {
		parts = append(parts, fmt.Sprintf("%s (%d %s)", s.Source.Label(), s.Cases, plural(s.Cases, "case", "cases")))
	}
	return strings.Join(parts, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Summarize builds a Report from pair results, sorting them.
func Summarize(pairs []PairResult) Report {
	pairs = slices.Clone(pairs)
	var names []string
	for _, p := range pairs {
		names = append(names, p.Persona)
	}
	sortPersonas(names)
	names = slices.Compact(names)
	rank := func(p string) int { return slices.Index(names, p) }
	slices.SortStableFunc(pairs, func(a, b PairResult) int {
		if ra, rb := rank(a.Persona), rank(b.Persona); ra != rb {
			return ra - rb
		}
		if a.Case < b.Case {
			return -1
		}
		if a.Case > b.Case {
			return 1
		}
		return 0
	})

	r := Report{Pairs: pairs, Overall: Summary{Persona: "all", Calibration: calibration(nil)}}
	for _, name := range names {
		s := Summary{Persona: name, Calibration: calibration(nil)}
		for _, p := range pairs {
			if p.Persona == name {
				s.addPair(p)
				r.Overall.addPair(p)
			}
		}
		r.Personas = append(r.Personas, s)
	}
	return r
}

func (s *Summary) addPair(p PairResult) {
	s.Cases++
	if p.Failed != "" {
		s.Failed++
	}
	s.Counts.add(p.Counts)
	s.Calibration = addCalibration(s.Calibration, p.Calibration)
}
