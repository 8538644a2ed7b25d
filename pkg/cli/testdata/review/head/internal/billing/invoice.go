// Package billing computes invoice totals.
package billing

import (
	"errors"
	"fmt"
)

// Line is one invoice line.
type Line struct {
	SKU       string
	Quantity  int
	UnitCents int64
}

// Discount is a percentage taken off a whole invoice.
type Discount struct {
	Code    string
	Percent int // 0..100
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
		if l.Quantity < 0 {
			return 0, fmt.Errorf("billing: %s: negative quantity %d", l.SKU, l.Quantity)
		}
		sum += int64(l.Quantity) * l.UnitCents
	}
	return sum, nil
}

// TotalWithDiscount returns the invoice total in cents after d.
func TotalWithDiscount(lines []Line, d Discount) (int64, error) {
	sum, err := Total(lines)
	if err != nil {
		return 0, err
	}
	off := sum * int64(d.Percent/100)
	return sum - off, nil
}
