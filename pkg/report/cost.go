package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/pricing"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// callerCost is what one caller of the model (a persona, or the
// validator) used in this review and what it cost.
type callerCost struct {
	name, model string // name "" is the validator
	usage       review.Usage
	cost        float64
	priced      bool
	price       pricing.Price
	source      string
}

// costs prices this review's calls: each persona at its own model, the
// validator (the total less the personas') at the validator's model.
// Callers that made no call are left out.
func costs(r review.Result, t pricing.Table) []callerCost {
	var out []callerCost
	rest := r.Coverage.Usage
	add := func(name, model string, u review.Usage) {
		if u.Calls == 0 && u.PromptTokens == 0 && u.CompletionTokens == 0 {
			return
		}
		c := callerCost{name: name, model: model, usage: u}
		c.price, c.source, c.priced = t.Lookup(model)
		if c.priced {
			c.cost = c.price.Cost(pricing.Tokens{Prompt: u.PromptTokens, Cached: u.CachedTokens, Completion: u.CompletionTokens})
		}
		out = append(out, c)
	}
	for _, p := range r.Coverage.Personas {
		add(p.Name, p.Model, p.Usage)
		rest.Calls -= p.Usage.Calls
		rest.PromptTokens -= p.Usage.PromptTokens
		rest.CachedTokens -= p.Usage.CachedTokens
		rest.CompletionTokens -= p.Usage.CompletionTokens
	}
	rest.Calls, rest.PromptTokens = max(rest.Calls, 0), max(rest.PromptTokens, 0)
	rest.CachedTokens, rest.CompletionTokens = max(rest.CachedTokens, 0), max(rest.CompletionTokens, 0)
	add("", r.Coverage.ValidatorModel, rest)
	return out
}

// EstimateCost is the review's estimated cost: every persona's calls at
// its own model's price and the validator's at the validator model's, from
// t. It is the one computation of the figure: Coverage shows it, the
// report JSON and the cost step output give it, and the metadata that
// `stats` sums records it per persona (statsMeta).
func EstimateCost(r review.Result, t pricing.Table) pricing.Estimate {
	e := pricing.Estimate{Complete: true}
	total, tokens := 0.0, 0
	for _, c := range costs(r, t) {
		e.Calls += c.usage.Calls
		e.PromptTokens += c.usage.PromptTokens
		e.CachedTokens += c.usage.CachedTokens
		e.CompletionTokens += c.usage.CompletionTokens
		tokens += c.usage.PromptTokens + c.usage.CompletionTokens
		if !c.priced {
			e.Complete = false
			if !slices.Contains(e.Unpriced, c.model) {
				e.Unpriced = append(e.Unpriced, c.model)
			}
			continue
		}
		total += c.cost
	}
	if e.Calls == 0 || tokens > 0 {
		e.USD = &total
	}
	return e
}

// writeCost is Coverage's estimated cost: the sum when every model that
// was called has a price, and which model has none otherwise; an unpriced
// model's tokens are never priced by a guess.
func writeCost(b *strings.Builder, r review.Result, o Options) {
	cs := costs(r, o.Pricing)
	if len(cs) == 0 {
		return
	}
	tokens := 0
	for _, c := range cs {
		tokens += c.usage.PromptTokens + c.usage.CompletionTokens
	}
	if tokens == 0 {
		// $0 would be a claim; the endpoint said nothing.
		b.WriteString("**Estimated cost:** not shown: the model endpoint reported no token usage.\n\n")
		return
	}
	total := *EstimateCost(r, o.Pricing).USD
	var unpriced []string
	type used struct {
		model, source string
		price         pricing.Price
	}
	var models []used
	for _, c := range cs {
		if !c.priced {
			m := orDefault(Sanitize(c.model, o), "(unnamed)")
			if !slices.Contains(unpriced, m) {
				unpriced = append(unpriced, m)
			}
			continue
		}
		if !slices.ContainsFunc(models, func(u used) bool { return u.model == c.model }) {
			models = append(models, used{c.model, c.source, c.price})
		}
	}
	var prices []string
	for _, m := range models {
		prices = append(prices, fmt.Sprintf("%s at %s input, %s cached input, %s output per million tokens (%s)",
			Sanitize(m.model, o), perMillion(m.price.Input), perMillion(m.price.CachedInput), perMillion(m.price.Output), m.source))
	}
	switch {
	case len(unpriced) == 0:
		fmt.Fprintf(b, "**Estimated cost:** %s: %s.\n\n", pricing.Format(total), strings.Join(prices, "; "))
	case len(models) == 0:
		fmt.Fprintf(b, "**Estimated cost:** not shown: no price is known for %s (set the `pricing` input); the tokens are above.\n\n",
			strings.Join(unpriced, ", "))
	default:
		fmt.Fprintf(b, "**Estimated cost:** %s for the calls to %s; not shown for the calls to %s, whose price is not known (set the `pricing` input).\n\n",
			pricing.Format(total), strings.Join(prices, "; "), strings.Join(unpriced, ", "))
	}
}

// perMillion writes a price per million tokens with at least cents
// ("$0.40", "$0.075").
func perMillion(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i < 0 {
		s += ".00"
	} else if len(s)-i-1 < 2 {
		s += strings.Repeat("0", 2-(len(s)-i-1))
	}
	return "$" + s
}

// statsMeta fills the metadata `anchor-review stats` reads: the running
// usage totals (the earlier report's plus this review's), the findings
// first posted by this review, and the earlier findings this review found
// gone after a push changed their lines.
func (d *doc) statsMeta(m *marker.Meta) {
	r := d.r
	var prev *marker.Meta
	if r.Rereview != nil {
		prev = r.Rereview.Previous
	}
	byName := map[string]*marker.Usage{}
	var validator *marker.Usage
	if prev != nil {
		m.Reviews = prev.Reviews
		for _, u := range prev.Usage {
			byName[u.Name] = &u
		}
		if prev.ValidatorUsage != nil {
			v := *prev.ValidatorUsage
			validator = &v
		}
		m.Resolved = slices.Clone(prev.Resolved)
		m.Incremental = prev.Incremental
	}
	m.Reviews++
	if r.Rereview != nil && r.Rereview.Incremental && !r.AllFailed {
		m.Incremental++
	}
	entry := func(name string) *marker.Usage {
		name = Redact(name, d.o.Secrets)
		if byName[name] == nil {
			byName[name] = &marker.Usage{Name: name}
		}
		return byName[name]
	}
	for _, c := range costs(r, d.o.Pricing) {
		u := validator
		if c.name != "" {
			u = entry(c.name)
		} else if u == nil {
			u = &marker.Usage{}
			validator = u
		}
		u.Reviews++
		u.Calls += c.usage.Calls
		u.PromptTokens += c.usage.PromptTokens
		u.CachedTokens += c.usage.CachedTokens
		u.CompletionTokens += c.usage.CompletionTokens
		if c.priced {
			u.Cost += c.cost
		} else {
			u.Unpriced++
		}
	}
	var earlier []marker.Finding
	if prev != nil {
		earlier = prev.Findings
	}
	for _, f := range r.Findings {
		fresh := f.FoundOn == "" || f.FoundOn == d.o.HeadSHA
		again := slices.ContainsFunc(earlier, func(pf marker.Finding) bool { return pf.Fingerprint == finding.Fingerprint(f) })
		if fresh && !again && len(f.Reviewers) > 0 {
			entry(f.Reviewers[0]).Posted++
		}
	}
	if prev != nil && r.Rereview.Incremental && !r.AllFailed {
		for _, pf := range prev.Findings {
			if slices.ContainsFunc(r.Findings, func(f finding.Finding) bool {
				return finding.Fingerprint(f) == pf.Fingerprint || (f.FoundOn == pf.Commit && f.Title == pf.Title)
			}) {
				continue
			}
			m.Resolved = append(m.Resolved, marker.Resolved{Fingerprint: pf.Fingerprint, Severity: pf.Severity, Reviewer: pf.Reviewer,
				Inline: pf.Inline, Commit: pf.Commit, Head: d.o.HeadSHA})
			if pf.Reviewer != "" {
				entry(pf.Reviewer).ActedOn++
			}
		}
	}
	for _, u := range byName {
		m.Usage = append(m.Usage, *u)
	}
	slices.SortFunc(m.Usage, func(a, b marker.Usage) int { return strings.Compare(a.Name, b.Name) })
	m.ValidatorUsage = validator
}
