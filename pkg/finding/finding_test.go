package finding

import (
	"fmt"
	"testing"
)

func TestPromote(t *testing.T) {
	for _, tt := range []struct{ in, want int }{{0, 25}, {25, 50}, {50, 75}, {75, 100}, {100, 100}} {
		if got := Promote(tt.in); got != tt.want {
			t.Errorf("Promote(%d) = %d; want %d", tt.in, got, tt.want)
		}
	}
	for _, a := range Anchors() {
		if Promote(a) < a {
			t.Errorf("Promote(%d) lowered the anchor", a)
		}
	}
}

func TestSeverityRank(t *testing.T) {
	order := []Severity{P0, P1, P2, P3, "P9", ""}
	want := []int{0, 1, 2, 3, 4, 4}
	for i, s := range order {
		if got := s.Rank(); got != want[i] {
			t.Errorf("%q.Rank() = %d; want %d", s, got, want[i])
		}
		if got := s.Valid(); got != (want[i] < 4) {
			t.Errorf("%q.Valid() = %v; want %v", s, got, want[i] < 4)
		}
	}
}

func TestValidAnchor(t *testing.T) {
	for c, want := range map[int]bool{0: true, 25: true, 50: true, 75: true, 100: true, 72: false, 80: false, -25: false, 125: false} {
		if got := ValidAnchor(c); got != want {
			t.Errorf("ValidAnchor(%d) = %v; want %v", c, got, want)
		}
	}
}

func ExamplePromote() {
	// Two personas agreeing on a finding at 50 lift it to the comment bar.
	fmt.Println(Promote(50), Promote(50) >= GateAnchor)
	// Output: 75 true
}

func TestFingerprint(t *testing.T) {
	base := Finding{File: "a.go", Line: 10, Title: "Nil map write in Add"}
	moved := base
	moved.Line, moved.Title = 40, "  nil MAP write, in add!"
	if Fingerprint(base) != Fingerprint(moved) {
		t.Errorf("the same problem on another line and in other case/punctuation has another fingerprint")
	}
	other := base
	other.File = "b.go"
	if Fingerprint(base) == Fingerprint(other) {
		t.Errorf("the same title in another file has the same fingerprint")
	}
	if fp := Fingerprint(base); len(fp) != 16 {
		t.Errorf("fingerprint %q; want 16 hex digits", fp)
	}
}

// TestShortIDs: six digits when unique, longer where two fingerprints
// share them, the same id for the same fingerprint, and never one id a
// prefix of another.
func TestShortIDs(t *testing.T) {
	t.Parallel()
	got := ShortIDs([]string{"abcdef0123456789", "abcdef9876543210", "1234567890abcdef", "abcdef0123456789", "abcdef0199999999"})
	want := []string{"abcdef012", "abcdef9", "123456", "abcdef012", "abcdef019"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ShortIDs = %v; want %v", got, want)
		}
	}
}
