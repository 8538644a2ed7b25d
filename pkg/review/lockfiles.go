package review

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/lockcheck"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// LockCheck is the Check and the reviewer name of the lock-file check's
// findings.
const LockCheck = "lockfile"

// lockReason is the Coverage reason of a lock file the check read.
const lockReason = "lock file: read by the lock-file check, no model call; its findings are facts and need no validator"

// checkLocks is the lock-file check (pkg/lockcheck), in place of the
// personas, for every lock file scope left out for it: both versions are
// read (the pull request's base and its head, whatever review this is)
// within the run's content budget, and what the check finds becomes
// findings (rn.facts), one per file and kind. A file named like a lock
// file that does not parse as its format is reviewed like any other file.
// A lock file that cannot be read leaves the review incomplete.
func (rn *reviewRun) checkLocks(ctx context.Context) {
	var keep []Excluded
	for _, e := range rn.sc.Excluded {
		if e.Reason != scope.ReasonLock {
			keep = append(keep, e)
			continue
		}
		f := rn.diffFile(e.Path)
		if f == nil {
			keep = append(keep, e)
			continue
		}
		if rn.in.baseBytes == nil {
			// A local diff has no base commit to compare with: the file
			// is reviewed like any other.
			rn.o.logf("scope: %s: no base commit to compare the lock file with; reviewed like any file", e.Path)
			keep = append(keep, rn.reviewLock(ctx, f)...)
			continue
		}
		found, err := rn.checkLock(ctx, f)
		switch {
		case errors.Is(err, lockcheck.ErrFormat):
			rn.o.logf("scope: %s: named like a lock file but %v; reviewed like any file", e.Path, err)
			keep = append(keep, rn.reviewLock(ctx, f)...)
			continue
		case err != nil:
			rn.o.logf("scope: %s: the lock-file check could not read it: %v", e.Path, err)
			rn.res.incomplete("%s changed but not checked: the lock-file check could not read it (%v)", e.Path, err)
			keep = append(keep, Excluded{Path: e.Path, Reason: "lock file: could not be read"})
			continue
		}
		rn.o.logf("scope: %s: lock-file check: %d findings", e.Path, len(found))
		rn.facts = append(rn.facts, found...)
		if rn.lockChecked == nil {
			rn.lockChecked = map[string]bool{}
		}
		rn.lockChecked[e.Path] = true
		keep = append(keep, Excluded{Path: e.Path, Reason: lockReason})
	}
	rn.sc.Excluded = keep
}

// diffFile is the diff's file at p.
func (rn *reviewRun) diffFile(p string) *diff.File {
	for _, f := range rn.in.diff.Files {
		if f.Path() == p {
			return f
		}
	}
	return nil
}

// checkLock reads both versions of the lock file f and checks them.
func (rn *reviewRun) checkLock(ctx context.Context, f *diff.File) ([]finding.Finding, error) {
	head, found, err := rn.head(ctx, f.Path())
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, fmt.Errorf("%s is not at the head commit", f.Path())
	}
	base := ""
	if f.Status != diff.Added {
		text, found, err := rn.budget.read(ctx, rn.in.baseBytes, f.OldPath)
		if err != nil {
			return nil, err
		}
		if found {
			base = text // absent at the base: new in the pull request
		}
	}
	facts, err := lockcheck.Check(f.Path(), base, head)
	if err != nil {
		return nil, err
	}
	return lockFindings(f.Path(), facts), nil
}

// reviewLock puts a lock file the check cannot read back among the files
// the personas review: its own diff when it has one, else the change of
// its two versions. It returns the file's exclusion when it could not be
// read (the review is then incomplete).
func (rn *reviewRun) reviewLock(ctx context.Context, f *diff.File) []Excluded {
	if len(f.Hunks) > 0 && !f.NoPatch {
		rn.sc.Files = append(rn.sc.Files, f)
		return nil
	}
	text, err := rn.asText(ctx, f)
	if err != nil {
		rn.res.incomplete("%s changed but not reviewed: it could not be read (%v)", f.Path(), err)
		return []Excluded{{Path: f.Path(), Reason: "could not be read"}}
	}
	rn.sc.Files = append(rn.sc.Files, text)
	return nil
}

// maxNamed is how many packages a lock-file finding names in its title.
const maxNamed = 3

// lockFindings turns the check's facts into findings: one per kind, at the
// first fact's line, naming the packages (one problem, one comment: a
// dependency that brings twenty platform builds with install scripts is
// one finding).
func lockFindings(file string, facts []lockcheck.Finding) []finding.Finding {
	var order []string
	byKind := map[string][]lockcheck.Finding{}
	for _, fc := range facts {
		if byKind[fc.Kind] == nil {
			order = append(order, fc.Kind)
		}
		byKind[fc.Kind] = append(byKind[fc.Kind], fc)
	}
	var out []finding.Finding
	for _, kind := range order {
		fs := byKind[kind]
		first := fs[0]
		title := first.Title
		var evidence []string
		for i, fc := range fs {
			if i < 5 {
				evidence = append(evidence, fmt.Sprintf("%s:%d: %s", file, fc.Line, fc.Evidence))
			}
		}
		if len(fs) > 1 {
			var names []string
			for _, fc := range fs[:min(len(fs), maxNamed)] {
				names = append(names, fc.Package)
			}
			more := ""
			if len(fs) > maxNamed {
				more = fmt.Sprintf(" and %d more", len(fs)-maxNamed)
			}
			title = fmt.Sprintf("Lock file: %d packages with %s: %s%s", len(fs), kindPhrase(kind), strings.Join(names, ", "), more)
		}
		out = append(out, finding.Finding{
			Title: title, Severity: finding.P1, File: file, Line: first.Line, WhyItMatters: first.Why,
			AutofixClass: "manual", Owner: "human", Confidence: 100, Evidence: evidence,
			SuggestedFix: "Check each named package's source and hash against its registry before merging, or dismiss with the reason it is expected.",
			Reviewers:    []string{LockCheck}, Check: LockCheck,
			Validation: &finding.Validation{Validated: true, Reason: "A fact of the lock-file check, read from the file's two versions without a model: it needs no validator."},
		})
	}
	return out
}

// kindPhrase says what a group of facts share, for a title.
func kindPhrase(kind string) string {
	switch kind {
	case lockcheck.KindRegistry:
		return "a source outside the registry"
	case lockcheck.KindIntegrity:
		return "an integrity changed or removed for an unchanged version"
	case lockcheck.KindScript:
		return "a new install script"
	case lockcheck.KindGoSum:
		return "a go.sum hash changed for the same version"
	}
	return kind
}
