package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/scope"
)

// TestSubmodulePointersNamed (issue 24, attack 8): a moved submodule
// pointer cannot be reviewed from this repository; the check's summary
// names it with both commits, the conclusion stays what the review of the
// rest decided, and no trimming for size hides it.
func TestSubmodulePointersNamed(t *testing.T) {
	r := noFindings()
	r.Submodules = []scope.Submodule{{Path: "libs/sub", From: "1234567890abcdef1234567890abcdef12345678", To: "89abcdef1234567890abcdef1234567890abcdef"}}
	c := Check(r, opts())
	if c.Conclusion != "success" {
		t.Errorf("conclusion %q; want success: a pointer does not change it", c.Conclusion)
	}
	for _, want := range []string{"Submodule pointers moved", "libs/sub: `1234567` → `89abcde`", "does not change the conclusion"} {
		if !strings.Contains(c.Summary, want) {
			t.Errorf("check summary lacks %q:\n%s", want, c.Summary)
		}
	}
	if got := Comment(r, opts()); !strings.Contains(got, "libs/sub: `1234567` → `89abcde`") {
		t.Errorf("comment does not name the pointer:\n%s", got)
	}

	// Many pointers and a summary trimmed to size: still named.
	big := fullResult()
	for i := range 30 {
		big.Submodules = append(big.Submodules, scope.Submodule{Path: fmt.Sprintf("mods/m%02d", i), To: "89abcdef1234567890abcdef1234567890abcdef"})
	}
	o := opts()
	o.MaxLen = len(Check(big, opts()).Summary) - 200
	s := Check(big, o).Summary
	for _, want := range []string{"mods/m00: (new) → `89abcde`", "and 10 more"} {
		if !strings.Contains(s, want) {
			t.Errorf("trimmed summary lacks %q:\n%s", want, s)
		}
	}
	if got := Check(big, o).Conclusion; got != Check(fullResult(), opts()).Conclusion {
		t.Errorf("conclusion with pointers %q; want %q as without", got, Check(fullResult(), opts()).Conclusion)
	}
}
