package linear

import (
	"fmt"

	"github.com/ordinate/ordinate/arrowio"
)

// Sentinel errors. Errors returned by PCA and LDA (and by bvp.Fit, which
// shares them) wrap one of them (test with errors.Is); errors about one
// position of the input are *InputError. Each is of one of the two kinds
// hosts act on: ErrDims and ErrOption match transforms.ErrInvalidOption,
// the others transforms.ErrInvalidData.
var (
	ErrNoData        = arrowio.NewSentinel(arrowio.ErrInvalidData, "no data")
	ErrTooFewRows    = arrowio.NewSentinel(arrowio.ErrInvalidData, "too few rows")
	ErrDims          = arrowio.NewSentinel(arrowio.ErrInvalidOption, "invalid output dimension")
	ErrNonFinite     = arrowio.NewSentinel(arrowio.ErrInvalidData, "non-finite value")
	ErrLength        = arrowio.NewSentinel(arrowio.ErrInvalidData, "length mismatch")
	ErrTooFewClasses = arrowio.NewSentinel(arrowio.ErrInvalidData, "fewer than 2 classes")
	ErrClassRange    = arrowio.NewSentinel(arrowio.ErrInvalidData, "class index out of range")
	ErrEmptyClass    = arrowio.NewSentinel(arrowio.ErrInvalidData, "empty class")
	ErrOption        = arrowio.NewSentinel(arrowio.ErrInvalidOption, "invalid option")
	ErrNumerical     = arrowio.NewSentinel(arrowio.ErrInvalidData, "numerical failure")
)

// InputError reports a bad value at one position of the input, like
// encoding/csv's ParseError.
type InputError struct {
	Row int   // 0-based row of x, or index into classes
	Col int   // 0-based column of x, or −1 when the value is a class index
	Err error // wraps one of the sentinel errors
}

// Error has no package prefix: the same type reports for linear and bvp.
func (e *InputError) Error() string {
	if e.Col < 0 {
		return fmt.Sprintf("row %d: %v", e.Row, e.Err)
	}
	return fmt.Sprintf("row %d, column %d: %v", e.Row, e.Col, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// wrapf wraps sentinel with a formatted detail and the package prefix.
func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("linear: %w: "+format, append([]any{sentinel}, args...)...)
}

// detailf wraps sentinel with a formatted detail, for InputError.Err.
func detailf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
