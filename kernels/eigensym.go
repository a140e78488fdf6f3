package kernels

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
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
// rank-2k products in parallel; then gonum's blocked Dorgtr forms Q), the
// tridiagonal is solved by divide
// and conquer (TridiagonalEigen) and the eigenvectors are the product of
// the two orthogonal factors, in tiles on up to threads goroutines
// (≤ 0: GOMAXPROCS). Without vectors the tridiagonal eigenvalues come from
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
		query := make([]float64, 1)
		impl.Dorgtr(blas.Lower, n, w, n, tau, query, -1)
		lwork := max(int(query[0]), 1)
		impl.Dorgtr(blas.Lower, n, w, n, tau, make([]float64, lwork), lwork)
		if err := ctx.Err(); err != nil {
			return err
		}
		z := make([]float64, n*n)
		if err := TridiagonalEigen(ctx, d, e, z, n, threads); err != nil {
			return err
		}
		if err := gemmTiles(ctx, threads, n, n, n, w, n, z, n, vectors, n); err != nil {
			return err
		}
	}
	for i, v := range d {
		values[i] = v / scale
	}
	return nil
}

// Tiles of gemmTiles: rows × columns of C per chunk, and the length of
// the inner-dimension blocks. A tile is small enough (fewer than 4 of
// gonum's 64×64 blocks) for gonum's Dgemm to run it serially.
const (
	gemmTileRows = 64
	gemmTileCols = 192
	gemmTileK    = 256
)

// gemmTiles sets C = A·B for row-major A (m×k, stride lda), B (k×n, stride
// ldb) and C (m×n, stride ldc), in tiles of C on up to threads goroutines.
// gonum's serial Dgemm adds the products a_il·b_lj into c_ij for
// l = 0, 1, … in order, whatever the blocking, so the result is the same
// for any tiling and thread count.
func gemmTiles(ctx context.Context, threads, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) error {
	if m == 0 || n == 0 {
		return nil
	}
	mt := (m + gemmTileRows - 1) / gemmTileRows
	nt := (n + gemmTileCols - 1) / gemmTileCols
	impl := blas64.Implementation()
	return ParallelFor(ctx, mt*nt, threads, 1, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			i0, j0 := (t/nt)*gemmTileRows, (t%nt)*gemmTileCols
			li, lj := min(gemmTileRows, m-i0), min(gemmTileCols, n-j0)
			for r := range li {
				clear(c[(i0+r)*ldc+j0 : (i0+r)*ldc+j0+lj])
			}
			for k0 := 0; k0 < k; k0 += gemmTileK {
				lk := min(gemmTileK, k-k0)
				impl.Dgemm(blas.NoTrans, blas.NoTrans, li, lj, lk, 1, a[i0*lda+k0:], lda, b[k0*ldb+j0:], ldb, 1, c[i0*ldc+j0:], ldc)
			}
		}
	})
}
