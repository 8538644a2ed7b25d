package e2e

import (
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/internal/lockfixtures"
	"github.com/anchor-review/anchor-review/pkg/llm"
)

// Issue 30, lockfile injection, through the built binary as Actions runs
// it: one package of a real yarn.lock (yarn 1.22 wrote it; see
// pkg/lockcheck/testdata/README.md) now resolves from an unknown host.
// Release 3 left the file out as a lock file and went green. The lock-file
// check posts a P1 without any model reading the file or the validator
// judging the fact, the check fails, and the report says where it came
// from.
func TestAttackLockfileInjection(t *testing.T) {
	t.Parallel()
	base := lockfixtures.Read(t, "head.yarn.lock")
	lines := strings.Split(strings.TrimSuffix(base, "\n"), "\n")
	n := -1
	for i, l := range lines {
		if strings.HasPrefix(l, `  resolved "https://registry.yarnpkg.com/is-number/-/is-number-7.0.0.tgz`) {
			n = i
		}
	}
	if n < 3 || n+3 >= len(lines) {
		t.Fatal("fixture lacks is-number's resolved line")
	}
	evil := strings.Replace(lines[n], "registry.yarnpkg.com", "yarn.evil.example", 1)
	head := append(append(append([]string(nil), lines[:n]...), evil), lines[n+1:]...)
	diff := "diff --git a/yarn.lock b/yarn.lock\nindex 1111111..2222222 100644\n--- a/yarn.lock\n+++ b/yarn.lock\n" +
		"@@ -" + itoa(n-2) + ",7 +" + itoa(n-2) + ",7 @@\n" +
		" " + strings.Join(lines[n-3:n], "\n ") + "\n-" + lines[n] + "\n+" + evil + "\n " + strings.Join(lines[n+1:n+4], "\n ") + "\n"

	s := newStage(t)
	pr := s.attackPR(world{
		diff: diff,
		head: map[string]string{"yarn.lock": strings.Join(head, "\n") + "\n"},
		base: map[string]string{"yarn.lock": base, "package.json": `{"name":"yf"}` + "\n"},
	})
	s.answers(nil)
	s.env["INPUT_INLINE"] = "true"

	r := s.run(nil)

	wantOutputs(t, r, map[string]string{"findings": "1", "conclusion": "failure", "verdict": "not-ready"})
	if got := checkConclusions(s, pr.HeadSHA); len(got) != 1 || got[0] != "failure" {
		t.Errorf("check runs on the head: %q; want one failure%s", got, r.logs())
	}
	if n := len(s.model.RequestsFor(llm.Validator)); n != 0 {
		t.Errorf("validator calls %d; want none: the finding is a fact", n)
	}
	if seenBy(s, "yarn.evil.example") {
		t.Errorf("a persona request holds the lock file; the check needs no model")
	}
	cs := reportComments(s.gh, pr.Number)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "is-number") || !strings.Contains(cs[0].Body, "yarn.evil.example") {
		t.Fatalf("report comments %d; want one naming is-number and the host%s", len(cs), r.logs())
	}
	if !strings.Contains(cs[0].Body, "lock-file check") {
		t.Errorf("the report does not say the lock file was read by the lock-file check:\n%s", cs[0].Body)
	}
	// The inline comment stands on the injected line itself.
	lc := s.gh.ReviewComments(pr.Number)
	if len(lc) != 1 || lc[0].Path != "yarn.lock" || lc[0].Line != n+1 || !strings.Contains(lc[0].Body, "yarn.evil.example") {
		t.Errorf("inline comments %+v; want one on yarn.lock:%d naming the host", lc, n+1)
	}
}
