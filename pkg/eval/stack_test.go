package eval

import (
	"slices"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/persona"
)

// TestStackPersonaCases: every stack persona has at least three cases of
// its own (ground truth naming it), and selection picks it on each of them
// from the files the case changes.
func TestStackPersonaCases(t *testing.T) {
	cases, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	all, err := persona.Load()
	if err != nil {
		t.Fatal(err)
	}
	own := map[string]int{}
	for _, c := range cases {
		var stack []string
		for _, is := range c.Truth {
			if slices.Contains(persona.StackNames(), is.Persona) && !slices.Contains(stack, is.Persona) {
				stack = append(stack, is.Persona)
			}
		}
		if len(stack) == 0 {
			continue
		}
		team, err := persona.Select(all, persona.Signals{Files: c.Files}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range stack {
			own[name]++
			if !slices.ContainsFunc(team, func(s persona.Selected) bool { return s.Name == name }) {
				t.Errorf("%s: %s is not selected on the case's own files", c.Name, name)
			}
		}
	}
	for _, name := range persona.StackNames() {
		if own[name] < 3 {
			t.Errorf("%s has %d eval cases of its own; want at least 3", name, own[name])
		}
	}
}
