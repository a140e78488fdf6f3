package tsne

import (
	"errors"
	"fmt"

	"github.com/ordinate/ordinate/transforms"
)

// Sentinel errors. Errors returned by the entry points wrap one of them (test
// with errors.Is); errors about one position of the input are *InputError.
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

// InputError reports a bad value at one position of the input, like
// encoding/csv's ParseError.
type InputError struct {
	Row int   // 0-based point (row of x, dist or idx)
	Col int   // 0-based column: feature, distance column or neighbour slot
	Err error // wraps one of the sentinel errors
}

func (e *InputError) Error() string {
	return fmt.Sprintf("tsne: row %d, column %d: %v", e.Row, e.Col, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// wrapf wraps sentinel with a formatted detail and the package prefix.
func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("tsne: %w: "+format, append([]any{sentinel}, args...)...)
}

// detailf wraps sentinel with a formatted detail, for InputError.Err.
func detailf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
