package evalcorpus

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// lines builds file text from numbered lines "l1".."ln", with overrides.
func lines(n int, set map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := set[i]; ok {
			b.WriteString(s)
		} else {
			b.WriteString("l" + string(rune('0'+i/10)) + string(rune('0'+i%10)))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDiff(t *testing.T) {
	// Three separate changes in a 60-line file: line 5 replaced by two
	// lines (+1 on the new side), line 30 replaced, line 55 deleted.
	base := lines(60, nil)
	head := strings.Replace(lines(60, map[int]string{5: "five-a\nfive-b", 30: "thirty"}), "l55\n", "", 1)
	baseDir := writeTree(t, map[string]string{"pkg/a.go": base})
	headDir := writeTree(t, map[string]string{"pkg/a.go": head, "pkg/new.go": "package pkg\n"})

	tests := []struct {
		name  string
		files []string
		keep  map[string][]int
		// want: for each file, the new-side numbers of its added lines
		want    map[string][]int
		status  map[string]diff.Status
		wantErr string
	}{
		{name: "all hunks", files: []string{"pkg/a.go"},
			want: map[string][]int{"pkg/a.go": {5, 6, 31}}, status: map[string]diff.Status{"pkg/a.go": diff.Modified}},
		{name: "later hunk kept alone is renumbered as if the first were not applied", files: []string{"pkg/a.go"},
			keep: map[string][]int{"pkg/a.go": {2}}, want: map[string][]int{"pkg/a.go": {30}}},
		{name: "deletion dropped, earlier hunks keep their numbers", files: []string{"pkg/a.go"},
			keep: map[string][]int{"pkg/a.go": {1, 2}}, want: map[string][]int{"pkg/a.go": {5, 6, 31}}},
		{name: "file missing from base is added", files: []string{"pkg/new.go"},
			want: map[string][]int{"pkg/new.go": {1}}, status: map[string]diff.Status{"pkg/new.go": diff.Added}},
		{name: "hunk out of range", files: []string{"pkg/a.go"}, keep: map[string][]int{"pkg/a.go": {4}}, wantErr: "hunk 4 does not exist"},
		{name: "path escaping the tree", files: []string{"../a.go"}, wantErr: "not a relative path"},
		{name: "missing head file", files: []string{"pkg/gone.go"}, wantErr: "head version of pkg/gone.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			patch, err := Diff(context.Background(), baseDir, headDir, tt.files, tt.keep)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d, err := diff.Parse(patch)
			if err != nil {
				t.Fatalf("output does not parse: %v\n%s", err, patch)
			}
			for _, f := range d.Files {
				if !strings.Contains(string(patch), "diff --git a/"+f.Path()+" b/"+f.Path()) {
					t.Errorf("paths not repo-relative:\n%s", patch)
				}
				if want, ok := tt.status[f.Path()]; ok && f.Status != want {
					t.Errorf("%s status %s, want %s", f.Path(), f.Status, want)
				}
				var got []int
				for _, h := range f.Hunks {
					for _, l := range h.Lines {
						if l.Kind == diff.Add {
							got = append(got, l.NewNo)
						}
					}
				}
				if !slices.Equal(got, tt.want[f.Path()]) {
					t.Errorf("%s added lines %v, want %v\n%s", f.Path(), got, tt.want[f.Path()], patch)
				}
			}
		})
	}
}

func TestDiffNoChange(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.txt": "same\n"})
	if _, err := Diff(context.Background(), dir, dir, []string{"a.txt"}, nil); err == nil || !strings.Contains(err.Error(), "no change") {
		t.Fatalf("err = %v, want a no-change error", err)
	}
}

func TestSurvivors(t *testing.T) {
	patch := []byte("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,4 @@\n a = 1\n+b = 2\n+    c = 3\n d = 4\n")
	tests := []struct {
		name  string
		later string
		want  []string
	}{
		{"every added line kept, indentation changed", "a = 1\nb = 2\nc = 3\nd = 4\n", nil},
		{"one added line rewritten later", "a = 1\nb = 20\n    c = 3\n", []string{"x.py:2: b = 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Survivors(patch, writeTree(t, map[string]string{"x.py": tt.later}))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := Survivors(patch, t.TempDir()); err == nil {
		t.Error("a missing later file is not an error")
	}
}

func TestNumbered(t *testing.T) {
	patch := []byte("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -10,2 +10,2 @@\n a = 1\n-b = 1\n+b = 2\n")
	got, err := Numbered(patch)
	if err != nil {
		t.Fatal(err)
	}
	want := "=== x.py\n@@ -10,2 +10,2 @@\n   10  a = 1\n    - -b = 1\n   11 +b = 2\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
