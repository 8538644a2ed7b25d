package skip

import (
	"errors"
	"fmt"
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

// Look-alikes for many heads (an echoing workflow triggered push after
// push) cost one check-run listing each: the search asks for at most
// MaxHeadsAsked heads, then trusts nothing and says why (Err), so a
// forger cannot spend the repository's API budget through every run.
func TestLastReportCommentBoundsTheHeadsAsked(t *testing.T) {
	t.Parallel()
	var cs []Comment
	ours := strings.Repeat("a", 40)
	cs = append(cs, Comment{ID: 1, Author: bot, Body: report(marker.Meta{Version: 2, HeadSHA: ours, Verdict: "not-ready", Conclusion: "failure", Blocking: 1})})
	for i := range 200 {
		head := strings.Repeat("b", 37) + fmt.Sprintf("%03x", i)
		cs = append(cs, Comment{ID: int64(i + 2), Author: bot, Body: report(marker.Meta{Version: 2, HeadSHA: head, Verdict: "ready", Conclusion: "success"})})
	}
	calls := 0
	runs := func(h string) ([]CheckRun, error) {
		calls++
		return []CheckRun{{HeadSHA: ours, App: "github-actions", ExternalID: marker.CheckRef(1)}}, nil
	}
	f := LastReportComment(cs, bot, runs)
	if calls > MaxHeadsAsked {
		t.Fatalf("check runs listed for %d heads; at most %d", calls, MaxHeadsAsked)
	}
	if f.OK || f.Err == nil || f.Ignored != MaxHeadsAsked {
		t.Fatalf("LastReportComment() = %+v; want nothing trusted, an error saying why, %d ignored", f, MaxHeadsAsked)
	}
	// Few look-alikes: our report behind them is still found.
	f = LastReportComment(append(cs[:1:1], cs[1:MaxHeadsAsked]...), bot, runs)
	if !f.OK || f.Comment.ID != 1 {
		t.Fatalf("LastReportComment() = %+v; want our report behind %d look-alikes", f, MaxHeadsAsked-1)
	}
}
