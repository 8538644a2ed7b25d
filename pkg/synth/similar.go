package synth

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/anchor-review/anchor-review/pkg/finding"
)

// Deciding that two findings are the same problem (step 2). Two personas
// rarely word one bug alike ("SQL injection via session id" and "User
// input concatenated into the query"), so deduplication, and the
// cross-persona promotion that hangs on it, compare what the findings say,
// not their exact text. Two findings on the same file whose lines are
// within DedupeWindow are one problem when their titles normalize to the
// same text, or else when all of these hold:
//
//   - different personas reported them (one persona that reports two
//     findings meant two);
//   - both are about tests, or neither is (a missing test and the defect
//     it would catch are two findings);
//   - their titles do not name disjoint kinds of defect ("Missing nil
//     check" and "Missing error check"; the kinds are the words synonyms
//     fold onto: nil, error, secret, timeout, concurrency, doc, compat,
//     typo, ...), read from what the titles say, not from the identifiers
//     they name (subject.go);
//   - if their titles name the same code (one identifier, or one letter
//     apart: a typo and the name it misspells), they also share a word of
//     what they say about it (subject.go);
//   - their titles share at least one word;
//   - they quote the same code line and propose the same fix in other
//     words: their suggested_fix texts overlap at least FixSimilarity, each
//     at least minFixWords words long (two defects on one line need two
//     different fixes, however alike the titles or unlike; a generic "add
//     a nil check" is too short to tell); or
//   - they quote the same code line and what they say overlaps at least
//     QuoteSimilarity (two different bugs on one line quote it alike, so a
//     shared quote alone is not enough); or their titles overlap at least
//     MinTitleSimilarity and what they say at least Similarity.
//
// What a finding says is two bags of words: its title, and its title with
// its why_it_matters. Words are lower-cased, identifiers split at case
// changes and punctuation ("rows.Scan", "QueryRow" give rows, scan, query,
// row), stop words, numbers and single letters dropped, common suffixes
// stripped ("ignored", "ignores" → ignor), and a short list of
// review-vocabulary synonyms folded into one word (discarded, swallowed,
// unchecked → ignore; token, bearer, password, credential → secret; ...).
// The overlap is the mean of two Dice coefficients, titles against titles
// and title-plus-reason against title-plus-reason. Clusters are transitive
// (A~B and B~C merge all three). The thresholds come from the table of
// paraphrased and near-miss pairs in similar_test.go, which checks that they
// separate the two with a margin. Bag-of-words cannot tell every pair apart
// ("Search response omits the count the docs promise" and "Exported Searched
// has no doc comment" overlap); the rules above lean toward keeping two
// findings, since a wrong merge hides one and a missed merge only repeats.

// Similarity is the overlap from which two nearby findings on one file are
// the same problem. On the table in similar_test.go, paraphrases score 0.45
// and up, near misses 0.25 and below; the threshold sits between.
const Similarity = 0.33

// MinTitleSimilarity is the least overlap of the titles alone for findings
// that quote different code: reasons often share boilerplate ("normal use
// hits this"), titles carry the problem.
const MinTitleSimilarity = 0.3

// FixSimilarity is the overlap of two suggested_fix texts from which two
// findings quoting the same line propose one fix. On the recorded corpus
// the same fix in other words scores 0.54 and up (path-to-regexp's "Restore
// the backtrack-aware capture ..." twice, decode-uri-component's "Restore
// `|| []` ... return an array" twice: 0.89), different fixes of one line
// 0.31 and below (similar_test.go).
const FixSimilarity = 0.5

// minFixWords is the fewest content words a suggested_fix needs to be
// compared: a short fix ("Add a nil check") fits many defects.
const minFixWords = 5

// QuoteSimilarity is the lower overlap that suffices when the two findings
// quote the same code line: on the table, paraphrases that share a quote
// score 0.35 and up, different problems on one quoted line 0.28 and below
// (an open redirect beside a crash of the same redirect, which share their
// subject: the closest pair, 0.03 to 0.04 from the threshold; a suggested
// fix tells them apart better, sameFix).
const QuoteSimilarity = 0.32

// testWord is the stem of "test", "tests", "tested", "untested".
var testWord = stem("test")

// dedupe is step 2. Findings are compared pairwise within one file and
// DedupeWindow lines; pairs that sameProblem joins are clustered
// transitively (so 10, 13, 16 with one title is one finding). Each cluster
// becomes one group; the findings merged away are counted as
// ReasonDuplicate. Clusters do not depend on the order findings arrived in.
//
// quoted[i] is what fs[i]'s evidence quotes, from step 1: its code quotes,
// and the file lines they matched (two findings quoting one line quote
// "the same line" however much of it each copied).
func dedupe(fs []finding.Finding, quoted []quoting, dropped map[string]int) []group {
	idx := make([]int, len(fs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		x, y := fs[a], fs[b]
		return cmp.Or(strings.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line), compareFindings(x, y))
	})
	sorted := make([]finding.Finding, len(fs))
	probs := make([]problem, len(fs))
	for i, k := range idx {
		sorted[i] = fs[k]
		probs[i] = newProblem(fs[k], quoted[k])
	}
	// Union-find over the pairs that are one problem; the root of a
	// cluster is its first member in sorted order.
	root := make([]int, len(sorted))
	for i := range root {
		root[i] = i
	}
	find := func(i int) int {
		for root[i] != i {
			root[i] = root[root[i]]
			i = root[i]
		}
		return i
	}
	for i := range sorted {
		for j := i + 1; j < len(sorted) && sorted[j].File == sorted[i].File && sorted[j].Line-sorted[i].Line <= DedupeWindow; j++ {
			if sameProblem(probs[i], probs[j]) {
				ri, rj := find(i), find(j)
				root[max(ri, rj)] = min(ri, rj)
			}
		}
	}
	clusters := map[int][]finding.Finding{}
	var order []int
	for i := range sorted {
		r := find(i)
		if _, seen := clusters[r]; !seen {
			order = append(order, r)
		}
		clusters[r] = append(clusters[r], sorted[i])
	}
	groups := make([]group, 0, len(order))
	for _, r := range order {
		c := clusters[r]
		groups = append(groups, merge(c))
		if n := len(c) - 1; n > 0 {
			dropped[ReasonDuplicate] += n
		}
	}
	return groups
}

// problem is what dedupe compares about a finding, computed once.
type problem struct {
	reviewer string          // the one persona that reported it (before merging)
	title    string          // normalizeTitle
	words    map[string]bool // title words
	all      map[string]bool // title and why_it_matters words
	quotes   map[string]bool // normalized code quotes of the evidence
	lines    map[int]bool    // the file lines the evidence quotes, from anchoring
	names    []string        // the code the title names (subject.go)
	prose    map[string]bool // title words without that code: what it says
	fix      string          // its suggestion: lines and replacement, blanks folded ("" without one)
	fixWords map[string]bool // the words of its suggested_fix
}

// quoting is what step 1 read of a finding's evidence: its quotes
// (quotesOf) and the file lines they matched (anchor).
type quoting struct {
	lines  []int
	quotes []quote
}

func newProblem(f finding.Finding, q quoting) problem {
	p := problem{title: normalizeTitle(f.Title), words: bagOfWords(f.Title), quotes: map[string]bool{}, lines: map[int]bool{}}
	p.names, p.prose = codeNames(f.Title), bagOfWords(proseOf(f.Title))
	if len(f.Reviewers) > 0 {
		p.reviewer = f.Reviewers[0]
	}
	p.all = bagOfWords(f.Title + " " + f.WhyItMatters)
	p.fixWords = bagOfWords(f.SuggestedFix)
	if sg := f.Suggestion; sg != nil && strings.TrimSpace(sg.Replacement) != "" {
		p.fix = fmt.Sprintf("%d-%d:%s", sg.StartLine, sg.EndLine, strings.Join(strings.Fields(sg.Replacement), " "))
	}
	for _, q := range q.quotes {
		if q.code {
			for _, v := range q.variants {
				p.quotes[v] = true
			}
		}
	}
	for _, n := range q.lines {
		p.lines[n] = true
	}
	return p
}

// sameProblem reports whether two nearby findings on one file describe the
// same problem.
func sameProblem(a, b problem) bool {
	if a.title == b.title {
		return true
	}
	// One persona that reports two findings meant two: paraphrase is
	// what different personas do.
	if a.reviewer == b.reviewer {
		return false
	}
	// A missing test and the defect it would catch are two findings: one
	// asks for a fix, the other for a test.
	if a.words[testWord] != b.words[testWord] {
		return false
	}
	// The same committable replacement of the same lines is one fix, so
	// one defect, however differently the two describe it ("ToLower in a
	// per-token predicate: full scan and allocation each call" and
	// "ToLower on attacker-controlled values makes parsing quadratic").
	// Two defects on one line need two different fixes.
	if a.fix != "" && a.fix == b.fix {
		return true
	}
	// The same fix in other words, on a line both quote, is one defect
	// too: two personas describing one bug differently still ask for one
	// change ("Restore the backtrack-aware capture ..." beside "Restore the
	// backtrack tracking so a parameter ... uses ((?:(?!/|<literal>).)+?)").
	if sameFix(a, b) {
		return true
	}
	// Titles naming different kinds of defect ("Missing nil check",
	// "Missing error check") are different problems, however alike the
	// rest of their words. The kinds are read from what the titles say,
	// not from the code they name (subject.go).
	ka, kb := kinds(a.prose), kinds(b.prose)
	if len(ka) > 0 && len(kb) > 0 && dice(ka, kb) == 0 {
		return false
	}
	// Titles naming the same code but saying nothing alike about it are
	// two problems on that code (subject.go).
	if sharesName(a.names, b.names) && dice(a.prose, b.prose) == 0 {
		return false
	}
	t := dice(a.words, b.words)
	if t == 0 {
		return false // titles that share no word never merge on their reasons alone
	}
	s := similarity(a, b)
	if sharesQuote(a, b) {
		return s >= QuoteSimilarity
	}
	return t >= MinTitleSimilarity && s >= Similarity
}

// sameFix reports whether a and b quote the same code line and propose the
// same fix in other words (FixSimilarity), their titles sharing a word.
func sameFix(a, b problem) bool {
	return len(a.fixWords) >= minFixWords && len(b.fixWords) >= minFixWords &&
		dice(a.fixWords, b.fixWords) >= FixSimilarity && dice(a.words, b.words) > 0 && sharesQuote(a, b)
}

// kinds are the words of a title that name a kind of defect: the words
// synonyms fold onto.
func kinds(words map[string]bool) map[string]bool {
	out := map[string]bool{}
	for w := range words {
		if defectKinds[w] {
			out[w] = true
		}
	}
	return out
}

// sharesQuote reports whether a and b quote the same code line: a file
// line both quotes matched, or the same code quote.
func sharesQuote(a, b problem) bool {
	for n := range a.lines {
		if b.lines[n] {
			return true
		}
	}
	for q := range a.quotes {
		if b.quotes[q] {
			return true
		}
	}
	return false
}

// similarity is the overlap of what two findings say, in [0, 1]: the mean
// of the titles' Dice coefficient and that of title-plus-reason.
func similarity(a, b problem) float64 {
	return (dice(a.words, b.words) + dice(a.all, b.all)) / 2
}

// dice is the Dice coefficient of two word sets: twice the shared words
// over the total.
func dice(a, b map[string]bool) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	shared := 0
	for w := range a {
		if b[w] {
			shared++
		}
	}
	return 2 * float64(shared) / float64(len(a)+len(b))
}

// bagOfWords is the set of content words of s, stemmed and folded.
func bagOfWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range splitWords(s) {
		// Numbers and single letters (path bits, "Finding 02", "x") tell
		// nothing about the problem.
		if stopWords[w] || len(w) < 2 || strings.Trim(w, "0123456789") == "" {
			continue
		}
		w = stem(w)
		if c, ok := synonyms[w]; ok {
			w = c
		}
		if w != "" {
			out[w] = true
		}
	}
	return out
}

// splitWords splits s into lower-case words at anything that is not a
// letter or digit, and inside identifiers at a lower-to-upper case change
// ("QueryRow" → query, row; "HTTPClient" → httpclient stays one word only
// where no lower-case letter precedes an upper-case one).
func splitWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}

// stem strips the commonest English suffixes, enough for "ignored",
// "ignores", "ignoring" to meet. It is deliberately crude: both sides go
// through it, so only consistency matters.
func stem(w string) string {
	for _, suf := range []string{"ations", "ation", "ings", "ing", "ied", "ies", "ed", "es", "ly", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 && !strings.HasSuffix(w, "ss") {
			w = strings.TrimSuffix(w, suf)
			if suf == "ied" || suf == "ies" {
				w += "y"
			}
			// "dropped", "logging", "scanned": one of a doubled
			// consonant goes with the suffix.
			if n := len(w); (suf == "ed" || suf == "ing" || suf == "ings") && n >= 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
				w = w[:n-1]
			}
			break
		}
	}
	// "ignor(e)", "leak(e)": a trailing e is dropped, so "ignore" meets
	// "ignored".
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// stopWords carry no problem: articles, prepositions, auxiliaries, words
// every finding uses, severities, and the commonest path parts.
var stopWords = wordSet(`a an the and or but of to in on at by for with from into onto
	as is are was were be been being it its this that these those there here which who whom
	when where while if then than so such can could may might must should would will shall do
	does did done has have had not no nor any all every each some one two via per
	because since after before about over under again also only just too very more most
	user users caller callers code line lines function method value values call calls called
	get gets set sets use uses used using make makes made new
	finding findings problem problems issue issues bug bugs defect defects concern concerns
	p0 p1 p2 p3 pkg src lib internal go py js ts rb rs java kt cs cpp`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// synonyms fold review vocabulary onto one word. Written as plain words;
// keys and values are stemmed when the map is built, so they meet the
// stemmed words of a finding.
var synonyms = stemmedSynonyms(map[string]string{
	// an error that is not looked at
	"discard": "ignore", "swallow": "ignore", "unchecked": "ignore", "unhandled": "ignore",
	"drop": "ignore", "silently": "ignore", "lost": "ignore", "neglect": "ignore",
	"err": "error",
	// secrets and personal data
	"token": "secret", "bearer": "secret", "password": "secret", "credential": "secret",
	"authorization": "secret", "apikey": "secret",
	"personal": "privacy", "pii": "privacy",
	// logging
	"logger": "log", "print": "log", "printf": "log",
	// injection and string building
	// (building a query or command from strings is the injection shape)
	"inject": "injection", "unescaped": "injection", "concatenate": "injection", "concatenation": "injection",
	"interpolate": "injection", "formatting": "injection", "sprintf": "injection", "concat": "injection",
	// nil
	"null": "nil", "none": "nil", "undefined": "nil", "dereference": "deref", "pointer": "deref",
	"crash": "panic",
	// a name spelled wrong
	"misspell": "typo", "misspelt": "typo", "misspelling": "typo", "spelling": "typo", "misnamed": "typo",
	// time limits
	"deadline": "timeout", "hang": "timeout", "forever": "timeout", "indefinitely": "timeout",
	"block": "timeout",
	// concurrency
	"goroutine": "concurrency", "thread": "concurrency", "race": "concurrency", "mutex": "concurrency",
	"lock": "concurrency",
	// pagination
	"pagination": "page", "offset": "page", "paging": "page",
	// tests
	"untested": "test", "coverage": "test", "cover": "test",
	// documentation
	"comment": "doc", "docstring": "doc", "godoc": "doc", "documentation": "doc",
	// compatibility
	"signature": "compat", "breaking": "compat", "version": "compat", "deprecation": "compat",
})

// defectKinds are the words synonyms fold onto: each names a kind of
// defect.
var defectKinds = func() map[string]bool {
	m := map[string]bool{}
	for _, v := range synonyms {
		m[v] = true
	}
	return m
}()

func stemmedSynonyms(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[stem(k)] = stem(v)
	}
	return out
}
