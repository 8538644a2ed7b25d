package review

import (
	"context"
	"errors"
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/skip"
)

// ReportRuns lists the `anchor-review` check runs on a commit for the
// ownership test (skip.Ours), through gh.
func ReportRuns(ctx context.Context, gh GitHub, owner, repo string) skip.Runs {
	return func(head string) ([]skip.CheckRun, error) {
		refs, err := gh.CheckRunsOn(ctx, owner, repo, head, marker.CheckName)
		if err != nil {
			return nil, err
		}
		out := make([]skip.CheckRun, len(refs))
		for i, r := range refs {
			out[i] = skip.CheckRun{HeadSHA: r.HeadSHA, App: r.App, ExternalID: r.ExternalID}
		}
		return out, nil
	}
}

// FindReport is the prior-report lookup every reader of our earlier
// report goes through (rule 4, re-reviews and carried verdicts,
// dismissals, merge groups): the newest comment by login with our marker
// and metadata that an `anchor-review` check run of ours on its head names.
func FindReport(ctx context.Context, gh GitHub, owner, repo string, comments []github.Comment, login string) skip.Found {
	return skip.LastReportComment(SkipComments(comments), login, ReportRuns(ctx, gh, owner, repo))
}

// SkipComments converts the API's comments for pkg/skip.
func SkipComments(cs []github.Comment) []skip.Comment {
	out := make([]skip.Comment, len(cs))
	for i, c := range cs {
		out[i] = skip.Comment{ID: c.ID, Author: c.Author, Body: c.Body}
	}
	return out
}

// IgnoredNotice is the Coverage sentence for comments that looked like our
// report and failed the ownership test, or for check runs that could not
// be read; none when neither happened.
func IgnoredNotice(ignored int, err error) []string {
	var out []string
	if ignored > 0 {
		out = append(out, fmt.Sprintf("Ignored %d comment(s) carrying the report marker and this Action's identity that no anchor-review check run of this Action names (a copy or a forgery, e.g. another workflow echoing pull-request text): no verdict, carried finding or dismissal was read from them.", ignored))
	}
	if errors.Is(err, skip.ErrTooManyHeads) {
		out = append(out, fmt.Sprintf("Comments carrying the report marker and this Action's identity name more than %d heads, so no earlier report was trusted (each would cost an API request to check): no verdict, carried finding or dismissal was read from one.", skip.MaxHeadsAsked))
	} else if err != nil {
		out = append(out, "The check runs that vouch for an earlier report could not be read, so no earlier report was trusted: no verdict, carried finding or dismissal was read from one.")
	}
	return out
}
