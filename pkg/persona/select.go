package persona

import (
	"fmt"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// AdversarialLines is the number of executable changed lines at which the
// adversarial persona joins the team whatever the paths.
const AdversarialLines = 50

// Signals is what selection looks at: the files in scope, the count of
// executable changed lines (not tests, docs, lock or generated files), the
// standards files that apply to a changed file, and the number of review
// comments people already left on the pull request.
type Signals struct {
	Files               []*diff.File
	ExecutableLines     int
	Standards           []string
	HumanReviewComments int
	// Tests is what the head tree says of the repository's tests (the
	// testing persona's signal); nil when the tree could not be listed (a
	// local diff, a truncated listing).
	Tests *TestIndex
}

// Selected is a persona on the team with the reason it was picked:
// AlwaysOnReason, or one line naming the signal and where it fired, e.g.
// "SQL built from strings in api/users.go (and 2 more files)". The reason
// does not repeat the persona's name; String adds it.
type Selected struct {
	Persona
	Reason string
}

// String returns "name: reason", the form the team is announced in.
func (s Selected) String() string { return s.Name + ": " + s.Reason }

// Select picks the team for one review from all (as Load returns them),
// keeping their order: every always-on persona, and every conditional one
// whose signals fire (SPEC section 1, Stage 3). restrict, the `personas`
// input, limits the team to the names it lists (blank entries ignored);
// it never adds a persona whose signals did not fire. A restrict name that
// is not in all is an error wrapping ErrUnknown that lists the valid names.
func Select(all []Persona, s Signals, restrict []string) ([]Selected, error) {
	allowed, err := restriction(all, restrict)
	if err != nil {
		return nil, err
	}
	var reasons map[string]string
	out := make([]Selected, 0, len(all))
	for _, p := range all {
		if allowed != nil && !allowed[p.Name] {
			continue
		}
		if p.AlwaysOn {
			out = append(out, Selected{Persona: p, Reason: AlwaysOnReason})
			continue
		}
		if p.When != nil {
			if r := p.When.match(s.Files); r != "" {
				out = append(out, Selected{Persona: p, Reason: r})
			}
			continue
		}
		if reasons == nil {
			reasons = detect(s)
		}
		if r, ok := reasons[p.Name]; ok {
			out = append(out, Selected{Persona: p, Reason: r})
		}
	}
	return out, nil
}

// restriction returns the set of allowed names, or nil for no restriction.
func restriction(all []Persona, restrict []string) (map[string]bool, error) {
	var allowed map[string]bool
	for _, name := range restrict {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		known := false
		for _, p := range all {
			if p.Name == name {
				known = true
				break
			}
		}
		if !known {
			valid := make([]string, len(all))
			for i, p := range all {
				valid[i] = p.Name
			}
			return nil, fmt.Errorf("%w %q in personas (valid names: %s)", ErrUnknown, name, strings.Join(valid, ", "))
		}
		if allowed == nil {
			allowed = map[string]bool{}
		}
		allowed[name] = true
	}
	return allowed, nil
}

// detect returns the reason of every conditional persona whose signals
// fire, keyed by persona name.
func detect(s Signals) map[string]string {
	out := map[string]string{}
	if n := len(s.Standards); n > 0 {
		out["project-standards"] = standardsReason(s.Standards)
	}
	if n := s.HumanReviewComments; n == 1 {
		out["previous-comments"] = "1 review comment from people on the pull request"
	} else if n > 1 {
		out["previous-comments"] = fmt.Sprintf("%d review comments from people on the pull request", n)
	}

	if r := testingReason(s.Files, s.Tests); r != "" {
		out["testing"] = r
	}
	// scope's count leaves out what a path class calls docs or tests;
	// selection's own count reads names (runs.go), so a LICENSE.go counts.
	executable := max(s.ExecutableLines, sourceLines(s.Files))
	if r := maintainabilityReason(s.Files, executable); r != "" {
		out["maintainability"] = r
	}
	for name, r := range stackReasons(s.Files) {
		out[name] = r
	}
	hits := scanFiles(s.Files)
	for i, t := range scanned() {
		h := hits[i]
		var reason string
		if h.files > 0 {
			reason = h.label + " in " + h.path
			if more := h.files - 1; more == 1 {
				reason += " (and 1 more file)"
			} else if more > 1 {
				reason += fmt.Sprintf(" (and %d more files)", more)
			}
		}
		if t.name == "adversarial" && executable >= AdversarialLines {
			lines := fmt.Sprintf("%d executable changed lines", executable)
			if reason == "" {
				reason = lines
			} else {
				reason = "high-risk area: " + reason + "; " + lines
			}
		} else if t.name == "adversarial" && reason != "" {
			reason = "high-risk area: " + reason
		}
		if t.name == "security" && reason == "" {
			reason = securityReason(s.Files)
		}
		if reason != "" {
			out[t.name] = reason
		}
	}
	return out
}

func standardsReason(paths []string) string {
	const show = 3
	list := strings.Join(paths[:min(len(paths), show)], ", ")
	if len(paths) > show {
		list += fmt.Sprintf(" and %d more", len(paths)-show)
	}
	if len(paths) == 1 {
		return "standards file " + list + " applies to a changed file"
	}
	return "standards files " + list + " apply to changed files"
}

// hit is the strongest signal one persona found: rank is the index of the
// rule in the persona's list (lower is stronger), path the first file where
// that rule fired, files the number of files where any rule fired.
type hit struct {
	rank  int
	label string
	path  string
	files int
}

// scanFiles runs every scanned persona's rules over the files once. Files
// that are not sourceFile (tests, documentation, lock files, by name: a .go
// under doc/ is source) are skipped: the security persona reads them all
// the same (securityReason), and the other lenses are about what ships. So is a file whose
// change touches no line of code (only comments, docstrings or blank
// lines): a one-line docstring edit in sessions.py selects nobody, whatever
// the path says. Otherwise path rules run, and line rules on the added and
// deleted lines of code (comment lines never fire a rule), plus the context
// lines of code for personas that read context (scan.context).
func scanFiles(files []*diff.File) []hit {
	sc := newScanner()
	table := sc.table
	hits := make([]hit, len(table))
	for i := range hits {
		hits[i].rank = len(table[i].rules)
	}
	fileBest := make([]int, len(table))
	var found needleSet
	for _, f := range files {
		p := f.Path()
		if !sourceFile(f) {
			continue
		}
		fi := newPathInfo(p)
		flags, changed := codeFlags(f, fi.lang)
		if !changed {
			continue
		}
		for i, t := range table {
			fileBest[i] = len(t.rules)
			for r := range t.rules {
				if t.rules[r].path == nil {
					continue
				}
				if label := t.rules[r].path(&fi); label != "" {
					fileBest[i] = r
					record(&hits[i], r, label, p)
					break
				}
			}
		}
		for k, h := range f.Hunks {
			loop := 0 // lines left in the window after a loop header
			next := nextCode(h, flags[k])
			prevOld, prevNew := "", "" // the previous line of code on each side
			for j, l := range h.Lines {
				opens := isLoop(l.Text, fi.lang == langGo)
				if flags[k][j] {
					prev := prevNew
					if l.Kind == diff.Delete {
						prev = prevOld
					}
					found.clear()
					sc.m.find(l.Text, &found)
					if !found.empty() {
						ln := lineInfo{raw: l.Text, file: &fi, inLoop: loop > 0, prev: prev, next: next[j]}
						sc.lineRules(&ln, &found, fileBest, hits, p, l.Kind == diff.Context)
					}
					if l.Kind != diff.Delete {
						prevNew = l.Text
					}
					if l.Kind != diff.Add {
						prevOld = l.Text
					}
				}
				switch {
				case opens:
					loop = loopWindow
				case loop > 0:
					loop--
				}
			}
		}
		for i, t := range table {
			if fileBest[i] < len(t.rules) {
				hits[i].files++
			}
		}
	}
	return hits
}

// nextCode returns, for each line of h, the next line of code on the same
// side (an added line's next added or context line, a deleted line's next
// deleted or context line), "" when the hunk ends first.
func nextCode(h diff.Hunk, code []bool) []string {
	next := make([]string, len(h.Lines))
	nextOld, nextNew := "", ""
	for j := len(h.Lines) - 1; j >= 0; j-- {
		l := h.Lines[j]
		if l.Kind == diff.Delete {
			next[j] = nextOld
		} else {
			next[j] = nextNew
		}
		if !code[j] {
			continue
		}
		if l.Kind != diff.Delete {
			nextNew = l.Text
		}
		if l.Kind != diff.Add {
			nextOld = l.Text
		}
	}
	return next
}

// lineRules runs the line rules that can still add something on one line:
// any rule while the file has no hit for that persona yet, else only rules
// stronger than both the file's and the overall best.
func (sc *scanner) lineRules(ln *lineInfo, found *needleSet, fileBest []int, hits []hit, path string, context bool) {
	for i, t := range sc.table {
		if context && !t.context {
			continue
		}
		limit := fileBest[i]
		if limit < len(t.rules) {
			limit = min(limit, hits[i].rank)
		}
		for r := 0; r < limit; r++ {
			if label := t.rules[r].lineMatch(ln, found); label != "" {
				fileBest[i] = r
				record(&hits[i], r, label, path)
				break
			}
		}
	}
}

// record keeps the stronger of the current hit and (rank, label, path); the
// earlier file wins a tie because files are scanned in order.
func record(h *hit, rank int, label, path string) {
	if rank < h.rank {
		h.rank, h.label, h.path = rank, label, path
	}
}

// loopWindow is how many lines after a loop header count as its body.
const loopWindow = 12
