package main

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/prompt"
)

// notContent are prompt.Context fields that carry no repository content:
// how the prompt is shaped, not what it shows.
var notContent = map[string]string{
	"Levels":        "how much context each file gets",
	"Excerpts":      "a cache of the Heads excerpts",
	"ValidatorHead": "how much of Heads a validator request shows",
	"Fence":         "the run's random fence token",
	"Suggestions":   "whether the answer format asks for suggestions",
}

// TestDataPageListsEveryContent: docs/DATA.md names every field of the
// prompt builder's Context that carries repository content, so the page a
// security review signs off on cannot fall behind the prompts.
func TestDataPageListsEveryContent(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("docs/DATA.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	ct := reflect.TypeOf(prompt.Context{})
	for i := range ct.NumField() {
		name := ct.Field(i).Name
		_, shape := notContent[name]
		listed := strings.Contains(text, "`Context."+name+"`")
		switch {
		case shape && listed:
			t.Errorf("docs/DATA.md lists Context.%s, which this test calls no content (%s): fix one of them", name, notContent[name])
		case !shape && !listed:
			t.Errorf("prompt.Context.%s reaches the prompts but docs/DATA.md does not list it: add a row (what, read from, when, which input)", name)
		}
	}
	for name := range notContent {
		if _, ok := ct.FieldByName(name); !ok {
			t.Errorf("notContent names Context.%s, which no longer exists", name)
		}
	}
	for _, want := range []string{"https://api.openai.com/v1", "base version of the cited lines", "Nothing else", "What is stored"} {
		if !strings.Contains(text, want) {
			t.Errorf("docs/DATA.md lacks %q", want)
		}
	}
}
