package oe

import (
	"fmt"

	"github.com/ordinate/ordinate/transforms"
)

// Sentinel errors; test with errors.Is.
var (
	ErrOption     = transforms.ErrInvalidOption
	ErrNoTriplets = transforms.NewSentinel(transforms.ErrInvalidData, "no triplets")
	ErrObjects    = transforms.NewSentinel(transforms.ErrInvalidData, "fewer than 3 objects")
	// ErrNumerical is a cost that is not finite: invalid data for the
	// options given (too few or contradictory triplets, say).
	ErrNumerical = transforms.NewSentinel(transforms.ErrInvalidData, "numerical failure")
)

// TripletError reports a bad triplet, like encoding/csv's ParseError.
type TripletError struct {
	Row int   // 0-based row of the triplet table
	Err error // wraps triplets.ErrTriplet
}

func (e *TripletError) Error() string { return fmt.Sprintf("oe: triplet row %d: %v", e.Row, e.Err) }

func (e *TripletError) Unwrap() error { return e.Err }

func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("oe: %w: "+format, append([]any{sentinel}, args...)...)
}
