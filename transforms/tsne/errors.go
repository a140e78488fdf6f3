package tsne

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by the entry points wrap one of them (test
// with errors.Is); errors about one position of the input are *InputError.
// Perplexity errors also wrap kernels.ErrPerplexity.
var (
	ErrNoData     = errors.New("no data")
	ErrLength     = errors.New("length mismatch")
	ErrNonFinite  = errors.New("non-finite value")
	ErrNegative   = errors.New("negative distance")
	ErrNeighbor   = errors.New("bad neighbour index")
	ErrPerplexity = errors.New("perplexity out of range")
	ErrMethod     = errors.New("method not available")
	ErrOption     = errors.New("invalid option")
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
