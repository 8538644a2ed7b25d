package pricing_test

import (
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/pricing"
)

func Example() {
	// The pricing input: a gateway's own model, and the built-in table
	// for the rest.
	t, err := pricing.Parse("my-gateway-model = 0.50, 0.25, 2.00")
	if err != nil {
		panic(err)
	}
	used := pricing.Tokens{Prompt: 120_000, Cached: 90_000, Completion: 4_000}
	for _, model := range []string{"my-gateway-model", "gpt-4.1-mini", "llama3.1:8b"} {
		p, source, ok := t.Lookup(model)
		if !ok {
			fmt.Printf("%s: no price; tokens only\n", model)
			continue
		}
		fmt.Printf("%s: %s (%s)\n", model, pricing.Format(p.Cost(used)), source)
	}
	// Output:
	// my-gateway-model: $0.045 (the pricing input)
	// gpt-4.1-mini: $0.027 (the built-in list prices of 2025-08-07)
	// llama3.1:8b: no price; tokens only
}
