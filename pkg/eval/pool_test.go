package eval

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/anchor-review/anchor-review/fixtures"
)

// A recorded pool answer longer than bufio's default token (64 KiB) is read
// like any other, not taken for the end of the file.
func TestLoadPoolLongAnswer(t *testing.T) {
	m := fstest.MapFS{}
	for _, name := range []string{"pool.jsonl", "recorded/source.json"} {
		b, err := fs.ReadFile(fixtures.FS, "eval/validator/"+name)
		if err != nil {
			t.Fatal(err)
		}
		m["validator/"+name] = &fstest.MapFile{Data: b}
	}
	long := strings.Repeat("r", 100_000)
	m["validator/recorded/answers.jsonl"] = &fstest.MapFile{Data: []byte(
		`{"id":"v01","validated":true,"reason":"` + long + `"}` + "\n" +
			`{"id":"v02","validated":false,"reason":"short"}` + "\n")}
	p, err := LoadPool(m, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Answers) != 2 || p.Answers["v01"].Reason != long || p.Answers["v02"].Validated {
		t.Fatalf("got %d answers; want v01 (long reason) and v02 (rejected)", len(p.Answers))
	}
}
