package bvp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/linear"
)

// rgdAxes runs the paper's deflation: Algorithm 1 finds the best viewpoint
// v*, the centres are projected onto v*^⊥, and this repeats from D down to t
// dimensions (1 ≤ t ≤ rank of A). It returns an orthonormal D×t basis of the
// retained subspace rotated to the right singular vectors of A restricted to
// it, the number of updates of each step, and a warning ("" if none) naming
// the steps that reached max-iter.
func rgdAxes(centers *mat.Dense, t int, o Options, rng *rand.Rand) (*mat.Dense, []int, string, error) {
	_, D := centers.Dims()
	basis := identity(D)            // D×m: current coordinates → input coordinates
	cur := mat.DenseCopyOf(centers) // k×m: centres in the current coordinates
	iterations := make([]int, 0, D-t)
	var stalled []string
	for m := D; m > t; m-- {
		a := differences(cur)
		v, it, ok := minimizeSphere(a, randomUnit(rng, m), o.MaxIter, o.Tol, o.Step0)
		iterations = append(iterations, it)
		if !ok {
			stalled = append(stalled, fmt.Sprint(len(iterations)))
		}
		p := complementBasis(v) // m×(m−1)
		var nb, nc mat.Dense
		nb.Mul(basis, p)
		nc.Mul(cur, p)
		basis, cur = &nb, &nc
	}

	// Rotate within the retained subspace to the right singular vectors of
	// A restricted to it; t ≤ rank(A) ≤ k−1 makes the thin V t×t.
	var svd mat.SVD
	if !svd.Factorize(differences(cur), mat.SVDThinV) {
		return nil, nil, "", transforms.Errorf(ErrNumerical, "SVD of the retained centre differences did not converge")
	}
	var v mat.Dense
	svd.VTo(&v)
	var axes mat.Dense
	axes.Mul(basis, &v)

	var warn string
	if len(stalled) > 0 {
		warn = fmt.Sprintf("RGD reached max-iter = %d without meeting the angle tolerance %g in deflation step%s %s of %d; the axes may be inaccurate (the SVD solver is exact)",
			o.MaxIter, o.Tol, linear.Plural(len(stalled)), strings.Join(stalled, ", "), len(iterations))
	}
	return &axes, iterations, warn, nil
}

// minimizeSphere runs Algorithm 1 on F(v) = ‖Av‖² from the unit vector v0
// and returns the final point, the number of updates made and whether the
// angle criterion was met before maxIter updates.
func minimizeSphere(a *mat.Dense, v0 []float64, maxIter int, tol, step0 float64) ([]float64, int, bool) {
	m := len(v0)
	v := append([]float64(nil), v0...)
	g, e := make([]float64, m), make([]float64, m) // Riemannian and Euclidean gradients at v
	gradients(g, e, a, v)
	vPrev := make([]float64, m)
	ePrev := make([]float64, m)
	next := make([]float64, m)
	for j := range maxIter {
		gamma := step0
		if j > 0 {
			// Eq. 7 (Barzilai–Borwein) with ∇F of Eq. 5; γ₀ when it is
			// undefined or zero.
			var sy, yy float64
			for i := range m {
				s, y := v[i]-vPrev[i], e[i]-ePrev[i]
				sy += s * y
				yy += y * y
			}
			if bb := math.Abs(sy) / yy; yy > 0 && bb > 0 && !math.IsInf(bb, 0) && !math.IsNaN(bb) {
				gamma = bb
			}
		}
		// Retraction (Eq. 8) of η = −γ g.
		var norm float64
		for i := range m {
			next[i] = v[i] - gamma*g[i]
			norm += next[i] * next[i]
		}
		norm = math.Sqrt(norm)
		var chord float64
		for i := range m {
			next[i] /= norm
			dv := next[i] - v[i]
			chord += dv * dv
		}
		// Angle between v_{j+1} and v_j, = acos(v_{j+1}ᵀv_j), computed stably.
		angle := 2 * math.Asin(math.Min(1, math.Sqrt(chord)/2))
		copy(vPrev, v)
		copy(ePrev, e)
		copy(v, next)
		if angle < tol {
			return v, j + 1, true
		}
		gradients(g, e, a, v)
	}
	return v, maxIter, false
}

// objective returns F(v) = ‖Av‖² (Eq. 2).
func objective(a *mat.Dense, v []float64) float64 {
	var av mat.VecDense
	av.MulVec(a, mat.NewVecDense(len(v), v))
	return mat.Dot(&av, &av)
}

// gradients stores in e the Euclidean gradient of F at the unit vector v,
// 2AᵀAv (Eq. 5), and in g its projection onto the tangent space of the
// sphere, the Riemannian gradient 2(AᵀAv − (vᵀAᵀAv)v).
func gradients(g, e []float64, a *mat.Dense, v []float64) {
	m := len(v)
	var av, atav mat.VecDense
	av.MulVec(a, mat.NewVecDense(m, v))
	atav.MulVec(a.T(), &av)
	f := mat.Dot(&av, &av)
	for i := range m {
		e[i] = 2 * atav.AtVec(i)
		g[i] = e[i] - 2*f*v[i]
	}
}

// complementBasis returns an m×(m−1) orthonormal basis of v^⊥ for the unit
// vector v: the last m−1 columns of the Householder reflection that maps e₁
// to ±v.
func complementBasis(v []float64) *mat.Dense {
	m := len(v)
	w := append([]float64(nil), v...)
	if w[0] >= 0 {
		w[0]++
	} else {
		w[0]--
	}
	scale := 2 / mat.Dot(mat.NewVecDense(m, w), mat.NewVecDense(m, w)) // ‖w‖² = 2(1+|v₁|) ≥ 2
	p := mat.NewDense(m, m-1, nil)
	for i := range m {
		for j := 1; j < m; j++ {
			h := -scale * w[i] * w[j]
			if i == j {
				h++
			}
			p.Set(i, j-1, h)
		}
	}
	return p
}

// randomUnit draws a uniformly distributed point of the unit sphere in ℝᵐ.
func randomUnit(rng *rand.Rand, m int) []float64 {
	v := make([]float64, m)
	for {
		var norm float64
		for i := range v {
			v[i] = rng.NormFloat64()
			norm += v[i] * v[i]
		}
		if norm > 0 {
			norm = math.Sqrt(norm)
			for i := range v {
				v[i] /= norm
			}
			return v
		}
	}
}

func identity(n int) *mat.Dense {
	id := mat.NewDense(n, n, nil)
	for i := range n {
		id.Set(i, i, 1)
	}
	return id
}
