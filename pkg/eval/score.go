package eval

import (
	"math"
	"slices"
	"strconv"

	"github.com/anchor-review/anchor-review/pkg/finding"
)

// LineTolerance is how far (in lines) a finding may sit from a ground-truth
// issue and still match it (SPEC section 5).
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
}

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
	File       string  `json:"file"`
	Line       int     `json:"line"`
	Confidence int     `json:"confidence"`
	Title      string  `json:"title"`
	Outcome    Outcome `json:"outcome"`
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
	p := newPair(persona, c)
	p.Failed = reason
	for _, is := range c.Truth {
		if is.Persona == persona && !is.Excluded {
			p.FN++
			p.Missed = append(p.Missed, is.ID)
		}
	}
	return p
}

// newPair starts a pair result with its excluded issues counted.
func newPair(persona string, c Case) PairResult {
	p := PairResult{Persona: persona, Case: c.Name, Calibration: calibration(nil)}
	for _, is := range c.Truth {
		if is.Persona == persona && is.Excluded {
			p.Excluded++
			p.ExcludedIDs = append(p.ExcludedIDs, is.ID)
		}
	}
	return p
}

// Score is the pure scorer: it matches a's findings against c's ground truth
// for persona. A finding matches an issue when the normalized files are
// equal, the lines are at most LineTolerance apart and the issue's persona
// is the one evaluated. Each issue is matched at most once; among several
// ways to assign findings to issues, Score picks one with the most true
// positives (maximum bipartite matching), preferring earlier findings and
// closer lines, so a stray finding cannot steal the only issue another
// finding could match.
func Score(persona string, c Case, a finding.Answer) PairResult {
	p := newPair(persona, c)

	var lane, laneExcl []int // indices into c.Truth
	for i, is := range c.Truth {
		if is.Persona == persona {
			if is.Excluded {
				laneExcl = append(laneExcl, i)
			} else {
				lane = append(lane, i)
			}
		}
	}
	near := func(f finding.Finding, is Issue) bool {
		d := f.Line - is.Line
		return normFile(f.File) == is.File && d >= -LineTolerance && d <= LineTolerance
	}
	dist := func(f finding.Finding, is Issue) int { return abs(f.Line - is.Line) }
	nearest := func(f finding.Finding, cands, excl []int) int {
		best := -1
		for _, j := range slices.Concat(cands, excl) {
			if !near(f, c.Truth[j]) {
				continue
			}
			if best < 0 || dist(f, c.Truth[j]) < dist(f, c.Truth[best]) ||
				(dist(f, c.Truth[j]) == dist(f, c.Truth[best]) && j < best) {
				best = j
			}
		}
		return best
	}

	// Candidate issues per scored finding, closest first.
	fs := a.Findings
	cand := make([][]int, len(fs))
	for i, f := range fs {
		if f.PreExisting {
			continue
		}
		for _, j := range lane {
			if near(f, c.Truth[j]) {
				cand[i] = append(cand[i], j)
			}
		}
		slices.SortStableFunc(cand[i], func(x, y int) int { return dist(f, c.Truth[x]) - dist(f, c.Truth[y]) })
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
		r := FindingResult{File: f.File, Line: f.Line, Confidence: f.Confidence, Title: f.Title}
		if j, ok := matchedBy[i]; ok {
			r.Outcome, r.Issue = TruePositive, c.Truth[j].ID
			p.TP++
		} else if f.PreExisting {
			r.Outcome = PreExisting
			p.PreExisting++
		} else if j := nearest(f, cand[i], laneExcl); j >= 0 {
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
			for _, is := range c.Truth {
				if is.Persona != persona && near(f, is) {
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
