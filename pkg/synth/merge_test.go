package synth

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

func TestNormalizeTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Nil pointer dereference":         "nil pointer dereference",
		"  nil-pointer   DEREFERENCE!!  ": "nil pointer dereference",
		"`err` is ignored":                "err is ignored",
		"err\tis\nignored.":               "err is ignored",
		"Off-by-one in loop (i <= n)":     "off by one in loop i n",
		"ÉCOLE: accents stay":             "école accents stay",
		"":                                "",
		"!!!":                             "",
		"SQL injection via `fmt.Sprintf`": "sql injection via fmt sprintf",
	} {
		if got := normalizeTitle(in); got != want {
			t.Errorf("normalizeTitle(%q): got %q; want %q", in, got, want)
		}
	}
}

func TestDedupe(t *testing.T) {
	type want struct {
		line      int
		sev       finding.Severity
		conf      int
		reviewers []string
		title     string
	}
	tests := []struct {
		name  string
		in    []finding.Finding
		want  []want // sorted by compareFindings
		dupes int
	}{
		{
			name: "same title modulo case and punctuation, lines 2 apart",
			in: []finding.Finding{
				fnd("Nil pointer deref", "a.go", 10, finding.P1, 75, by("correctness")),
				fnd("nil-pointer deref.", "a.go", 12, finding.P1, 75, by("security")),
			},
			want:  []want{{10, finding.P1, 75, []string{"correctness", "security"}, "Nil pointer deref"}},
			dupes: 1,
		},
		{
			name: "exactly 3 apart merges",
			in: []finding.Finding{
				fnd("x", "a.go", 10, finding.P1, 75, by("correctness")),
				fnd("x", "a.go", 13, finding.P1, 75, by("security")),
			},
			want:  []want{{10, finding.P1, 75, []string{"correctness", "security"}, "x"}},
			dupes: 1,
		},
		{
			name: "4 apart stays apart",
			in: []finding.Finding{
				fnd("x", "a.go", 10, finding.P1, 75, by("correctness")),
				fnd("x", "a.go", 14, finding.P1, 75, by("security")),
			},
			want: []want{
				{10, finding.P1, 75, []string{"correctness"}, "x"},
				{14, finding.P1, 75, []string{"security"}, "x"},
			},
		},
		{
			name: "transitive chain in line order",
			in: []finding.Finding{
				fnd("x", "a.go", 16, finding.P2, 50, by("testing")),
				fnd("x", "a.go", 10, finding.P2, 50, by("correctness")),
				fnd("x", "a.go", 13, finding.P2, 50, by("security")),
			},
			want:  []want{{10, finding.P2, 50, []string{"correctness", "security", "testing"}, "x"}},
			dupes: 2,
		},
		{
			name: "different files stay apart",
			in: []finding.Finding{
				fnd("x", "a.go", 10, finding.P1, 75, by("correctness")),
				fnd("x", "b.go", 10, finding.P1, 75, by("security")),
			},
			want: []want{
				{10, finding.P1, 75, []string{"correctness"}, "x"},
				{10, finding.P1, 75, []string{"security"}, "x"},
			},
		},
		{
			name: "different titles stay apart",
			in: []finding.Finding{
				fnd("leak", "a.go", 10, finding.P1, 75, by("correctness")),
				fnd("race", "a.go", 10, finding.P1, 75, by("security")),
			},
			want: []want{
				{10, finding.P1, 75, []string{"correctness"}, "leak"},
				{10, finding.P1, 75, []string{"security"}, "race"},
			},
		},
		{
			name: "highest severity and highest anchor, text of the top member",
			in: []finding.Finding{
				fnd("Leak!", "a.go", 11, finding.P2, 100, by("performance")),
				fnd("leak", "a.go", 9, finding.P1, 50, by("reliability")),
			},
			want:  []want{{9, finding.P1, 100, []string{"performance", "reliability"}, "leak"}},
			dupes: 1,
		},
		{
			name: "same persona twice lists it once",
			in: []finding.Finding{
				fnd("x", "a.go", 10, finding.P1, 50, by("correctness")),
				fnd("x", "a.go", 11, finding.P1, 50, by("correctness")),
			},
			want:  []want{{10, finding.P1, 50, []string{"correctness"}, "x"}},
			dupes: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dropped := map[string]int{}
			gs := dedupe(tt.in, quotingOf(tt.in), dropped)
			got := findingsOf(gs)
			Sort(got)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d groups; want %d", len(got), len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Line != w.line || g.Severity != w.sev || g.Confidence != w.conf ||
					!slices.Equal(g.Reviewers, w.reviewers) || g.Title != w.title {
					t.Errorf("group %d: got line %d %s@%d %v %q; want line %d %s@%d %v %q", i,
						g.Line, g.Severity, g.Confidence, g.Reviewers, g.Title,
						w.line, w.sev, w.conf, w.reviewers, w.title)
				}
			}
			if got := dropped[ReasonDuplicate]; got != tt.dupes {
				t.Errorf("got %d duplicates; want %d", got, tt.dupes)
			}
		})
	}
}

func TestMergeEvidenceAndPreExisting(t *testing.T) {
	top := fnd("x", "a.go", 10, finding.P0, 100, by("security"), evidence("q1", "q2"), preExisting)
	other := fnd("x", "a.go", 11, finding.P2, 50, by("correctness"), evidence("q2", " ", "q3"), preExisting)
	g := merge([]finding.Finding{other, top})
	if want := []string{"q1", "q2", "q3"}; !slices.Equal(g.f.Evidence, want) {
		t.Errorf("got evidence %q; want %q", g.f.Evidence, want)
	}
	if !g.f.PreExisting {
		t.Error("got pre_existing false; want true when every member says so")
	}
	if g.members[0].Reviewers[0] != "security" {
		t.Errorf("got first member %v; want the highest-ranked (security)", g.members[0].Reviewers)
	}

	other.PreExisting = false
	if g := merge([]finding.Finding{top, other}); g.f.PreExisting {
		t.Error("got pre_existing true; want false when one member saw it introduced by the diff")
	}
	if top.Evidence[0] != "q1" || len(top.Evidence) != 2 {
		t.Errorf("merge changed its input: %q", top.Evidence)
	}
}

func TestPromote(t *testing.T) {
	tests := []struct {
		reviewers []string
		conf      int
		want      int
		promoted  bool
	}{
		{[]string{"correctness", "security"}, 50, 75, true},
		{[]string{"correctness", "security"}, 75, 100, true},
		{[]string{"correctness", "security", "testing"}, 100, 100, false},
		{[]string{"correctness", "security"}, 25, 50, true},
		{[]string{"correctness"}, 50, 50, false},
		{[]string{"correctness"}, 75, 75, false},
	}
	for _, tt := range tests {
		gs := groupsOf(fnd("x", "a.go", 1, finding.P1, tt.conf, func(f *finding.Finding) { f.Reviewers = tt.reviewers }))
		promote(gs)
		if got := gs[0].f; got.Confidence != tt.want || got.Promoted != tt.promoted {
			t.Errorf("%v at %d: got %d promoted=%v; want %d promoted=%v",
				tt.reviewers, tt.conf, got.Confidence, got.Promoted, tt.want, tt.promoted)
		}
	}
}

func TestSplitPreExisting(t *testing.T) {
	// a.go: lines 1-4 context, 5 added, 6-9 context.
	pr := newAddedLines([]*diff.File{modified("a.go", 1, "a", "b", "c", "d", "+e", "f", "g", "h", "i")})
	gs := groupsOf(
		fnd("new", "a.go", 1, finding.P1, 75),
		fnd("old", "a.go", 6, finding.P0, 100, preExisting),
		fnd("new2", "a.go", 9, finding.P3, 50),
		// Issue 24: the model calls a problem on an added line pre-existing;
		// the diff says the PR wrote it.
		fnd("claimed old", "a.go", 5, finding.P0, 100, preExisting),
	)
	keep, pre := splitPreExisting(gs, pr)
	if len(keep) != 3 || len(pre) != 1 || pre[0].f.Title != "old" {
		t.Fatalf("got keep %v pre %v; want keep [new new2 claimed old], pre [old]", findingsOf(keep), findingsOf(pre))
	}
	for _, g := range keep {
		if g.f.PreExisting {
			t.Errorf("got pre-existing %q in keep", g.f.Title)
		}
	}
}

func TestRouteConservatively(t *testing.T) {
	route := func(fix, owner string, verify bool) func(*finding.Finding) {
		return func(f *finding.Finding) { f.AutofixClass, f.Owner, f.RequiresVerification = fix, owner, verify }
	}
	tests := []struct {
		name             string
		members          []func(*finding.Finding)
		fix, owner       string
		wantVerification bool
	}{
		{"single member unchanged", []func(*finding.Finding){route("safe_auto", "review-fixer", false)}, "safe_auto", "review-fixer", false},
		{"advisory beats safe_auto", []func(*finding.Finding){route("safe_auto", "review-fixer", false), route("advisory", "review-fixer", false)}, "advisory", "review-fixer", false},
		{"manual beats gated_auto", []func(*finding.Finding){route("manual", "human", false), route("gated_auto", "human", false)}, "manual", "human", false},
		{"release beats human", []func(*finding.Finding){route("manual", "human", false), route("manual", "release", false)}, "manual", "release", false},
		{"downstream beats review-fixer", []func(*finding.Finding){route("manual", "review-fixer", false), route("manual", "downstream-resolver", false)}, "manual", "downstream-resolver", false},
		{"verification is or-ed", []func(*finding.Finding){route("safe_auto", "review-fixer", false), route("safe_auto", "review-fixer", true)}, "safe_auto", "review-fixer", true},
		{"mixed", []func(*finding.Finding){route("gated_auto", "release", true), route("advisory", "review-fixer", false)}, "advisory", "release", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fs []finding.Finding
			for i, m := range tt.members {
				fs = append(fs, fnd("x", "a.go", 10+i, finding.P1, 75, by("p"+string(rune('a'+i))), m))
			}
			gs := []group{merge(fs)}
			routeConservatively(gs)
			f := gs[0].f
			if f.AutofixClass != tt.fix || f.Owner != tt.owner || f.RequiresVerification != tt.wantVerification {
				t.Errorf("got %s/%s/%v; want %s/%s/%v", f.AutofixClass, f.Owner, f.RequiresVerification,
					tt.fix, tt.owner, tt.wantVerification)
			}
		})
	}
}

func TestSortAndNumber(t *testing.T) {
	fs := []finding.Finding{
		fnd("b", "z.go", 5, finding.P2, 100),
		fnd("a", "a.go", 9, finding.P1, 75),
		fnd("c", "a.go", 3, finding.P1, 75),
		fnd("a", "a.go", 3, finding.P1, 75),
		fnd("d", "a.go", 1, finding.P1, 100),
		fnd("e", "b.go", 1, finding.P0, 50),
	}
	Sort(fs)
	Number(fs)
	want := []string{"e b.go:1", "d a.go:1", "a a.go:3", "c a.go:3", "a a.go:9", "b z.go:5"}
	for i, f := range fs {
		got := f.Title + " " + f.File + ":" + strconv.Itoa(f.Line)
		if got != want[i] || f.Number != i+1 {
			t.Errorf("position %d: got %s #%d; want %s #%d", i, got, f.Number, want[i], i+1)
		}
	}
}

// FuzzNormalizeTitle: normalizing is idempotent and leaves single spaces
// between words, none at the ends (model titles are untrusted text).
func FuzzNormalizeTitle(f *testing.F) {
	for _, s := range []string{"Nil-pointer DEREF!", "  a\t\tb  ", "`x` é Ω", "", "İstanbul ǅ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := normalizeTitle(s)
		if again := normalizeTitle(n); again != n {
			t.Fatalf("normalizeTitle(%q) = %q, then %q; want idempotent", s, n, again)
		}
		if strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") || strings.Contains(n, "  ") {
			t.Fatalf("normalizeTitle(%q) = %q; want single inner spaces only", s, n)
		}
	})
}
