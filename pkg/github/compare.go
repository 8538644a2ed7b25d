package github

import (
	"context"
	"fmt"
)

// Comparison statuses, as the compare API names them.
const (
	CompareAhead     = "ahead"     // head contains base: base is an ancestor of head
	CompareBehind    = "behind"    // base contains head
	CompareDiverged  = "diverged"  // neither contains the other (a force push, a rebase)
	CompareIdentical = "identical" // the same commit
)

// MaxCompareFiles is the most changed files the compare API returns; a
// comparison with that many may list only part of them.
const MaxCompareFiles = 300

// Comparison is what the compare API says about base...head.
type Comparison struct {
	// Status is CompareAhead, CompareBehind, CompareDiverged or
	// CompareIdentical.
	Status             string
	AheadBy, BehindBy  int
	TotalCommits       int
	BaseSHA, MergeBase string
	// Commits are the SHAs of the commits in the range, oldest first (at
	// most 250: GitHub lists no more without paging).
	Commits []string
	// Files are the changed files with their patches (Patch "" for binary
	// or huge files), at most MaxCompareFiles.
	Files []ChangedFile
	// Truncated is true when the lists may be incomplete: MaxCompareFiles
	// files, or fewer commits listed than TotalCommits.
	Truncated bool
}

// Compare reads the comparison base...head (two SHAs, branches or tags) in
// one request, without paging: the only form in which GitHub returns the
// files with the comparison's last commit.
func (c *Client) Compare(ctx context.Context, owner, repo, base, head string) (Comparison, error) {
	op := fmt.Sprintf("compare %s...%s in %s/%s", base, head, owner, repo)
	cc, _, err := c.gh.Repositories.CompareCommits(ctx, owner, repo, base, head, nil)
	if err != nil {
		return Comparison{}, classify(op, "", err)
	}
	out := Comparison{
		Status:       cc.GetStatus(),
		AheadBy:      cc.GetAheadBy(),
		BehindBy:     cc.GetBehindBy(),
		TotalCommits: cc.GetTotalCommits(),
		BaseSHA:      cc.GetBaseCommit().GetSHA(),
		MergeBase:    cc.GetMergeBaseCommit().GetSHA(),
	}
	switch out.Status {
	case CompareAhead, CompareBehind, CompareDiverged, CompareIdentical:
	default:
		return Comparison{}, fmt.Errorf("github: %s: unknown comparison status %q", op, out.Status)
	}
	for _, rc := range cc.Commits {
		out.Commits = append(out.Commits, rc.GetSHA())
	}
	for _, f := range cc.Files {
		out.Files = append(out.Files, changedFile(f))
	}
	out.Truncated = len(out.Files) >= MaxCompareFiles || len(out.Commits) < out.TotalCommits
	return out, nil
}

// Reactions a comment may receive (the reactions API's content values).
const (
	ReactionEyes   = "eyes"
	ReactionRocket = "rocket"
	ReactionPlus1  = "+1"
)

// ReactToComment adds a reaction to issue comment id. Reacting twice with
// the same content is not an error (GitHub answers 200 with the existing
// reaction).
func (c *Client) ReactToComment(ctx context.Context, owner, repo string, id int64, content string) error {
	_, _, err := c.gh.Reactions.CreateIssueCommentReaction(ctx, owner, repo, id, content)
	return classify(fmt.Sprintf("react to comment %d in %s/%s", id, owner, repo), PermPullRequestsWrite, err)
}
