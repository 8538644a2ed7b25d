package bench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// expressPRNumber is the express change's number on the fake GitHub.
const expressPRNumber = 78

// loadExpressPR is a real change: expressjs/express f14e39d4 (9 files,
// +179/-143, under testdata/express with its provenance), the peers'
// benchmark PR, reviewed with the team its diff selects. Three seeded
// defects, on lines the commit adds, are what the scripted personas
// report; the benchmark fails unless all three are posted.
func loadExpressPR(tb testing.TB) realPR {
	tb.Helper()
	root := filepath.Join("testdata", "express")
	read := func(path string) string {
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			tb.Fatal(err)
		}
		return string(b)
	}
	p := realPR{
		number: expressPRNumber, title: "set proper charset in content-type for res.send",
		body: "This will write strings to sockets with an explicit \"utf8\" encoding (which is the default) and will override the charset in the Content-Type so it properly relfects the encoding of the response.\n\ncloses #1631\ncloses #2092",
		diff: read("pr.diff"), head: map[string]string{}, base: map[string]string{}, findings: map[string][]finding.Finding{},
	}
	for _, path := range strings.Split(strings.TrimSpace(read("tree.txt")), "\n") {
		if _, err := os.Stat(filepath.Join(root, "head", path+".txt")); err == nil {
			p.head[path] = read(filepath.Join("head", path+".txt"))
			p.base[path] = read(filepath.Join("base", path+".txt"))
			continue
		}
		p.others = append(p.others, path)
	}
	if len(p.head) != 9 || !slices.Contains(p.others, "test/res.send.js") == slices.Contains(p.others, "lib/response.js") {
		tb.Fatalf("testdata/express: %d changed files; want 9", len(p.head))
	}
	seed := func(who, path, quote, title string, sev finding.Severity) {
		line := 0
		for i, l := range strings.Split(p.head[path], "\n") {
			if strings.TrimSpace(l) == quote {
				line = i + 1
				break
			}
		}
		if line == 0 {
			tb.Fatalf("testdata/express: %s has no line %q", path, quote)
		}
		p.findings[who] = append(p.findings[who], finding.Finding{
			Title: title, Severity: sev, File: path, Line: line,
			WhyItMatters: "A response a client decodes with the wrong charset shows garbled text.",
			AutofixClass: "manual", Owner: "human", RequiresVerification: true, Confidence: 75,
			Evidence: []string{quote},
		})
	}
	seed("correctness", "lib/utils.js", `var charsetRegExp = /;\s*charset\s*=/;`,
		"Charset detection is case-sensitive: an upper-case Charset parameter gets a second one", finding.P2)
	seed("correctness", "lib/utils.js", `parts.splice(i, 1);`,
		"Only the first charset parameter is removed; a duplicated one survives", finding.P2)
	seed("correctness", "lib/response.js", `this.set('Content-Type', setCharset(type, 'utf-8'));`,
		"res.send overwrites a charset the caller set explicitly", finding.P1)
	return p
}

// expressConfigs are release 2's defaults, each lever of issue 22 alone
// on top of them, the action's defaults, and those with the team as
// issue 22's selection picks it, whole and with each lever turned back.
func expressConfigs() []costConfig {
	// The team of issue 22's selection (branch r3-team, simulated with
	// the personas input): testing stays (lib/utils.js changes 30 and
	// more executable lines whose test, test/utils.js, the PR leaves
	// alone), maintainability goes (no refactor, no new module).
	team := []string{"correctness", "testing", "security", "performance", "api-contract", "adversarial", "typescript"}
	r2 := costConfig{batching: review.ValidatePerFinding, wideContext: true, suggestions: true}
	lever := func(base costConfig, name string, f func(*costConfig)) costConfig {
		c := base
		c.name = name
		f(&c)
		return c
	}
	cheap := costConfig{defaults: true, personas: team}
	return []costConfig{
		lever(r2, "release2", func(*costConfig) {}),
		lever(r2, "r2+team", func(c *costConfig) { c.personas = team }),
		lever(r2, "r2+warmup", func(c *costConfig) { c.warmCache = true }),
		lever(r2, "r2+per-file", func(c *costConfig) { c.batching = review.ValidatePerFile }),
		lever(r2, "r2+context-by-need", func(c *costConfig) { c.wideContext = false }),
		lever(r2, "r2+no-suggestion-item", func(c *costConfig) { c.suggestions = false }),
		{name: "defaults", defaults: true},
		lever(cheap, "defaults+team", func(*costConfig) {}),
		lever(cheap, "defaults+team-warmup", func(c *costConfig) { c.noWarmup = true }),
		lever(cheap, "defaults+team-per-file", func(c *costConfig) { c.batching = review.ValidatePerFinding }),
		lever(cheap, "defaults+team-context-by-need", func(c *costConfig) { c.wideContext = true }),
		lever(cheap, "defaults+team+suggestion-item", func(c *costConfig) { c.suggestions = true }),
	}
}
