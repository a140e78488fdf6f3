package triplets

import "fmt"

// Table is a columnar set of triplets: triplet r is ⟨I[r], J[r], K[r]⟩ under
// aspect Aspect[r]. All four columns have the same length.
type Table struct {
	I, J, K, Aspect []int32
}

// Len is the number of triplets.
func (t *Table) Len() int { return len(t.I) }

// Append adds one triplet.
func (t *Table) Append(i, j, k, aspect int32) {
	t.I = append(t.I, i)
	t.J = append(t.J, j)
	t.K = append(t.K, k)
	t.Aspect = append(t.Aspect, aspect)
}

// Reset empties the table, keeping its storage.
func (t *Table) Reset() {
	t.I, t.J, t.K, t.Aspect = t.I[:0], t.J[:0], t.K[:0], t.Aspect[:0]
}

// Validate checks that every triplet names three distinct objects in
// [0, objects) and an aspect in [0, aspects). It returns the first bad row.
func (t *Table) Validate(objects, aspects int) (row int, err error) {
	if len(t.J) != len(t.I) || len(t.K) != len(t.I) || len(t.Aspect) != len(t.I) {
		panic("triplets: columns of different lengths")
	}
	for r := range t.I {
		i, j, k, a := t.I[r], t.J[r], t.K[r], t.Aspect[r]
		switch {
		case i < 0 || j < 0 || k < 0 || int(i) >= objects || int(j) >= objects || int(k) >= objects:
			return r, fmt.Errorf("%w: object index out of range [0, %d)", ErrTriplet, objects)
		case a < 0 || int(a) >= aspects:
			return r, fmt.Errorf("%w: aspect index %d out of range [0, %d)", ErrTriplet, a, aspects)
		case i == j || j == k || i == k:
			return r, fmt.Errorf("%w: i, j and k must be three different objects (%d, %d, %d)", ErrTriplet, i, j, k)
		}
	}
	return -1, nil
}
