package fisher

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by Distances and SparseDistances wrap one
// of them (test with errors.Is); errors about one entry of the input are
// *InputError.
var (
	ErrTooFew        = errors.New("too few points")
	ErrLength        = errors.New("length mismatch")
	ErrNonFinite     = errors.New("non-finite similarity")
	ErrAsymmetric    = errors.New("similarity matrix not symmetric")
	ErrClassRange    = errors.New("class index out of range")
	ErrTooFewClasses = errors.New("fewer than 2 classes present")
	ErrOption        = errors.New("invalid option")
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
