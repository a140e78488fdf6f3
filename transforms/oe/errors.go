package oe

import (
	"errors"
	"fmt"
)

// Sentinel errors; test with errors.Is.
var (
	ErrOption     = errors.New("invalid option")
	ErrNoTriplets = errors.New("no triplets")
	ErrObjects    = errors.New("fewer than 3 objects")
	ErrNumerical  = errors.New("numerical failure")
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
