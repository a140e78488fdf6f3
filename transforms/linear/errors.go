package linear

import "github.com/ordinate/ordinate/transforms"

// Sentinel errors. Errors returned by PCA and LDA (and by bvp.Fit, which
// shares them) wrap one of them (test with errors.Is); errors about one
// position of the input are *transforms.DataError naming the matrix ("x"
// or "classes"), row and column, and errors about an option are
// *transforms.OptionError naming it ("dims"). Each is of one of the two
// kinds hosts act on: ErrDims matches transforms.ErrInvalidOption, the
// others transforms.ErrInvalidData.
var (
	ErrNoData        = transforms.NewSentinel(transforms.ErrInvalidData, "no data")
	ErrTooFewRows    = transforms.NewSentinel(transforms.ErrInvalidData, "too few rows")
	ErrDims          = transforms.NewSentinel(transforms.ErrInvalidOption, "invalid output dimension")
	ErrNonFinite     = transforms.NewSentinel(transforms.ErrInvalidData, "non-finite value")
	ErrLength        = transforms.NewSentinel(transforms.ErrInvalidData, "length mismatch")
	ErrTooFewClasses = transforms.NewSentinel(transforms.ErrInvalidData, "fewer than 2 classes")
	ErrClassRange    = transforms.NewSentinel(transforms.ErrInvalidData, "class index out of range")
	ErrEmptyClass    = transforms.NewSentinel(transforms.ErrInvalidData, "empty class")
	ErrNumerical     = transforms.NewSentinel(transforms.ErrInvalidData, "numerical failure")
)
