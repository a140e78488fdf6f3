package ckpca

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// ErrSecular reports invalid input to the sphere-constrained quadratic
// solver (NaN or Inf in C, b or t, or t < 0) or a failure to solve it.
// Errors returned by SphereQuadratic wrap it; test with errors.Is.
var ErrSecular = errors.New("ckpca: sphere quadratic")

// SphereQuadratic solves
//
//	maximise  zᵀCz − 2bᵀz  subject to  ‖z‖ = t
//
// for a fixed symmetric k×k matrix C and any number of (b, t) pairs, the
// subproblem of constrained kernel PCA (Paurat, Oglic & Gärtner) and of
// Gander, Golub & von Matt (1989). It holds the eigendecomposition
// C = QΛQᵀ in factored form (kernels.SymEigen: Q = H·V, the tridiagonal
// reduction's reflectors times the tridiagonal's eigenvectors), so each
// solve costs O(k²) and the factorisation skips EigenSym's 2k³-flop
// product H·V, which a solve never needs: it only multiplies Qᵀb and Qy.
//
// Conventions: eigenvalues are named λ₁ ≥ λ₂ ≥ … ≥ λ_k, q₁ is the unit
// eigenvector of λ₁ as kernels.SymEigen gives it, with its sign fixed so that
// its entry of largest magnitude (the first such on ties) is positive.
//
// Update gives the problem of C + ρ·v·vᵀ from this one in O(k²) time and
// O(k) memory (kernels.UpdateEigen), so that a chain of low-rank changes
// never factorises C again.
//
// A SphereQuadratic is read-only after construction and safe for concurrent
// use.
type SphereQuadratic struct {
	k    int
	vals []float64  // ascending, as kernels.EigenSym returns them
	eig  eigenBasis // Q, its columns in the order of vals
	norm float64    // max |λ|
}

// eigenBasis is the eigenvector basis of C: a factored EigenSym or a chain
// of rank-one updates.
type eigenBasis interface {
	kernels.Basis
	Vector(dst []float64, k int)
	NegateVector(k int)
}

// NewSphereQuadratic factorises the symmetric matrix c. Only c's stored
// triangle is read (gonum's convention). A NaN or Inf entry gives an error
// wrapping ErrSecular; a failed eigendecomposition one wrapping both
// ErrSecular and kernels.ErrEigen.
func NewSphereQuadratic(c *mat.SymDense) (*SphereQuadratic, error) {
	k := c.SymmetricDim()
	for i := range k {
		for j := i; j < k; j++ {
			if v := c.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, transforms.Errorf(ErrSecular, "C[%d,%d] = %v is not finite", i, j, v)
			}
		}
	}
	s := &SphereQuadratic{k: k, vals: make([]float64, k)}
	if k == 0 {
		return s, nil
	}
	a := make([]float64, k*k)
	for i := range k {
		for j := 0; j <= i; j++ {
			a[i*k+j] = c.At(i, j)
		}
	}
	eig, err := kernels.NewSymEigen(context.Background(), a, k, 0)
	if err != nil {
		return nil, transforms.Errorf(ErrSecular, "%w", err)
	}
	return newSphere(eig.Values, eig), nil
}

// newSphere returns the problem of C = Q·diag(vals)·Qᵀ (vals ascending),
// taking eig (whose top vector's sign it fixes).
func newSphere(vals []float64, eig eigenBasis) *SphereQuadratic {
	k := len(vals)
	s := &SphereQuadratic{k: k, vals: vals, eig: eig}
	if k == 0 {
		return s
	}
	for _, l := range s.vals {
		s.norm = max(s.norm, math.Abs(l))
	}
	// Fix the sign of q₁ so that the hard case (and b = 0) is deterministic.
	top := k - 1
	q1 := make([]float64, k)
	eig.Vector(q1, top)
	best, arg := 0.0, 0
	for i, v := range q1 {
		if math.Abs(v) > best {
			best, arg = math.Abs(v), i
		}
	}
	if q1[arg] < 0 {
		eig.NegateVector(top)
	}
	return s
}

// Update returns the problem of C + ρ·v·vᵀ (v of length k). Its
// eigendecomposition is this one's updated (kernels.UpdateEigen: deflation,
// the secular equation, the Löwner vector), never recomputed, and this
// problem is left unchanged. NaN or Inf in ρ or v give an error wrapping
// ErrSecular; a wrong length panics.
func (s *SphereQuadratic) Update(rho float64, v []float64) (*SphereQuadratic, error) {
	return s.updateLowRank(context.Background(), []float64{rho}, [][]float64{v})
}

// updateLowRank is Update for C + Σ ρ_l·v_l·v_lᵀ, one rank-one update per
// term (kernels.UpdateEigenLowRank).
func (s *SphereQuadratic) updateLowRank(ctx context.Context, rhos []float64, vs [][]float64) (*SphereQuadratic, error) {
	for _, v := range vs {
		if len(v) != s.k {
			panic("ckpca: SphereQuadratic.Update: bad length")
		}
	}
	if s.k == 0 {
		return s, nil
	}
	r, err := kernels.UpdateEigenLowRank(ctx, s.eig, s.vals, rhos, vs, 0)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, transforms.Errorf(ErrSecular, "%w", err)
	}
	return newSphere(r.Values, r), nil
}

// Dim returns k, the order of C.
func (s *SphereQuadratic) Dim() int { return s.k }

// MaxEigenvalue returns λ₁, the largest eigenvalue of C (−Inf when k = 0).
// Maximize returns lambda = λ₁ exactly in the hard case.
func (s *SphereQuadratic) MaxEigenvalue() float64 {
	if s.k == 0 {
		return math.Inf(-1)
	}
	return s.vals[s.k-1]
}

// Maximize writes into dst (length k) the global maximiser z of
// zᵀCz − 2bᵀz subject to ‖z‖ = t, and returns the objective value
// zᵀCz − 2bᵀz and the Lagrange multiplier lambda.
//
// Sign convention: lambda is the μ of the Lagrangian
// zᵀCz − 2bᵀz − μ(zᵀz − t²), so (C − μI) z = b, equivalently
// (μI − C) z = −b, and at the global maximum μ ≥ λ₁ (the largest eigenvalue
// of C). For b with a component along the top eigenspace, μ > λ₁ is the
// unique root on (λ₁, ∞) of the secular equation
// Σ_i (q_iᵀb)² / (λ_i − μ)² = t², and z = (C − μI)⁻¹ b.
//
// Hard case: when b is (numerically) orthogonal to the top eigenspace and
// the part z_r = Σ_{λ_i<λ₁} q_i (q_iᵀb)/(λ_i − λ₁) has ‖z_r‖ ≤ t, then
// μ = λ₁ and z = z_r + τ q₁ with τ = √(t² − ‖z_r‖²) ≥ 0 (q₁ as in the type's
// conventions; −τ would be equally optimal). b = 0 is a hard case: z = t q₁.
//
// t = 0 gives z = 0 and value 0, with lambda = λ₁ if b = 0 and +Inf
// otherwise (the limit of μ as t → 0).
//
// dst may alias b. Wrong lengths panic. NaN or Inf in b or t, or t < 0,
// give an error wrapping ErrSecular.
func (s *SphereQuadratic) Maximize(dst, b []float64, t float64) (lambda, value float64, err error) {
	k := s.k
	if len(dst) != k || len(b) != k {
		panic("ckpca: SphereQuadratic.Maximize: bad length")
	}
	if math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
		return 0, 0, transforms.Errorf(ErrSecular, "radius t = %v must be finite and ≥ 0", t)
	}
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, 0, transforms.Errorf(ErrSecular, "b[%d] = %v is not finite", i, v)
		}
	}
	lam1 := s.vals[k-1]

	// d = Qᵀb, computed before dst is written so that dst may alias b.
	d := make([]float64, k)
	s.eig.MulQT(d, b)
	var bnorm float64
	for _, v := range d {
		bnorm = math.Hypot(bnorm, v)
	}

	if t == 0 {
		clear(dst)
		if bnorm == 0 {
			return lam1, 0, nil
		}
		return math.Inf(1), 0, nil
	}

	// Work in the shift σ = μ − λ₁ ≥ 0 with gaps δ_i = λ₁ − λ_i ≥ 0, so that
	// λ_i − μ = −(δ_i + σ) carries no cancellation near λ₁. Eigenvalues
	// within rounding of λ₁ form the top eigenspace (δ_i = 0); merging them
	// is a perturbation of C at the level of the eigensolver's own error.
	eps := math.Nextafter(1, 2) - 1
	topTol := 4 * float64(k) * eps * s.norm
	delta := make([]float64, k)
	var dTop2 float64 // ‖d_top‖²
	for i, l := range s.vals {
		delta[i] = lam1 - l
		if delta[i] <= topTol {
			delta[i] = 0
			dTop2 += d[i] * d[i]
		}
	}
	dTop := math.Sqrt(dTop2)

	y := make([]float64, k) // z in the eigenbasis
	var sigma float64
	// b's part along the top eigenspace at the eigensolver's noise level is
	// treated as zero: otherwise the sign of τ would follow rounding noise.
	if dTop <= 8*math.Sqrt(float64(k))*eps*bnorm {
		for i := range d {
			if delta[i] == 0 {
				d[i] = 0
			}
		}
		dTop = 0
		var rest2 float64 // ‖z_r‖² = Σ d_i²/δ_i² over the rest
		for i, di := range d {
			if delta[i] > 0 {
				r := di / delta[i]
				rest2 += r * r
			}
		}
		if rest2 <= t*t {
			for i, di := range d {
				if delta[i] > 0 {
					y[i] = -di / delta[i]
				}
			}
			y[k-1] = math.Sqrt(t*t - rest2)
			return s.finish(dst, y, d, lam1, t)
		}
	}

	sigma, err = secularRoot(d, delta, dTop, bnorm, t)
	if err != nil {
		return 0, 0, err
	}
	for i, di := range d {
		y[i] = -di / (delta[i] + sigma)
	}
	return s.finish(dst, y, d, lam1+sigma, t)
}

// finish maps y to z = Qy, rescales it onto the sphere (a relative change
// of O(ε)) and evaluates the objective in the eigenbasis.
func (s *SphereQuadratic) finish(dst, y, d []float64, mu, t float64) (lambda, value float64, err error) {
	var yn float64
	for _, v := range y {
		yn = math.Hypot(yn, v)
	}
	if yn > 0 {
		f := t / yn
		for i := range y {
			y[i] *= f
		}
	}
	for i, l := range s.vals {
		value += y[i] * (l*y[i] - 2*d[i])
	}
	s.eig.MulQ(dst, y)
	return mu, value, nil
}

// secularRoot returns the σ > 0 (or σ = 0 when dTop = 0 and ‖z(0)‖ = t
// exactly) with ‖z(σ)‖ = t, where ‖z(σ)‖² = Σ d_i²/(δ_i + σ)², δ_i ≥ 0 and
// dTop² = Σ_{δ_i=0} d_i². It runs Newton on ψ(σ) = 1/‖z(σ)‖ − 1/t, which is
// increasing and concave, hence nearly linear (Moré & Sorensen 1983), inside
// a shrinking bracket, falling back to bisection when a step leaves it.
func secularRoot(d, delta []float64, dTop, bnorm, t float64) (float64, error) {
	var dmax float64
	for _, v := range delta {
		dmax = max(dmax, v)
	}
	// ‖d‖²/(δ_max+σ)² ≤ ‖z(σ)‖² ≤ ‖d‖²/σ² and ‖z(σ)‖ ≥ dTop/σ bound the root.
	hi := bnorm / t
	lo := max(0, hi-dmax, dTop/t)
	if lo >= hi {
		return hi, nil
	}
	eval := func(sig float64) (s2, w float64) {
		for i, di := range d {
			if di == 0 {
				continue
			}
			r := 1 / (delta[i] + sig)
			q := di * di * r * r
			s2 += q
			w += q * r
		}
		return s2, w
	}
	eps := math.Nextafter(1, 2) - 1
	// Start at whichever end has ψ ≠ −1/t: from hi the first Newton step
	// lands left of the root (concavity), after which the iterates rise
	// monotonically.
	sig := hi
	if lo > 0 {
		sig = lo
	}
	for range 200 {
		s2, w := eval(sig)
		zn := math.Sqrt(s2)
		switch {
		case zn < t:
			hi = sig
		case zn > t:
			lo = sig
		default:
			return sig, nil
		}
		// Newton on ψ: σ ← σ + ‖z‖²(‖z‖/t − 1) / Σ d_i²/(δ_i+σ)³.
		next := sig + s2*(zn/t-1)/w
		if !(next > lo && next < hi) {
			next = lo + 0.5*(hi-lo)
		}
		step := math.Abs(next - sig)
		sig = next
		if step <= 2*eps*sig || hi-lo <= 2*eps*hi {
			return sig, nil
		}
	}
	return 0, transforms.Errorf(ErrSecular, "secular iteration did not converge (σ ∈ [%v, %v])", lo, hi)
}
