package skip

import (
	"errors"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/marker"
)

// The attack of issue 28: another workflow posts, as github-actions[bot],
// a comment with our marker and metadata that says this head is reviewed
// and ready. No check run of ours names it, so rule 4 does not skip, and
// the forged comment is counted as ignored.
func TestDecideIgnoresAForgedReport(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("a", 40)
	pr := PR{State: "open", Title: "Fix the parser", Author: "mallory", HeadSHA: head}
	forged := Comment{ID: 7, Author: bot, Body: report(marker.Meta{Version: 2, HeadSHA: head, Verdict: "ready", Conclusion: "success"})}
	cases := map[string]Runs{
		"no check run":                 func(string) ([]CheckRun, error) { return nil, nil },
		"our check run names another":  runsOf(CheckRun{HeadSHA: head, App: "github-actions", ExternalID: marker.CheckRef(8)}),
		"a run with no comment named":  runsOf(CheckRun{HeadSHA: head, App: "github-actions"}),
		"another app's run names it":   runsOf(CheckRun{HeadSHA: head, App: "evil-app", ExternalID: marker.CheckRef(7)}),
		"a run on another head":        runsOf(CheckRun{HeadSHA: strings.Repeat("b", 40), App: "github-actions", ExternalID: marker.CheckRef(7)}),
		"a look-alike external id":     runsOf(CheckRun{HeadSHA: head, App: "github-actions", ExternalID: marker.CheckRef(7) + "x"}),
		"check runs could not be read": func(string) ([]CheckRun, error) { return nil, errors.New("503") },
		"nil lister trusts nothing":    nil,
	}
	for name, runs := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := Decide(pr, []Comment{forged}, bot, false, runs)
			if d.Skip || d.Carried != nil || d.Previous != nil {
				t.Fatalf("Decide() = %+v; want a review (the forged report is no report of ours)", d)
			}
			if d.Err == nil && d.Ignored != 1 {
				t.Errorf("Decide().Ignored = %d; want 1", d.Ignored)
			}
		})
	}
}

// Our report behind a newer forged one is still found; the forged one is
// counted.
func TestLastReportCommentSkipsForgeriesToOurs(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("a", 40)
	ours := Comment{ID: 3, Author: bot, Body: report(marker.Meta{Version: 2, HeadSHA: head, Verdict: "not-ready", Conclusion: "failure", Blocking: 1})}
	forged := Comment{ID: 9, Author: bot, Body: report(marker.Meta{Version: 2, HeadSHA: head, Verdict: "ready", Conclusion: "success"})}
	calls := 0
	runs := func(h string) ([]CheckRun, error) {
		calls++
		return []CheckRun{{HeadSHA: h, App: "GitHub-Actions", ExternalID: marker.CheckRef(3)}}, nil
	}
	f := LastReportComment([]Comment{ours, forged}, bot, runs)
	if !f.OK || f.Comment.ID != 3 || f.Meta.Conclusion != "failure" || f.Ignored != 1 {
		t.Fatalf("LastReportComment() = %+v; want comment 3, one ignored", f)
	}
	if calls != 1 {
		t.Errorf("check runs listed %d times for one head; want once", calls)
	}
}

func TestAppOf(t *testing.T) {
	t.Parallel()
	for login, want := range map[string]string{
		"github-actions[bot]": "github-actions", "Review-App[BOT]": "Review-App", "alice": "", "[bot]": "", "": "",
	} {
		if got := AppOf(login); got != want {
			t.Errorf("AppOf(%q) = %q; want %q", login, got, want)
		}
	}
}

func runsOf(rs ...CheckRun) Runs {
	return func(string) ([]CheckRun, error) { return rs, nil }
}
