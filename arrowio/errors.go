package arrowio

import (
	"errors"
	"fmt"
	"strings"
)

// The two kinds of error every ordinate package wraps: a fault of the data
// (a bad value, a damaged file, a missing column) or of the caller's options
// (an impossible parameter, an unknown extension, a bad selection). Hosts
// decide what to do from these two alone (the CLI exits with code 2 for
// either); anything else is a runtime failure.
var (
	ErrInvalidData   = errors.New("invalid data")
	ErrInvalidOption = errors.New("invalid option")
)

// kindError is a sentinel of a package that belongs to one of the two kinds:
// its message is its own, and errors.Is also matches the kind.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// NewSentinel returns a sentinel error with message msg that also matches
// kind (ErrInvalidData or ErrInvalidOption) under errors.Is. Packages build
// their own sentinels with it so that hosts need to know only the two kinds.
func NewSentinel(kind error, msg string) error { return &kindError{msg: msg, kind: kind} }

// Sentinel errors. Data errors are returned wrapped in an *Error that says
// where the problem is; test for the kind with errors.Is.
var (
	ErrMissingColumn = NewSentinel(ErrInvalidData, "no such column")
	ErrColumnType    = NewSentinel(ErrInvalidData, "unsupported column type")
	ErrInvalidValue  = NewSentinel(ErrInvalidData, "invalid value")
	ErrNotNumeric    = NewSentinel(ErrInvalidData, "text in a numeric column")
	ErrEmpty         = NewSentinel(ErrInvalidData, "no rows")
	ErrCorrupt       = NewSentinel(ErrInvalidData, "damaged or unreadable file")
	ErrSchema        = NewSentinel(ErrInvalidData, "schemas of the input files differ")
	ErrFormat        = NewSentinel(ErrInvalidOption, "unsupported file format")
	ErrNoFiles       = NewSentinel(ErrInvalidOption, "no input files")
	ErrSelection     = NewSentinel(ErrInvalidOption, "bad column selection")
)

// Error is a data error with its position, in the manner of csv.ParseError.
// Fields that do not apply are left empty (Column, ID) or -1 (Row).
type Error struct {
	File   string // the file (or part file) that holds the row; "-" for stdin
	Column string // the column at fault
	Row    int64  // 0-based input row number; -1 when not tied to a row
	ID     string // the id value of that row, when an id column is selected
	Err    error  // one of the sentinels above, possibly wrapped with detail
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
	}
	sep := func() {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
	}
	if e.Column != "" {
		sep()
		fmt.Fprintf(&b, "column %q", e.Column)
	}
	if e.Row >= 0 {
		if e.Column != "" {
			b.WriteString(", ")
		} else {
			sep()
		}
		fmt.Fprintf(&b, "row %d", e.Row)
		if e.ID != "" {
			fmt.Fprintf(&b, " (id %s)", e.ID)
		}
	}
	sep()
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }
