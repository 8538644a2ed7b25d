package action

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/inline"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// inlineReview performs the inline input's review (SPEC section 7.4): it
// reads the PR's review comments, plans with inline.Build, marks our own
// comments whose finding is gone as resolved, posts the new comments as ONE
// review with event COMMENT, and learns their URLs for the report. Nothing
// here can fail the run or touch the report's findings: whatever does not
// post is said in the returned status, and the findings stay in the report
// (and in the check run's annotations).
func (p publisher) inlineReview(ctx context.Context, res review.Result, ro report.Options) *report.InlineStatus {
	st := &report.InlineStatus{Links: map[int]string{}}
	notPostedAll := func(reason string) {
		for _, f := range res.Findings {
			if st.Links[f.Number] == "" {
				st.NotPosted = append(st.NotPosted, notPostedLine(f.Number, f.File, f.Line, reason))
			}
		}
	}
	if len(res.Findings) == 0 && res.Partial {
		return st // nothing to post, and nothing may be called resolved
	}
	existing, err := p.gh.ReviewComments(ctx, p.owner, p.repo, p.n)
	if err != nil {
		// Without them a rerun could post every finding twice.
		p.a.Warningf("anchor-review could not read the pull request's review comments, so it posted no inline comments: %s", err.Error())
		notPostedAll("the earlier review comments could not be read")
		return st
	}
	plan := inline.Build(inline.Input{
		Findings: res.Findings, Dismissed: res.Dismissed, Files: res.Files, HeadSHA: res.HeadSHA, BotLogin: p.bot,
		Existing: existing, Complete: res.Complete(),
		Render: ro,
	})
	for n, u := range plan.Kept {
		st.Links[n] = u
	}
	defer func() {
		// The metadata records each commented finding's inline fingerprint,
		// so stats can read the comment's reactions.
		st.Fingerprints = map[int]string{}
		for _, f := range append(slices.Clip(res.Findings), res.Dismissed...) {
			if _, ok := st.Links[f.Number]; ok {
				st.Fingerprints[f.Number] = inline.FingerprintOf(f, res.Files)
			}
		}
	}()
	byNumber := map[int]int{}
	for i, f := range res.Findings {
		byNumber[f.Number] = i
	}
	for _, np := range plan.NotPosted {
		f := res.Findings[byNumber[np.Number]]
		st.NotPosted = append(st.NotPosted, notPostedLine(np.Number, f.File, f.Line, np.Reason))
	}
	for _, d := range plan.DroppedSuggestions {
		p.logf("anchor-review: finding %d: %s; the finding is posted without it", d.Number, d.Reason)
	}

	readOnly := false
	for _, e := range plan.Resolve {
		_, err := p.gh.EditReviewComment(ctx, p.owner, p.repo, e.ID, e.Body)
		var pe *github.PermissionError
		switch {
		case errors.As(err, &pe):
			readOnly = true
			p.a.Warningf("anchor-review cannot mark its earlier inline comments resolved: the token lacks %q", pe.Permission)
		case errors.Is(err, github.ErrNotFound):
			p.logf("anchor-review: inline comment %d is gone; nothing to resolve", e.ID)
		case err != nil:
			p.logf("anchor-review: could not mark inline comment %d resolved: %v", e.ID, err)
		default:
			p.logf("anchor-review: marked inline comment %d resolved in %s", e.ID, res.HeadSHA)
		}
		if readOnly {
			break
		}
	}
	if len(plan.Comments) == 0 {
		return st
	}

	comments := plan.Comments
	posted, err := p.postReview(ctx, plan, comments)
	var ae *github.APIError
	if errors.As(err, &ae) && ae.Status == http.StatusUnprocessableEntity {
		// GitHub refused the whole review: a line it does not take despite
		// the check against our parsed diff. Retry once with the comments
		// it always takes (one added line each); the rest stay in the report.
		keep, left := plan.Fallback()
		p.logf("anchor-review: GitHub refused the inline review (%s); retrying once with %d comment(s) on added lines", ae.Message, len(keep))
		for _, c := range left {
			f := res.Findings[byNumber[c.Number]]
			st.NotPosted = append(st.NotPosted, notPostedLine(c.Number, f.File, f.Line, "GitHub refused its line (HTTP 422: "+ae.Message+")"))
		}
		comments = keep
		posted, err = nil, nil
		if len(keep) > 0 {
			posted, err = p.postReview(ctx, plan, keep)
		}
	}
	var pe *github.PermissionError
	switch {
	case errors.As(err, &pe):
		p.a.Warningf("anchor-review cannot post inline comments: the token lacks %q (a fork PR's token is read-only); the findings are in the report and the annotations", pe.Permission)
	case err != nil:
		p.a.Errorf("anchor-review could not post the inline review: %s", err.Error())
	}
	for _, c := range comments {
		if u, ok := posted[c.Fingerprint]; ok {
			st.Links[c.Number] = u
			continue
		}
		f := res.Findings[byNumber[c.Number]]
		reason := "the inline review was not posted"
		switch {
		case pe != nil:
			reason = fmt.Sprintf("the token lacks %q", pe.Permission)
		case err != nil:
			reason = "the inline review failed: " + err.Error()
		}
		st.NotPosted = append(st.NotPosted, notPostedLine(c.Number, f.File, f.Line, reason))
	}
	return st
}

// postReview creates the review with comments and returns each posted
// comment's URL by fingerprint. The review is created even when listing
// its comments afterwards fails (then without links). A concurrent run may
// have posted the same fingerprints meanwhile: converge keeps the oldest.
func (p publisher) postReview(ctx context.Context, plan inline.Plan, comments []inline.Comment) (map[string]string, error) {
	r := github.Review{CommitID: plan.CommitID, Body: inline.RenderReviewBody(len(comments))}
	for _, c := range comments {
		r.Comments = append(r.Comments, github.ReviewComment{Path: c.Path, Line: c.Line, StartLine: c.StartLine, Side: c.Side, Body: c.Body})
	}
	id, err := p.gh.CreateReview(ctx, p.owner, p.repo, p.n, r)
	if err != nil {
		return nil, err
	}
	p.logf("anchor-review: posted an inline review with %d comment(s)", len(comments))
	created := map[string]github.Comment{}
	list, err := p.gh.ReviewCommentsOf(ctx, p.owner, p.repo, p.n, id)
	if err != nil {
		p.logf("anchor-review: could not list the inline review's comments for links: %v", err)
	}
	for _, c := range list {
		if m, ok := inline.ParseMarker(c.Body); ok {
			created[m.Fingerprint] = c
		}
	}
	urls := p.converge(ctx, created)
	// Every comment was created with the review; one the listing missed
	// still counts as posted, just without a link.
	for _, c := range comments {
		if _, ok := urls[c.Fingerprint]; !ok {
			urls[c.Fingerprint] = ""
		}
	}
	return urls, nil
}

// converge handles two runs that planned against the same comments and
// both posted (a push while a run was publishing): for each fingerprint
// just created, when an OLDER open comment of ours carries it, the new one
// is deleted and the older one linked. Both runs do this, so one comment per
// finding survives. Best effort: a failed listing or delete keeps the link.
func (p publisher) converge(ctx context.Context, created map[string]github.Comment) map[string]string {
	urls := map[string]string{}
	for fp, c := range created {
		urls[fp] = c.HTMLURL
	}
	if len(created) == 0 {
		return urls
	}
	all, err := p.gh.ReviewComments(ctx, p.owner, p.repo, p.n)
	if err != nil {
		return urls
	}
	oldest := map[string]github.Comment{}
	for _, c := range all {
		m, ok := inline.ParseMarker(c.Body)
		if !ok || m.ResolvedIn != "" || !strings.EqualFold(c.Author, p.bot) {
			continue
		}
		if o, seen := oldest[m.Fingerprint]; !seen || c.ID < o.ID {
			oldest[m.Fingerprint] = c
		}
	}
	for fp, c := range created {
		o, ok := oldest[fp]
		if !ok || o.ID >= c.ID {
			continue
		}
		if err := p.gh.DeleteReviewComment(ctx, p.owner, p.repo, c.ID); err != nil && !errors.Is(err, github.ErrNotFound) {
			p.logf("anchor-review: could not delete duplicate inline comment %d: %v", c.ID, err)
			continue
		}
		p.logf("anchor-review: a concurrent run commented the same finding; kept %s", o.HTMLURL)
		urls[fp] = o.HTMLURL
	}
	return urls
}

// notPostedLine is one line of the report's "not posted" list.
func notPostedLine(n int, file string, line int, reason string) string {
	return fmt.Sprintf("finding %d (%s:%d): %s", n, file, line, reason)
}
