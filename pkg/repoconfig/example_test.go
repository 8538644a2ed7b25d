package repoconfig_test

import (
	"errors"
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/repoconfig"
)

func ExampleParse() {
	f, err := repoconfig.Parse([]byte(`fail_on: P2
instructions: Money is integer cents.
custom_personas:
  - name: billing-rules
    when: {paths: ["internal/billing/**"]}
    prompt: Check the billing invariants.
`))
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Settings["fail_on"], f.Personas[0].Name, f.Personas[0].Rule)

	_, err = repoconfig.Parse([]byte("fail_on: P9\ncolour: blue\n"))
	var e *repoconfig.Error
	if errors.As(err, &e) {
		for _, p := range e.Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// P2 billing-rules paths internal/billing/** (repository configuration)
	// colour: unknown key
	// fail_on: must be one of "P0", "P1", "P2", "P3", "never"
}
