package lbfgs

import (
	"context"
	"math"
	"testing"
)

// TestLBFGSRosenbrock checks the optimiser on a function with a known
// minimum, independently of the embedding objectives.
func TestLBFGSRosenbrock(t *testing.T) {
	rosen := func(x, g []float64) float64 {
		f := 0.0
		clear(g)
		for p := 0; p+1 < len(x); p++ {
			a, b := 1-x[p], x[p+1]-x[p]*x[p]
			f += a*a + 100*b*b
			g[p] += -2*a - 400*b*x[p]
			g[p+1] += 200 * b
		}
		return f
	}
	x0 := []float64{-1.2, 1, -1.2, 1, 0.5, -0.3}
	res, err := Minimize(context.Background(), rosen, x0, 500, 10, 1e-14)
	if err != nil {
		t.Fatal(err)
	}
	for p, v := range res.X {
		if math.Abs(v-1) > 1e-5 {
			t.Errorf("x[%d] = %g, want 1 (f %g after %d iterations, %s)", p, v, res.F, res.Iterations, res.Status)
		}
	}
}
