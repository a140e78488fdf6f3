package nerv

import (
	"context"
	"fmt"
)

func ExampleCutoffStress_Stress() {
	// The three points of ExampleBH_Stress, and a fourth far away: the
	// cut-off drops it from the other rows' sums (its share of their
	// normalisers is far below tol), and sums its own row over the points
	// within its reach, here all three.
	in := &SparseInput{
		N: 4, K: 2,
		Idx:  []int32{1, 2, 0, 2, 1, 0, 2, 1},
		Beta: []float64{0.8, 0.2, 0.5, 0.5, 0.8, 0.2, 0.6, 0.4},
		C:    2, Soft: []float64{1, 0, 1, 0, 0, 1, 0, 1},
		Alpha: 1, Gamma: 0.5,
		Scale: 1,
	}
	y := []float64{0, 1, 2, 40}
	var co CutoffStress // reuse across calls: it keeps the grid and scratch space
	cut, err := co.Stress(context.Background(), nil, y, 1, in, DefaultCutoffTol, DefaultBHTol, 1)
	if err != nil {
		panic(err)
	}
	var bh BH
	full, err := bh.Stress(context.Background(), nil, y, 1, in, 0, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("cut-off %.6f, every pair %.6f\n", cut, full)
	// Output:
	// cut-off 0.123870, every pair 0.123870
}
