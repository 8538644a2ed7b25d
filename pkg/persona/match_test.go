package persona

import (
	"strings"
	"testing"
)

func naiveFind(needles []string, line string) needleSet {
	var s needleSet
	low := strings.ToLower(line)
	for i, n := range needles {
		if strings.Contains(low, n) {
			s.add(i)
		}
	}
	return s
}

func allNeedles() []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range scanned() {
		for _, r := range t.rules {
			for _, n := range append(append([]string{}, r.any...), r.also...) {
				if !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
		}
	}
	return out
}

func TestMatcherAgreesWithContains(t *testing.T) {
	needles := allNeedles()
	m := newMatcher(needles)
	lines := []string{
		`	query := "SELECT id FROM users WHERE id = " + id`,
		`	ctx, cancel := context.WithTimeout(ctx, time.Second)`,
		`for _, id := range ids { resp, _ := http.Get(u + id) }`,
		`	hash := MD5.Sum(b) // Password`,
		"",
		"plain text with nothing",
		"ÄÖÜ unicode rEtRy",
	}
	for _, line := range lines {
		var got needleSet
		m.find(line, &got)
		if want := naiveFind(needles, line); got != want {
			t.Errorf("find(%q) = %v; want %v", line, got, want)
		}
	}
}

func FuzzMatcher(f *testing.F) {
	needles := allNeedles()
	m := newMatcher(needles)
	f.Add(`query := "SELECT * FROM t WHERE a = " + b`)
	f.Add("go func() { retry() }()")
	f.Fuzz(func(t *testing.T, line string) {
		var got needleSet
		m.find(line, &got)
		if want := naiveFind(needles, line); got != want {
			t.Fatalf("find(%q) = %v; want %v", line, got, want)
		}
	})
}
