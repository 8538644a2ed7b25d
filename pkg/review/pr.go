package review

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
	"github.com/anchor-review/anchor-review/pkg/scope"
	"github.com/anchor-review/anchor-review/pkg/skip"
	"github.com/anchor-review/anchor-review/pkg/synth"
)

// ReviewPR reviews one pull request end to end. The returned PR is what the
// skip check read (nil if reading failed). An error means the review could
// not run; when every persona failed the Result is still filled in and the
// error wraps ErrAllPersonasFailed.
func (r *Reviewer) ReviewPR(ctx context.Context, o Options) (Result, *PR, error) {
	o.defaults()
	start := time.Now()
	res := Result{Repo: o.Owner + "/" + o.Repo, PR: o.PR, Mode: o.Mode, IncompleteConclusion: o.Incomplete}

	// Stage 1: at most two reads, no model call.
	info, err := r.GitHub.PullRequest(ctx, o.Owner, o.Repo, o.PR)
	if err != nil {
		return res, nil, fmt.Errorf("skip: %w", err) // the client's error names the request and the PR
	}
	comments, err := r.GitHub.IssueComments(ctx, o.Owner, o.Repo, o.PR)
	if err != nil {
		return res, &PR{Info: info}, fmt.Errorf("skip: %w", err)
	}
	pr := &PR{Info: info, Comments: comments}
	res.HeadSHA, res.BaseRef, res.Title = info.HeadSHA, info.BaseRef, info.Title

	dec := skip.Decide(skipPR(info), SkipComments(comments), o.BotLogin, o.Rerun, ReportRuns(ctx, r.GitHub, o.Owner, o.Repo))
	res.Coverage.Notices = append(res.Coverage.Notices, IgnoredNotice(dec.Ignored, dec.Err)...)
	if dec.Err != nil {
		o.logf("skip: could not read the check runs that vouch for our earlier report (%v): no earlier report is trusted", dec.Err)
	}
	if dec.Skip {
		res.Skipped, res.SkipRule, res.SkipReason, res.Carried, res.CarriedFrom = true, dec.Rule, dec.Reason, dec.Carried, dec.Report
		// A skipped PR has no verdict of its own; under rule 4 the earlier
		// report's is carried forward.
		if dec.Carried != nil {
			res.Verdict = Verdict(dec.Carried.Verdict)
		}
		o.logf("skip: rule %d: %s", dec.Rule, dec.Reason)
		return res, pr, nil
	}
	o.logf("skip: none of the four rules fired")
	prev := dec.Previous
	if prev != nil && !o.Rerun && o.OnNewCommits == OnNewCommitsSkip {
		// on-new-commits skip, set by the workflow: decided before any
		// other read (the repository configuration can set it too; see
		// below).
		r.skipNew(ctx, o, &res, prev, info.HeadSHA, -1)
		return res, pr, nil
	}
	if o.PrecheckOnly {
		return res, pr, ErrNeedsModel
	}

	// Stage 2: scope.
	src, err := r.GitHub.Diff(ctx, o.Owner, o.Repo, o.PR)
	if err != nil {
		return res, pr, fmt.Errorf("scope: %w", err)
	}
	d, err := parseSource(src)
	if err != nil {
		return res, pr, fmt.Errorf("scope: %w", err)
	}
	var truncated []Excluded
	if src.Truncated {
		truncated = append(truncated, Excluded{Path: "(files beyond the first 3,000)", Reason: "GitHub lists at most 3,000 files"})
		res.incomplete("files beyond the first 3,000 were not reviewed: GitHub lists at most 3,000 files")
	}
	// A PR reviewed before at an older head: review the new commits only
	// (or, when that cannot be done safely, the whole PR).
	prDiff := d
	var plan *carryPlan
	if prev != nil {
		plan, res.Rereview = r.plan(ctx, o, prev, info, d)
	}
	if plan != nil {
		d = plan.delta
	}
	heads := func(ctx context.Context, path string) (string, bool, error) {
		return r.GitHub.FileContent(ctx, o.Owner, o.Repo, path, info.HeadSHA)
	}
	// at reads a file's version at ref a bounded number of bytes at a
	// time: what the run's reads of file content go through (read.go).
	at := func(ref string) FileReader {
		return func(ctx context.Context, path string, limit int64) (string, bool, bool, error) {
			return r.GitHub.FileBytes(ctx, o.Owner, o.Repo, path, ref, limit)
		}
	}
	standards, attrs, cfg, listed := r.readBase(ctx, o, d, info.BaseSHA)
	base := baseOf(listed, prDiff)
	r.readVendorLists(ctx, o, base, prDiff, info.BaseSHA)
	use, err := configure(&o, cfg, "base commit", prDiff)
	res.Coverage.Config = use
	if err != nil {
		return res, pr, err
	}
	res.ScopeKey = ScopeKey(o.Exclude, TeamKey(o.Personas, o.ExcludePersonas), attrs)
	if plan != nil && prev.Scope != res.ScopeKey {
		// The configuration or the base's marks now cover other files or
		// personas than the earlier review did: the new commits alone
		// would leave what it left out unreviewed.
		plan, d = nil, prDiff
		res.Rereview = wholeInstead(res.Rereview, "the exclude patterns, the personas or exclude-personas option or the base's .gitattributes marks changed since the earlier review")
		o.logf("rereview: the whole pull request: %s", res.Rereview.Reason)
		standards, attrs, _, _ = r.readBase(ctx, o, d, info.BaseSHA) // the standards of every file
	}
	// After the configuration: its exclude patterns say which files are
	// left out on purpose.
	markUnseen(&res, src.Files, prDiff, scope.Rules{Exclude: o.Exclude, Attrs: attrs, Base: base})
	if prev != nil && !o.Rerun && o.OnNewCommits == OnNewCommitsSkip {
		// on-new-commits skip, set by the repository configuration.
		n := -1
		if res.Rereview != nil && res.Rereview.Incremental {
			n = res.Rereview.Commits
		}
		res.Rereview = nil
		r.skipNew(ctx, o, &res, prev, info.HeadSHA, n)
		return res, pr, nil
	}
	if plan != nil && len(plan.delta.Files) == 0 {
		// The new commits changed none of the PR's files (a merge of the
		// base branch): nothing for the personas; carry what was found.
		o.logf("rereview: the new commits change none of the pull request's files")
		rn := newRun(r, o, &res, runInput{prompt: prompt.Context{Repo: res.Repo, PR: o.PR, Title: info.Title, Body: info.Body}, head: heads, headBytes: at(info.HeadSHA), carry: plan})
		rn.calls = &callBudget{limit: o.MaxLLMCalls}
		res.Coverage.ValidatorRan = o.Validate
		res.IncompleteConclusion = o.Incomplete // after the repository configuration
		res.Findings = rn.carry(ctx, nil)
		synth.Number(res.Findings)
		res.Verdict = DecideVerdict(res)
		res.Files = prDiff.Files
		res.Coverage.Usage.Wall = time.Since(start)
		return res, pr, nil
	}
	// previous-comments selects on review comments from people (SPEC's
	// table), and those are what it reads; conversation comments are not
	// review comments.
	humans := 0
	var previous []string
	if rc, err := r.GitHub.ReviewComments(ctx, o.Owner, o.Repo, o.PR); err != nil {
		o.logf("scope: review comments unavailable (%v); previous-comments persona may not select", err)
	} else {
		for _, c := range rc {
			if !c.AuthorIsBot && !strings.EqualFold(c.Author, o.BotLogin) {
				humans++
				previous = append(previous, c.Author+": "+c.Body)
			}
		}
	}

	pc := prompt.Context{Repo: res.Repo, PR: o.PR, Title: info.Title, Body: info.Body, Standards: standards, PreviousComments: previous, Instructions: o.repo.Instructions}
	tree := func(ctx context.Context) ([]string, bool, error) {
		return r.GitHub.Tree(ctx, o.Owner, o.Repo, info.HeadSHA)
	}
	// The diff's old side: the base commit, or for an incremental review
	// the head the earlier review saw.
	oldRef := info.BaseSHA
	if plan != nil {
		oldRef = prev.HeadSHA
	}
	old := func(ctx context.Context, path string) (string, bool, error) {
		return r.GitHub.FileContent(ctx, o.Owner, o.Repo, path, oldRef)
	}
	err = r.run(ctx, o, &res, runInput{diff: d, attrs: attrs, base: base, prompt: pc, humanComments: humans, notReviewed: truncated,
		head: heads, old: old, headBytes: at(info.HeadSHA), oldBytes: at(oldRef), baseBytes: at(info.BaseSHA), tree: tree, carry: plan})
	if plan != nil {
		// Inline comments and SARIF fingerprints place findings on the
		// PR's diff, not on the delta: a carried finding on a line the
		// new commits left alone keeps its line text and its identity.
		res.Files = prDiff.Files
	}
	res.Coverage.Usage.Wall = time.Since(start)
	return res, pr, err
}

// ReviewDiff reviews a local diff with no GitHub at all. head, when not nil,
// returns a file's new version for the validator.
func (r *Reviewer) ReviewDiff(ctx context.Context, o Options, d *diff.Diff, title, body string, head HeadReader) (Result, error) {
	o.defaults()
	start := time.Now()
	res := Result{Repo: o.Owner + "/" + o.Repo, Title: title, Mode: o.Mode, IncompleteConclusion: o.Incomplete}
	if o.Owner == "" {
		res.Repo = "local"
	}
	if head == nil {
		head = func(context.Context, string) (string, bool, error) { return "", false, nil }
	}
	// The configuration is read where the caller says (the merge base of
	// `review --base`), else where head reads files. Unreadable, it stops
	// the review, as in a pull request's.
	src := ConfigSource{Where: "working tree", Read: head}
	if o.LocalConfig != nil {
		src = *o.LocalConfig
	}
	cfg := configRead{}
	cfg.text, cfg.found, cfg.err = src.Read(ctx, repoconfig.Path)
	use, err := configure(&o, cfg, src.Where, d)
	res.Coverage.Config = use
	if err != nil {
		return res, err
	}
	pc := prompt.Context{Repo: res.Repo, Title: title, Body: body, Instructions: o.repo.Instructions}
	// A local change is the user's own: its standards files and
	// .gitattributes are read where head reads files (the working tree or
	// HEAD), since there is no base commit to read them from.
	var attrs scope.Attributes
	if text, found, err := head(ctx, ".gitattributes"); err == nil && found {
		attrs = scope.ParseAttributes(text)
	}
	for _, p := range scope.StandardsPaths(d.Files) {
		if content, found, err := head(ctx, p); err == nil && found {
			pc.Standards = append(pc.Standards, prompt.Standards{Path: p, Content: content})
		}
	}
	err = r.run(ctx, o, &res, runInput{diff: d, attrs: attrs, prompt: pc, head: head})
	res.Coverage.Usage.Wall = time.Since(start)
	return res, err
}

// parseSource turns what GitHub returned into one parsed diff.
func parseSource(src github.DiffSource) (*diff.Diff, error) {
	if !src.FromFilesEndpoint {
		d, err := diff.Parse([]byte(src.Unified))
		if err != nil {
			return nil, fmt.Errorf("parse diff: %w", err)
		}
		return d, nil
	}
	return filesDiff(src.Files)
}

// filesDiff parses the files endpoint's (or a comparison's) entries into one
// diff; ParsePatch maps their status words and paths.
func filesDiff(files []github.ChangedFile) (*diff.Diff, error) {
	d := &diff.Diff{}
	for _, cf := range files {
		f, err := diff.ParsePatch(cf.PreviousPath, cf.Path, diff.Status(cf.Status), cf.Patch)
		if err != nil {
			return nil, fmt.Errorf("parse patch of %s: %w", cf.Path, err)
		}
		if cf.Patch == "" && cf.Additions+cf.Deletions == 0 && (cf.Status == "added" || cf.Status == "modified" || cf.Status == "changed" || cf.Status == "renamed" || cf.Status == "copied") {
			// GitHub lists a file it calls binary with no patch and no
			// line counts: say so, as the unified diff does. A rename
			// with a binary change looks like a pure rename here; both
			// are read (a pure rename then shows no change), or a .js
			// given a NUL byte as it moves would go unreviewed.
			f.NoPatch, f.Binary = false, true
		}
		d.Files = append(d.Files, f)
	}
	return d, nil
}

// markUnseen makes the review incomplete for every changed text file GitHub
// gave no patch for: scope lists it as "no patch", but its lines reached
// no persona, so the review cannot be green. A file scope leaves out for
// what it is (a lock, vendored or generated file by its path where the
// base shows it to be such, or by the base's .gitattributes, an exclude
// pattern) hides no reviewable line, patch or not.
func markUnseen(res *Result, files []github.ChangedFile, d *diff.Diff, rules scope.Rules) {
	var unseen []string
	for _, cf := range files {
		if reason, err := scope.ExcludedByPath(cf.Path, d, rules); cf.Unseen() && (err != nil || reason == "") {
			unseen = append(unseen, cf.Path)
		}
	}
	if len(unseen) > 0 {
		res.incomplete("%s changed but not reviewed: GitHub gives no patch for %s (too large to show): %s",
			plural(len(unseen), "file", "files"), map[bool]string{true: "it", false: "them"}[len(unseen) == 1], strings.Join(unseen, ", "))
	}
}

// commitCount renders "1 commit", "3 commits", or "the new commits".
func commitCount(n int) string {
	switch {
	case n == 1:
		return "1 commit"
	case n > 1:
		return fmt.Sprintf("%d commits", n)
	}
	return "the new commits"
}

func skipPR(p *github.PR) skip.PR {
	return skip.PR{State: p.State, Merged: p.Merged, Draft: p.Draft, Title: p.Title, Body: p.Body,
		Author: p.Author, AuthorIsBot: p.AuthorIsBot, HeadSHA: p.HeadSHA}
}
