package kernels

import (
	"context"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Extremes are estimates of the smallest and largest eigenvalues of a
// symmetric matrix (ExtremeEigenvalues).
type Extremes struct {
	Min, Max float64
	// MinResidual and MaxResidual bound the distance from Min and Max to
	// an eigenvalue of the matrix (‖S y − θ y‖ of the Ritz pair).
	MinResidual, MaxResidual float64
	Iterations               int
}

// MaxLanczos is the most Lanczos steps ExtremeEigenvalues takes.
const MaxLanczos = 300

// ExtremeEigenvalues estimates the smallest and largest eigenvalues of the
// symmetric n×n row-major matrix s (only exact symmetry is assumed; every
// entry is read) by the Lanczos method with full reorthogonalisation, from
// a fixed pseudo-random start: one matrix-vector product (O(n²), in row
// chunks on up to threads goroutines, checking ctx) per step, and no n×n
// work memory. It stops when both Ritz values are converged to tol times
// the spectrum's largest magnitude (tol ≤ 0: 1e-10), after n steps (then
// the values are exact up to rounding), or after MaxLanczos steps.
//
// Ritz values lie inside the spectrum, so Min ≥ λ_min and Max ≤ λ_max: a
// negative Min proves the matrix indefinite. The converse is an estimate:
// an extreme eigenvalue is found fast unless it hides in a cluster, and
// λ_min ≥ Min − MinResidual holds once Min has converged to the bottom of
// the spectrum. The result does not depend on threads. The only error is
// ctx.Err(). Wrong lengths panic.
func ExtremeEigenvalues(ctx context.Context, s []float64, n int, tol float64, threads int) (Extremes, error) {
	if n < 1 || len(s) != n*n {
		panic("kernels: ExtremeEigenvalues: bad size")
	}
	if tol <= 0 {
		tol = 1e-10
	}
	steps := min(n, MaxLanczos)
	rng := rand.New(rand.NewPCG(0x6c616e63, 0x7a6f73))
	v := make([][]float64, 0, steps+1)
	q := make([]float64, n)
	for i := range q {
		q[i] = rng.Float64() - 0.5
	}
	scal(1/norm(q), q)
	v = append(v, q)
	alpha := make([]float64, 0, steps)
	beta := make([]float64, 0, steps)
	w := make([]float64, n)
	grain := rowGrain(n)
	var ex Extremes
	for j := 0; j < steps; j++ {
		vj := v[j]
		if err := ParallelFor(ctx, n, threads, grain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				w[i] = dotUnrolled(s[i*n:(i+1)*n], vj)
			}
		}); err != nil {
			return Extremes{}, err
		}
		a := dotUnrolled(w, vj)
		alpha = append(alpha, a)
		// Full reorthogonalisation, twice ("twice is enough").
		for range 2 {
			for _, vk := range v {
				axpyNeg(dotUnrolled(w, vk), vk, w)
			}
		}
		b := norm(w)
		last := j+1 == steps
		// The Ritz values (an eigendecomposition of the j×j tridiagonal
		// matrix) every 10 steps, and at the end.
		if !last && (j+1)%10 != 0 && b > 0 {
			beta = append(beta, b)
			nq := make([]float64, n)
			for i := range nq {
				nq[i] = w[i] / b
			}
			v = append(v, nq)
			continue
		}
		ex = ritz(alpha, beta, b)
		ex.Iterations = j + 1
		scale := max(math.Abs(ex.Min), math.Abs(ex.Max))
		if b <= 1e-13*max(scale, math.SmallestNonzeroFloat64) {
			// An invariant subspace: the Ritz values are eigenvalues.
			ex.MinResidual, ex.MaxResidual = 0, 0
			break
		}
		if last || (ex.MinResidual <= tol*scale && ex.MaxResidual <= tol*scale) {
			break
		}
		beta = append(beta, b)
		nq := make([]float64, n)
		for i := range nq {
			nq[i] = w[i] / b
		}
		v = append(v, nq)
		if err := ctx.Err(); err != nil {
			return Extremes{}, err
		}
	}
	return ex, nil
}

// ritz returns the extreme eigenvalues of the Lanczos tridiagonal matrix
// (diagonal alpha, off-diagonal beta) and their residual bounds
// |b · y_last| for the next off-diagonal element b.
func ritz(alpha, beta []float64, b float64) Extremes {
	m := len(alpha)
	t := mat.NewSymDense(m, nil)
	for i, a := range alpha {
		t.SetSym(i, i, a)
		if i+1 < m {
			t.SetSym(i, i+1, beta[i])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(t, true) {
		return Extremes{Min: math.NaN(), Max: math.NaN(), MinResidual: math.Inf(1), MaxResidual: math.Inf(1)}
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	return Extremes{
		Min: vals[0], Max: vals[m-1],
		MinResidual: math.Abs(b * vecs.At(m-1, 0)), MaxResidual: math.Abs(b * vecs.At(m-1, m-1)),
	}
}

func dotUnrolled(a, b []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func norm(x []float64) float64 { return math.Sqrt(dotUnrolled(x, x)) }

func scal(a float64, x []float64) {
	for i := range x {
		x[i] *= a
	}
}

// axpyNeg sets y ← y − a·x.
func axpyNeg(a float64, x, y []float64) {
	for i, v := range x {
		y[i] -= a * v
	}
}
