package action

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// yamlEntry is one input or output of action.yml.
type yamlEntry struct {
	name, description, def string
	hasDefault             bool
}

// scanActionYML reads the inputs, outputs and runs sections of action.yml
// with a line scanner: enough YAML for the flat shape an action file has.
func scanActionYML(t *testing.T, text string) (inputs, outputs []yamlEntry, runs map[string]string) {
	t.Helper()
	runs = make(map[string]string)
	var section string
	var cur *yamlEntry
	var list *[]yamlEntry
	block := -1 // indent of the key owning a folded (>-) or literal (|) value; -1 outside one
	for n, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if block >= 0 && indent > block {
			if block == 4 && cur != nil {
				cur.description += trimmed + " "
			}
			continue
		}
		block = -1
		key, value, ok := strings.Cut(trimmed, ":")
		if !ok {
			t.Fatalf("action.yml:%d: no key in %q", n+1, line)
		}
		value = unquote(strings.TrimSpace(value))
		if value == ">-" || value == ">" || value == "|" {
			block = indent
		}
		switch indent {
		case 0:
			section = key
			list = nil
			switch section {
			case "inputs":
				list = &inputs
			case "outputs":
				list = &outputs
			}
		case 2:
			if section == "runs" {
				runs[key] = value
				continue
			}
			if list != nil {
				*list = append(*list, yamlEntry{name: key})
				cur = &(*list)[len(*list)-1]
			}
		case 4:
			if list == nil || cur == nil {
				continue
			}
			switch key {
			case "description":
				if block < 0 {
					cur.description = value
				}
			case "default":
				cur.def, cur.hasDefault = value, true
			}
		}
	}
	return inputs, outputs, runs
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// TestActionYML holds action.yml to the inputs LoadConfig reads (names and
// defaults, in order) and to SPEC's outputs.
func TestActionYML(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	inputs, outputs, runs := scanActionYML(t, string(b))

	var gotIn, wantIn []string
	for _, in := range inputs {
		gotIn = append(gotIn, in.name+"="+in.def)
		if strings.TrimSpace(in.description) == "" {
			t.Errorf("action.yml input %s has no description", in.name)
		}
		if in.hasDefault && in.def == "" {
			t.Errorf("action.yml input %s has an empty default; omit it instead", in.name)
		}
	}
	for _, in := range Inputs() {
		wantIn = append(wantIn, in.Name+"="+in.Default)
	}
	if !reflect.DeepEqual(gotIn, wantIn) {
		t.Errorf("action.yml inputs (name=default)\n got %q\nwant %q", gotIn, wantIn)
	}

	var gotOut []string
	for _, out := range outputs {
		gotOut = append(gotOut, out.name)
		if strings.TrimSpace(out.description) == "" {
			t.Errorf("action.yml output %s has no description", out.name)
		}
	}
	spec := []string{"skipped", "skip-reason", "findings", "verdict", "conclusion", "comment-url", "report-path", "sarif-path", "cost"} // sarif-path: SPEC 7.4
	if !reflect.DeepEqual(gotOut, spec) || !reflect.DeepEqual(Outputs(), spec) {
		t.Errorf("outputs: action.yml %q, Outputs() %q; want %q", gotOut, Outputs(), spec)
	}

	if runs["using"] != "docker" || runs["image"] != "Dockerfile" {
		t.Errorf("action.yml runs = %v; want using: docker, image: Dockerfile", runs)
	}
}

// TestWorkflowsPinActions holds every third-party action in .github to a
// full commit SHA with a version comment: a tag can be moved, a SHA cannot.
func TestWorkflowsPinActions(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../.github/workflows/*.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflows found: %v", err)
	}
	pinned := regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			_, ref, ok := strings.Cut(line, "uses: ")
			if !ok || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			ref = strings.TrimSpace(ref)
			if strings.HasPrefix(ref, "./") {
				continue
			}
			if !pinned.MatchString(ref) {
				t.Errorf("%s:%d: uses %q; want owner/repo@<40-hex SHA> # vX.Y.Z", filepath.Base(f), n+1, ref)
			}
		}
	}
}
