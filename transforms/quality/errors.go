package quality

import (
	"github.com/ordinate/ordinate/arrowio"
)

// Sentinel errors, each of one of the two kinds (arrowio.ErrInvalidData or
// arrowio.ErrInvalidOption) that hosts act on. Every error of Evaluate and
// EvaluateDistances wraps one of them or is a *transforms.OptionError
// naming the option (ErrK under "k"; the ordinal metrics without classes or
// coordinates under "ordinal"; a block of no points under "block"); test
// with errors.Is. A bad value at one position is reported as an
// *arrowio.Error (transforms.DataError) that names the matrix ("x", "y",
// "dist" or "classes"), row and column.
var (
	ErrSize          = arrowio.NewSentinel(arrowio.ErrInvalidData, "inconsistent sizes")
	ErrTooFewPoints  = arrowio.NewSentinel(arrowio.ErrInvalidData, "fewer than 4 points")
	ErrK             = arrowio.NewSentinel(arrowio.ErrInvalidOption, "neighbourhood size out of range [1, N−2]")
	ErrNotFinite     = arrowio.NewSentinel(arrowio.ErrInvalidData, "value is NaN or infinite")
	ErrClass         = arrowio.NewSentinel(arrowio.ErrInvalidData, "negative class")
	ErrTooFewClasses = arrowio.NewSentinel(arrowio.ErrInvalidData, "fewer than 2 classes")
	ErrNoClasses     = arrowio.NewSentinel(arrowio.ErrInvalidOption, "no classes given")
)

// ErrPartial is partial sums that do not merge: blocks of different inputs
// or options, a point in no block, or a point in two.
var ErrPartial = arrowio.NewSentinel(arrowio.ErrInvalidData, "partial sums do not merge")

// ErrNotFittedOn is an input table that does not hold the rows the
// embedding was fitted on (or placed from), by the fingerprint its
// provenance records.
var ErrNotFittedOn = arrowio.NewSentinel(arrowio.ErrInvalidData, "the table does not hold the rows the embedding was made from")

// ErrRowsDiffer is an embedding and a table whose ids (or row numbers) do
// not match one to one.
var ErrRowsDiffer = arrowio.NewSentinel(arrowio.ErrInvalidData, "the rows of the embedding and the table differ")
