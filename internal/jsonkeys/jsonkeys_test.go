package jsonkeys

import (
	"slices"
	"testing"
)

func TestOf(t *testing.T) {
	got, err := Of([]byte(`{"z": 1, "a": {"y": [1, {"q": 2}], "b": 0}, "m": "s"}`))
	if err != nil || !slices.Equal(got, []string{"z", "a", "m"}) {
		t.Errorf("Of = %v, %v; want [z a m]", got, err)
	}
	for _, bad := range []string{`[1]`, `{"a": }`, ``} {
		if _, err := Of([]byte(bad)); err == nil {
			t.Errorf("Of(%q): want an error", bad)
		}
	}
}
