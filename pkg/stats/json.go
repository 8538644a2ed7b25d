package stats

import (
	"encoding/json"
	"slices"

	"github.com/anchor-review/anchor-review/pkg/report"
)

// JSON encodes the report for machines. Text from reports, repositories
// and errors is cleaned as a log line is (no line breaks, control or
// invisible characters such as a right-to-left override) and redacted of
// anything shaped like a secret; a consumer that renders it as Markdown
// must still escape it, as for any JSON.
func (r *Report) JSON() ([]byte, error) {
	c := *r
	clean := func(s string) string { return report.Redact(report.LogLine(s), nil) }
	cleanAll := func(ss []string) []string {
		out := slices.Clone(ss)
		for i := range out {
			out[i] = clean(out[i])
		}
		return out
	}
	c.Personas = slices.Clone(r.Personas)
	for i := range c.Personas {
		p := &c.Personas[i]
		p.Name = clean(p.Name)
		p.Dismissals = slices.Clone(p.Dismissals)
		for j := range p.Dismissals {
			d := &p.Dismissals[j]
			d.Repository, d.ID, d.Severity, d.Title = clean(d.Repository), clean(d.ID), clean(d.Severity), clean(d.Title)
			d.By, d.At, d.Reason = clean(d.By), clean(d.At), clean(d.Reason)
		}
	}
	c.Repositories = slices.Clone(r.Repositories)
	for i := range c.Repositories {
		c.Repositories[i].Name = clean(c.Repositories[i].Name)
	}
	c.Idle = slices.Clone(r.Idle)
	for i := range c.Idle {
		c.Idle[i].Name = clean(c.Idle[i].Name)
	}
	if r.Suggestion != nil {
		s := *r.Suggestion
		s.Remove = cleanAll(s.Remove)
		c.Suggestion = &s
	}
	c.Org, c.BotLogin = clean(r.Org), clean(r.BotLogin)
	c.Kept, c.TooFew, c.TooFewPushes = cleanAll(r.Kept), cleanAll(r.TooFew), cleanAll(r.TooFewPushes)
	c.Unreadable, c.NotRead, c.NotOurs = cleanAll(r.Unreadable), cleanAll(r.NotRead), cleanAll(r.NotOurs)
	b, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
