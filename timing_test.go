package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// shortBudget finds a timeout, deadline or wall-clock budget under a
// second in a test: a call timeout, a run budget, an attempt timeout, a
// context deadline, a "first token"/"latency" bound of a timing test, the
// timeout of a model client built for a test, an elapsed time compared
// with a bound.
var shortBudget = regexp.MustCompile(`(CallTimeout|Budget|AttemptTimeout|Deadline)\s*[:=]\s*[^,;})]*time\.(Milli|Micro|Nano)second|(WithTimeout|WithDeadline|newModel)\([^)]*time\.(Milli|Micro|Nano)second|firstToken, latency\s*=.*time\.(Milli|Micro|Nano)second|\btimeout\s*:\s*[^,;})]*time\.(Milli|Micro|Nano)second|[<>]=?\s*\d+\s*\*\s*time\.(Milli|Micro|Nano)second`)

// TestNoTestBudgetUnderASecond (issue 30): a test that gives a call 300 ms
// fails on a loaded machine, which spends that before the request reaches
// the fake. No test outside bench/ (whose benchmarks measure, and whose
// latencies are not budgets) sets a budget under a second: a timeout
// test holds its reply for minutes and gives the call a second or more.
func TestNoTestBudgetUnderASecond(t *testing.T) {
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (p == "bench" || strings.HasPrefix(d.Name(), ".") && p != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") || p == "timing_test.go" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if shortBudget.MatchString(line) {
				t.Errorf("%s:%d: a budget under a second: %s", p, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
