package synth

import (
	"fmt"
	"slices"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// said is what a persona said about one problem.
type said struct {
	title, why string
	evidence   []string
}

// fixing is s with a suggested_fix.
type fixing struct {
	said
	fix string
}

func (s fixing) finding(persona string, line int) finding.Finding {
	f := s.said.finding(persona, line)
	f.SuggestedFix = s.fix
	return f
}

func (s said) finding(persona string, line int) finding.Finding {
	ev := s.evidence
	if len(ev) == 0 {
		ev = []string{fmt.Sprintf("handler.go:%d", line)}
	}
	return fnd(s.title, "handler.go", line, finding.P1, 50, by(persona), evidence(ev...), func(f *finding.Finding) {
		f.WhyItMatters = s.why
	})
}

// fileQuoting is a 60-line added file holding the code the findings quote,
// one quote a line from line 20, so that every finding anchors there.
func fileQuoting(fs ...finding.Finding) *diff.File {
	lines := make([]string, 60)
	at := 19
	for _, f := range fs {
		for _, e := range f.Evidence {
			for _, q := range parseEvidence(e) {
				if !slices.Contains(lines, q.variants[0]) {
					lines[at] = q.variants[0]
					at++
				}
			}
		}
	}
	return added("handler.go", lines...)
}

// pairs are two personas' words about nearby lines of one file: the same
// problem paraphrased (merge), or different problems (keep apart). They are
// the table Similarity and QuoteSimilarity were picked from.
var pairs = []struct {
	name  string
	a, b  said
	merge bool
}{
	{"sql injection paraphrased", said{
		"SQL injection via the id parameter",
		"An attacker can read any user's row by passing id=' OR '1'='1.",
		[]string{`handler.go:19: row := h.db.QueryRow("SELECT name, email FROM users WHERE id = '" + id + "'")`},
	}, said{
		"User-controlled id concatenated into the SQL query",
		"The id query parameter is interpolated into the SQL text, so a crafted id runs arbitrary SQL.",
		[]string{"`\"... WHERE id = '\" + id + \"'\"`"},
	}, true},
	{"scan error paraphrased", said{
		"Scan error ignored",
		"A row that fails to scan is appended as an empty name.",
		[]string{"handler.go:49: rows.Scan(&n)"},
	}, said{
		"Error returned by rows.Scan is discarded",
		"When scanning fails the loop keeps going and the response lists blank names.",
		[]string{"L49: `rows.Scan(&n)`"},
	}, true},
	{"token in logs paraphrased", said{
		"Bearer token written to the logs",
		"Anyone with log access can replay the caller's credentials.",
		[]string{`log.Printf("get user %s token=%s", id, r.Header.Get("Authorization"))`},
	}, said{
		"Authorization header logged in plain text",
		"The Authorization header holds the bearer token; logging it leaks secrets to everyone who reads logs.",
		[]string{`handler.go:18: log.Printf("get user %s token=%s", id, r.Header.Get("Authorization"))`},
	}, true},
	{"timeout paraphrased", said{
		"Webhook HTTP client has no timeout",
		"A slow endpoint blocks the goroutine forever.",
		[]string{"webhook.go:18: client: &http.Client{},"},
	}, said{
		"http.Client without a Timeout can hang indefinitely",
		"Requests to the marketing endpoint never time out, leaking one goroutine per search.",
		[]string{"client: &http.Client{},"},
	}, true},
	{"nil deref paraphrased", said{
		"Nil pointer dereference when the user is not found",
		"FindUser returns nil, nil for an unknown id and u.Name then panics.",
		[]string{"name := u.Name"},
	}, said{
		"Possible nil deref of u",
		"If FindUser returns a nil user the handler crashes with a panic.",
		[]string{"L31: `name := u.Name`"},
	}, true},
	{"pagination paraphrased", said{
		"Off-by-one in pagination offset",
		"OFFSET page*perPage skips the first page for 1-based pages.",
		[]string{"query, perPage, page*perPage,"},
	}, said{
		"OFFSET skips the first page of results",
		"Pages are 1-based, so page 1 starts at row perPage+1 and the first results are never returned.",
		[]string{"store/users.go:43: OFFSET page*perPage"},
	}, true},
	{"data race paraphrased", said{
		"Race on the shared cache map",
		"Two requests writing s.cache at once crash the process with concurrent map writes.",
		[]string{"s.cache[key] = v"},
	}, said{
		"Concurrent map writes to s.cache without a lock",
		"Get is called from many goroutines; unsynchronized writes to the map panic.",
		[]string{"L57: `s.cache[key] = v`"},
	}, true},
	{"goroutine leak paraphrased", said{
		"Goroutine leak per search",
		"Each search starts a goroutine that never exits when the webhook hangs.",
		[]string{"go h.Notify.Searched(q, len(users))"},
	}, said{
		"Unbounded goroutines spawned for every request",
		"A goroutine is started per request and blocks forever on the webhook, so memory grows without limit.",
		[]string{"api/users.go:48: go h.Notify.Searched(q, len(users))"},
	}, true},
	{"same title, different words", said{
		"Nil-pointer deref!", "u may be nil", nil,
	}, said{
		"nil pointer deref", "the lookup can return nothing", nil,
	}, true},

	{"injection vs unchecked error on one line", said{
		"SQL injection via the id parameter",
		"An attacker can read any user's row by passing id=' OR '1'='1.",
		[]string{`handler.go:19: row := h.db.QueryRow("SELECT name, email FROM users WHERE id = '" + id + "'")`},
	}, said{
		"QueryRow result used without checking for sql.ErrNoRows",
		"An unknown id yields empty strings instead of a 404.",
		[]string{`handler.go:19: row := h.db.QueryRow("SELECT name, email FROM users WHERE id = '" + id + "'")`},
	}, false},
	{"token in logs vs log style", said{
		"Bearer token written to the logs",
		"Anyone with log access can replay the caller's credentials.",
		[]string{`log.Printf("get user %s token=%s", id, r.Header.Get("Authorization"))`},
	}, said{
		"Unstructured log.Printf instead of the service logger",
		"The project logs through slog; Printf output is not indexed.",
		[]string{`log.Printf("get user %s token=%s", id, r.Header.Get("Authorization"))`},
	}, false},
	{"timeout vs hard-coded URL", said{
		"Webhook HTTP client has no timeout",
		"A slow endpoint blocks the goroutine forever.",
		[]string{"client: &http.Client{},"},
	}, said{
		"Webhook URL is hard-coded",
		"Staging and production post to the same marketing endpoint.",
		[]string{`url: "https://hooks.example.com/search",`},
	}, false},
	{"overflow vs off-by-one on one line", said{
		"page*perPage can overflow for huge page numbers",
		"A page of 2^62 wraps the offset negative and the database rejects the query.",
		[]string{"query, perPage, page*perPage,"},
	}, said{
		"OFFSET skips the first page of results",
		"Pages are 1-based, so page 1 starts at row perPage+1 and the first results are never returned.",
		[]string{"query, perPage, page*perPage,"},
	}, false},
	{"rows.Err vs rows.Close", said{
		"rows.Err() not checked after the loop",
		"A connection dropped mid-iteration returns a truncated list as complete.",
		[]string{"for rows.Next() {"},
	}, said{
		"rows is not closed on the early return",
		"Each failed scan leaks a database connection until the pool is exhausted.",
		[]string{"return"},
	}, false},
	{"race vs eviction on one map", said{
		"Race on the shared cache map",
		"Two requests writing s.cache at once crash the process with concurrent map writes.",
		[]string{"s.cache[key] = v"},
	}, said{
		"Cache never evicts entries",
		"Every distinct key stays in memory for the life of the process.",
		[]string{"s.cache[key] = v"},
	}, false},
	{"wrong status vs leaked detail on one line", said{
		"Handler answers 500 for a missing user",
		"Clients get a server error where a 404 is documented.",
		[]string{"http.Error(w, err.Error(), http.StatusInternalServerError)"},
	}, said{
		"Error text leaks database internals to clients",
		"err.Error() carries the SQL driver's message, table names included, to any caller.",
		[]string{"http.Error(w, err.Error(), http.StatusInternalServerError)"},
	}, false},
	{"nil check vs error check", said{
		"Missing nil check on the looked-up user",
		"FindUser returns nil for an unknown id and the next line dereferences it.",
		[]string{"u := h.users.Find(id)"},
	}, said{
		"Missing error check on the lookup",
		"Find's error is dropped, so a database outage reads as an unknown user.",
		[]string{"u, _ := h.users.Find(id)"},
	}, false},
	{"division by zero vs nil deref on one line", said{
		"Division by zero crashes the handler for a user with no orders",
		"avg divides by u.Orders, which is 0 for a new account, and the handler panics.",
		[]string{"avg := total / u.Orders"},
	}, said{
		"Nil pointer dereference of u when the lookup misses",
		"FindUser returns nil for an unknown id and u.Orders then panics.",
		[]string{"avg := total / u.Orders"},
	}, false},
	// From a second read: one subject ("the next param", "the redirect")
	// on one quoted line, two defects with two fixes.
	{"open redirect vs array-valued param crash on one line", said{
		"Open redirect through the next param",
		"Any absolute URL in next sends the user off-site after login.",
		[]string{`res.redirect(req.query.next || "/")`},
	}, said{
		"Array-valued next parameter crashes the redirect",
		"?next=a&next=b makes req.query.next an array and res.redirect throws.",
		[]string{`res.redirect(req.query.next || "/")`},
	}, false},
	// The recorded corpus's path-to-regexp ReDoS, as adversarial and
	// typescript wrote it: titles little alike (0.21), the same fix.
	{"the same fix in other words", said{
		"Crafted request paths make multi-param routes backtrack for seconds (routing ReDoS)",
		"Each param compiles to a lazy group, so params sharing a segment absorb the same dashes.",
		[]string{`capture = capture || '([^\\/' + format + ']+?)';`},
	}, said{
		"Adjacent parameter groups backtrack on crafted URLs and block Node's event loop",
		"Express matches every request path against these regexes on Node's single thread.",
		[]string{`capture = capture || '([^\\/' + format + ']+?)';`},
	}, true},
	{"missing test vs ignored error", said{
		"No test covers a failing Scan",
		"The new error path ships without a test.",
		nil,
	}, said{
		"Scan error ignored",
		"A row that fails to scan is appended as an empty name.",
		[]string{"handler.go:49: rows.Scan(&n)"},
	}, false},
}

// pairFixes are the suggested_fix texts of the pairs that carry them, by
// pair name.
var pairFixes = map[string][2]string{
	"open redirect vs array-valued param crash on one line": {
		"Only redirect to a relative path: reject next values with a scheme or a leading //.",
		"Take the first value when next is an array, or reject array-valued next with a 400.",
	},
	"the same fix in other words": {
		"Restore the backtrack-aware capture ((?:(?!/|<preceding literal>).)+?) for params that follow literal text in the same segment.",
		"Restore the backtrack-aware capture that excludes the following literal from the parameter group, as in the replaced tokenizer.",
	},
}

// TestSameProblem checks every pair, and that each threshold separates
// its two groups with a margin: Similarity for pairs that quote different
// code, QuoteSimilarity for pairs that quote the same line.
func TestSameProblem(t *testing.T) {
	type bounds struct{ lowestMerge, highestApart float64 }
	groups := map[bool]*bounds{false: {1, 0}, true: {1, 0}} // by shared quote
	fixes := &bounds{1, 0}                                  // the overlap of the pairs' suggested fixes
	for _, tc := range pairs {
		a, b := problemOf(fixing{tc.a, pairFixes[tc.name][0]}.finding("x", 1)), problemOf(fixing{tc.b, pairFixes[tc.name][1]}.finding("y", 1))
		s := similarity(a, b)
		if got := sameProblem(a, b); got != tc.merge {
			t.Errorf("%s: sameProblem = %v (similarity %.2f); want %v", tc.name, got, s, tc.merge)
		}
		if got := sameProblem(b, a); got != tc.merge {
			t.Errorf("%s: sameProblem is not symmetric", tc.name)
		}
		t.Logf("%-45s %.2f shared quote %-5v merge %v", tc.name, s, sharesQuote(a, b), tc.merge)
		if _, ok := pairFixes[tc.name]; ok {
			d := dice(a.fixWords, b.fixWords)
			if tc.merge {
				fixes.lowestMerge = min(fixes.lowestMerge, d)
			} else {
				fixes.highestApart = max(fixes.highestApart, d)
			}
		}
		if ka, kb := kinds(a.words), kinds(b.words); a.title == b.title || a.words[testWord] != b.words[testWord] ||
			(len(ka) > 0 && len(kb) > 0 && dice(ka, kb) == 0) || sameFix(a, b) {
			continue // decided before similarity counts
		}
		g := groups[sharesQuote(a, b)]
		if tc.merge {
			g.lowestMerge = min(g.lowestMerge, s)
		} else {
			g.highestApart = max(g.highestApart, s)
		}
	}
	t.Logf("suggested fixes: lowest merged %.2f, highest kept apart %.2f, threshold %.2f", fixes.lowestMerge, fixes.highestApart, FixSimilarity)
	if fixes.lowestMerge < FixSimilarity+0.03 || fixes.highestApart > FixSimilarity-0.15 {
		t.Errorf("FixSimilarity %.2f does not separate the same fix (lowest %.2f) from two fixes (highest %.2f)", FixSimilarity, fixes.lowestMerge, fixes.highestApart)
	}
	// The margin each threshold keeps from both groups: 0.05 without a
	// shared quote; 0.03 with one, where the open redirect beside a crash
	// of the same redirect (0.28) sits close to the lowest paraphrase (0.35).
	margins := map[bool]float64{false: 0.05, true: 0.03}
	for shared, th := range map[bool]float64{false: Similarity, true: QuoteSimilarity} {
		g, margin := groups[shared], margins[shared]
		t.Logf("shared quote %v: lowest merged %.2f, highest kept apart %.2f, threshold %.2f", shared, g.lowestMerge, g.highestApart, th)
		if g.lowestMerge < th+margin || g.highestApart > th-margin {
			t.Errorf("shared quote %v: threshold %.2f does not separate merged pairs (lowest %.2f) from near misses (highest %.2f) by %.2f",
				shared, th, g.lowestMerge, g.highestApart, margin)
		}
	}
}

// TestDedupeParaphrases runs the pairs through Synthesize: a paraphrased
// pair on nearby lines is one finding, reported by both personas and
// promoted from 50 to 75; a near-miss pair stays two findings at 50.
func TestDedupeParaphrases(t *testing.T) {
	for _, tc := range pairs {
		t.Run(tc.name, func(t *testing.T) {
			a, b := fixing{tc.a, pairFixes[tc.name][0]}.finding("security", 20), fixing{tc.b, pairFixes[tc.name][1]}.finding("correctness", 22)
			out := Synthesize(Input{Files: []*diff.File{fileQuoting(a, b)}, Results: []PersonaResult{
				res("security", a), res("correctness", b),
			}})
			if tc.merge {
				if len(out.Gated) != 1 || out.DroppedByReason[ReasonDuplicate] != 1 {
					t.Fatalf("got %d gated, drops %v; want one merged finding", len(out.Gated), out.DroppedByReason)
				}
				if f := out.Gated[0]; f.Confidence != 75 || !f.Promoted || len(f.Reviewers) != 2 {
					t.Errorf("got anchor %d promoted %v reviewers %v; want 75, promoted, both personas", f.Confidence, f.Promoted, f.Reviewers)
				}
				return
			}
			if tc.name == "missing test vs ignored error" {
				// Not one problem, but the test would catch the defect:
				// step 2b folds it (fold_test.go), it does not merge it.
				if len(out.Gated) != 0 || out.DroppedByAnchor[50] != 1 || out.Folded != 1 || out.DroppedByReason[ReasonDuplicate] != 0 {
					t.Errorf("got %d gated, drops %v by anchor %v, %d folded; want the test gap folded into the defect at 50", len(out.Gated), out.DroppedByReason, out.DroppedByAnchor, out.Folded)
				}
				return
			}
			if len(out.Gated) != 0 || out.DroppedByAnchor[50] != 2 || out.DroppedByReason[ReasonDuplicate] != 0 {
				t.Errorf("got %d gated, drops %v by anchor %v; want two separate findings at 50", len(out.Gated), out.DroppedByReason, out.DroppedByAnchor)
			}
		})
	}
}

// TestDedupeWindowStillApplies: a paraphrase more than DedupeWindow lines
// away, or in another file, is another finding.
func TestDedupeWindowStillApplies(t *testing.T) {
	p := pairs[1]
	near := p.a.finding("security", 20)
	far := p.b.finding("correctness", 20+DedupeWindow+1)
	far.Evidence = []string{"the scan error goes nowhere"} // prose: not snapped
	elsewhere := p.b.finding("correctness", 20)
	elsewhere.File = "other.go"
	other := fileQuoting(elsewhere)
	other.NewPath = "other.go"
	files := []*diff.File{fileQuoting(near), other}
	out := Synthesize(Input{Files: files, Results: []PersonaResult{
		res("security", near),
		res("correctness", far, elsewhere),
	}})
	if out.DroppedByReason[ReasonDuplicate] != 0 {
		t.Errorf("got drops %v; want no duplicate", out.DroppedByReason)
	}
}

func TestBagOfWords(t *testing.T) {
	tests := []struct {
		a, b string
		want bool // the bags meet on at least one word
	}{
		{"Error ignored", "errors are ignoring", true},
		{"rows.Scan result discarded", "QueryRow swallows the error", true},
		{"QueryRow", "query row", true},
		{"the a of to", "with from into", false},
	}
	for _, tc := range tests {
		if got := dice(bagOfWords(tc.a), bagOfWords(tc.b)) > 0; got != tc.want {
			t.Errorf("bags of %q and %q meet = %v; want %v (%v, %v)", tc.a, tc.b, got, tc.want, bagOfWords(tc.a), bagOfWords(tc.b))
		}
	}
}

// TestDedupeSameQuotedLine: two personas quote one line, each copying a
// different part of it; anchoring finds it is the same line, and with a
// modest overlap of what they say that makes them one finding.
func TestDedupeSameQuotedLine(t *testing.T) {
	df, head := anchorFixture(t)
	a := fnd("Token written to the debug log", "handler.go", 18, finding.P1, 50, by("security"), evidence("handler.go:18: `r.Header.Get(\"Authorization\")`"), func(f *finding.Finding) {
		f.WhyItMatters = "Whoever reads the logs can replay the caller's credentials."
	})
	b := fnd("Printf exposes request headers", "handler.go", 19, finding.P1, 50, by("correctness"), evidence("`log.Printf(\"get user %s token=%s\", id`"), func(f *finding.Finding) {
		f.WhyItMatters = "Whoever reads the logs sees the caller's credentials."
	})
	out := Synthesize(Input{Files: []*diff.File{df}, Heads: map[string]string{"handler.go": head}, Results: []PersonaResult{res("security", a), res("correctness", b)}})
	if len(out.Gated) != 1 || out.DroppedByReason[ReasonDuplicate] != 1 || out.Gated[0].Line != 18 {
		t.Fatalf("got gated %+v, drops %v; want one promoted finding on line 18", out.Gated, out.DroppedByReason)
	}
	pa, pb := problemOf(a), problemOf(b)
	if sharesQuote(pa, pb) {
		t.Errorf("the two quotes differ as text; want only anchoring to find the shared line")
	}
	if s, tt := similarity(pa, pb), dice(pa.words, pb.words); s < QuoteSimilarity || tt >= MinTitleSimilarity {
		t.Errorf("similarity %.2f, titles %.2f; want at least %.2f and below %.2f, so that only the shared line merges them", s, tt, QuoteSimilarity, MinTitleSimilarity)
	}
}
