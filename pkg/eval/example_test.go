package eval_test

import (
	"context"
	"fmt"
	"log"

	"github.com/anchor-review/anchor-review/pkg/eval"
)

// Evaluate one persona offline against the shipped scripted cases,
// replaying their hand-written answers (which test the scorer, not a model).
func Example() {
	cases, err := eval.LoadDefault()
	if err != nil {
		log.Fatal(err)
	}
	r, err := eval.Run(context.Background(), cases, eval.Options{Personas: []string{"data-migrations"}, Answerer: eval.Recorded{}, Concurrency: 4})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answers:", r.SourceLabel())
	s := r.Personas[0]
	fmt.Printf("%s: %d case(s), tp %d, fp %d, fn %d, excluded %d\n", s.Persona, s.Cases, s.TP, s.FP, s.FN, s.Excluded)
	fmt.Printf("recall %s, precision %s, f1 %s\n", s.Recall(), s.Precision(), s.F1())
	// Output:
	// answers: scripted by hand (25 cases)
	// data-migrations: 1 case(s), tp 2, fp 0, fn 0, excluded 1
	// recall 1.000, precision 1.000, f1 1.000
}
