package fisher

import (
	"fmt"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// Sentinel errors. Errors returned by Distances and SparseDistances wrap one
// of them (test with errors.Is); errors about one entry of the input are
// *transforms.DataError (arrowio.Error) naming the matrix ("s" or
// "classes"), row and column. Each is of one of the two kinds hosts act on:
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

func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("fisher: %w: "+format, append([]any{sentinel}, args...)...)
}

// inputError returns the error for the bad value at row, col of the input
// named matrix ("s"; "classes" with col < 0): a *transforms.DataError that
// wraps err.
func inputError(matrix string, row, col int, err error) *transforms.DataError {
	return arrowio.MatrixError(matrix, row, col, err)
}
