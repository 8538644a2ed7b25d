package stats

import "math"

// Figures come from report metadata, which a person with write access can
// edit: a count may be anything up to math.MaxInt64 and a cost anything
// finite. Sums saturate rather than wrap, and a cost that would make a sum
// non-finite is refused (the report that carries it is named and left
// out), so no report can turn a total negative or the JSON unwritable.

// add returns a+b for counts (never negative), saturating at MaxInt.
func add(a, b int) int {
	if b > 0 && a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// finite reports whether a cost is an amount a sum can hold.
func finite(c float64) bool { return !math.IsNaN(c) && !math.IsInf(c, 0) && c >= 0 }
