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

// TestInitialScale checks Settings.InitialScale and Result.Scale on
// f = a/2·‖x − c‖², whose inverse Hessian is exactly I/a: every kept pair
// has sᵀy/yᵀy = 1/a, and a first step scaled by 1/a lands on c.
func TestInitialScale(t *testing.T) {
	const a = 250.0
	c := []float64{3, -1, 0.5, 2}
	quad := func(x, g []float64) float64 {
		f := 0.0
		for p, v := range x {
			g[p] = a * (v - c[p])
			f += a / 2 * (v - c[p]) * (v - c[p])
		}
		return f
	}
	x0 := make([]float64, len(c))
	for _, tc := range []struct {
		name     string
		scale    float64
		maxEvals int
	}{
		{"unit first step", 0, 40},
		{"first step scaled by the inverse Hessian", 1 / a, 2},
	} {
		res, err := Run(context.Background(), quad, x0, Settings{MaxIter: 50, Store: 5, InitialScale: tc.scale})
		if err != nil {
			t.Fatal(err)
		}
		for p, v := range res.X {
			if math.Abs(v-c[p]) > 1e-9 {
				t.Errorf("%s: x[%d] = %g, want %g", tc.name, p, v, c[p])
			}
		}
		if res.Evaluations > tc.maxEvals {
			t.Errorf("%s: %d evaluations, want at most %d", tc.name, res.Evaluations, tc.maxEvals)
		}
		if math.Abs(res.Scale*a-1) > 1e-9 {
			t.Errorf("%s: Scale = %g, want 1/a = %g", tc.name, res.Scale, 1/a)
		}
	}
	// One iteration: the scaled step lands on c, the unit one moves x₀ by
	// 1 towards c, ‖x₀ − c‖ − 1 short (the weak Wolfe conditions accept it).
	dist := math.Sqrt(dot(c, c))
	for _, tc := range []struct {
		name  string
		scale float64
		want  float64
	}{{"unit first step", 0, dist - 1}, {"scaled first step", 1 / a, 0}} {
		res, err := Run(context.Background(), quad, x0, Settings{MaxIter: 1, Store: 5, InitialScale: tc.scale})
		if err != nil {
			t.Fatal(err)
		}
		d := 0.0
		for p, v := range res.X {
			d += (v - c[p]) * (v - c[p])
		}
		if math.Abs(math.Sqrt(d)-tc.want) > 1e-9 || res.Evaluations != 2 {
			t.Errorf("%s, one iteration: ‖x − c‖ = %g after %d evaluations, want %g after 2", tc.name, math.Sqrt(d), res.Evaluations, tc.want)
		}
	}
}

// TestConverged: the caller's test sees every iteration's point and cost,
// and its true ends the run there with StatusConverged; the point returned
// is the one it saw.
func TestConverged(t *testing.T) {
	rosen := func(x, g []float64) float64 {
		a, b := 1-x[0], x[1]-x[0]*x[0]
		g[0], g[1] = -2*a-400*b*x[0], 200*b
		return a*a + 100*b*b
	}
	var seen []int
	var at []float64
	var atF float64
	res, err := Run(context.Background(), rosen, []float64{-1.2, 1}, Settings{MaxIter: 500, Store: 5, Converged: func(iter int, x []float64, f float64) bool {
		seen = append(seen, iter)
		at, atF = append(at[:0], x...), f
		return iter == 7
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusConverged || res.Iterations != 7 || len(seen) != 7 || seen[0] != 1 || seen[6] != 7 {
		t.Errorf("status %q after %d iterations, test called at %v; want %q after 7, called at 1…7", res.Status, res.Iterations, seen, StatusConverged)
	}
	if res.F != atF || res.X[0] != at[0] || res.X[1] != at[1] {
		t.Errorf("result (%v, %v) is not the point the test saw (%v, %v)", res.X, res.F, at, atF)
	}
}
