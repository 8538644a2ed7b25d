package skip

import (
	"errors"
	"fmt"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/marker"
)

// CheckRun is what the ownership test needs from an `anchor-review` check
// run on a report's head.
type CheckRun struct {
	HeadSHA string
	// App is the slug of the GitHub App that created the run
	// ("github-actions" for a workflow's GITHUB_TOKEN).
	App string
	// ExternalID names the report comment the run was published with
	// (marker.CheckRef).
	ExternalID string
}

// Runs lists the `anchor-review` check runs on a commit. The caller makes
// the API call; LastReportComment asks once per head.
type Runs func(head string) ([]CheckRun, error)

// Ours reports whether c, whose metadata is m, is a report this Action
// wrote (SPEC 9.2): its author is login, its first line is the marker with
// valid metadata (m), and one of runs, the `anchor-review` check runs on
// m's head, was created by login's app and names c. A comment that only
// carries our identity and marker (another workflow that echoes PR text
// writes as github-actions[bot] too) has no such run: check runs name the
// comment they were published with, and only this Action writes that name.
func Ours(c Comment, m marker.Meta, runs []CheckRun, login string) bool {
	if c.ID <= 0 || m.HeadSHA == "" || !strings.EqualFold(c.Author, login) {
		return false
	}
	app := AppOf(login)
	for _, r := range runs {
		id, ok := marker.ParseCheckRef(r.ExternalID)
		if ok && id == c.ID && r.HeadSHA == m.HeadSHA && app != "" && strings.EqualFold(r.App, app) {
			return true
		}
	}
	return false
}

// AppOf is the slug of the GitHub App whose bot account is login
// ("github-actions[bot]" → "github-actions"); "" when login is no app's bot
// (a personal token cannot create check runs, so nothing it wrote is ours).
func AppOf(login string) string {
	if len(login) <= len("[bot]") || !strings.EqualFold(login[len(login)-len("[bot]"):], "[bot]") {
		return ""
	}
	return login[:len(login)-len("[bot]")]
}

// MaxHeadsAsked is the most heads whose check runs LastReportComment
// lists (one request each). Our own reports name one or two heads (one
// report, edited in place, and a duplicate a run failed to delete); more
// are look-alikes, and past this many nothing is trusted (Found.Err)
// rather than spend a request on each.
const MaxHeadsAsked = 10

// ErrTooManyHeads is Found.Err when look-alikes name more than
// MaxHeadsAsked heads.
var ErrTooManyHeads = errors.New("comments that look like anchor-review reports name too many heads to check; none was trusted")

// Found is what LastReportComment found.
type Found struct {
	Comment Comment
	Meta    marker.Meta
	OK      bool // a report of ours was found
	// Ignored counts the newer comments with our identity, marker and
	// valid metadata that failed the ownership test: forged or echoed
	// reports, which Coverage mentions.
	Ignored int
	// Err is why the check runs could not be read: nothing is trusted then.
	Err error
}

// LastReportComment finds our newest report among comments: by login, the
// marker on its first line, a valid metadata line on its second, and a
// check run of ours on its head that names it (Ours). Every reader of an
// earlier report (rule 4, re-reviews and carried verdicts, dismissals,
// merge groups) goes through it, so one test decides which comment is
// ours. runs nil trusts nothing.
func LastReportComment(comments []Comment, login string, runs Runs) Found {
	var f Found
	seen := map[string][]CheckRun{}
	for i := len(comments) - 1; i >= 0; i-- {
		c := comments[i]
		if !strings.EqualFold(c.Author, login) {
			continue
		}
		m, err := marker.ParseReport(c.Body)
		if err != nil {
			continue
		}
		list, ok := seen[m.HeadSHA]
		if !ok && runs != nil {
			if len(seen) == MaxHeadsAsked {
				f.Err = fmt.Errorf("%w: more than %d", ErrTooManyHeads, MaxHeadsAsked)
				return f
			}
			if list, err = runs(m.HeadSHA); err != nil {
				f.Err = err
				return f
			}
			seen[m.HeadSHA] = list
		}
		if Ours(c, m, list, login) {
			f.Comment, f.Meta, f.OK = c, m, true
			return f
		}
		f.Ignored++
	}
	return f
}
