package triplets

import (
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// ErrTriplet marks a malformed triplet; it is invalid data.
var ErrTriplet = table.ErrTriplet

// ErrDuplicateID marks an id that names two rows of an attribute table.
var ErrDuplicateID = transforms.NewSentinel(transforms.ErrInvalidData, "duplicate id")

// ErrNoTriplets marks an attribute table that gives no triplet at all.
var ErrNoTriplets = transforms.NewSentinel(transforms.ErrInvalidData, "no triplets")
