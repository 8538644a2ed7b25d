package eval

import (
	"io/fs"
	"path"
	"testing"

	"github.com/xeipuuv/gojsonschema"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/prompts"
)

// The shipped cases must also hold against the pipeline's own parsers: the
// diff parses with pkg/diff and every ground-truth line is a new-side line
// there; every recording validates against prompts/findings.schema.json.
func TestShippedCasesAgainstPipeline(t *testing.T) {
	cases, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(prompts.FindingsSchema()))
	if err != nil {
		t.Fatalf("findings schema: %v", err)
	}
	for _, c := range cases {
		d, err := diff.Parse(c.Diff)
		if err != nil {
			t.Errorf("%s: diff.Parse: %v", c.Name, err)
			continue
		}
		for _, is := range c.Truth {
			ok := false
			for _, f := range d.Files {
				if f.Path() == is.File {
					_, ok = f.NewLine(is.Line)
				}
			}
			if !ok {
				t.Errorf("%s: issue %s: %s:%d is not a new-side line per pkg/diff", c.Name, is.ID, is.File, is.Line)
			}
		}
		for _, p := range c.Recorded {
			name := path.Join(DefaultRoot, c.Suite, c.Name, recDir, p+".json")
			b, err := fs.ReadFile(fixtures.FS, name)
			if err != nil {
				t.Fatal(err)
			}
			res, err := schema.Validate(gojsonschema.NewBytesLoader(b))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, e := range res.Errors() {
				t.Errorf("%s: %s", name, e)
			}
		}
	}
}
