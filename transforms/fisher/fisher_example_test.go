package fisher_test

import (
	"context"
	"fmt"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms/fisher"
)

func Example() {
	// Six points on a line, classes 0 0 0 1 1 1, as a linear kernel
	// s_ij = x_i·x_j (already PSD: CorrectSpectrum leaves it unchanged).
	x := []float64{0, 1, 2, 3, 4, 5}
	classes := []int{0, 0, 0, 1, 1, 1}
	n := len(x)
	s := make([]float64, n*n)
	for i := range n {
		for j := range n {
			s[i*n+j] = x[i] * x[j]
		}
	}
	neg, err := kernels.CorrectSpectrum(s, s, n, kernels.Clip)
	if err != nil {
		panic(err)
	}
	o := fisher.DefaultOptions()
	o.Sigma = 1
	d, st, err := fisher.Distances(context.Background(), s, n, classes, 2, o)
	if err != nil {
		panic(err)
	}
	fmt.Printf("negative eigenvalue share %.2f, rule %v, T = %d\n", neg, st.Rule, st.Steps)
	// Equal Euclidean steps: the Fisher metric stretches them where the
	// class posterior changes, near the boundary between x = 2 and x = 3.
	fmt.Printf("d(0,1) = %.3f\nd(1,2) = %.3f\nd(2,3) = %.3f\n", d[0*n+1], d[1*n+2], d[2*n+3])
	// Output:
	// negative eigenvalue share 0.00, rule trapezoid, T = 10
	// d(0,1) = 0.342
	// d(1,2) = 0.659
	// d(2,3) = 0.815
}
