package tsne

import (
	"errors"
	"fmt"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// Sentinel errors. Errors returned by the entry points wrap one of them (test
// with errors.Is); errors about one position of the input are
// *transforms.DataError (arrowio.Error) naming the matrix ("x", "dist" or
// "idx"), row and column.
// Perplexity errors also wrap kernels.ErrPerplexity.
//
// Data errors wrap transforms.ErrInvalidData, option errors (perplexity,
// method, option) transforms.ErrInvalidOption; ErrNumerical is a runtime
// failure.
var (
	ErrNoData     = transforms.NewSentinel(transforms.ErrInvalidData, "no data")
	ErrLength     = transforms.NewSentinel(transforms.ErrInvalidData, "length mismatch")
	ErrNonFinite  = transforms.NewSentinel(transforms.ErrInvalidData, "non-finite value")
	ErrNegative   = transforms.NewSentinel(transforms.ErrInvalidData, "negative distance")
	ErrNeighbor   = transforms.NewSentinel(transforms.ErrInvalidData, "bad neighbour index")
	ErrPerplexity = transforms.NewSentinel(transforms.ErrInvalidOption, "perplexity out of range")
	ErrMethod     = transforms.NewSentinel(transforms.ErrInvalidOption, "method not available")
	ErrOption     = transforms.NewSentinel(transforms.ErrInvalidOption, "invalid option")
	ErrNumerical  = errors.New("numerical failure")
)

// wrapf wraps sentinel with a formatted detail and the package prefix.
func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("tsne: %w: "+format, append([]any{sentinel}, args...)...)
}

// inputError returns the error for the bad value at row, col of the input
// named matrix: a *transforms.DataError that wraps sentinel with a
// formatted detail.
func inputError(matrix string, row, col int, sentinel error, format string, args ...any) *transforms.DataError {
	return arrowio.MatrixError(matrix, row, col, fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...))
}
