// Package lbfgs minimises smooth functions with limited-memory BFGS: the
// two-loop recursion over the last Store (s, y) pairs and a bisection line
// search for the weak Wolfe conditions (Lewis and Overton 2013). Memory is
// O(Store·n), never a dense n×n inverse Hessian.
//
// The first step has no pair to scale it, and is tried at unit length
// unless Settings.InitialScale gives the inverse Hessian's scale γ₀ (the
// step is then −γ₀∇f). Result.Scale hands the last scale to a later run on
// a similar function, so a caller that changes its objective (a phase
// switch, a finer scale) need not restart from a unit step, whose line
// search spends an evaluation per doubling or halving.
package lbfgs

import (
	"context"
	"fmt"
	"math"
)

// gonum's optimize.LBFGS would be the natural choice, but package optimize
// imports stat/distmv and through it golang.org/x/tools, which the module's
// go.sum does not hold; this is the same method, kept small.

// Termination statuses.
const (
	StatusIterations = "iteration limit"
	StatusFunction   = "function converged"
	StatusGradient   = "gradient converged"
	StatusLineSearch = "line search failed"
	StatusConverged  = "caller's test converged"
)

const (
	armijoC1   = 1e-4 // sufficient decrease
	wolfeC2    = 0.9  // curvature condition (weak Wolfe)
	maxLSEvals = 40   // evaluations per line search
	convWindow = 10   // iterations over which the cost must decrease by Tol·|f|
	gradTol    = 1e-12
)

// Result is the best point found.
type Result struct {
	X          []float64
	F          float64
	Iterations int
	Status     string
	// Evaluations counts the calls of eval, line searches included.
	Evaluations int
	// Scale is γ = sᵀy/yᵀy of the last pair kept, the scale of the
	// inverse Hessian the next step would have started from (0 when no
	// pair was kept). It is a good Settings.InitialScale for a run on a
	// similar function, such as the same one after a change of its terms.
	Scale float64
}

// Settings configures Run.
type Settings struct {
	MaxIter int     // iteration cap
	Store   int     // (s, y) pairs kept
	Tol     float64 // stop when the cost falls by no more than Tol·|f| over 10 iterations
	// InitialScale, when > 0, is γ₀ of the first iteration's inverse
	// Hessian γ₀I, so the first step tried is −γ₀∇f. 0 tries a step of
	// unit length, whatever the units of x; on a function whose good first
	// step is far from that, the line search then spends evaluations
	// doubling or halving it (at 2 million coordinates, eight).
	InitialScale float64
	// Step, when not nil, is called after every iteration with the
	// iterations done and the cost (for progress reports).
	Step func(iter int, f float64)
	// Converged, when not nil, is called after every iteration (after
	// Step) with the iterations done, the point and the cost; true ends
	// the run with StatusConverged. It must not change x.
	Converged func(iter int, x []float64, f float64) bool
}

// Minimize minimises eval (which writes the gradient into its second argument
// and returns the cost) from x0 with limited-memory BFGS: the two-loop
// recursion over the last store (s, y) pairs and a bisection line search
// for the weak Wolfe conditions (Lewis and Overton 2013). Pairs with
// sᵀy ≤ 0 are skipped, so the direction is always a descent direction.
// It stops after maxIter iterations, when the cost falls by no more than
// tol·|f| over 10 iterations, when ‖∇f‖∞ ≤ 1e-12, or when the line search
// fails (the best point is still returned). Cancellation is checked inside
// the line search too.
func Minimize(ctx context.Context, eval func(x, g []float64) float64, x0 []float64, maxIter, store int, tol float64) (*Result, error) {
	return MinimizeWith(ctx, eval, x0, maxIter, store, tol, nil)
}

// MinimizeWith is Minimize that calls step, when not nil, after every
// iteration with the iterations done and the cost (for progress reports).
func MinimizeWith(ctx context.Context, eval func(x, g []float64) float64, x0 []float64, maxIter, store int, tol float64, step func(iter int, f float64)) (*Result, error) {
	return Run(ctx, eval, x0, Settings{MaxIter: maxIter, Store: store, Tol: tol, Step: step})
}

// Run is Minimize with Settings.
func Run(ctx context.Context, eval func(x, g []float64) float64, x0 []float64, set Settings) (*Result, error) {
	maxIter, store, tol, step := set.MaxIter, set.Store, set.Tol, set.Step
	if store < 1 || !(set.InitialScale >= 0) || math.IsInf(set.InitialScale, 1) {
		panic(fmt.Sprintf("lbfgs: Store = %d, InitialScale = %v; want ≥ 1 and finite ≥ 0", store, set.InitialScale))
	}
	m := len(x0)
	x := append([]float64(nil), x0...)
	g := make([]float64, m)
	evals := 0
	counted := func(x, g []float64) float64 {
		evals++
		return eval(x, g)
	}
	f := counted(x, g)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	S := make([][]float64, 0, store)
	Y := make([][]float64, 0, store)
	rho := make([]float64, 0, store)
	alpha := make([]float64, store)
	d := make([]float64, m)
	xn := make([]float64, m)
	gn := make([]float64, m)
	hist := []float64{f}
	res := &Result{X: x, F: f, Status: StatusIterations}
	defer func() {
		res.Evaluations = evals
		if n := len(S); n > 0 {
			res.Scale = dot(S[n-1], Y[n-1]) / dot(Y[n-1], Y[n-1])
		}
	}()
	for it := 0; it < maxIter; it++ {
		if infNorm(g) <= gradTol {
			res.Status = StatusGradient
			break
		}
		// d = −H g by the two-loop recursion.
		copy(d, g)
		for p := len(S) - 1; p >= 0; p-- {
			alpha[p] = rho[p] * dot(S[p], d)
			axpy(-alpha[p], Y[p], d)
		}
		gamma := set.InitialScale
		if gamma == 0 {
			gamma = 1 / math.Sqrt(dot(g, g)) // first step: unit length
		}
		if n := len(S); n > 0 {
			gamma = dot(S[n-1], Y[n-1]) / dot(Y[n-1], Y[n-1])
		}
		scale(gamma, d)
		for p := range S {
			beta := rho[p] * dot(Y[p], d)
			axpy(alpha[p]-beta, S[p], d)
		}
		scale(-1, d)
		g0d := dot(g, d)
		if !(g0d < 0) { // numerical loss of descent: restart with −g
			copy(d, g)
			scale(-1/math.Sqrt(dot(g, g)), d)
			g0d = dot(g, d)
			S, Y, rho = S[:0], Y[:0], rho[:0]
		}
		fn, ok := lineSearch(ctx, counted, x, d, f, g0d, xn, gn)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !ok {
			res.Status = StatusLineSearch
			break
		}
		// Store the pair, recycling the oldest storage when full.
		var s, yv []float64
		if len(S) == store {
			s, yv = S[0], Y[0]
			S, Y, rho = append(S[:0], S[1:]...), append(Y[:0], Y[1:]...), append(rho[:0], rho[1:]...)
		} else {
			s, yv = make([]float64, m), make([]float64, m)
		}
		for p := range s {
			s[p] = xn[p] - x[p]
			yv[p] = gn[p] - g[p]
		}
		if sy := dot(s, yv); sy > 0 {
			S, Y, rho = append(S, s), append(Y, yv), append(rho, 1/sy)
		}
		copy(x, xn)
		copy(g, gn)
		f = fn
		res.F, res.Iterations = f, it+1
		if step != nil {
			step(it+1, f)
		}
		if set.Converged != nil && set.Converged(it+1, x, f) {
			res.Status = StatusConverged
			break
		}
		hist = append(hist, f)
		if len(hist) > convWindow {
			old := hist[len(hist)-1-convWindow]
			if old-f <= tol*math.Abs(f) {
				res.Status = StatusFunction
				break
			}
		}
	}
	return res, nil
}

// lineSearch finds a step t along d from x satisfying the weak Wolfe
// conditions by bisection/doubling; xn and gn receive the new point and
// gradient. It reports false when no such step was found or ctx is done.
func lineSearch(ctx context.Context, eval func(x, g []float64) float64, x, d []float64, f0, g0d float64, xn, gn []float64) (float64, bool) {
	lo, hi, t := 0.0, math.Inf(1), 1.0
	for range maxLSEvals {
		if ctx.Err() != nil {
			return f0, false
		}
		for p := range xn {
			xn[p] = x[p] + t*d[p]
		}
		f := eval(xn, gn)
		switch {
		case !(f <= f0+armijoC1*t*g0d): // also rejects NaN
			hi = t
		case dot(gn, d) < wolfeC2*g0d:
			lo = t
		default:
			return f, true
		}
		if math.IsInf(hi, 1) {
			t = 2 * lo
		} else {
			t = (lo + hi) / 2
		}
	}
	// Accept a point that decreased the cost even without curvature.
	if lo > 0 {
		for p := range xn {
			xn[p] = x[p] + lo*d[p]
		}
		f := eval(xn, gn)
		return f, f < f0
	}
	return f0, false
}

func dot(a, b []float64) float64 {
	s := 0.0
	for p, v := range a {
		s += v * b[p]
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for p, v := range x {
		y[p] += a * v
	}
}

func scale(a float64, x []float64) {
	for p := range x {
		x[p] *= a
	}
}

func infNorm(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}
