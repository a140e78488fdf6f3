package arrowio

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Data errors are returned wrapped in an *Error that says
// where the problem is; test for the kind with errors.Is.
var (
	ErrMissingColumn = errors.New("no such column")
	ErrColumnType    = errors.New("unsupported column type")
	ErrInvalidValue  = errors.New("invalid value")
	ErrNotNumeric    = errors.New("text in a numeric column")
	ErrEmpty         = errors.New("no rows")
	ErrCorrupt       = errors.New("damaged or unreadable file")
	ErrFormat        = errors.New("unsupported file format")
	ErrNoFiles       = errors.New("no input files")
	ErrSchema        = errors.New("schemas of the input files differ")
	ErrSelection     = errors.New("bad column selection")
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
