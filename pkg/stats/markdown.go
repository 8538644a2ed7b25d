package stats

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/anchor-review/anchor-review/pkg/pricing"
	"github.com/anchor-review/anchor-review/pkg/report"
)

// Markdown renders the report for a terminal or a job summary: the tables,
// a Mermaid chart of the cost (or, when no price is known, the prompt
// tokens) per persona, the suggestion, and how to read the figures. Every
// name and message from a report, a repository or an error is sanitized
// as the report comment sanitizes text (report.Sanitize).
func (r *Report) Markdown() string {
	var b strings.Builder
	t := r.Totals
	fmt.Fprintf(&b, "## anchor-review stats: %s\n\n", r.subject())
	fmt.Fprintf(&b, "Reports written from %s to %s: **%d pull requests reviewed** (%s), of %d pull requests updated in the period; %d without a report written in it (not reviewed, reviewed earlier, or the report deleted). A pull request's figures are the totals its report keeps over all its reviews.\n\n",
		r.Since.UTC().Format(time.DateOnly), r.Until.UTC().Format(time.DateOnly), t.Reviewed, plural(t.Reviews, "review"), t.PullRequests, t.WithoutReport)
	if t.Reviewed == 0 {
		b.WriteString("No report of " + r.text(r.BotLogin) + " was written in the period.\n\n")
		r.repositories(&b)
		r.notes(&b)
		return b.String()
	}

	b.WriteString("| Persona | Reviews | Calls | Prompt tokens (cached) | Cost | Posted | Judgeable | Acted on | Dismissed (explicitly) | Thumbs up | Thumbs down | Acted-on rate |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, p := range r.Personas {
		b.WriteString(row(p, r.text(p.Name)))
	}
	if r.Validator != nil {
		v := *r.Validator
		fmt.Fprintf(&b, "| _validator_ | %s | %s | %s (%s) | %s | | | | | | | |\n", num(v.Reviews), num(v.Calls), num(v.PromptTokens), num(v.CachedTokens), money(v.Cost, v.UnpricedReviews))
	}
	fmt.Fprintf(&b, "| **Total** | %s | %s | %s (%s) | %s | %s | | %s | %s | %s | %s | |\n\n",
		num(t.Reviews), num(t.Calls), num(t.PromptTokens), num(t.CachedTokens), totalCost(t), num(t.Posted), num(t.ActedOn), dismissedCell(t.Dismissed, t.DismissedExplicitly), num(t.ThumbsUp), num(t.ThumbsDown))

	switch {
	case t.CostPerReview != nil:
		fmt.Fprintf(&b, "**Cost per review:** %s. **Cost per acted-on finding:** %s.\n\n", pricing.Format(*t.CostPerReview), perActed(t.CostPerActedOn))
	case t.Cost != nil:
		b.WriteString("**Cost per review** and **per acted-on finding** are not given: some reviews' models have no known price (set the `pricing` input) or their reports predate per-persona figures.\n\n")
	default:
		b.WriteString("**Cost:** not known: no model of these reviews has a known price (set the `pricing` input); the tokens are above.\n\n")
	}
	r.repositories(&b)
	r.chart(&b)
	r.dismissals(&b)
	r.suggestion(&b)
	r.notes(&b)
	return b.String()
}

// subject names what was read: the repository, the organization, or how
// many repositories.
func (r *Report) subject() string {
	switch {
	case r.Org != "":
		return fmt.Sprintf("%s (%s)", r.text(r.Org), plural(len(r.Repositories), "repository"))
	case len(r.Repositories) == 1:
		return r.text(r.Repositories[0].Name)
	}
	return plural(len(r.Repositories), "repository")
}

// text is untrusted text as the report comment would post it.
func (r *Report) text(s string) string {
	return report.Sanitize(s, report.Options{ServerURL: r.serverURL})
}

func row(p Persona, name string) string {
	return fmt.Sprintf("| %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		name, num(p.Reviews), num(p.Calls), num(p.PromptTokens), num(p.CachedTokens), money(p.Cost, p.UnpricedReviews),
		num(p.Posted), num(p.Judgeable), num(p.ActedOn), dismissedCell(p.Dismissed, p.DismissedExplicitly), num(p.ThumbsUp), num(p.ThumbsDown), ratePtr(p.ActedOnRate))
}

func dismissedCell(all, explicit int) string { return fmt.Sprintf("%s (%s)", num(all), num(explicit)) }

// MaxDismissalsShown is the most explicit dismissals the Markdown lists
// (the newest); the JSON has every one.
const MaxDismissalsShown = 30

// dismissals lists the explicit dismissals with their reasons, newest
// first.
func (r *Report) dismissals(b *strings.Builder) {
	type entry struct {
		persona string
		d       Dismissal
	}
	var all []entry
	for _, p := range r.Personas {
		for _, d := range p.Dismissals {
			all = append(all, entry{p.Name, d})
		}
	}
	if len(all) == 0 {
		return
	}
	slices.SortStableFunc(all, func(a, b entry) int { return strings.Compare(b.d.At, a.d.At) })
	fmt.Fprintf(b, "### Dismissed with a reason\n\n%s by people with write access (`/anchor-review dismiss`)", plural(len(all), "finding was", "findings were"))
	if len(all) > MaxDismissalsShown {
		fmt.Fprintf(b, "; the newest %d (every one is in `--json`)", MaxDismissalsShown)
		all = all[:MaxDismissalsShown]
	}
	b.WriteString(":\n\n| Persona | Pull request | Finding | By | When | Reason |\n|---|---|---|---|---|---|\n")
	for _, e := range all {
		d := e.d
		finding := d.Severity + " " + d.Title
		if d.Lapsed {
			finding += " (lapsed: its lines changed)"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", r.text(e.persona), r.text(fmt.Sprintf("%s#%d", d.Repository, d.PullRequest)),
			r.text(finding), r.text(d.By), r.text(d.At), r.text(d.Reason))
	}
	b.WriteString("\n")
}

func totalCost(t Totals) string {
	if t.Cost == nil {
		return "–"
	}
	s := pricing.Format(*t.Cost)
	if !t.CostComplete {
		s += " (priced calls only)"
	}
	return s
}

// repositories is the table of each repository's totals, when more than
// one was read, and the repositories left out.
func (r *Report) repositories(b *strings.Builder) {
	if len(r.Repositories) > 1 {
		b.WriteString("| Repository | Reviewed PRs | Reviews | Incremental re-reviews | Cost | Cost per review | Posted | Acted on | Dismissed |\n")
		b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, rp := range r.Repositories {
			t := rp.Totals
			per := "–"
			if t.CostPerReview != nil {
				per = pricing.Format(*t.CostPerReview)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.text(rp.Name), num(t.Reviewed), num(t.Reviews),
				num(t.IncrementalReviews), totalCost(t), per, num(t.Posted), num(t.ActedOn), num(t.Dismissed))
		}
		b.WriteString("\n")
	}
	if r.Archived > 0 || r.Beyond > 0 {
		fmt.Fprintf(b, "Left out of %s: %s archived, %s beyond `--limit` (the least recently pushed).\n\n", r.text(r.Org), num(r.Archived), num(r.Beyond))
	}
	if len(r.NotRead) > 0 {
		fmt.Fprintf(b, "Not read (the token cannot read %s): %s.\n\n", map[bool]string{true: "it", false: "them"}[len(r.NotRead) == 1], r.text(strings.Join(r.NotRead, "; ")))
	}
}

// chart is a Mermaid pie of the cost per persona (the validator
// included), or of the prompt tokens when no cost is known. A label is a
// persona name a configuration could hold, or "(other)": Mermaid text is
// not Markdown, and Sanitize's escapes would show.
func (r *Report) chart(b *strings.Builder) {
	type slice struct {
		name  string
		value float64
	}
	var pie []slice
	byCost := r.Totals.Cost != nil
	all := slices.Clone(r.Personas)
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
		name := p.Name
		if !personaName.MatchString(name) {
			name = "(other)"
		}
		if i := slices.IndexFunc(pie, func(s slice) bool { return s.name == name }); i >= 0 {
			pie[i].value += v
		} else if v > 0 {
			pie = append(pie, slice{name, v})
		}
	}
	if len(pie) == 0 {
		return
	}
	title := "Estimated cost by persona (US dollars)"
	if !byCost {
		title = "Prompt tokens by persona"
	}
	b.WriteString("```mermaid\npie showData\n    title " + title + "\n")
	for _, s := range pie {
		fmt.Fprintf(b, "    \"%s\" : %s\n", s.name, strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.4f", s.value), "0"), "."))
	}
	b.WriteString("```\n\n")
}

func (r *Report) persona(name string) Persona {
	i := slices.IndexFunc(r.Personas, func(p Persona) bool { return p.Name == name })
	return r.Personas[i]
}

func (r *Report) suggestion(b *strings.Builder) {
	b.WriteString("### Suggestion\n\n")
	t := r.Totals
	fmt.Fprintf(b, "Acted-on figures rest on %s with an incremental re-review (%s), of %d reviewed: only a push reviewed from the last reviewed head can show a finding acted on; a rebase or force push gets a whole re-review, which cannot.\n\n",
		plural(t.IncrementalPRs, "pull request"), plural(t.IncrementalReviews, "incremental re-review"), t.Reviewed)
	rule := fmt.Sprintf("a persona whose acted-on rate stays below %s over at least %d findings posted on pull requests with an incremental re-review", pct(r.MinRate), r.MinFindings)
	if s := r.Suggestion; s != nil {
		for _, name := range s.Remove {
			p := r.persona(name)
			fmt.Fprintf(b, "- **%s**: %s of its %s judgeable findings %s acted on (%s), below %s; it cost %s.\n", r.text(name), num(p.ActedOn), num(p.Judgeable),
				map[bool]string{true: "was", false: "were"}[p.ActedOn == 1], ratePtr(p.ActedOnRate), pct(r.MinRate), money(p.Cost, p.UnpricedReviews))
		}
		fmt.Fprintf(b, "\nRemove %s from the team. It rests on %s. %s\n\n", r.text(strings.Join(s.Remove, ", ")), plural(s.RestsOn, "judgeable finding"), removalHowTo)
		// Remove holds names of personaName's shape only: safe in a code block.
		b.WriteString("```yaml\nexclude_personas: [" + strings.Join(s.Remove, ", ") + "]\n```\n\n")
	} else {
		fmt.Fprintf(b, "No removal: no persona meets the rule (%s).\n\n", rule)
	}
	if len(r.Kept) > 0 {
		fmt.Fprintf(b, "Below the rate but never suggested for removal: %s (%s always run or carry the gate; read their findings, or tune them with `instructions`).\n\n",
			r.text(strings.Join(r.Kept, ", ")), strings.Join(Protected, " and "))
	}
	if len(r.TooFewPushes) > 0 {
		fmt.Fprintf(b, "Too few incremental pushes to judge (fewer than %d of their findings were on pull requests with an incremental re-review, so a rate near 0 says nothing): %s.\n\n",
			r.MinFindings, r.text(strings.Join(r.TooFewPushes, ", ")))
	}
	if len(r.TooFew) > 0 {
		fmt.Fprintf(b, "Too few findings to judge (fewer than %d posted): %s.\n\n", r.MinFindings, r.text(strings.Join(r.TooFew, ", ")))
	}
	if len(r.Idle) > 0 {
		parts := make([]string, len(r.Idle))
		for i, p := range r.Idle {
			parts[i] = fmt.Sprintf("**%s** (%s, %s)", r.text(p.Name), plural(p.Reviews, "review"), money(p.Cost, 0))
		}
		fmt.Fprintf(b, "Cost money and posted nothing in the period: %s. A lens that finds nothing may be guarding against what did not come; exclude it if its cost matters more (never correctness or security).\n\n", strings.Join(parts, ", "))
	}
}

// removalHowTo says how to apply a removal.
const removalHowTo = "Add them to `exclude_personas` in `.github/anchor-review.yml` (or the `exclude-personas` input, or the `config` of a central workflow): unlike a `personas` list, it keeps every persona added later."

func (r *Report) notes(b *strings.Builder) {
	t := r.Totals
	b.WriteString("<details><summary>How to read these figures</summary>\n\n")
	b.WriteString("- **Acted on:** a push changed the lines of a posted finding and the incremental re-review no longer found it there.\n")
	b.WriteString("- **Judgeable:** findings posted on pull requests that got at least one incremental re-review; the acted-on rate is acted on / judgeable.\n")
	b.WriteString("- **Dismissed:** answered with `/anchor-review dismiss` and a reason (in brackets: how many of them), more thumbs-down than thumbs-up on the finding's inline comment, or the finding still posted, unchanged, when the pull request merged with no thumbs-up on it. A finding acted on is not also dismissed.\n")
	b.WriteString("- **Thumbs up / down:** reactions on the persona's inline comments (with the `inline` input on).\n")
	b.WriteString("- **Cost:** estimated from each review's token counts at the price its report used (the `pricing` input or the built-in list prices), the figure each report's Coverage shows; a review whose model had no price counts its tokens, not a cost.\n")
	b.WriteString("- A finding is credited to the first persona that reported it.\n")
	if t.OlderReports > 0 {
		fmt.Fprintf(b, "- %s predate per-persona figures: their open findings count as posted; their calls, cost and outcomes are not recorded.\n", plural(t.OlderReports, "report"))
	}
	if t.UnreadableReports > 0 {
		fmt.Fprintf(b, "- %s left out: %s.\n", plural(t.UnreadableReports, "report was", "reports were"), r.text(strings.Join(r.Unreadable, "; ")))
	}
	if t.NotOurs > 0 {
		fmt.Fprintf(b, "- %s of %s not counted: no anchor-review check run of ours on %s head names %s (another workflow posting as the same bot, or a copy): %s.\n",
			plural(t.NotOurs, "report-shaped comment"), r.text(r.BotLogin), map[bool]string{true: "its", false: "their"}[t.NotOurs == 1],
			map[bool]string{true: "it", false: "them"}[t.NotOurs == 1], r.text(strings.Join(r.NotOurs, "; ")))
		b.WriteString("- A pull request counts the newest report that is ours.\n")
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

func ratePtr(f *float64) string {
	if f == nil {
		return "–"
	}
	return pct(*f)
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

// plural is "1 one" or "n ones" ("ies" for a final y); manyForm, when
// given, is the plural phrase to use instead ("finding was", "findings
// were").
func plural(n int, one string, manyForm ...string) string {
	many := one + "s"
	if strings.HasSuffix(one, "y") {
		many = strings.TrimSuffix(one, "y") + "ies"
	}
	if len(manyForm) > 0 {
		many = manyForm[0]
	}
	if n == 1 {
		return "1 " + one
	}
	return num(n) + " " + many
}
