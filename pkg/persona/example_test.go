package persona_test

import (
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/persona"
)

func ExampleSelect() {
	all, err := persona.Load()
	if err != nil {
		panic(err)
	}
	f := &diff.File{OldPath: "api/users.go", NewPath: "api/users.go", Status: diff.Modified, Hunks: []diff.Hunk{{
		NewStart: 10, NewLines: 1,
		Lines: []diff.Line{{Kind: diff.Add, NewNo: 10, Text: `	rows, err := db.Query("SELECT * FROM users WHERE name = '" + name + "'")`}},
	}}}
	team, err := persona.Select(all, persona.Signals{Files: []*diff.File{f}, ExecutableLines: 1}, nil)
	if err != nil {
		panic(err)
	}
	for _, p := range team {
		fmt.Println(p)
	}
	// Output:
	// correctness: always on
	// security: SQL built from strings in api/users.go
	// performance: database query in api/users.go
	// go: Go code in api/users.go
}
