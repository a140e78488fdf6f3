package score

import (
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// Sentinel errors. Errors returned by Fit wrap one of them or are
// *transforms.OptionError (an option out of its range names it; a bad Mu
// wraps ErrMu too); errors about one triplet are *TripletError. Test with
// errors.Is.
var (
	ErrNoTriplets = transforms.NewSentinel(transforms.ErrInvalidData, "no triplets")
	ErrTriplet    = table.ErrTriplet
	ErrMu         = transforms.NewSentinel(transforms.ErrInvalidOption, "mu must have Dims+1 finite entries and non-zero norm")
)

// TripletError is the positional data error of a bad triplet: Row is the
// 0-based row of the triplet table given to Fit, Err wraps ErrTriplet.
type TripletError = transforms.DataError
