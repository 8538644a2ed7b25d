package review

import (
	"fmt"
	"slices"
	"testing"
)

func TestCollectNotes(t *testing.T) {
	t.Parallel()
	fifty := make([]string, 50)
	for i := range fifty {
		fifty[i] = "No test covers the retry path."
	}
	many := make([]string, MaxNotes+7)
	for i := range many {
		many[i] = fmt.Sprintf("gap %d", i)
	}
	tests := []struct {
		name        string
		lists       [][]string
		wantKept    []string
		wantDropped int
	}{
		{"nothing", nil, nil, 0},
		{"distinct notes keep their order", [][]string{{"a", "b"}, {"c"}}, []string{"a", "b", "c"}, 0},
		{"one note fifty times", [][]string{fifty}, []string{"No test covers the retry path."}, 49},
		{"case, spacing and trailing punctuation are one note",
			[][]string{{"No test for X."}, {"no test  for x", " NO TEST FOR X!! ", "No test for Y."}},
			[]string{"No test for X.", "No test for Y."}, 2},
		{"blank notes are not notes", [][]string{{"", "  ", "...", "real"}}, []string{"real"}, 0},
		{"capped at MaxNotes", [][]string{many}, many[:MaxNotes], 7},
		{"repeats past the cap count once each", [][]string{many, {"gap 0"}}, many[:MaxNotes], 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kept, dropped := collectNotes(tt.lists...)
			if !slices.Equal(kept, tt.wantKept) || dropped != tt.wantDropped {
				t.Errorf("collectNotes = %q, %d; want %q, %d", kept, dropped, tt.wantKept, tt.wantDropped)
			}
		})
	}
}
