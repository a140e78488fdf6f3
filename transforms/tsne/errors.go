package tsne

import (
	"errors"

	"github.com/ordinate/ordinate/transforms"
)

// Sentinel errors. Errors returned by the entry points wrap one of them (test
// with errors.Is); errors about one position of the input are
// *transforms.DataError (arrowio.Error) naming the matrix ("x", "dist" or
// "idx"), row and column.
//
// Data errors wrap transforms.ErrInvalidData. Errors about an option are
// *transforms.OptionError naming it ("perplexity", "method", "dims", …);
// those about the perplexity also wrap ErrPerplexity (and, where they come
// from calibration, kernels.ErrPerplexity), those about the method
// ErrMethod. ErrNumerical is a runtime failure.
var (
	ErrNoData     = transforms.NewSentinel(transforms.ErrInvalidData, "no data")
	ErrLength     = transforms.NewSentinel(transforms.ErrInvalidData, "length mismatch")
	ErrNonFinite  = transforms.NewSentinel(transforms.ErrInvalidData, "non-finite value")
	ErrNegative   = transforms.NewSentinel(transforms.ErrInvalidData, "negative distance")
	ErrNeighbor   = transforms.NewSentinel(transforms.ErrInvalidData, "bad neighbour index")
	ErrPerplexity = transforms.NewSentinel(transforms.ErrInvalidOption, "perplexity out of range")
	ErrMethod     = transforms.NewSentinel(transforms.ErrInvalidOption, "method not available")
	ErrNumerical  = errors.New("numerical failure")
)
