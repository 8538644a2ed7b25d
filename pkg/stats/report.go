package stats

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/pricing"
)

// Unattributed names the findings whose persona no record says.
const Unattributed = "(unattributed)"

// Persona is one persona's figures over the period (the validator's, in
// Report.Validator, without findings).
type Persona struct {
	Name             string `json:"name"`
	Reviews          int    `json:"reviews"`
	Calls            int    `json:"calls"`
	PromptTokens     int    `json:"prompt_tokens"`
	CachedTokens     int    `json:"cached_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	// Cost is the estimated cost of its priced reviews in US dollars; nil
	// when none was priced. UnpricedReviews counts the reviews whose model
	// had no price: their tokens count, their cost is not guessed.
	Cost            *float64 `json:"cost"`
	UnpricedReviews int      `json:"unpriced_reviews"`
	Posted          int      `json:"posted"`
	ActedOn         int      `json:"acted_on"`
	Dismissed       int      `json:"dismissed"`
	ThumbsUp        int      `json:"thumbs_up"`
	ThumbsDown      int      `json:"thumbs_down"`
	// ActedOnRate is ActedOn / Posted; nil with nothing posted.
	ActedOnRate *float64 `json:"acted_on_rate"`

	cost float64
}

func (p *Persona) addUsage(u marker.Usage) {
	p.Reviews += u.Reviews
	p.Calls += u.Calls
	p.PromptTokens += u.PromptTokens
	p.CachedTokens += u.CachedTokens
	p.CompletionTokens += u.CompletionTokens
	p.cost += u.Cost
	p.UnpricedReviews += u.Unpriced
	p.Posted += u.Posted
	p.ActedOn += u.ActedOn
}

func (p *Persona) finish() {
	if p.Reviews > p.UnpricedReviews {
		c := p.cost
		p.Cost = &c
	}
	if p.Posted > 0 {
		rate := float64(p.ActedOn) / float64(p.Posted)
		p.ActedOnRate = &rate
	}
}

// Totals are the repository's figures over the period.
type Totals struct {
	// PullRequests were updated in the period; Reviewed have a report
	// written in it; WithoutReport have none written in it (never
	// reviewed, last reviewed before the period, or the report deleted).
	PullRequests  int `json:"pull_requests"`
	Reviewed      int `json:"reviewed"`
	WithoutReport int `json:"without_report"`
	// OlderReports were written before reports recorded per-persona
	// figures: their findings count, their usage does not.
	OlderReports      int `json:"older_reports"`
	UnreadableReports int `json:"unreadable_reports"`
	Reviews           int `json:"reviews"`
	Calls             int `json:"calls"`
	PromptTokens      int `json:"prompt_tokens"`
	CachedTokens      int `json:"cached_tokens"`
	CompletionTokens  int `json:"completion_tokens"`
	// Cost sums every priced call (personas and validator); CostComplete
	// is false when some review's model had no price, and then the costs
	// per review and per acted-on finding are not given.
	Cost           *float64 `json:"cost"`
	CostComplete   bool     `json:"cost_complete"`
	CostPerReview  *float64 `json:"cost_per_review"`
	CostPerActedOn *float64 `json:"cost_per_acted_on"`
	Posted         int      `json:"posted"`
	ActedOn        int      `json:"acted_on"`
	Dismissed      int      `json:"dismissed"`
	ThumbsUp       int      `json:"thumbs_up"`
	ThumbsDown     int      `json:"thumbs_down"`
}

// Suggestion is the personas configuration that drops the personas whose
// acted-on rate stayed below the threshold over enough posted findings.
type Suggestion struct {
	Drop []string `json:"drop"`
	// Personas is the personas option that keeps every other persona.
	Personas []string `json:"personas"`
	// RestsOn is how many posted findings of the dropped personas the
	// suggestion rests on.
	RestsOn int `json:"rests_on"`
}

// Report is what stats prints, and writes as JSON.
type Report struct {
	Repository string    `json:"repository"`
	Since      time.Time `json:"since"`
	Until      time.Time `json:"until"`
	BotLogin   string    `json:"bot_login"`
	Personas   []Persona `json:"personas"`
	Validator  *Persona  `json:"validator"`
	Totals     Totals    `json:"totals"`
	// MinFindings and MinRate are the suggestion's thresholds.
	MinFindings int         `json:"min_findings"`
	MinRate     float64     `json:"min_rate"`
	Suggestion  *Suggestion `json:"suggestion"`
	// TooFew names the personas with findings but fewer than MinFindings:
	// never judged.
	TooFew []string `json:"too_few_to_judge"`
	// Unreadable says which reports' metadata did not parse.
	Unreadable []string `json:"unreadable,omitempty"`
	// Requests is how many HTTP requests the reading took (retries
	// included); set by the caller.
	Requests int `json:"requests"`
}

func (r *Report) total() {
	t := &r.Totals
	t.CostComplete = true
	cost, priced := 0.0, false
	all := slices.Clone(r.Personas)
	if r.Validator != nil {
		all = append(all, *r.Validator)
	}
	for _, p := range all {
		t.Calls += p.Calls
		t.PromptTokens += p.PromptTokens
		t.CachedTokens += p.CachedTokens
		t.CompletionTokens += p.CompletionTokens
		t.Posted += p.Posted
		t.ActedOn += p.ActedOn
		t.Dismissed += p.Dismissed
		t.ThumbsUp += p.ThumbsUp
		t.ThumbsDown += p.ThumbsDown
		if p.UnpricedReviews > 0 {
			t.CostComplete = false
		}
		if p.Cost != nil {
			cost += *p.Cost
			priced = true
		}
	}
	if t.OlderReports > 0 {
		t.CostComplete = false // their usage is not recorded
	}
	if priced {
		t.Cost = &cost
	}
	if priced && t.CostComplete && t.Reviews > 0 {
		v := cost / float64(t.Reviews)
		t.CostPerReview = &v
	}
	if priced && t.CostComplete && t.ActedOn > 0 {
		v := cost / float64(t.ActedOn)
		t.CostPerActedOn = &v
	}
}

// personaName is the shape of a persona name a configuration may list.
var personaName = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

func (r *Report) suggest(known []string) {
	var drop []string
	rests := 0
	for _, p := range r.Personas {
		switch {
		case p.Name == Unattributed || p.Posted == 0 || !personaName.MatchString(p.Name):
			// No configuration can name it (a hand-edited record).
		case p.Posted < r.MinFindings:
			r.TooFew = append(r.TooFew, p.Name)
		case float64(p.ActedOn) < r.MinRate*float64(p.Posted):
			drop = append(drop, p.Name)
			rests += p.Posted
		}
	}
	if len(drop) == 0 {
		return
	}
	keep := slices.Clone(known)
	for _, p := range r.Personas {
		if personaName.MatchString(p.Name) && !slices.Contains(keep, p.Name) {
			keep = append(keep, p.Name) // a custom persona seen in the period
		}
	}
	keep = slices.DeleteFunc(keep, func(n string) bool { return slices.Contains(drop, n) })
	r.Suggestion = &Suggestion{Drop: drop, Personas: keep, RestsOn: rests}
}

// Markdown renders the report for a terminal or a job summary: the tables,
// a Mermaid chart of the cost (or, when no price is known, the prompt
// tokens) per persona, the suggestion, and how to read the figures.
func (r *Report) Markdown() string {
	var b strings.Builder
	t := r.Totals
	fmt.Fprintf(&b, "## anchor-review stats: %s\n\n", r.Repository)
	fmt.Fprintf(&b, "Reports written from %s to %s: **%d pull requests reviewed** (%s), of %d pull requests updated in the period; %d without a report written in it (not reviewed, reviewed earlier, or the report deleted). A pull request's figures are the totals its report keeps over all its reviews.\n\n",
		r.Since.UTC().Format(time.DateOnly), r.Until.UTC().Format(time.DateOnly), t.Reviewed, plural(t.Reviews, "review"), t.PullRequests, t.WithoutReport)
	if t.Reviewed == 0 {
		b.WriteString("No report of " + r.BotLogin + " was written in the period.\n")
		r.notes(&b)
		return b.String()
	}

	b.WriteString("| Persona | Reviews | Calls | Prompt tokens (cached) | Cost | Posted | Acted on | Dismissed | Thumbs up | Thumbs down | Acted-on rate |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, p := range r.Personas {
		b.WriteString(row(p, cell(p.Name)))
	}
	if r.Validator != nil {
		v := *r.Validator
		fmt.Fprintf(&b, "| _validator_ | %d | %d | %s (%s) | %s | | | | | | |\n", v.Reviews, v.Calls, num(v.PromptTokens), num(v.CachedTokens), money(v.Cost, v.UnpricedReviews))
	}
	total := "–"
	if t.Cost != nil {
		total = pricing.Format(*t.Cost)
		if !t.CostComplete {
			total += " (priced calls only)"
		}
	}
	fmt.Fprintf(&b, "| **Total** | %d | %d | %s (%s) | %s | %d | %d | %d | %d | %d | %s |\n\n",
		t.Reviews, t.Calls, num(t.PromptTokens), num(t.CachedTokens), total, t.Posted, t.ActedOn, t.Dismissed, t.ThumbsUp, t.ThumbsDown, rate(t.ActedOn, t.Posted))

	switch {
	case t.CostPerReview != nil:
		fmt.Fprintf(&b, "**Cost per review:** %s. **Cost per acted-on finding:** %s.\n\n", pricing.Format(*t.CostPerReview), perActed(t.CostPerActedOn))
	case t.Cost != nil:
		b.WriteString("**Cost per review** and **per acted-on finding** are not given: some reviews' models have no known price (set the `pricing` input) or their reports predate per-persona figures.\n\n")
	default:
		b.WriteString("**Cost:** not known: no model of these reviews has a known price (set the `pricing` input); the tokens are above.\n\n")
	}
	r.chart(&b)
	r.suggestion(&b)
	r.notes(&b)
	return b.String()
}

func row(p Persona, name string) string {
	return fmt.Sprintf("| %s | %d | %d | %s (%s) | %s | %d | %d | %d | %d | %d | %s |\n",
		name, p.Reviews, p.Calls, num(p.PromptTokens), num(p.CachedTokens), money(p.Cost, p.UnpricedReviews),
		p.Posted, p.ActedOn, p.Dismissed, p.ThumbsUp, p.ThumbsDown, rate(p.ActedOn, p.Posted))
}

// chart is a Mermaid pie of the cost per persona (the validator
// included), or of the prompt tokens when no cost is known.
func (r *Report) chart(b *strings.Builder) {
	type slice struct {
		name  string
		value float64
	}
	var slices_ []slice
	byCost := r.Totals.Cost != nil
	all := append([]Persona(nil), r.Personas...)
	if r.Validator != nil {
		all = append(all, *r.Validator)
	}
	for _, p := range all {
		v := float64(p.PromptTokens)
		if byCost {
			v = 0
			if p.Cost != nil {
				v = math.Round(*p.Cost*1e4) / 1e4
			}
		}
		if v > 0 {
			slices_ = append(slices_, slice{p.Name, v})
		}
	}
	if len(slices_) == 0 {
		return
	}
	title := "Estimated cost by persona (US dollars)"
	if !byCost {
		title = "Prompt tokens by persona"
	}
	b.WriteString("```mermaid\npie showData\n    title " + title + "\n")
	for _, s := range slices_ {
		fmt.Fprintf(b, "    \"%s\" : %s\n", chartLabel(s.name), strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.4f", s.value), "0"), "."))
	}
	b.WriteString("```\n\n")
}

func (r *Report) suggestion(b *strings.Builder) {
	b.WriteString("### Suggestion\n\n")
	rule := fmt.Sprintf("a persona whose acted-on rate stays below %s over at least %d posted findings", pct(r.MinRate), r.MinFindings)
	if s := r.Suggestion; s != nil {
		for _, name := range s.Drop {
			i := slices.IndexFunc(r.Personas, func(p Persona) bool { return p.Name == name })
			p := r.Personas[i]
			fmt.Fprintf(b, "- **%s**: %d of its %d posted findings %s acted on (%s), below %s.\n", cell(name), p.ActedOn, p.Posted,
				map[bool]string{true: "was", false: "were"}[p.ActedOn == 1], rate(p.ActedOn, p.Posted), pct(r.MinRate))
		}
		fmt.Fprintf(b, "\nThis configuration drops %s (in `.github/anchor-review.yml`, or as the `personas` input: `%s`). It rests on %s.\n\n",
			cell(strings.Join(s.Drop, ", ")), strings.Join(s.Personas, ", "), plural(s.RestsOn, "posted finding"))
		b.WriteString("```yaml\npersonas: [" + strings.Join(s.Personas, ", ") + "]\n```\n\n")
	} else {
		fmt.Fprintf(b, "None: no persona meets the rule (%s).\n\n", rule)
	}
	if len(r.TooFew) > 0 {
		fmt.Fprintf(b, "Too few findings to judge (fewer than %d posted): %s.\n\n", r.MinFindings, cell(strings.Join(r.TooFew, ", ")))
	}
}

func (r *Report) notes(b *strings.Builder) {
	t := r.Totals
	b.WriteString("<details><summary>How to read these figures</summary>\n\n")
	b.WriteString("- **Acted on:** a push changed the lines of a posted finding and the re-review no longer found it there.\n")
	b.WriteString("- **Dismissed:** a thumbs-down on the finding's inline comment, or the finding still posted, unchanged, when the pull request merged. A finding acted on is not also dismissed.\n")
	b.WriteString("- **Thumbs up / down:** reactions on the persona's inline comments (with the `inline` input on).\n")
	b.WriteString("- **Cost:** estimated from each review's token counts at the price its report used (the `pricing` input or the built-in list prices); a review whose model had no price counts its tokens, not a cost.\n")
	b.WriteString("- A finding is credited to the first persona that reported it.\n")
	if t.OlderReports > 0 {
		fmt.Fprintf(b, "- %s predate per-persona figures: their open findings count as posted; their calls, cost and outcomes are not recorded.\n", plural(t.OlderReports, "report"))
	}
	if t.UnreadableReports > 0 {
		fmt.Fprintf(b, "- %s had metadata that does not parse and %s left out: %s.\n", plural(t.UnreadableReports, "report"),
			map[bool]string{true: "was", false: "were"}[t.UnreadableReports == 1], cell(strings.Join(r.Unreadable, "; ")))
	}
	if r.Requests > 0 {
		fmt.Fprintf(b, "- Read with %s to the GitHub API.\n", plural(r.Requests, "request"))
	}
	b.WriteString("\n</details>\n")
}

func money(c *float64, unpriced int) string {
	switch {
	case c == nil:
		return "–"
	case unpriced > 0:
		return fmt.Sprintf("%s (+%s unpriced)", pricing.Format(*c), plural(unpriced, "review"))
	}
	return pricing.Format(*c)
}

func perActed(c *float64) string {
	if c == nil {
		return "– (nothing acted on)"
	}
	return pricing.Format(*c)
}

func rate(n, of int) string {
	if of == 0 {
		return "–"
	}
	return pct(float64(n) / float64(of))
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }

func num(n int) string {
	s := fmt.Sprint(n)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%s %ss", num(n), noun)
}

// cell keeps a persona name or an error's text (from a report's metadata:
// custom names are the repository's, and a write-access user can edit a
// bot's comment) from breaking the table or the Markdown around it, or
// becoming a link, an image or HTML.
func cell(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("|`*_<>[]\\\n\r", r) {
			return ' '
		}
		return r
	}, s)
}

// chartLabel is a name a Mermaid pie label can hold.
func chartLabel(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '`' {
			return ' '
		}
		return r
	}, s)
}
