package oe

import (
	"github.com/ordinate/ordinate/transforms"
)

// Sentinel errors; test with errors.Is. An option out of its range is a
// *transforms.OptionError naming it.
var (
	ErrNoTriplets = transforms.NewSentinel(transforms.ErrInvalidData, "no triplets")
	ErrObjects    = transforms.NewSentinel(transforms.ErrInvalidData, "fewer than 3 objects")
	// ErrNumerical is a cost that is not finite: invalid data for the
	// options given (too few or contradictory triplets, say).
	ErrNumerical = transforms.NewSentinel(transforms.ErrInvalidData, "numerical failure")
)

// TripletError is the positional data error of a bad triplet: Row is the
// 0-based row of the triplet table given to the method, Err wraps
// triplets.ErrTriplet.
type TripletError = transforms.DataError
