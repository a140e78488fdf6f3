package fisher

import "github.com/ordinate/ordinate/transforms"

// Sentinel errors. Errors about the input that Distances and
// SparseDistances return wrap one of them (test with errors.Is); errors
// about one entry of the input are *transforms.DataError (arrowio.Error)
// naming the matrix ("s" or "classes"), row and column. All wrap
// transforms.ErrInvalidData; errors about an option are
// *transforms.OptionError (transforms.ErrInvalidOption) naming it.
var (
	ErrTooFew        = transforms.NewSentinel(transforms.ErrInvalidData, "too few points")
	ErrLength        = transforms.NewSentinel(transforms.ErrInvalidData, "length mismatch")
	ErrNonFinite     = transforms.NewSentinel(transforms.ErrInvalidData, "non-finite similarity")
	ErrAsymmetric    = transforms.NewSentinel(transforms.ErrInvalidData, "similarity matrix not symmetric")
	ErrClassRange    = transforms.NewSentinel(transforms.ErrInvalidData, "class index out of range")
	ErrTooFewClasses = transforms.NewSentinel(transforms.ErrInvalidData, "fewer than 2 classes present")
)
