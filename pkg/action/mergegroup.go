package action

import (
	"fmt"
	"strconv"
	"strings"
)

// MergeGroup is a merge queue's group (the merge_group event): the commit
// the queue tests and the ref it names.
type MergeGroup struct {
	HeadSHA string // the merge group commit: the check goes on it
	HeadRef string // refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>
	BaseRef string // the branch the queue merges into, without refs/heads/
	BaseSHA string
}

type groupPayload struct {
	HeadSHA string `json:"head_sha"`
	HeadRef string `json:"head_ref"`
	BaseRef string `json:"base_ref"`
	BaseSHA string `json:"base_sha"`
}

// queuePrefix starts the ref of every merge group.
const queuePrefix = "gh-readonly-queue/"

// fromMergeGroup interprets a merge_group event. checks_requested concludes
// the group's check; destroyed (the group left the queue) needs nothing.
// A group with no commit to put the check on is a payload error; a ref
// that names no pull request is not: the group's check fails and says so
// (ParseQueueRef), so a queue never waits for ever.
func (ev *Event) fromMergeGroup(p payload) error {
	if err := ev.setRepo(p.Repository, "repository"); err != nil {
		return err
	}
	g := p.MergeGroup
	if g == nil {
		return fmt.Errorf("%w: merge_group payload has no merge_group", ErrPayload)
	}
	if p.Action != "checks_requested" {
		ev.Notice = fmt.Sprintf("merge_group action %q needs no check (concluded: checks_requested)", truncate(p.Action, 40))
		return nil
	}
	if !isHexSHA(g.HeadSHA) {
		return fmt.Errorf("%w: merge_group.head_sha %q is not a 40-character commit SHA", ErrPayload, truncate(g.HeadSHA, 80))
	}
	ev.MergeGroup = &MergeGroup{HeadSHA: g.HeadSHA, HeadRef: g.HeadRef, BaseRef: strings.TrimPrefix(g.BaseRef, "refs/heads/"), BaseSHA: g.BaseSHA}
	ev.HeadSHA = g.HeadSHA
	return nil
}

// ParseQueueRef reads a merge group's ref,
// [refs/heads/]gh-readonly-queue/<base>/pr-<n>-<sha>: the base branch (which
// may hold slashes), the pull request's number and the commit in the name.
func ParseQueueRef(ref string) (base string, pr int, sha string, err error) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(ref, "refs/heads/"), queuePrefix)
	if !ok {
		return "", 0, "", fmt.Errorf("merge group ref %q does not start with %s", truncate(ref, 120), queuePrefix)
	}
	i := strings.LastIndexByte(rest, '/')
	if i <= 0 {
		return "", 0, "", fmt.Errorf("merge group ref %q names no base branch", truncate(ref, 120))
	}
	base, last := rest[:i], rest[i+1:]
	num, sha, ok := strings.Cut(strings.TrimPrefix(last, "pr-"), "-")
	if !strings.HasPrefix(last, "pr-") || !ok || !isHexSHA(sha) {
		return "", 0, "", fmt.Errorf("merge group ref %q does not end in pr-<number>-<sha>", truncate(ref, 120))
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || n > 1<<31-1 || num != strconv.Itoa(n) {
		return "", 0, "", fmt.Errorf("merge group ref %q names no pull request number in 1..2^31-1", truncate(ref, 120))
	}
	return base, n, sha, nil
}

func isHexSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}
