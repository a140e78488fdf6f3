package ckpca_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms/ckpca"
)

// A linear-kernel cKPCA in feature space (F = X): rows 0 and 3 are placed by
// hand, and the fit passes through them exactly.
func ExampleFit() {
	x := mat.NewDense(6, 3, []float64{
		1.0, 0.2, 0.1,
		-0.8, 0.1, -0.3,
		0.3, -0.9, 0.2,
		-0.4, 0.7, 0.5,
		0.6, 0.4, -0.6,
		-0.7, -0.5, 0.1,
	})
	ctrl := ckpca.Control{Rows: []int{0, 3}, Targets: []float64{0.5, 0.0, -0.2, 0.3}}
	r, err := ckpca.Fit(x, ctrl, ckpca.DefaultOptions())
	if err != nil {
		panic(err)
	}
	for _, row := range ctrl.Rows {
		fmt.Printf("row %d at (%.3f, %.3f)\n", row, r.Embedding.At(row, 0), r.Embedding.At(row, 1))
	}
	fmt.Printf("unit norm: %.6f\n", mat.Norm(r.U.ColView(0), 2))
	// Output:
	// row 0 at (0.500, 0.000)
	// row 3 at (-0.200, 0.300)
	// unit norm: 1.000000
}
