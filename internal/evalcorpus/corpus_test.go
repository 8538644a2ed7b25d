package evalcorpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	// realDir is the real-bug corpus and sourcesFile its provenance list,
	// relative to this package.
	realDir     = "../../fixtures/eval/real"
	sourcesFile = "../../fixtures/eval/SOURCES.md"

	// The corpus targets of issue 17.
	minCases     = 60
	minClean     = 20
	minLanguages = 3
)

// TestCorpus checks every real case against the shared format, the corpus
// against the targets, and SOURCES.md against the cases.
func TestCorpus(t *testing.T) {
	entries, err := os.ReadDir(realDir)
	if err != nil {
		t.Fatal(err)
	}
	sources, err := os.ReadFile(sourcesFile)
	if err != nil {
		t.Fatal(err)
	}
	cases, clean, langs := 0, 0, map[string]int{}
	for _, e := range entries {
		if !e.IsDir() {
			t.Errorf("%s: only case directories belong in %s", e.Name(), realDir)
			continue
		}
		c, err := Check(filepath.Join(realDir, e.Name()))
		if err != nil {
			t.Error(err)
			continue
		}
		cases++
		langs[c.Meta.Language]++
		if c.Meta.Clean {
			clean++
		}
		if row := sourcesRow(string(sources), e.Name()); row == "" {
			t.Errorf("%s: no row in SOURCES.md", e.Name())
		} else if !strings.Contains(row, c.Meta.Source) || !strings.Contains(row, c.Meta.License) {
			t.Errorf("%s: SOURCES.md row %q does not give its source %q and licence %s", e.Name(), row, c.Meta.Source, c.Meta.License)
		}
		if !strings.Contains(string(sources), "`"+e.Name()+"`,") && !strings.Contains(string(sources), "`"+e.Name()+"`\n") {
			t.Errorf("%s: no licence notice in SOURCES.md lists it under \"Used by\"", e.Name())
		}
	}
	t.Logf("%d cases, %d clean, languages %v", cases, clean, langs)
	if cases < minCases {
		t.Errorf("%d real cases, want at least %d", cases, minCases)
	}
	if clean < minClean {
		t.Errorf("%d clean cases, want at least %d", clean, minClean)
	}
	if len(langs) < minLanguages {
		t.Errorf("%d languages %v, want at least %d", len(langs), langs, minLanguages)
	}
}

// sourcesRow returns the SOURCES.md table row of case id, or "".
func sourcesRow(sources, id string) string {
	for _, l := range strings.Split(sources, "\n") {
		if strings.HasPrefix(l, "| `"+id+"` |") {
			return l
		}
	}
	return ""
}
