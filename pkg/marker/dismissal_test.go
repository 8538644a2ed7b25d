package marker

import (
	"strings"
	"testing"
)

func dismissal() Dismissal {
	return Dismissal{ID: "0123ab", Fingerprint: "0123abcdef012345", File: "a.go", Line: 6, Lines: "fedcba9876543210",
		Severity: "P1", Title: "Loop reads past n", Reviewer: "correctness", By: "maint", At: "2026-11-28T05:40:00Z",
		Reason: "intended", Head: strings.Repeat("a", 40)}
}

// TestDismissalsRoundTrip: a dismissal written by FormatMeta parses back
// as it was.
func TestDismissalsRoundTrip(t *testing.T) {
	t.Parallel()
	m := Meta{HeadSHA: strings.Repeat("a", 40), Verdict: "ready", Conclusion: "success", Dismissals: []Dismissal{dismissal()}}
	got, err := ParseMeta(FormatMeta(m))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Dismissals) != 1 || got.Dismissals[0] != dismissal() {
		t.Fatalf("dismissals %+v; want %+v", got.Dismissals, dismissal())
	}
}

// TestDismissalsRejected: a metadata line whose dismissal could not have
// been written by us does not parse (so no reader trusts any of it).
func TestDismissalsRejected(t *testing.T) {
	t.Parallel()
	for name, edit := range map[string]func(*Dismissal){
		"id not the fingerprint's": func(d *Dismissal) { d.ID = "999999" },
		"short id too short":       func(d *Dismissal) { d.ID = "0123" },
		"no reason":                func(d *Dismissal) { d.Reason = "  " },
		"login with a mention":     func(d *Dismissal) { d.By = "@team" },
		"no login":                 func(d *Dismissal) { d.By = "" },
		"head not a SHA":           func(d *Dismissal) { d.Head = "main" },
		"time not RFC 3339":        func(d *Dismissal) { d.At = "yesterday" },
		"lapsed not a SHA":         func(d *Dismissal) { d.Lapsed = "x" },
		"severity":                 func(d *Dismissal) { d.Severity = "P9" },
		"lines key":                func(d *Dismissal) { d.Lines = "nothex" },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := dismissal()
			edit(&d)
			line := encode(Meta{Version: 2, HeadSHA: strings.Repeat("a", 40), Verdict: "ready", Conclusion: "success", Dismissals: []Dismissal{d}})
			if _, err := ParseMeta(line); err == nil || !strings.Contains(err.Error(), "dismissal 1") {
				t.Fatalf("ParseMeta err = %v; want the dismissal refused", err)
			}
		})
	}
}

// TestLinesKey: moving the lines keeps the key; editing one of them (or
// its neighbours) changes it.
func TestLinesKey(t *testing.T) {
	t.Parallel()
	base := "a\nb\n\tfor i <= n {\nc\nd\n"
	moved := "new\n" + base
	edited := strings.Replace(base, "i <= n", "i <= n+0", 1)
	neighbour := strings.Replace(base, "\nc\n", "\nC\n", 1)
	k := LinesKey(base, 3)
	if k == "" || LinesKey(moved, 4) != k {
		t.Errorf("moved lines: %q vs %q; want equal", LinesKey(moved, 4), k)
	}
	if LinesKey(edited, 3) == k || LinesKey(neighbour, 3) == k {
		t.Error("an edit of the line or a neighbour kept the key")
	}
	if LinesKey(base, 99) != "" || LinesKey(base, 0) != "" {
		t.Error("a line outside the file has a key")
	}
}

// TestFormatMetaFits: a line whose free text JSON escapes six-fold ('&' in
// PR paths, '<' in model titles) is brought within MaxMetaBytes: the
// dismissals keep what decides them (fingerprint, head, line, lines, who,
// when) with shorter display text, and the least severe findings go
// (Truncated). Before, the line was several times GitHub's comment limit.
func TestFormatMetaFits(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("c", 40)
	m := Meta{Version: 2, HeadSHA: head, Verdict: "ready", Conclusion: "success"}
	for i := range MaxDismissals {
		file := strings.Repeat("&", 500)
		m.Findings = append(m.Findings, Finding{File: file, Line: i + 1, Severity: "P1", Anchor: 100, Fingerprint: strings.Repeat("b", 16), Title: strings.Repeat("<", 200), Commit: head})
		m.Dismissals = append(m.Dismissals, Dismissal{ID: "bbbbbb", Fingerprint: strings.Repeat("b", 16), File: file, Line: i + 1, Severity: "P1",
			Title: strings.Repeat("<", 200), By: "maint", At: "2026-11-28T05:40:00Z", Reason: strings.Repeat("why ", 100), Head: head, Lines: strings.Repeat("a", 16)})
	}
	line := FormatMeta(m)
	if len(line) > MaxMetaBytes {
		t.Fatalf("line is %d bytes; at most %d", len(line), MaxMetaBytes)
	}
	got, err := ParseMeta(line)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Dismissals) != MaxDismissals || !got.Truncated {
		t.Fatalf("%d dismissals, truncated %v; want every dismissal and the findings record truncated", len(got.Dismissals), got.Truncated)
	}
	for i, d := range got.Dismissals {
		w := m.Dismissals[i]
		if d.Fingerprint != w.Fingerprint || d.Head != w.Head || d.Line != w.Line || d.Lines != w.Lines || d.By != w.By || d.At != w.At || d.Reason == "" {
			t.Fatalf("dismissal %d = %+v; want what decides it kept", i, d)
		}
	}
}
