// Package billing computes invoice totals.
package billing

import "errors"

// Line is one invoice line.
type Line struct {
	SKU       string
	Quantity  int
	UnitCents int64
}

// ErrEmpty is returned for an invoice without lines.
var ErrEmpty = errors.New("billing: empty invoice")

// Total returns the invoice total in cents.
func Total(lines []Line) (int64, error) {
	if len(lines) == 0 {
		return 0, ErrEmpty
	}
	var sum int64
	for _, l := range lines {
		sum += int64(l.Quantity) * l.UnitCents
	}
	return sum, nil
}
