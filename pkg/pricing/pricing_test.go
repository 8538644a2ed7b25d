package pricing

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestCostCountsCachedInputAtItsPrice(t *testing.T) {
	p := Price{Input: 0.40, CachedInput: 0.10, Output: 1.60}
	got := p.Cost(Tokens{Prompt: 1_000_000, Cached: 600_000, Completion: 10_000})
	// 400k uncached at 0.40, 600k cached at 0.10, 10k output at 1.60.
	want := 0.16 + 0.06 + 0.016
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("cost %v; want %v", got, want)
	}
	if got := p.Cost(Tokens{Prompt: 100, Cached: 500}); math.Abs(got-100*0.10/1e6) > 1e-12 {
		t.Errorf("cached above prompt: cost %v; want every prompt token at the cached price", got)
	}
}

func TestLookup(t *testing.T) {
	var zero Table
	if p, src, ok := zero.Lookup(" GPT-4.1-mini "); !ok || p.Input != 0.40 || src != SourceBuiltin {
		t.Errorf("gpt-4.1-mini: %+v %q %v; want the built-in list price", p, src, ok)
	}
	for _, m := range []string{"gpt-4.1-mini-2025-04-14", "llama3.1:8b", "", "openai/gpt-4o"} {
		if p, _, ok := zero.Lookup(m); ok {
			t.Errorf("%q has price %+v; want none (never a guess)", m, p)
		}
	}
	tb, err := Parse("my-model = 1, 0.5, 2\n# a comment\n\n0.3,0.1,0.9\n")
	if err != nil {
		t.Fatal(err)
	}
	if p, src, ok := tb.Lookup("MY-MODEL"); !ok || p != (Price{1, 0.5, 2}) || src != SourceInput {
		t.Errorf("my-model: %+v %q %v", p, src, ok)
	}
	if p, _, ok := tb.Lookup("gpt-4o"); !ok || p != (Price{0.3, 0.1, 0.9}) {
		t.Errorf("gpt-4o under a price for every model: %+v %v; want the input's", p, ok)
	}
}

func TestParseErrorsNameTheProblem(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0.4, 0.1", "line 1: not three prices"},
		{"0.4, x, 1.6", "the cached input price is not a number"},
		{"0.4, 0.1, -1", "the output price is negative"},
		{"0.1, 0.4, 1.6", "cached input price is above the input price"},
		{"400000, 0, 0", "above 10000 dollars per million tokens"},
		{" = 1,1,1", "a model name is missing"},
		{"a=1,1,1\nA = 2,1,1", "line 2: its model is priced on an earlier line too"},
		{"1,1,1\n2,1,1", "line 2: a second price for every model"},
		{"NaN,0,0", "is not a number"},
	} {
		_, err := Parse(c.in)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v; want an ErrInvalid saying %q", c.in, err, c.want)
		}
	}
	// A key pasted into the input is never printed (issue 30): an error
	// names the line and the problem, never the value.
	const key = "sk-proj-Zx81Qm"
	for _, in := range []string{key, key + "=1,1,1\n" + key + "=1,1,1", "1," + key + ",1", "gpt = " + key, "-" + key + ",0,0", "1e400,0," + key} {
		if _, err := Parse(in); err == nil || strings.Contains(strings.ToLower(err.Error()), strings.ToLower(key[3:])) {
			t.Errorf("Parse(%q) = %v; want an error that does not echo the value", in, err)
		}
	}
	if _, err := Parse(""); err != nil {
		t.Errorf("empty input: %v", err)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		usd  float64
		want string
	}{{12.345, "$12.35"}, {0.0421, "$0.042"}, {0.00123, "$0.0012"}, {0.00001, "under $0.0001"}, {0, "$0"}} {
		if got := Format(c.usd); got != c.want {
			t.Errorf("Format(%v) = %q; want %q", c.usd, got, c.want)
		}
	}
}

func TestBuiltinPricesAreConsistent(t *testing.T) {
	for m, p := range builtin {
		if m != normalize(m) || p.CachedInput > p.Input || p.Input <= 0 || p.Output <= 0 {
			t.Errorf("%s: %+v is not a normalized name with 0 < cached <= input and output > 0", m, p)
		}
	}
}
