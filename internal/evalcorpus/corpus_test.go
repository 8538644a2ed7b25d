package evalcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// realDir is the real-bug corpus, relative to this package.
const realDir = "../../fixtures/eval/real"

// TestCorpus checks every real case against the shared format.
func TestCorpus(t *testing.T) {
	entries, err := os.ReadDir(realDir)
	if err != nil {
		t.Fatal(err)
	}
	cases, clean, langs := 0, 0, map[string]int{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c, err := Check(filepath.Join(realDir, e.Name()))
		if err != nil {
			t.Error(err)
			continue
		}
		cases++
		langs[c.Case.Language]++
		if c.Case.Clean {
			clean++
		}
	}
	t.Logf("%d cases, %d clean, languages %v", cases, clean, langs)
}
