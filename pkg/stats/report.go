package stats

import (
	"regexp"
	"slices"
	"time"

	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/persona"
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
	// Judgeable counts the posted findings on pull requests that got an
	// incremental re-review: only there can a finding be seen acted on.
	Judgeable int `json:"judgeable"`
	ActedOn   int `json:"acted_on"`
	Dismissed int `json:"dismissed"`
	// DismissedExplicitly counts the findings people with write access
	// dismissed with `/anchor-review dismiss` (of Dismissed); Dismissals
	// are those dismissals, each with its reason.
	DismissedExplicitly int         `json:"dismissed_explicitly"`
	Dismissals          []Dismissal `json:"dismissals"`
	ThumbsUp            int         `json:"thumbs_up"`
	ThumbsDown          int         `json:"thumbs_down"`
	// ActedOnRate is ActedOn / Judgeable; nil when nothing is judgeable.
	ActedOnRate *float64 `json:"acted_on_rate"`

	cost float64
}

func (p *Persona) addUsage(u marker.Usage) {
	p.Reviews = add(p.Reviews, u.Reviews)
	p.Calls = add(p.Calls, u.Calls)
	p.PromptTokens = add(p.PromptTokens, u.PromptTokens)
	p.CachedTokens = add(p.CachedTokens, u.CachedTokens)
	p.CompletionTokens = add(p.CompletionTokens, u.CompletionTokens)
	p.cost += u.Cost
	p.UnpricedReviews = add(p.UnpricedReviews, u.Unpriced)
	p.Posted = add(p.Posted, u.Posted)
	p.ActedOn = add(p.ActedOn, u.ActedOn)
}

func (p *Persona) merge(o *Persona) {
	p.addUsage(marker.Usage{Reviews: o.Reviews, Calls: o.Calls, PromptTokens: o.PromptTokens, CachedTokens: o.CachedTokens,
		CompletionTokens: o.CompletionTokens, Cost: o.cost, Unpriced: o.UnpricedReviews, Posted: o.Posted, ActedOn: o.ActedOn})
	p.Judgeable = add(p.Judgeable, o.Judgeable)
	p.Dismissed = add(p.Dismissed, o.Dismissed)
	p.DismissedExplicitly = add(p.DismissedExplicitly, o.DismissedExplicitly)
	p.Dismissals = append(p.Dismissals, o.Dismissals...)
	p.ThumbsUp = add(p.ThumbsUp, o.ThumbsUp)
	p.ThumbsDown = add(p.ThumbsDown, o.ThumbsDown)
}

func (p *Persona) finish() {
	p.Cost, p.ActedOnRate = nil, nil
	if p.Reviews > p.UnpricedReviews {
		c := p.cost
		p.Cost = &c
	}
	if p.Judgeable > 0 {
		rate := float64(min(p.ActedOn, p.Judgeable)) / float64(p.Judgeable)
		p.ActedOnRate = &rate
	}
}

// Dismissal is an explicit dismissal as the report's metadata records it
// (written by a run that checked the dismisser's permission).
type Dismissal struct {
	Repository  string `json:"repository"`
	PullRequest int    `json:"pull_request"`
	ID          string `json:"id"`
	Severity    string `json:"severity"`
	Title       string `json:"title"`
	By          string `json:"by"`
	At          string `json:"at"`
	Reason      string `json:"reason"`
	// Lapsed is true when a later review found the finding again with its
	// lines changed: the dismissal no longer applies, but it was made.
	Lapsed bool `json:"lapsed,omitempty"`
}

// Totals are the figures over the period of one repository, or of all.
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
	// NotOurs counts the comments with the bot's identity and our marker
	// that failed the ownership test (no check run of ours names them):
	// look-alikes, never counted.
	NotOurs int `json:"not_ours"`
	Reviews int `json:"reviews"`
	// IncrementalPRs got at least one incremental re-review (a push
	// reviewed from the last reviewed head), IncrementalReviews in all:
	// what the acted-on figures rest on.
	IncrementalPRs     int `json:"incremental_pull_requests"`
	IncrementalReviews int `json:"incremental_reviews"`
	Calls              int `json:"calls"`
	PromptTokens       int `json:"prompt_tokens"`
	CachedTokens       int `json:"cached_tokens"`
	CompletionTokens   int `json:"completion_tokens"`
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
	// DismissedExplicitly counts the `/anchor-review dismiss` answers.
	DismissedExplicitly int `json:"dismissed_explicitly"`
	ThumbsUp            int `json:"thumbs_up"`
	ThumbsDown          int `json:"thumbs_down"`
}

// RepositoryFigures are one repository's totals.
type RepositoryFigures struct {
	Name   string `json:"name"`
	Totals Totals `json:"totals"`
}

// Idle is a persona that ran, cost money (or tokens, when no price is
// known) and posted nothing over the period.
type Idle struct {
	Name    string   `json:"name"`
	Reviews int      `json:"reviews"`
	Calls   int      `json:"calls"`
	Cost    *float64 `json:"cost"`
}

// Suggestion is the change that removes from the team the personas whose
// acted-on rate stayed below the threshold over enough judgeable
// findings: a removal, never a list of the personas to keep, so a persona
// added later still runs.
type Suggestion struct {
	Remove []string `json:"remove"`
	// RestsOn is how many judgeable findings of the removed personas the
	// suggestion rests on.
	RestsOn int `json:"rests_on"`
}

// Report is what stats prints, and writes as JSON.
type Report struct {
	// Org is the organization read (with --org), "" otherwise.
	Org string `json:"org,omitempty"`
	// Repositories are the repositories read, each with its totals.
	Repositories []RepositoryFigures `json:"repositories"`
	// Archived and Beyond count the organization's repositories left
	// out: archived, or past the limit. NotRead are the ones the token
	// could not read (each with the error).
	Archived  int       `json:"archived_left_out,omitempty"`
	Beyond    int       `json:"beyond_limit,omitempty"`
	NotRead   []string  `json:"not_read,omitempty"`
	Since     time.Time `json:"since"`
	Until     time.Time `json:"until"`
	BotLogin  string    `json:"bot_login"`
	Personas  []Persona `json:"personas"`
	Validator *Persona  `json:"validator"`
	Totals    Totals    `json:"totals"`
	// MinFindings and MinRate are the suggestion's thresholds.
	MinFindings int         `json:"min_findings"`
	MinRate     float64     `json:"min_rate"`
	Suggestion  *Suggestion `json:"suggestion"`
	// Kept are the personas below the rate that are never suggested for
	// removal (Protected).
	Kept []string `json:"kept_below_rate,omitempty"`
	// TooFew names the personas with findings but fewer than MinFindings:
	// never judged. TooFewPushes names those with enough posted findings
	// but fewer than MinFindings on pull requests that got an incremental
	// re-review (a team that rebases): their acted-on rate is not judged.
	TooFew       []string `json:"too_few_to_judge"`
	TooFewPushes []string `json:"too_few_incremental_pushes"`
	// Idle are the personas that ran and posted nothing: what they cost.
	Idle []Idle `json:"cost_without_findings"`
	// Unreadable says which reports were left out, and why.
	Unreadable []string `json:"unreadable,omitempty"`
	// NotOurs names the report-shaped comments left out as not ours, and
	// why.
	NotOurs []string `json:"not_ours,omitempty"`
	// Requests is how many HTTP requests the reading took (retries
	// included); set by the caller.
	Requests int `json:"requests"`

	serverURL string
}

func (t *Totals) total(all []*Persona) {
	t.CostComplete = true
	cost, priced := 0.0, false
	for _, p := range all {
		t.Calls = add(t.Calls, p.Calls)
		t.PromptTokens = add(t.PromptTokens, p.PromptTokens)
		t.CachedTokens = add(t.CachedTokens, p.CachedTokens)
		t.CompletionTokens = add(t.CompletionTokens, p.CompletionTokens)
		t.Posted = add(t.Posted, p.Posted)
		t.ActedOn = add(t.ActedOn, p.ActedOn)
		t.Dismissed = add(t.Dismissed, p.Dismissed)
		t.DismissedExplicitly = add(t.DismissedExplicitly, p.DismissedExplicitly)
		t.ThumbsUp = add(t.ThumbsUp, p.ThumbsUp)
		t.ThumbsDown = add(t.ThumbsDown, p.ThumbsDown)
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

// Protected are the personas stats never suggests removing: correctness
// always runs (no configuration removes it), and security is the lens a
// required check is signed off on; a rate below the threshold there is a
// reason to read its findings, and the report says so.
var Protected = []string{persona.Correctness, "security"}

// judge decides the suggestion and the lists around it.
func (r *Report) judge() {
	var remove []string
	rests := 0
	for _, p := range r.Personas {
		switch {
		case p.Name == Unattributed || !personaName.MatchString(p.Name):
			// No configuration can name it (a hand-edited record).
		case p.Posted == 0:
			if p.Reviews > 0 || p.Calls > 0 {
				r.Idle = append(r.Idle, Idle{Name: p.Name, Reviews: p.Reviews, Calls: p.Calls, Cost: p.Cost})
			}
		case p.Posted < r.MinFindings:
			r.TooFew = append(r.TooFew, p.Name)
		case p.Judgeable < r.MinFindings:
			r.TooFewPushes = append(r.TooFewPushes, p.Name)
		case float64(p.ActedOn) >= r.MinRate*float64(p.Judgeable):
		case slices.Contains(Protected, p.Name):
			r.Kept = append(r.Kept, p.Name)
		default:
			remove = append(remove, p.Name)
			rests = add(rests, p.Judgeable)
		}
	}
	if len(remove) > 0 {
		r.Suggestion = &Suggestion{Remove: remove, RestsOn: rests}
	}
}
