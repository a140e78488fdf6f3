package fisher

import (
	"fmt"

	"github.com/ordinate/ordinate/transforms"
)

// Sentinel errors. Errors returned by Distances and SparseDistances wrap one
// of them (test with errors.Is); errors about one entry of the input are
// *InputError. Each is of one of the two kinds hosts act on:
// transforms.ErrInvalidData or transforms.ErrInvalidOption.
var (
	ErrTooFew        = transforms.NewSentinel(transforms.ErrInvalidData, "too few points")
	ErrLength        = transforms.NewSentinel(transforms.ErrInvalidData, "length mismatch")
	ErrNonFinite     = transforms.NewSentinel(transforms.ErrInvalidData, "non-finite similarity")
	ErrAsymmetric    = transforms.NewSentinel(transforms.ErrInvalidData, "similarity matrix not symmetric")
	ErrClassRange    = transforms.NewSentinel(transforms.ErrInvalidData, "class index out of range")
	ErrTooFewClasses = transforms.NewSentinel(transforms.ErrInvalidData, "fewer than 2 classes present")
	ErrOption        = transforms.NewSentinel(transforms.ErrInvalidOption, "invalid option")
)

// InputError reports a bad value at one position of the input, like
// encoding/csv's ParseError.
type InputError struct {
	Row int   // 0-based row of s, or index into classes
	Col int   // 0-based column of s, or −1 when the value is a class index
	Err error // wraps one of the sentinel errors
}

func (e *InputError) Error() string {
	if e.Col < 0 {
		return fmt.Sprintf("fisher: row %d: %v", e.Row, e.Err)
	}
	return fmt.Sprintf("fisher: row %d, column %d: %v", e.Row, e.Col, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("fisher: %w: "+format, append([]any{sentinel}, args...)...)
}
