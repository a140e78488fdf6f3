package quality

import (
	"fmt"
	"strings"

	"github.com/ordinate/ordinate/arrowio"
)

// Sentinel errors, each of one of the two kinds (arrowio.ErrInvalidData or
// arrowio.ErrInvalidOption) that hosts act on. Bad data is reported as an *Error that wraps one of them
// and says where the problem is; test for the kind with errors.Is.
var (
	ErrSize          = arrowio.NewSentinel(arrowio.ErrInvalidData, "inconsistent sizes")
	ErrTooFewPoints  = arrowio.NewSentinel(arrowio.ErrInvalidData, "fewer than 4 points")
	ErrK             = arrowio.NewSentinel(arrowio.ErrInvalidOption, "neighbourhood size out of range [1, N−2]")
	ErrNotFinite     = arrowio.NewSentinel(arrowio.ErrInvalidData, "value is NaN or infinite")
	ErrClass         = arrowio.NewSentinel(arrowio.ErrInvalidData, "negative class")
	ErrTooFewClasses = arrowio.NewSentinel(arrowio.ErrInvalidData, "fewer than 2 classes")
	ErrNoClasses     = arrowio.NewSentinel(arrowio.ErrInvalidOption, "no classes given")
	ErrOption        = arrowio.NewSentinel(arrowio.ErrInvalidOption, "unsupported option")
)

// Error is a data error with its position, in the manner of csv.ParseError.
type Error struct {
	Input string // "x", "y", "classes", "distances" or "options"
	Row   int    // 0-based point (row) index; -1 when not tied to a row
	Col   int    // 0-based column; -1 when not tied to a column
	Err   error  // one of the sentinels above, possibly wrapped with detail
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("quality: ")
	b.WriteString(e.Input)
	if e.Row >= 0 {
		fmt.Fprintf(&b, ": row %d", e.Row)
		if e.Col >= 0 {
			fmt.Fprintf(&b, ", column %d", e.Col)
		}
	} else if e.Col >= 0 {
		fmt.Fprintf(&b, ": column %d", e.Col)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

func dataError(input string, row, col int, err error, format string, args ...any) *Error {
	if format != "" {
		err = fmt.Errorf("%w: "+format, append([]any{err}, args...)...)
	}
	return &Error{Input: input, Row: row, Col: col, Err: err}
}
