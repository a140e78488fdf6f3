package triplets

import (
	"fmt"

	"github.com/ordinate/ordinate/transforms"
)

// Codes holds categorical attributes: Codes[t][i] is the value code of object
// i under aspect t, a code ≥ 0, or −1 when the value is missing (the object
// then takes part in no triplet of aspect t). Codes only need to be equal or
// different; their magnitude carries no meaning. All aspects must have the
// same number of objects.
type Codes [][]int32

// Missing is the code of a missing value.
const Missing int32 = -1

// Objects is the number of objects (0 when there are no aspects).
func (c Codes) Objects() int {
	if len(c) == 0 {
		return 0
	}
	return len(c[0])
}

// check panics when the aspects disagree on the number of objects or a code
// is below −1: codes are built by programs, so these are programmer errors.
func (c Codes) check() {
	n := c.Objects()
	for t, row := range c {
		if len(row) != n {
			panic(fmt.Sprintf("triplets: aspect %d has %d objects, aspect 0 has %d", t, len(row), n))
		}
		for i, v := range row {
			if v < Missing {
				panic(fmt.Sprintf("triplets: code %d of object %d under aspect %d is below -1", v, i, t))
			}
		}
	}
}

// Encode codes categorical values given as values[t][i] (aspect t, object
// i): under each aspect, distinct strings get codes 0, 1, … in order of first
// appearance, and the empty string is missing (−1). Values are compared
// exactly (no trimming or case folding).
func Encode(values [][]string) Codes {
	codes := make(Codes, len(values))
	for t, row := range values {
		seen := make(map[string]int32)
		c := make([]int32, len(row))
		for i, s := range row {
			if s == "" {
				c[i] = Missing
				continue
			}
			v, ok := seen[s]
			if !ok {
				v = int32(len(seen))
				seen[s] = v
			}
			c[i] = v
		}
		codes[t] = c
	}
	codes.check()
	return codes
}

// Pairs is the convention for the pair (i, j) that shares a value: an
// option enum.
type Pairs string

const (
	// Ordered counts both orders of each pair: every i ≠ j.
	Ordered Pairs = "ordered"
	// Unordered counts each pair once, as i < j.
	Unordered Pairs = "unordered"
)

// Values lists the conventions.
func (Pairs) Values() []string { return []string{string(Ordered), string(Unordered)} }

// check panics on a value that is not a convention: Options.Validate
// refuses those, so this is a programmer error.
func (p Pairs) check() {
	if !transforms.EnumValid(p) {
		panic(fmt.Sprintf("triplets: invalid pair convention %q", string(p)))
	}
}

// Count returns the number of triplets of each aspect, in closed form: with
// M objects present under aspect t and n_v of them holding value v,
// Σ_v n_v(n_v − 1)(M − n_v) ordered triplets, and half as many unordered.
func Count(codes Codes, pairs Pairs) []int64 {
	codes.check()
	pairs.check()
	counts := make([]int64, len(codes))
	for t, row := range codes {
		sizes := make(map[int32]int64)
		var m int64
		for _, v := range row {
			if v != Missing {
				sizes[v]++
				m++
			}
		}
		var c int64
		for _, n := range sizes {
			c += n * (n - 1) * (m - n)
		}
		if pairs == Unordered {
			c /= 2 // n(n − 1) is even
		}
		counts[t] = c
	}
	return counts
}
