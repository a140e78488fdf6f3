package triplets

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Split is the object-split evaluation protocol of Le & Lauw (2019): under
// each aspect only some objects are observed. Observed[t][i] reports whether
// object i is observed under aspect t. A triplet is a training triplet when
// its three objects are observed under its aspect and hidden otherwise.
type Split struct {
	Observed [][]bool
}

// SplitObjects observes, independently for each of the aspects,
// round(r·objects) objects chosen uniformly at random (math.Round: halves
// round away from zero, so r = 0.5 of 101 objects observes 51). The split
// does not look at the data: objects whose value is missing under an aspect
// can be drawn as observed and still take part in no triplet. Aspects are
// drawn in order from rng, so a seeded rng gives the same split. It panics
// unless 0 ≤ r ≤ 1 and aspects, objects ≥ 0.
func SplitObjects(rng *rand.Rand, aspects, objects int, r float64) Split {
	if !(r >= 0 && r <= 1) || aspects < 0 || objects < 0 {
		panic(fmt.Sprintf("triplets: SplitObjects(%d aspects, %d objects, r = %g)", aspects, objects, r))
	}
	m := int(math.Round(r * float64(objects)))
	perm := make([]int, objects)
	s := Split{Observed: make([][]bool, aspects)}
	for t := range s.Observed {
		for i := range perm {
			perm[i] = i
		}
		// Partial Fisher–Yates: perm[:m] is a uniform m-subset.
		for x := range m {
			y := x + rng.IntN(objects-x)
			perm[x], perm[y] = perm[y], perm[x]
		}
		obs := make([]bool, objects)
		for _, i := range perm[:m] {
			obs[i] = true
		}
		s.Observed[t] = obs
	}
	return s
}

// Partition splits t into training triplets (i, j and k all observed under
// the triplet's aspect) and hidden triplets (at least one unobserved), each
// in the order of t. The triplets must be valid for the split's numbers of
// aspects and objects (see Table.Validate); Partition panics otherwise.
func (s Split) Partition(t *Table) (train, hidden *Table) {
	n := 0
	for r := range t.I {
		if s.observed(t, r) {
			n++
		}
	}
	train, hidden = newTable(n), newTable(t.Len()-n)
	for r := range t.I {
		dst := hidden
		if s.observed(t, r) {
			dst = train
		}
		dst.Append(t.I[r], t.J[r], t.K[r], t.Aspect[r])
	}
	return train, hidden
}

// observed reports whether the three objects of row r are observed.
func (s Split) observed(t *Table, r int) bool {
	obs := s.Observed[t.Aspect[r]]
	return obs[t.I[r]] && obs[t.J[r]] && obs[t.K[r]]
}

func newTable(capacity int) *Table {
	return &Table{
		I:      make([]int32, 0, capacity),
		J:      make([]int32, 0, capacity),
		K:      make([]int32, 0, capacity),
		Aspect: make([]int32, 0, capacity),
	}
}

// Codes returns a copy of codes with every object that is unobserved under
// an aspect set to missing there. Generating from the result yields exactly
// the training triplets of Partition, in generation order, without
// enumerating the hidden ones. It panics if codes and the split differ in
// size.
func (s Split) Codes(codes Codes) Codes {
	if len(codes) != len(s.Observed) {
		panic(fmt.Sprintf("triplets: %d aspects in codes, %d in split", len(codes), len(s.Observed)))
	}
	out := make(Codes, len(codes))
	for t, row := range codes {
		obs := s.Observed[t]
		if len(row) != len(obs) {
			panic(fmt.Sprintf("triplets: aspect %d: %d objects in codes, %d in split", t, len(row), len(obs)))
		}
		c := make([]int32, len(row))
		for i, v := range row {
			if obs[i] {
				c[i] = v
			} else {
				c[i] = Missing
			}
		}
		out[t] = c
	}
	return out
}
