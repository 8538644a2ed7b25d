// Package pricing estimates what a review cost in money: a dated table of
// the providers' published list prices for common models (prices.go), and
// the pricing input that overrides it.
//
// A price is in US dollars per million tokens, in three parts: uncached
// input, cached input (a prompt prefix the provider served from its cache,
// as the API reports it in prompt_tokens_details.cached_tokens) and output.
// A model the table does not know, and that the pricing input does not
// price, has no price: callers then show tokens only, never a guess.
//
// The pricing input is one price for every model, or one per model, one a
// line, in the order input, cached input, output:
//
//	pricing: "0.40, 0.10, 1.60"
//
//	pricing: |
//	  my-gateway-model = 0.50, 0.25, 2.00
//	  0.40, 0.10, 1.60
//
// A line with a model name prices that model; a line without prices every
// model no line names (the built-in table included: a gateway that bills
// differently from the provider's list prices).
package pricing

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Price is a model's price in US dollars per million tokens.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input"`
	Output      float64 `json:"output"`
}

// Tokens is what a set of model calls used, as the API reports it: Prompt
// counts every input token, Cached the part of them served from the cache.
type Tokens struct {
	Prompt, Cached, Completion int
}

// Cost is what t costs at p, in US dollars: the uncached input at the
// input price, the cached input at the cached price, the output at the
// output price. Cached tokens above Prompt (a provider's inconsistency)
// are counted as Prompt.
func (p Price) Cost(t Tokens) float64 {
	cached := min(max(t.Cached, 0), max(t.Prompt, 0))
	uncached := max(t.Prompt, 0) - cached
	return (float64(uncached)*p.Input + float64(cached)*p.CachedInput + float64(max(t.Completion, 0))*p.Output) / 1e6
}

// Estimate is a review's estimated cost as the report JSON and the cost
// step output give it (report.EstimateCost computes it).
type Estimate struct {
	// USD sums the priced calls, in US dollars; nil when the endpoint
	// reported no token usage for the calls made (a $0 would be a claim).
	USD *float64 `json:"usd"`
	// Complete is true when every model called has a price, so USD covers
	// every call; false when Unpriced lists models whose calls it leaves out.
	Complete bool     `json:"complete"`
	Unpriced []string `json:"unpriced_models,omitempty"`
	// Calls and the token counts are what the sum prices.
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CachedTokens     int `json:"cached_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Output is the estimate as the cost step output gives it: the figure
// the report's Coverage shows, without the dollar sign ("0.0123"; six
// decimals below $0.0001, where Coverage says "under"), "0" for a run that
// made no model call, and empty when it is not known for
// every call (a model without a price, or no usage reported).
func (e Estimate) Output() string {
	if e.USD == nil || !e.Complete {
		return ""
	}
	if *e.USD > 0 && *e.USD < 0.0001 {
		// Coverage says "under $0.0001"; a machine gets the figure.
		return strconv.FormatFloat(*e.USD, 'f', 6, 64)
	}
	return strings.TrimPrefix(Format(*e.USD), "$")
}

// Table resolves a model's price: the pricing input's line for the model,
// else its line for every model, else the built-in table. The zero Table
// is the built-in table alone.
type Table struct {
	every  *Price
	models map[string]Price
}

// Lookup returns model's price and whether it has one, and where it came
// from (SourceInput or SourceBuiltin).
func (t Table) Lookup(model string) (Price, string, bool) {
	key := normalize(model)
	if p, ok := t.models[key]; ok {
		return p, SourceInput, true
	}
	if t.every != nil {
		return *t.every, SourceInput, true
	}
	if p, ok := builtin[key]; ok {
		return p, SourceBuiltin, true
	}
	return Price{}, "", false
}

// Where a price came from.
const (
	SourceInput   = "the pricing input"
	SourceBuiltin = "the built-in list prices of " + TableDate
)

// ErrInvalid marks a pricing input that does not parse.
var ErrInvalid = errors.New("invalid pricing")

// maxPrice bounds a price per million tokens: anything above is a typo (a
// price per token multiplied twice, a missing decimal point).
const maxPrice = 10000

// Parse reads the pricing input. "" is the built-in table alone. Every
// problem names its line; the error matches ErrInvalid.
func Parse(input string) (Table, error) {
	t := Table{}
	var problems []string
	n := 0
	for line := range strings.Lines(input) {
		n++
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := fmt.Sprintf("line %d", n)
		model, prices, named := strings.Cut(line, "=")
		if !named {
			prices, model = model, ""
		}
		model = normalize(model)
		if named && model == "" {
			problems = append(problems, where+": a model name is missing before '='")
			continue
		}
		p, err := parsePrice(prices)
		if err != nil {
			problems = append(problems, where+": "+err.Error())
			continue
		}
		switch {
		case !named && t.every != nil:
			problems = append(problems, where+": a second price for every model (name the model: MODEL = input, cached input, output)")
		case !named:
			t.every = &p
		case hasKey(t.models, model):
			problems = append(problems, fmt.Sprintf("%s: model %q is priced twice", where, model))
		default:
			if t.models == nil {
				t.models = map[string]Price{}
			}
			t.models[model] = p
		}
	}
	if len(problems) > 0 {
		return Table{}, fmt.Errorf("%w: %s", ErrInvalid, strings.Join(problems, "; "))
	}
	return t, nil
}

func hasKey(m map[string]Price, k string) bool {
	_, ok := m[k]
	return ok
}

// parsePrice reads "input, cached input, output".
func parsePrice(s string) (Price, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return Price{}, fmt.Errorf("%q is not three prices per million tokens (input, cached input, output), e.g. \"0.40, 0.10, 1.60\"", strings.TrimSpace(s))
	}
	var v [3]float64
	names := [3]string{"input", "cached input", "output"}
	for i, p := range parts {
		p = strings.TrimPrefix(strings.TrimSpace(p), "$")
		f, err := strconv.ParseFloat(p, 64)
		switch {
		case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
			return Price{}, fmt.Errorf("the %s price %q is not a number", names[i], strings.TrimSpace(parts[i]))
		case f < 0:
			return Price{}, fmt.Errorf("the %s price %s is negative", names[i], p)
		case f > maxPrice:
			return Price{}, fmt.Errorf("the %s price %s is above %d dollars per million tokens (prices are per million tokens, not per token or per thousand)", names[i], p, maxPrice)
		}
		v[i] = f
	}
	if v[1] > v[0] {
		return Price{}, fmt.Errorf("the cached input price %g is above the input price %g (the order is input, cached input, output)", v[1], v[0])
	}
	return Price{Input: v[0], CachedInput: v[1], Output: v[2]}, nil
}

// normalize is how model names are compared: case and surrounding space
// do not matter; anything else does (a dated snapshot may have another
// price than its alias, so it is not folded into it).
func normalize(model string) string { return strings.ToLower(strings.TrimSpace(model)) }

// Format renders an amount of US dollars for a report: cents for amounts
// from a dollar, four significant decimals below (a review often costs a
// fraction of a cent).
func Format(usd float64) string {
	switch {
	case usd >= 1:
		return "$" + strconv.FormatFloat(usd, 'f', 2, 64)
	case usd >= 0.01:
		return "$" + strconv.FormatFloat(usd, 'f', 3, 64)
	case usd >= 0.0001:
		return "$" + strconv.FormatFloat(usd, 'f', 4, 64)
	case usd > 0:
		return "under $0.0001"
	}
	return "$0"
}
