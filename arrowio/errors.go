package arrowio

import (
	"errors"
	"fmt"
	"strconv"
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
	// ErrNotRegular is an output path that holds something other than a
	// regular file (a named pipe, a device, a socket, a folder): outputs
	// replace their path by renaming a temporary file over it.
	ErrNotRegular = NewSentinel(ErrInvalidOption, "not a regular file")
)

// Error is the one positional data error, in the manner of csv.ParseError:
// every ordinate package reports a bad value at a position with it. Fields
// that do not apply are left empty (File, Matrix, Column, ID) or -1 (Row).
//
// For a value read from a file, File names the file, Column the column by
// name and Row the input row: `part-1: column "x", row 4 (id e): invalid
// value: NaN`. The message clips ID and Column to 100 characters and "…"
// (ClipValue); the fields hold them whole.
//
// For a value in an in-memory matrix passed to a library function, File is
// empty and Matrix names the matrix as the function calls its argument ("x",
// "s", "dist", "idx", "classes"); Row is the 0-based row (point) and Column
// the 0-based column index in decimal, or "" for a vector indexed by row
// alone (a class per point): `row 1, column 2 of x: non-finite value: NaN`,
// `row 4 of classes: class index out of range: 2 not in [0, 2)`. MatrixError
// builds one.
type Error struct {
	File   string // the file (or part file) that holds the row; "-" for stdin
	Matrix string // instead of File: the in-memory matrix at fault
	Column string // the column at fault: a name, or for a Matrix its index
	Row    int64  // 0-based input row number; -1 when not tied to a row
	ID     string // the id value of that row, when an id column is selected
	Err    error  // one of the sentinels above, possibly wrapped with detail
}

// MatrixError returns an *Error for the value at row, col of the in-memory
// matrix named matrix; col < 0 when the matrix is a vector indexed by row
// alone (the class of each point), row < 0 when the fault is not tied to a
// row.
func MatrixError(matrix string, row, col int, err error) *Error {
	e := &Error{Matrix: matrix, Row: int64(row), Err: err}
	if row < 0 {
		e.Row = -1
	}
	if col >= 0 {
		e.Column = strconv.Itoa(col)
	}
	return e
}

// maxValueRunes is the length past which ClipValue shortens a value: an id,
// a column name or a text value quoted in an error message.
const maxValueRunes = 100

// ClipValue returns s, or when it is longer than 100 characters its first
// 100 and "…": what messages quote of values read from the data (ids,
// column names, text), so that a value of a megabyte does not fill the
// error line. Error clips ID and Column itself.
func ClipValue(s string) string {
	if len(s) <= maxValueRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == maxValueRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

func (e *Error) Error() string {
	if e.File == "" && e.Matrix != "" {
		return e.matrixError()
	}
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
		fmt.Fprintf(&b, "column %q", ClipValue(e.Column))
	}
	if e.Row >= 0 {
		if e.Column != "" {
			b.WriteString(", ")
		} else {
			sep()
		}
		fmt.Fprintf(&b, "row %d", e.Row)
		if e.ID != "" {
			fmt.Fprintf(&b, " (id %s)", ClipValue(e.ID))
		}
	}
	sep()
	b.WriteString(e.Err.Error())
	return b.String()
}

// matrixError is the message of an error in an in-memory matrix: "row i,
// column j of x: …", "row i of classes: …", "column j of x: …" or "x: …".
func (e *Error) matrixError() string {
	var b strings.Builder
	if e.Row >= 0 {
		fmt.Fprintf(&b, "row %d", e.Row)
		if e.ID != "" {
			fmt.Fprintf(&b, " (id %s)", ClipValue(e.ID))
		}
	}
	if e.Column != "" {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "column %s", ClipValue(e.Column))
	}
	if b.Len() > 0 {
		b.WriteString(" of ")
	}
	b.WriteString(e.Matrix)
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }
