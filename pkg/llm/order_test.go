package llm_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/anchor-review/anchor-review/internal/jsonkeys"

	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/prompts"
)

// checkFindingOrder holds findings.schema.json to its purpose: the model
// writes keys in the order the schema lists them, so location, evidence and
// consequence come before the title and severity, and confidence is last.
// Properties added later (anywhere before confidence) need no test change.
func checkFindingOrder(t *testing.T, keys []string) {
	t.Helper()
	pos := func(k string) int {
		i := slices.Index(keys, k)
		if i < 0 {
			t.Fatalf("no property %q in %v", k, keys)
		}
		return i
	}
	first := []string{"file", "line", "evidence", "why_it_matters"}
	for i, k := range first {
		if pos(k) != i {
			t.Errorf("property %q at %d in %v; want %d", k, pos(k), keys, i)
		}
	}
	for _, k := range []string{"title", "severity", "autofix_class", "owner", "requires_verification", "pre_existing", "suggested_fix"} {
		if pos(k) < len(first) {
			t.Errorf("property %q comes before the evidence and consequence in %v", k, keys)
		}
	}
	if pos("confidence") != len(keys)-1 {
		t.Errorf("confidence is not the last property in %v", keys)
	}
}

// keysOf lists the keys of the JSON object raw in the order its bytes
// give them.
func keysOf(t *testing.T, raw []byte) []string {
	t.Helper()
	keys, err := jsonkeys.Of(raw)
	if err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return keys
}

// member returns raw's member at path, each step an object key.
func member(t *testing.T, raw []byte, path ...string) []byte {
	t.Helper()
	for _, k := range path {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("at %q: %v", k, err)
		}
		v, ok := m[k]
		if !ok {
			t.Fatalf("no member %q in %.200s", k, raw)
		}
		raw = v
	}
	return raw
}

// TestSchemaOrderOnTheWire checks the request body the fake model server
// received: the strict schema's finding properties, and its required list,
// are in the file's order, not a Go map's alphabetical one.
func TestSchemaOrderOnTheWire(t *testing.T) {
	t.Parallel()
	file := member(t, prompts.FindingsSchema(), "definitions", "finding", "properties")
	fileOrder := keysOf(t, file)
	checkFindingOrder(t, fileOrder)

	s := fakeServer(t)
	c, _ := newClient(t, s, nil)
	s.Script("correctness", llmtest.OK(goodAnswer("correctness")))
	if _, err := c.Complete(context.Background(), request("correctness")); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests; want 1", len(reqs))
	}
	body := reqs[0].Body
	item := member(t, body, "response_format", "json_schema", "schema", "properties", "findings", "items")
	if got := keysOf(t, member(t, item, "properties")); !slices.Equal(got, fileOrder) {
		t.Errorf("wire schema properties: got %v; want the file's %v", got, fileOrder)
	}
	var required []string
	if err := json.Unmarshal(member(t, item, "required"), &required); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(required, fileOrder) {
		t.Errorf("wire schema required: got %v; want the file's %v", required, fileOrder)
	}
	root := member(t, body, "response_format", "json_schema", "schema", "properties")
	if got, want := keysOf(t, root), []string{"reviewer", "findings", "residual_risks", "testing_gaps"}; !slices.Equal(got, want) {
		t.Errorf("wire schema root properties: got %v; want %v", got, want)
	}
}
