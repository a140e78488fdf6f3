package bvp

import "github.com/ordinate/ordinate/transforms/linear"

// Sentinel errors, shared with package linear (the same values, so
// errors.Is works across both). Errors returned by Fit wrap one of them;
// errors about one position of the input are *transforms.DataError naming
// the matrix ("x" or "classes"), row and column, as linear's, and errors
// about an option are *transforms.OptionError naming it.
var (
	ErrNoData        = linear.ErrNoData
	ErrTooFewClasses = linear.ErrTooFewClasses
	ErrEmptyClass    = linear.ErrEmptyClass
	ErrClassRange    = linear.ErrClassRange
	ErrLength        = linear.ErrLength
	ErrDims          = linear.ErrDims
	ErrNonFinite     = linear.ErrNonFinite
	ErrNumerical     = linear.ErrNumerical
)
