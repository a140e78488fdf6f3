package linear

import (
	"fmt"

	"github.com/ordinate/ordinate/arrowio"
)

// Sentinel errors. Errors returned by PCA and LDA (and by bvp.Fit, which
// shares them) wrap one of them (test with errors.Is); errors about one
// position of the input are *arrowio.Error (transforms.DataError) naming
// the matrix ("x" or "classes"), row and column. Each is of one of the two
// kinds hosts act on: ErrDims and ErrOption match
// transforms.ErrInvalidOption, the others transforms.ErrInvalidData.
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

// wrapf wraps sentinel with a formatted detail and the package prefix.
func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("linear: %w: "+format, append([]any{sentinel}, args...)...)
}

// inputError returns the error for the bad value at row, col of the input
// named matrix ("x"; "classes" with col < 0): an *arrowio.Error that wraps
// sentinel with a formatted detail. It has no package prefix: it reports for
// linear and bvp alike.
func inputError(matrix string, row, col int, sentinel error, format string, args ...any) *arrowio.Error {
	return arrowio.MatrixError(matrix, row, col, fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...))
}
