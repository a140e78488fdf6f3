package transforms

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/ordinate/ordinate/arrowio"
)

// The two kinds of error that every ordinate package wraps, and that hosts
// act on: bad data (exit code 2 in the CLI) and bad options (also 2).
// Anything else is a runtime failure. They are arrowio's, so that the
// readers' errors are of the same two kinds.
var (
	ErrInvalidData   = arrowio.ErrInvalidData
	ErrInvalidOption = arrowio.ErrInvalidOption
)

// DataError is the one positional data error: file, column, row and id of
// the fault, in the manner of csv.ParseError; for a matrix handed to a
// method's core, the matrix's name, row and column. It is arrowio's Error.
type DataError = arrowio.Error

// NewSentinel returns a sentinel with message msg that matches kind
// (ErrInvalidData or ErrInvalidOption) under errors.Is.
func NewSentinel(kind error, msg string) error { return arrowio.NewSentinel(kind, msg) }

// Sentinel errors of the shared stage code.
var (
	ErrTextOrder   = NewSentinel(ErrInvalidOption, "text labels need an explicit class order")
	ErrClassOrder  = NewSentinel(ErrInvalidOption, "bad class order")
	ErrFewClasses  = NewSentinel(ErrInvalidData, "too few classes")
	ErrNoLabel     = NewSentinel(ErrInvalidOption, "no label column")
	ErrModel       = NewSentinel(ErrInvalidData, "bad model file")
	ErrModelFormat = NewSentinel(ErrInvalidData, "unsupported model format version")
	ErrNoFeatures  = NewSentinel(ErrInvalidData, "no usable features")
	ErrNoTable     = NewSentinel(ErrInvalidOption, "table not given")
)

// OptionError is an error in one option of a stage. Its message names the
// option as the library declares it ("perplexity"); a host shows it in its
// own terms (the CLI says "--perplexity"). It matches ErrInvalidOption and
// whatever Err matches.
type OptionError struct {
	Option string // the declared name, e.g. "learning-rate"
	Err    error
}

func (e *OptionError) Error() string {
	return "option " + strconv.Quote(e.Option) + ": " + e.Err.Error()
}

func (e *OptionError) Unwrap() []error { return []error{ErrInvalidOption, e.Err} }

// Optionf returns an *OptionError for option with a formatted message.
// %w verbs wrap as in fmt.Errorf.
func Optionf(option, format string, a ...any) error {
	return &OptionError{Option: option, Err: fmt.Errorf(format, a...)}
}

// Errorf returns an error that wraps sentinel (and whatever %w verbs of
// format wrap), reading "sentinel: detail". Method packages use it for
// their errors that are about no one position: a matrix too small, an
// option combination the data refuses.
func Errorf(sentinel error, format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, a...)...)
}

// MatrixErrorf returns the *DataError for the bad value at row and column
// col of the matrix (or list) a method's core was given, named as the core
// calls it ("x", "dist", "labels"), wrapping sentinel with a formatted
// detail. The stage that read the matrix from a table reports the file's
// rows instead; this is for callers of the core.
func MatrixErrorf(matrix string, row, col int, sentinel error, format string, a ...any) *DataError {
	return arrowio.MatrixError(matrix, row, col, Errorf(sentinel, format, a...))
}

// IsInputError reports whether err is the caller's fault (bad data or bad
// options), as opposed to a runtime failure or a cancellation.
func IsInputError(err error) bool {
	return errors.Is(err, ErrInvalidData) || errors.Is(err, ErrInvalidOption)
}
