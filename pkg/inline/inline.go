// Package inline plans the `inline` input's pull-request review (SPEC
// section 7.4): the posted findings on their lines as ONE review with event
// COMMENT, at most MaxComments comments, each carrying a hidden fingerprint
// so a rerun never posts a finding twice and marks its own earlier comments
// resolved when their finding is gone. Committable suggestions are checked
// against the diff before they are rendered.
//
// Everything here is pure: Build turns the review result, the parsed diff
// and the PR's existing review comments into a Plan; pkg/action performs it
// through pkg/github. Lines are checked against the diff BEFORE anything is
// posted, because GitHub refuses (422) a whole review when one comment sits
// outside the diff; findings that cannot go on a line stay in the report.
package inline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/report"
)

// MaxComments is the most inline comments one run posts; the rest are in
// the report only.
const MaxComments = 30

// ReviewMarker is the hidden first line of the review body.
const ReviewMarker = "<!-- anchor-review:review -->"

// SideRight is the diff side of every comment: the head version.
const SideRight = "RIGHT"

// Reasons a finding is not posted on its line. Not posting is never an
// error: the finding is in the report either way.
const (
	ReasonOutsideDiff = "its line is outside the diff (GitHub accepts comments only on diff lines)"
	ReasonOverLimit   = "over the limit of 30 inline comments per run"
	ReasonDuplicate   = "same fingerprint as another finding of this run"
)

// Input is what Build plans from.
type Input struct {
	// Findings are the posted findings (validated, anchor >= 75), numbered
	// and sorted as the report lists them.
	Findings []finding.Finding
	// Dismissed are posted findings a person dismissed: their comments
	// stay as they are (open, never called resolved), and none is posted
	// anew.
	Dismissed []finding.Finding
	// Files are the reviewed files of the parsed diff.
	Files []*diff.File
	// HeadSHA is the commit the review comments on.
	HeadSHA string
	// BotLogin is our identity: only its comments with our marker are ours.
	BotLogin string
	// Existing are the PR's review comments (everyone's, replies included).
	Existing []github.Comment
	// Complete is true for a complete review. Only then may a finding that
	// is no longer reported be called resolved: a persona that failed this
	// time did not fix anything.
	Complete bool
	// Render sanitizes model text as the report does (host, secrets).
	Render report.Options
}

// Comment is one inline comment to post.
type Comment struct {
	Number      int    // the finding's number in the report
	Fingerprint string // also in Body's marker line
	Path        string
	// Line is the comment's (last) line; StartLine is 0 for one line, else
	// the first line of a multi-line range (a suggestion's range).
	Line, StartLine int
	Side            string
	Body            string
	// Suggestion is true when Body holds a committable suggestion block.
	Suggestion bool

	// fallback is the comment reduced to the finding's own line without a
	// multi-line suggestion, when that line is an added line; nil when not.
	fallback *Comment
}

// Edit is an earlier comment of ours to rewrite as resolved.
type Edit struct {
	ID          int64
	Fingerprint string
	Body        string
}

// NotPosted is a finding that stays in the report only, and why.
type NotPosted struct {
	Number int
	Reason string
}

// Plan is what one run does on the PR's lines.
type Plan struct {
	// CommitID and Body of the review; Comments are its new comments, in
	// report order. No comments: no review is posted.
	CommitID string
	Body     string
	Comments []Comment
	// Kept maps a finding's number to the URL of our earlier comment that
	// already carries its fingerprint: it is not posted again.
	Kept map[int]string
	// Resolve are our earlier open comments whose finding is gone.
	Resolve []Edit
	// NotPosted are the findings left in the report only.
	NotPosted []NotPosted
	// DroppedSuggestions say which findings lost their suggestion, and why;
	// the finding itself is still posted.
	DroppedSuggestions []NotPosted
}

// Build plans the review. It never fails: whatever cannot go on a line is
// listed in NotPosted.
func Build(in Input) Plan {
	p := Plan{CommitID: in.HeadSHA, Kept: map[int]string{}}
	files := map[string]*diff.File{}
	for _, f := range in.Files {
		files[f.Path()] = f
	}

	// Our earlier comments: authored by us AND carrying our marker on the
	// first line. A human quoting the marker, or replying, is never ours.
	type earlier struct {
		c github.Comment
		m Marker
	}
	var ours []earlier
	for _, c := range in.Existing {
		if !strings.EqualFold(c.Author, in.BotLogin) {
			continue
		}
		if m, ok := ParseMarker(c.Body); ok {
			ours = append(ours, earlier{c, m})
		}
	}
	slices.SortFunc(ours, func(a, b earlier) int { return cmp.Compare(a.c.ID, b.c.ID) })
	open := map[string]github.Comment{} // fingerprint → oldest open comment
	for _, e := range ours {
		if _, seen := open[e.m.Fingerprint]; !seen && e.m.ResolvedIn == "" {
			open[e.m.Fingerprint] = e.c
		}
	}

	current := map[string]bool{}
	posted := map[string]int{}
	ids := finding.IDs(append(slices.Clip(in.Findings), in.Dismissed...))
	for _, f := range in.Dismissed {
		fp := fingerprintOf(f, files[f.File])
		current[fp] = true
		if c, ok := open[fp]; ok {
			p.Kept[f.Number] = c.HTMLURL
		}
	}
	for _, f := range in.Findings {
		df := files[f.File]
		_, onDiff := lineText(df, f.Line)
		fp := fingerprintOf(f, df)
		f.ID = ids[finding.Fingerprint(f)]
		current[fp] = true
		if c, ok := open[fp]; ok {
			p.Kept[f.Number] = c.HTMLURL
			continue
		}
		switch {
		case !onDiff:
			p.NotPosted = append(p.NotPosted, NotPosted{f.Number, ReasonOutsideDiff})
			continue
		case posted[fp] != 0:
			p.NotPosted = append(p.NotPosted, NotPosted{f.Number, fmt.Sprintf("%s (#%d)", ReasonDuplicate, posted[fp])})
			continue
		case len(p.Comments) == MaxComments:
			p.NotPosted = append(p.NotPosted, NotPosted{f.Number, ReasonOverLimit})
			continue
		}
		posted[fp] = f.Number
		c := Comment{Number: f.Number, Fingerprint: fp, Path: f.File, Line: f.Line, Side: SideRight}
		repl, sugErr := "", error(nil)
		if f.Suggestion != nil {
			repl, sugErr = CheckSuggestion(*f.Suggestion, f.Line, df, in.Render.Secrets)
			if sugErr != nil {
				p.DroppedSuggestions = append(p.DroppedSuggestions, NotPosted{f.Number, sugErr.Error()})
			}
		}
		plain := RenderComment(f, fp, nil, in.Render)
		if f.Suggestion != nil && sugErr == nil {
			s := *f.Suggestion
			c.Body = RenderComment(f, fp, &repl, in.Render)
			c.Suggestion = true
			c.Line = s.EndLine
			if s.StartLine != s.EndLine {
				c.StartLine = s.StartLine
			}
		} else {
			c.Body = plain
		}
		if l, _ := df.NewLine(f.Line); l.Kind == diff.Add {
			fb := Comment{Number: c.Number, Fingerprint: fp, Path: c.Path, Line: f.Line, Side: SideRight, Body: plain}
			if c.StartLine == 0 && c.Line == f.Line {
				fb.Body, fb.Suggestion = c.Body, c.Suggestion // a one-line suggestion on an added line is safe
			}
			c.fallback = &fb
		}
		p.Comments = append(p.Comments, c)
	}

	if in.Complete {
		for _, e := range ours {
			if e.m.ResolvedIn != "" || current[e.m.Fingerprint] || in.HeadSHA == "" {
				continue
			}
			p.Resolve = append(p.Resolve, Edit{ID: e.c.ID, Fingerprint: e.m.Fingerprint, Body: RenderResolved(e.c.Body, e.m.Fingerprint, in.HeadSHA)})
		}
	}
	if len(p.Comments) > 0 {
		p.Body = RenderReviewBody(len(p.Comments))
	}
	return p
}

// Fallback is the review to try once after GitHub refused the planned one
// (422): only comments on added lines of the diff, each on the finding's
// own line, with multi-line suggestions left out. GitHub accepts an added
// line of the head commit's diff whatever else it disputes. It also
// returns the comments it left out.
func (p Plan) Fallback() (keep []Comment, left []Comment) {
	for _, c := range p.Comments {
		if c.fallback == nil {
			left = append(left, c)
			continue
		}
		keep = append(keep, *c.fallback)
	}
	return keep, left
}

// FingerprintOf is finding f's fingerprint against the reviewed files: its
// anchored line's text when the diff shows the line, else its first
// evidence quote (such a finding is never posted on a line, but SARIF and
// reruns still need a stable identity for it).
func FingerprintOf(f finding.Finding, files []*diff.File) string {
	for _, df := range files {
		if df.Path() == f.File {
			return fingerprintOf(f, df)
		}
	}
	return fingerprintOf(f, nil)
}

func fingerprintOf(f finding.Finding, df *diff.File) string {
	text, onDiff := lineText(df, f.Line)
	if !onDiff && len(f.Evidence) > 0 {
		text = f.Evidence[0]
	}
	return Fingerprint(f.File, f.Title, text)
}

// lineText returns line n of df's new side when the diff shows it.
func lineText(df *diff.File, n int) (string, bool) {
	if df == nil || n < 1 {
		return "", false
	}
	l, ok := df.NewLine(n)
	if !ok || l.Kind == diff.Delete {
		return "", false
	}
	return l.Text, true
}
