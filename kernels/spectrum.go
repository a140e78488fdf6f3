package kernels

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Correction is an eigenvalue correction that turns a symmetric, possibly
// indefinite similarity matrix into a positive semi-definite one.
type Correction int

const (
	// Clip sets negative eigenvalues to 0 (the nearest PSD matrix in the
	// Frobenius norm).
	Clip Correction = iota
	// Flip replaces every eigenvalue λ by |λ|.
	Flip
	// Shift adds |λ_min|·I when λ_min < 0, i.e. λ ← λ − λ_min for every
	// eigenvalue; it leaves a PSD matrix unchanged.
	Shift
	// None copies the matrix unchanged.
	None
)

// String returns the lower-case name of the correction.
func (c Correction) String() string {
	switch c {
	case Clip:
		return "clip"
	case Flip:
		return "flip"
	case Shift:
		return "shift"
	case None:
		return "none"
	}
	return fmt.Sprintf("Correction(%d)", int(c))
}

// ErrEigen reports that the symmetric eigendecomposition did not converge.
var ErrEigen = errors.New("kernels: symmetric eigendecomposition failed")

// CorrectSpectrum writes into dst (n×n, row-major) the eigenvalue-corrected
// version of the symmetric n×n matrix s: S = U Λ Uᵀ, dst = U f(Λ) Uᵀ with f
// given by c. Only the lower triangle of s is read (gonum's convention for
// symmetric matrices); symmetrise first if s may be asymmetric. The result
// is exactly symmetric. dst and s may be the same slice.
//
// negShare is Σ|λ<0| / Σ|λ| over the eigenvalues of s, the share of the
// spectrum's absolute mass that is negative (0 for a zero matrix); it is
// reported for every c, including None.
//
// Wrong lengths or n < 1 panic; an unknown c panics. The only error is
// ErrEigen.
func CorrectSpectrum(dst, s []float64, n int, c Correction) (negShare float64, err error) {
	if n < 1 || len(s) != n*n || len(dst) != n*n {
		panic("kernels: CorrectSpectrum: bad size")
	}
	if c < Clip || c > None {
		panic("kernels: CorrectSpectrum: unknown correction")
	}
	sym := mat.NewSymDense(n, nil)
	for i := range n {
		for j := 0; j <= i; j++ {
			sym.SetSym(i, j, s[i*n+j])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, c != None) {
		return 0, ErrEigen
	}
	lam := eig.Values(nil)
	var neg, tot float64
	lmin := math.Inf(1)
	for _, l := range lam {
		tot += math.Abs(l)
		if l < 0 {
			neg -= l
		}
		lmin = min(lmin, l)
	}
	if tot > 0 {
		negShare = neg / tot
	}
	if c == None {
		copy(dst, s)
		return negShare, nil
	}
	for k, l := range lam {
		switch c {
		case Clip:
			lam[k] = max(l, 0)
		case Flip:
			lam[k] = math.Abs(l)
		case Shift:
			if lmin < 0 {
				lam[k] = l - lmin
			}
		}
	}
	var u mat.Dense
	eig.VectorsTo(&u)
	// dst = (UΛ)Uᵀ, then the upper triangle mirrored from the lower one so
	// that dst is symmetric bit for bit.
	var ul mat.Dense
	ul.CloneFrom(&u)
	for k, l := range lam {
		col := ul.ColView(k).(*mat.VecDense)
		col.ScaleVec(l, col)
	}
	out := mat.NewDense(n, n, dst)
	out.Mul(&ul, u.T())
	for i := range n {
		for j := i + 1; j < n; j++ {
			dst[i*n+j] = dst[j*n+i]
		}
	}
	return negShare, nil
}

// Symmetrize replaces the n×n matrix s by (S + Sᵀ)/2 in place and returns
// max |s_ij − s_ji| of the input. Wrong lengths panic.
func Symmetrize(s []float64, n int) (maxAsym float64) {
	if n < 0 || len(s) != n*n {
		panic("kernels: Symmetrize: bad size")
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			a, b := s[i*n+j], s[j*n+i]
			maxAsym = max(maxAsym, math.Abs(a-b))
			m := 0.5*a + 0.5*b
			s[i*n+j], s[j*n+i] = m, m
		}
	}
	return maxAsym
}

// KernelSqDistances writes the kernel-induced squared distances
// d²_ij = s_ii + s_jj − 2 s_ij of the symmetric n×n matrix s into dst,
// clamped at 0 (an indefinite s can make them negative); the diagonal is 0.
// dst must not alias s. Wrong lengths panic.
func KernelSqDistances(dst, s []float64, n int) {
	if n < 0 || len(s) != n*n || len(dst) != n*n {
		panic("kernels: KernelSqDistances: bad size")
	}
	for i := range n {
		KernelSqDistRow(dst[i*n:(i+1)*n], s, n, i)
	}
}

// KernelSqDistRow writes row i of the kernel squared distances of
// KernelSqDistances into dst (length n): d²_ij = s_ii + s_jj − 2 s_ij,
// clamped at 0, with d²_ii = 0. It checks no lengths.
func KernelSqDistRow(dst, s []float64, n, i int) {
	sii := s[i*n+i]
	row := s[i*n : (i+1)*n]
	for j, sij := range row {
		d := sii + s[j*n+j] - 2*sij
		if d < 0 || j == i {
			d = 0
		}
		dst[j] = d
	}
}
