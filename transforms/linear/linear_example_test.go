package linear_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms/linear"
)

func ExamplePCA() {
	// Points spread along the diagonal, with a little spread across it.
	x := mat.NewDense(4, 2, []float64{
		3, 3,
		-3, -3,
		1, -1,
		-1, 1,
	})
	res, err := linear.PCA(x, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for j := range 2 {
		fmt.Printf("axis %d: %.4f  variance %.4f (%.0f%%)\n",
			j+1, mat.Col(nil, j, res.Axes), res.Variances[j], 100*res.VarianceRatio[j])
	}
	// Output:
	// axis 1: [0.7071 0.7071]  variance 12.0000 (90%)
	// axis 2: [0.7071 -0.7071]  variance 1.3333 (10%)
}

func ExampleLDA() {
	// Two classes whose centres, (0, 0) and (1, 0), differ along x; y carries
	// most of the variance. S_w = [[0.16 −1.8] [−1.8 82]], so the axis is
	// S_w⁻¹(1, 0) ∝ (82, 1.8), and λ = 1.5·82/det S_w = 12.45.
	x := mat.NewDense(6, 2, []float64{
		0.0, 5,
		0.2, -5,
		-0.2, 0,
		1.0, 4,
		1.2, -4,
		0.8, 0,
	})
	classes := []int{0, 0, 0, 1, 1, 1}
	opts := linear.DefaultLDAOptions()
	opts.Dims = 2
	res, err := linear.LDA(x, classes, 2, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("axis 1: %.3f (discriminant, λ = %.1f)\n", mat.Col(nil, 0, res.Axes), res.Eigenvalues[0])
	fmt.Printf("axis 2: %.3f (filled)\n", mat.Col(nil, 1, res.Axes))
	fmt.Println(res.Warnings[0])
	// Output:
	// axis 1: [1.000 0.022] (discriminant, λ = 12.4)
	// axis 2: [-0.022 1.000] (filled)
	// 2 classes give at most 1 discriminant axis; axis 2 is the direction of largest data variance orthogonal to it
}
