package score

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by Fit wrap one of them (test with
// errors.Is); option errors wrap ErrOption as well as the specific sentinel,
// and errors about one triplet are *TripletError.
var (
	ErrNoTriplets   = errors.New("no triplets")
	ErrTriplet      = errors.New("bad triplet")
	ErrOption       = errors.New("invalid option")
	ErrDims         = errors.New("dims must be ≥ 1")
	ErrAlpha        = errors.New("alpha must be > 0")
	ErrLearningRate = errors.New("learning rate must be > 0")
	ErrKappa        = errors.New("kappa must be ≥ 0")
	ErrMu           = errors.New("mu must have Dims+1 finite entries and non-zero norm")
)

// TripletError reports a bad triplet, like encoding/csv's ParseError.
type TripletError struct {
	Row int   // 0-based row of the triplet table
	Err error // wraps ErrTriplet
}

func (e *TripletError) Error() string {
	return fmt.Sprintf("score: triplet %d: %v", e.Row, e.Err)
}

func (e *TripletError) Unwrap() error { return e.Err }

// optionErr wraps ErrOption and a specific sentinel with a detail.
func optionErr(sentinel error, format string, args ...any) error {
	return fmt.Errorf("score: %w: %w: "+format, append([]any{ErrOption, sentinel}, args...)...)
}
