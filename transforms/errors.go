package transforms

import "errors"

// Sentinel errors of the shared stage code.
var (
	ErrTextOrder   = errors.New("text labels need an explicit class order")
	ErrClassOrder  = errors.New("bad class order")
	ErrFewClasses  = errors.New("too few classes")
	ErrNoLabel     = errors.New("no label column")
	ErrModel       = errors.New("bad model file")
	ErrModelFormat = errors.New("unsupported model format version")
	ErrNoFeatures  = errors.New("no usable features")
	ErrOption      = errors.New("bad option")
)
