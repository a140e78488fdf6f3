package score

import (
	"fmt"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// Sentinel errors. Errors returned by Fit wrap one of them (test with
// errors.Is); option errors wrap ErrOption as well as the specific sentinel,
// and errors about one triplet are *TripletError.
var (
	ErrNoTriplets   = transforms.NewSentinel(transforms.ErrInvalidData, "no triplets")
	ErrTriplet      = table.ErrTriplet
	ErrOption       = transforms.ErrInvalidOption
	ErrDims         = transforms.NewSentinel(transforms.ErrInvalidOption, "dims must be ≥ 1")
	ErrAlpha        = transforms.NewSentinel(transforms.ErrInvalidOption, "alpha must be > 0")
	ErrLearningRate = transforms.NewSentinel(transforms.ErrInvalidOption, "learning rate must be > 0")
	ErrKappa        = transforms.NewSentinel(transforms.ErrInvalidOption, "kappa must be ≥ 0")
	ErrMu           = transforms.NewSentinel(transforms.ErrInvalidOption, "mu must have Dims+1 finite entries and non-zero norm")
)

// TripletError is the positional data error of a bad triplet: Row is the
// 0-based row of the triplet table given to Fit, Err wraps ErrTriplet.
type TripletError = transforms.DataError

// optionErr wraps ErrOption and a specific sentinel with a detail.
func optionErr(sentinel error, format string, args ...any) error {
	return fmt.Errorf("score: %w: %w: "+format, append([]any{ErrOption, sentinel}, args...)...)
}
