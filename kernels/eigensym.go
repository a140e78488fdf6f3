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
	if err := ctx.Err(); err != nil {
		return err
	}
	// A copy of the lower triangle; its max-norm.
	w := make([]float64, n*n)
	var anrm float64
	for i := range n {
		for j := 0; j <= i; j++ {
			v := a[i*n+j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: entry (%d, %d) of the %d×%d matrix is %v", ErrEigen, i, j, n, n, v)
			}
			w[i*n+j] = v
			anrm = max(anrm, math.Abs(v))
		}
	}
	if n == 1 || anrm == 0 {
		for i := range n {
			values[i] = w[i*n+i]
		}
		if vectors != nil {
			clear(vectors)
			for i := range n {
				vectors[i*n+i] = 1
			}
		}
		return nil
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
		return err
	}
	impl := gonum.Implementation{}

	if vectors == nil {
		// Implicit QL/QR without vectors, O(n²). Not Dsterf (LAPACK's
		// choice): gonum's Dsterf panics when it rescales a block whose
		// norm is below about 1e-122 or above 1e153 (its Dlascl calls get
		// the wrong stride), which a matrix scaled to 2^-484 reaches.
		if !impl.Dsteqr(lapack.EVCompNone, n, d, e, nil, 1, nil) {
			return fmt.Errorf("%w: the tridiagonal QR iteration did not converge (n = %d)", ErrEigen, n)
		}
	} else {
		// The tridiagonal's eigenvectors, then Q applied to them.
		if err := TridiagonalEigen(ctx, d, e, vectors, n, threads); err != nil {
			return err
		}
		if err := applyTridiagQ(ctx, w, n, tau, vectors, threads); err != nil {
			return err
		}
	}
	for i, v := range d {
		values[i] = v / scale
	}
	return nil
}
