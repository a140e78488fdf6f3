package kernels

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// EigenSym computes all eigenvalues of the symmetric n×n row-major matrix a
// (only its lower triangle is read, as in gonum) into values, ascending,
// and, if vectors is not nil, the orthonormal eigenvectors as the columns
// of the row-major n×n vectors: column k belongs to values[k], as in
// mat.EigenSym.VectorsTo. a is not modified.
//
// The matrix is reduced to tridiagonal form by Householder reflections
// (tridiagonalize: LAPACK's blocked dsytrd, with its matrix–vector and
// rank-2k products in parallel), the tridiagonal is solved by divide and
// conquer (TridiagonalEigen), and the reflectors are applied to its
// eigenvectors in blocks (applyTridiagQ, Gemm products), on up to threads
// goroutines (≤ 0: GOMAXPROCS). Without vectors the tridiagonal eigenvalues come from
// gonum's Dsteqr (implicit QL/QR, O(n²)). The result is bit-identical for any
// thread count. See the package documentation for accuracy and speed.
//
// Wrong lengths or n < 1 panic. A NaN or infinite entry of the lower
// triangle gives an error wrapping ErrEigen that names it; the other
// errors are ctx.Err() (checked between the steps and between the chunks
// of the parallel ones; values and vectors then hold partial results) and,
// in theory, a QL iteration that does not converge (ErrEigen).
func EigenSym(ctx context.Context, values, vectors, a []float64, n, threads int) error {
	if n < 1 || len(a) != n*n || len(values) != n || (vectors != nil && len(vectors) != n*n) {
		panic("kernels: EigenSym: bad size")
	}
	f, err := factorSym(ctx, a, n, threads, vectors)
	if err != nil {
		return err
	}
	copy(values, f.Values)
	if vectors == nil || f.tau == nil {
		return nil
	}
	// Q applied to the tridiagonal's eigenvectors, in place.
	return applyTridiagQ(ctx, f.refl, n, f.tau, vectors, threads)
}

// SymEigen is the eigendecomposition A = QΛQᵀ of a symmetric matrix kept in
// factored form, Q = H·V: H the product of the Householder reflectors of
// the tridiagonal reduction, V the eigenvectors of the tridiagonal. It is
// EigenSym without its last step, the 2n³-flop product H·V, for callers
// that only need Q or Qᵀ times a few vectors (O(n²) each): the
// sphere-constrained quadratic of cKPCA, for one. Read-only after
// NewSymEigen except for NegateVector, so safe for concurrent reads.
type SymEigen struct {
	n      int
	Values []float64 // ascending, as EigenSym returns them
	v      []float64 // n×n row-major: column k is the tridiagonal's eigenvector k
	refl   []float64 // reflectors in tridiagonalize's storage (lower triangle)
	tau    []float64 // nil when there are no reflectors (n = 1, A = 0)
	tail   []float64 // reflector i's entries below its unit one, row by row (see MulQ)
	starts []int     // offset of reflector i in tail
}

// NewSymEigen factorises the symmetric n×n row-major a (its lower triangle
// is read), with EigenSym's accuracy, errors and thread rule.
func NewSymEigen(ctx context.Context, a []float64, n, threads int) (*SymEigen, error) {
	if n < 1 || len(a) != n*n {
		panic("kernels: NewSymEigen: bad size")
	}
	f, err := factorSym(ctx, a, n, threads, make([]float64, n*n))
	if err != nil {
		return nil, err
	}
	// Each reflector's tail contiguous, so that MulQ reads rows.
	if f.tau != nil {
		f.starts = make([]int, n-1)
		for i := range n - 1 {
			f.starts[i] = len(f.tail)
			for r := i + 2; r < n; r++ {
				f.tail = append(f.tail, f.refl[r*n+i])
			}
		}
		f.refl = nil
	}
	return f, nil
}

// N returns the order of the matrix.
func (f *SymEigen) N() int { return f.n }

// MulQ sets dst = Q·x (dst and x of length n; dst may be x).
func (f *SymEigen) MulQ(dst, x []float64) {
	n := f.n
	y := make([]float64, n)
	for r := range n {
		var s float64
		for c, v := range f.v[r*n : (r+1)*n] {
			s += v * x[c]
		}
		y[r] = s
	}
	// H = H(0)···H(n−2): the last reflector acts first.
	for i := len(f.tau) - 1; i >= 0; i-- {
		f.reflect(y, i)
	}
	copy(dst, y)
}

// MulQT sets dst = Qᵀ·x (dst and x of length n; dst may be x).
func (f *SymEigen) MulQT(dst, x []float64) {
	n := f.n
	y := append([]float64(nil), x[:n]...)
	for i := range f.tau {
		f.reflect(y, i)
	}
	clear(dst[:n])
	for r := range n {
		yr := y[r]
		for c, v := range f.v[r*n : (r+1)*n] {
			dst[c] += v * yr
		}
	}
}

// reflect applies H(i) = I − τ_i·u·uᵀ to y, where u is 1 at row i+1 and
// the stored tail below it.
func (f *SymEigen) reflect(y []float64, i int) {
	t := f.tau[i]
	if t == 0 {
		return
	}
	tail := f.tail[f.starts[i] : f.starts[i]+f.n-i-2]
	s := y[i+1]
	for r, u := range tail {
		s += u * y[i+2+r]
	}
	s *= t
	y[i+1] -= s
	for r, u := range tail {
		y[i+2+r] -= s * u
	}
}

// Vector sets dst to column k of Q, the eigenvector of Values[k].
func (f *SymEigen) Vector(dst []float64, k int) {
	e := make([]float64, f.n)
	e[k] = 1
	f.MulQ(dst, e)
}

// NegateVector flips the sign of eigenvector k (a sign convention of the
// caller's).
func (f *SymEigen) NegateVector(k int) {
	for r := range f.n {
		f.v[r*f.n+k] = -f.v[r*f.n+k]
	}
}

// factorSym runs EigenSym up to the tridiagonal's eigenvectors, written to
// vecs (n×n) unless vecs is nil; the reflectors stay in refl and tau.
func factorSym(ctx context.Context, a []float64, n, threads int, vecs []float64) (*SymEigen, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f := &SymEigen{n: n, Values: make([]float64, n), v: vecs}
	// A copy of the lower triangle; its max-norm.
	w := make([]float64, n*n)
	var anrm float64
	for i := range n {
		for j := 0; j <= i; j++ {
			v := a[i*n+j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: entry (%d, %d) of the %d×%d matrix is %v", ErrEigen, i, j, n, n, v)
			}
			w[i*n+j] = v
			anrm = max(anrm, math.Abs(v))
		}
	}
	if n == 1 || anrm == 0 {
		for i := range n {
			f.Values[i] = w[i*n+i]
		}
		if vecs != nil {
			clear(vecs)
			for i := range n {
				vecs[i*n+i] = 1
			}
		}
		return f, nil
	}
	// Scale into the range where the reduction cannot over- or underflow,
	// as Dsyev does.
	const (
		safmin = 0x1p-1022
		smlnum = safmin / dandcEps
		rmin   = 0x1p-484 // ≈ √smlnum
		rmax   = 0x1p484  // ≈ 1/√smlnum
	)
	scale := 1.0
	switch {
	case anrm < rmin:
		scale = rmin / anrm
	case anrm > rmax:
		scale = rmax / anrm
	}
	if scale != 1 {
		for i := range n {
			for j := 0; j <= i; j++ {
				w[i*n+j] *= scale
			}
		}
	}

	// Both triangles, for the row-wise products of the reduction.
	for i := range n {
		for j := 0; j < i; j++ {
			w[j*n+i] = w[i*n+j]
		}
	}
	d := make([]float64, n)
	e := make([]float64, n-1)
	tau := make([]float64, n-1)
	if err := tridiagonalize(ctx, w, n, d, e, tau, threads); err != nil {
		return nil, err
	}
	impl := gonum.Implementation{}

	if vecs == nil {
		// Implicit QL/QR without vectors, O(n²). Not Dsterf (LAPACK's
		// choice): gonum's Dsterf panics when it rescales a block whose
		// norm is below about 1e-122 or above 1e153 (its Dlascl calls get
		// the wrong stride), which a matrix scaled to 2^-484 reaches.
		if !impl.Dsteqr(lapack.EVCompNone, n, d, e, nil, 1, nil) {
			return nil, fmt.Errorf("%w: the tridiagonal QR iteration did not converge (n = %d)", ErrEigen, n)
		}
	} else if err := TridiagonalEigen(ctx, d, e, vecs, n, threads); err != nil {
		return nil, err
	}
	for i, v := range d {
		f.Values[i] = v / scale
	}
	f.refl, f.tau = w, tau
	return f, nil
}
