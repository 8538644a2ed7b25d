package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func tree(t *testing.T, files map[string]string) string {
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

func TestRun(t *testing.T) {
	base := tree(t, map[string]string{"src/a.py": "a = 1\nb = 1\nc = 1\n"})
	head := tree(t, map[string]string{"src/a.py": "a = 1\nb = 2\nc = 1\n"})
	later := tree(t, map[string]string{"src/a.py": "a = 1\nb = 2\nc = 3\n"})
	rewritten := tree(t, map[string]string{"src/a.py": "a = 1\nb = 3\nc = 1\n"})
	common := []string{"-base", base, "-head", head, "-files", "src/a.py", "-lang", "python", "-license", "MIT",
		"-source", "github:o/r@1", "-fix", "github:o/r@2", "-title", "Set b", "-notes", "test"}

	t.Run("clean case written and checked", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "case")
		if err := run(context.Background(), append(common, "-out", out, "-clean", "-later", later)); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"diff.patch", "case.json", "pr.json", "ground_truth.jsonl"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Error(err)
			}
		}
		b, _ := os.ReadFile(filepath.Join(out, "diff.patch"))
		if !strings.HasPrefix(string(b), "diff --git a/src/a.py b/src/a.py\n") {
			t.Errorf("diff.patch:\n%s", b)
		}
	})
	t.Run("clean case whose line changed later is refused", func(t *testing.T) {
		err := run(context.Background(), append(common, "-out", filepath.Join(t.TempDir(), "case"), "-clean", "-later", rewritten))
		if err == nil || !strings.Contains(err.Error(), "src/a.py:2: b = 2") {
			t.Fatalf("err = %v, want the rewritten line named", err)
		}
	})
	t.Run("bug case asks for its labels, then checks them", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "case")
		err := run(context.Background(), append(common, "-out", out))
		if err == nil || !strings.Contains(err.Error(), "write its ground_truth.jsonl") {
			t.Fatalf("err = %v, want a request for labels", err)
		}
		label := `{"id":"c-1","file":"src/a.py","line":2,"line_end":2,"severity":"P2","category":"correctness","personas":["correctness"],"persona":"correctness","description":"b must be 1","excluded":false}` + "\n"
		if err := os.WriteFile(filepath.Join(out, "ground_truth.jsonl"), []byte(label), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := run(context.Background(), append(common, "-out", out)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("licence outside the allow-list", func(t *testing.T) {
		args := append(append([]string{}, common...), "-out", filepath.Join(t.TempDir(), "case"), "-clean")
		for i, a := range args {
			if a == "MIT" {
				args[i] = "GPL-2.0-only"
			}
		}
		if err := run(context.Background(), args); err == nil || !strings.Contains(err.Error(), "want a permissive SPDX id") {
			t.Fatalf("err = %v, want a licence error", err)
		}
	})
	t.Run("bad keep", func(t *testing.T) {
		if err := run(context.Background(), append(common, "-keep", "src/a.py:1")); err == nil || !strings.Contains(err.Error(), "FILE=1,2") {
			t.Fatalf("err = %v", err)
		}
	})
}
