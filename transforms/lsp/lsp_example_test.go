package lsp_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms/lsp"
)

// The minimum-norm linear map through two control rows of 3-D data.
func ExampleLinear() {
	x := mat.NewDense(4, 3, []float64{
		1, 0, 0,
		0, 1, 0,
		0, 0, 1,
		1, 1, 1,
	})
	p, err := lsp.Linear(x, []int{0, 1}, []float64{2, 0, 0, 3}, 2)
	if err != nil {
		panic(err)
	}
	var e mat.Dense
	e.Mul(x, p)
	for i := range 4 {
		fmt.Printf("row %d: (%g, %g)\n", i, e.At(i, 0), e.At(i, 1))
	}
	// Output:
	// row 0: (2, 0)
	// row 1: (0, 3)
	// row 2: (0, 0)
	// row 3: (2, 3)
}
