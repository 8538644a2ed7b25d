package evalcorpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/anchor-review/anchor-review/pkg/eval"
)

// Check loads the case in dir as `eval` loads a real case and checks it
// with eval.Check (the rules of `eval --check`), every problem joined into
// one error; nil means the case is sound.
func Check(dir string) (eval.Case, error) {
	c, err := eval.LoadCase(os.DirFS(filepath.Dir(dir)), filepath.Base(dir), eval.SuiteReal)
	if err != nil {
		return eval.Case{}, err
	}
	var errs []error
	for _, p := range eval.Check(c) {
		errs = append(errs, errors.New(p))
	}
	if err := errors.Join(errs...); err != nil {
		return eval.Case{}, fmt.Errorf("%s: %w", c.Name, err)
	}
	return c, nil
}
