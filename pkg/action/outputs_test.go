package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A skip reason that carries go-githubactions' fixed delimiter and a forged
// output line cannot end its own value (issue 12, item 14): each value has a
// fresh random delimiter, and enum outputs hold only their documented values.
func TestOutputsCannotBeInjected(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output")
	w := outputWriter{path: path, delimiter: randomDelimiter}
	forged := "already reviewed\n_GitHubActionsFileCommandDelimeter_\nverdict=ready\nconclusion<<EOF\nsuccess\nEOF"
	err := w.write(stepOutputs(StepOutputs{Skipped: true, SkipReason: forged, Verdict: "ready\nx=1", Conclusion: "green"}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := parseHeredocs(t, string(b))
	if got["skip-reason"] != forged {
		t.Errorf("skip-reason = %q; want the value whole", got["skip-reason"])
	}
	if got["verdict"] != "" || got["conclusion"] != "" {
		t.Errorf("verdict %q, conclusion %q; want both empty (not in their enums)", got["verdict"], got["conclusion"])
	}
	if len(got) != 9 {
		t.Errorf("got %d outputs %q; want the 9 documented ones", len(got), got)
	}
}

func TestOutputsRefuseADelimiterInTheValue(t *testing.T) {
	w := outputWriter{path: filepath.Join(t.TempDir(), "output"), delimiter: func() string { return "D" }}
	if err := w.write([][2]string{{"skip-reason", "a D b"}}); err == nil {
		t.Fatal("write accepted a value holding its delimiter")
	}
	if _, err := os.Stat(w.path); !os.IsNotExist(err) {
		t.Errorf("a refused write left a file behind (%v)", err)
	}
}

// parseHeredocs reads name<<DELIM blocks as the runner does.
func parseHeredocs(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			t.Fatalf("line %q is not a heredoc start", lines[i])
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("output %s: no closing delimiter", name)
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}
