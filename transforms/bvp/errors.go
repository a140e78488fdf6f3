package bvp

import (
	"fmt"

	"github.com/ordinate/ordinate/transforms/linear"
)

// Sentinel errors, shared with package linear (the same values, so
// errors.Is works across both). Errors returned by Fit wrap one of them;
// errors about one position of the input are *arrowio.Error
// (transforms.DataError) naming the matrix ("x" or "classes"), row and
// column, as linear's.
var (
	ErrNoData        = linear.ErrNoData
	ErrTooFewClasses = linear.ErrTooFewClasses
	ErrEmptyClass    = linear.ErrEmptyClass
	ErrClassRange    = linear.ErrClassRange
	ErrLength        = linear.ErrLength
	ErrDims          = linear.ErrDims
	ErrNonFinite     = linear.ErrNonFinite
	ErrOption        = linear.ErrOption
	ErrNumerical     = linear.ErrNumerical
)

// wrapf wraps sentinel with a formatted detail and the package prefix.
func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("bvp: %w: "+format, append([]any{sentinel}, args...)...)
}
