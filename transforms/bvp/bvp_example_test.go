package bvp_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms/bvp"
)

func ExampleFit() {
	// Three ordered classes of two points each in 3-D. The centres step
	// by (2, 0, 0) and then by (1, 1, 0); z is within-class noise only.
	// AᵀA = [[5 1 0] [1 1 0] [0 0 0]] has eigenvalues 3 ± √5, so σ₁ = 2.2882
	// and axis 1 ∝ (1, √5 − 2, 0).
	x := mat.NewDense(6, 3, []float64{
		0.0, 0.0, 1.0,
		0.2, 0.0, -1.0,
		2.0, 0.1, 0.5,
		2.2, -0.1, -0.5,
		3.0, 1.0, 2.0,
		3.2, 1.0, -2.0,
	})
	classes := []int{0, 0, 1, 1, 2, 2}
	opts := bvp.DefaultOptions() // 2 dimensions by the exact SVD solver
	res, err := bvp.Fit(x, classes, 3, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("rank %d, singular values %.4f\n", res.Rank, res.SingularValues)
	// The z coordinates of the axes are 0 up to rounding.
	for j := range 2 {
		fmt.Printf("axis %d: x %6.3f, y %6.3f\n", j+1, res.Axes.At(0, j), res.Axes.At(1, j))
	}
	y := res.Transform(nil, res.Centers)
	fmt.Printf("centres on axis 1: %.3f\n", mat.Col(nil, 0, y))
	// Output:
	// rank 2, singular values [2.2882 0.8740]
	// axis 1: x  0.973, y  0.230
	// axis 2: x -0.230, y  0.973
	// centres on axis 1: [-1.699 0.248 1.451]
}
