package action

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// GitHub's own merge_group example (octokit/webhooks): the group's commit
// and ref, and the base branch without refs/heads/.
func TestParseEventMergeGroup(t *testing.T) {
	t.Parallel()
	ev, err := ParseEvent(EventMergeGroup, webhook(t, "merge_group.checks_requested.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	mg := ev.MergeGroup
	if mg == nil || ev.Review || ev.Owner != "octo-org" || ev.Repo != "octo-repo" ||
		mg.HeadSHA != "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d" || mg.BaseRef != "main" ||
		mg.HeadRef != "refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64" {
		t.Fatalf("ParseEvent(merge_group) = %+v, group %+v", ev, mg)
	}
	base, n, sha, err := ParseQueueRef(mg.HeadRef)
	if err != nil || base != "main" || n != 104 || sha != "929f8209d40f77f4abc622a499c93a83babdbe64" {
		t.Errorf("ParseQueueRef(%q) = %q, %d, %q, %v", mg.HeadRef, base, n, sha, err)
	}

	destroyed := strings.Replace(string(webhook(t, "merge_group.checks_requested.json")), `"checks_requested"`, `"destroyed"`, 1)
	ev, err = ParseEvent(EventMergeGroup, []byte(destroyed), "")
	if err != nil || ev.MergeGroup != nil || ev.Review || ev.Notice == "" {
		t.Errorf("destroyed: %+v, %v; want a notice and nothing to conclude", ev, err)
	}
	bad := strings.Replace(string(webhook(t, "merge_group.checks_requested.json")), "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d", "HEAD", 1)
	if _, err := ParseEvent(EventMergeGroup, []byte(bad), ""); !errors.Is(err, ErrPayload) {
		t.Errorf("a group with no commit SHA: %v; want ErrPayload", err)
	}
}

func TestParseQueueRef(t *testing.T) {
	t.Parallel()
	sha := strings.Repeat("ab", 20)
	base, n, got, err := ParseQueueRef("gh-readonly-queue/release/1.x/pr-7-" + sha)
	if err != nil || base != "release/1.x" || n != 7 || got != sha {
		t.Errorf("slashed base: %q %d %q %v", base, n, got, err)
	}
	for _, ref := range []string{
		"", "refs/heads/main", "refs/heads/gh-readonly-queue/pr-7-" + sha, "gh-readonly-queue/main/pr-7",
		"gh-readonly-queue/main/pr--7-" + sha, "gh-readonly-queue/main/pr-0-" + sha, "gh-readonly-queue/main/pr-07-" + sha,
		"gh-readonly-queue/main/pr-2147483648-" + sha, "gh-readonly-queue/main/pr-7-" + sha[:39], "gh-readonly-queue/main/pr-7-" + strings.ToUpper(sha),
		"gh-readonly-queue/main/7-" + sha, "gh-readonly-queue//pr-7-" + sha,
	} {
		if _, _, _, err := ParseQueueRef(ref); err == nil {
			t.Errorf("ParseQueueRef(%q) accepted", ref)
		}
	}
}

// The queue ref comes from the event payload: whatever it holds, a parsed
// ref names one base, a PR number in range and a full SHA, and reads back.
func FuzzParseQueueRef(f *testing.F) {
	for _, s := range []string{"refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64", "gh-readonly-queue/a/b/pr-1-" + strings.Repeat("0", 40), "gh-readonly-queue/main/pr-7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		base, n, sha, err := ParseQueueRef(ref)
		if err != nil {
			return
		}
		if base == "" || n < 1 || n > 1<<31-1 || !isHexSHA(sha) {
			t.Fatalf("ParseQueueRef(%q) = %q, %d, %q", ref, base, n, sha)
		}
		b2, n2, s2, err := ParseQueueRef("refs/heads/" + queuePrefix + base + "/pr-" + strconv.Itoa(n) + "-" + sha)
		if err != nil || b2 != base || n2 != n || s2 != sha {
			t.Fatalf("round trip of %q: %q %d %q %v", ref, b2, n2, s2, err)
		}
	})
}
