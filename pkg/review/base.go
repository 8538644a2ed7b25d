package review

import (
	"context"
	"slices"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// readBase reads what the review takes from the BASE commit — the PR
// cannot rewrite its own rules: the AGENTS.md / CLAUDE.md files that apply
// to changed files, and the .gitattributes linguist marks. One tree listing
// says which exist, so the cost is one request plus one per file present;
// when the listing fails or is truncated, the standards candidates are
// probed one by one, nearest the root first, at most maxStandardsProbes.
// The listing itself is returned too (nil when it failed or was
// truncated): the path heuristics of scope ask it what the base holds.
func (r *Reviewer) readBase(ctx context.Context, o Options, d *diff.Diff, baseSHA string) ([]prompt.Standards, scope.Attributes, configRead, *scope.Base) {
	var base *scope.Base
	paths := scope.StandardsPaths(d.Files)
	var attrs scope.Attributes
	var cfg configRead
	readConfig := true
	tree, truncated, err := r.GitHub.Tree(ctx, o.Owner, o.Repo, baseSHA)
	if err == nil && !truncated {
		base = scope.NewBase(tree...)
		present := map[string]bool{}
		for _, p := range tree {
			present[p] = true
		}
		readConfig = present[repoconfig.Path]
		paths = slices.DeleteFunc(paths, func(p string) bool { return !present[p] })
		if present[".gitattributes"] {
			if text, found, err := r.GitHub.FileContent(ctx, o.Owner, o.Repo, ".gitattributes", baseSHA); err == nil && found {
				attrs = scope.ParseAttributes(text)
			}
		}

	} else {
		if err != nil {
			o.logf("scope: cannot list the base tree (%v); probing standards files one by one", err)
		}
		if len(paths) > maxStandardsProbes {
			o.logf("scope: %d standards-file locations; reading the %d nearest the root", len(paths), maxStandardsProbes)
			slices.SortStableFunc(paths, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
			paths = paths[:maxStandardsProbes]
			slices.Sort(paths)
		}
	}
	if readConfig {
		// One read; a 404 (absent) is fine.
		cfg.text, cfg.found, cfg.err = r.GitHub.FileContent(ctx, o.Owner, o.Repo, repoconfig.Path, baseSHA)
	}
	var out []prompt.Standards
	for _, p := range paths {
		content, found, err := r.GitHub.FileContent(ctx, o.Owner, o.Repo, p, baseSHA)
		if err != nil {
			o.logf("scope: standards file %s unreadable: %v", p, err)
			continue
		}
		if found {
			out = append(out, prompt.Standards{Path: p, Content: content})
		}
	}
	return out, attrs, cfg, base
}

// baseOf is what scope may take the base to hold: the listing, when there
// is one, plus the old paths of the files the pull request's whole change
// modifies, renames or deletes (those are at the base whatever a failed
// or truncated listing says).
func baseOf(listed *scope.Base, pr *diff.Diff) *scope.Base {
	base := listed
	if base == nil {
		base = scope.NewBase()
	}
	for _, f := range pr.Files {
		if f.Status != diff.Added && f.OldPath != "" {
			base.Add(f.OldPath)
		}
	}
	return base
}

// readVendorLists reads, at the base, each vendor/modules.txt the pull
// request (prDiff, its whole change: a list an earlier push changed counts)
// changes and the base holds: a changed list says which vendored module a
// hand edit belongs to only against the base's. One read each; a list that
// cannot be read explains no vendored file.
func (r *Reviewer) readVendorLists(ctx context.Context, o Options, base *scope.Base, prDiff *diff.Diff, baseSHA string) {
	if base == nil {
		return
	}
	for _, p := range scope.VendorLists(prDiff) {
		if !base.Holds(p) {
			continue
		}
		text, found, err := r.GitHub.FileContent(ctx, o.Owner, o.Repo, p, baseSHA)
		switch {
		case err != nil:
			o.logf("scope: %s unreadable at the base (%v); the vendored files it lists are reviewed", p, err)
		case found:
			base.AddVendorList(p, text)
		}
	}
}
