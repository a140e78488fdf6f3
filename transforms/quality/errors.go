package quality

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Bad data is reported as an *Error that wraps one of them
// and says where the problem is; test for the kind with errors.Is.
var (
	ErrSize          = errors.New("inconsistent sizes")
	ErrTooFewPoints  = errors.New("fewer than 4 points")
	ErrK             = errors.New("neighbourhood size out of range [1, N−2]")
	ErrNotFinite     = errors.New("value is NaN or infinite")
	ErrClass         = errors.New("negative class")
	ErrTooFewClasses = errors.New("fewer than 2 classes")
	ErrNoClasses     = errors.New("no classes given")
	ErrOption        = errors.New("unsupported option")
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
