package triplets

import "errors"

// ErrTriplet marks a malformed triplet.
var ErrTriplet = errors.New("bad triplet")
