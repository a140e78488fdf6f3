package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ordinate/ordinate/internal/parallel"
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
// ErrEigen. It is CorrectSpectrumContext without a context, on all cores.
func CorrectSpectrum(dst, s []float64, n int, c Correction) (negShare float64, err error) {
	return CorrectSpectrumContext(context.Background(), dst, s, n, c, 0)
}

// CorrectSpectrumContext is CorrectSpectrum with a context and a thread
// count (≤ 0: GOMAXPROCS). The symmetric eigendecomposition is EigenSym
// (divide and conquer, O(n³)), values only for c = None. It runs under
// parallel.Detach: on cancellation the call returns ctx.Err() at once, and the
// abandoned decomposition, on its own copy of s, stops at its next check
// of ctx (dst is not touched after the return).
// The other O(n²) and O(n³) steps (copies, the reconstruction U f(Λ) Uᵀ by
// Gemm) run in chunks that check ctx. The result is bit-identical
// to CorrectSpectrum for any thread count. On cancellation dst may hold
// partial results.
func CorrectSpectrumContext(ctx context.Context, dst, s []float64, n int, c Correction, threads int) (negShare float64, err error) {
	if n < 1 || len(s) != n*n || len(dst) != n*n {
		panic("kernels: CorrectSpectrum: bad size")
	}
	if c < Clip || c > None {
		panic("kernels: CorrectSpectrum: unknown correction")
	}
	// EigenSym checks ctx between its steps and chunks; under parallel.Detach, on a
	// copy of s's lower triangle and buffers of its own, the call returns
	// at once even between two checks.
	low := make([]float64, n*n)
	if err := ParallelFor(ctx, n, threads, rowGrain(n), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			copy(low[i*n:i*n+i+1], s[i*n:i*n+i+1])
		}
	}); err != nil {
		return 0, err
	}
	type eigen struct{ lam, u []float64 }
	eig, err := parallel.Detach(ctx, func() (eigen, error) {
		if eigenHook != nil {
			eigenHook()
		}
		r := eigen{lam: make([]float64, n)}
		if c != None {
			r.u = make([]float64, n*n)
		}
		return r, EigenSym(ctx, r.lam, r.u, low, n, threads)
	})
	if err != nil {
		return 0, err
	}
	lam := eig.lam
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
		if &dst[0] != &s[0] {
			if err := ParallelFor(ctx, n, threads, rowGrain(n), func(lo, hi int) {
				copy(dst[lo*n:hi*n], s[lo*n:hi*n])
			}); err != nil {
				return 0, err
			}
		}
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
	uu := eig.u
	eig = eigen{}
	// ul = U f(Λ), row by row (each element is u_ik·λ_k, as a column
	// scaling gives).
	ul := make([]float64, n*n)
	if err := ParallelFor(ctx, n, threads, rowGrain(n), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row, src := ul[i*n:(i+1)*n], uu[i*n:(i+1)*n]
			for k, l := range lam {
				row[k] = l * src[k]
			}
		}
	}); err != nil {
		return 0, err
	}
	// dst = (UΛ)Uᵀ by Gemm (the same bits for any thread count), then the
	// upper triangle mirrored from the lower one, so that dst is symmetric
	// bit for bit.
	if err := Gemm(ctx, threads, false, true, n, n, n, 1, ul, n, uu, n, 0, dst, n); err != nil {
		return 0, err
	}
	if err := ParallelFor(ctx, n, threads, rowGrain(n), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := i + 1; j < n; j++ {
				dst[i*n+j] = dst[j*n+i]
			}
		}
	}); err != nil {
		return 0, err
	}
	return negShare, nil
}

// eigenHook, when set (tests), runs on the detached goroutine before the
// eigendecomposition.
var eigenHook func()

// rowGrain is the number of rows of an n×n matrix per chunk of an O(n²)
// loop: about 2¹⁸ elements, so that a chunk takes well under a millisecond.
func rowGrain(n int) int {
	return max(1, (1<<18)/max(n, 1))
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

// SymmetrizeContext is Symmetrize in row chunks on up to threads
// goroutines (≤ 0: GOMAXPROCS), checking ctx between chunks; the result
// does not depend on threads. On cancellation it returns ctx.Err() and s
// is partly symmetrised.
func SymmetrizeContext(ctx context.Context, s []float64, n, threads int) (maxAsym float64, err error) {
	if n < 0 || len(s) != n*n {
		panic("kernels: Symmetrize: bad size")
	}
	grain := rowGrain(n)
	slots := make([]float64, NumChunks(n, grain))
	err = ParallelFor(ctx, n, threads, grain, func(lo, hi int) {
		var m float64
		for i := lo; i < hi; i++ {
			for j := i + 1; j < n; j++ {
				a, b := s[i*n+j], s[j*n+i]
				m = max(m, math.Abs(a-b))
				v := 0.5*a + 0.5*b
				s[i*n+j], s[j*n+i] = v, v
			}
		}
		slots[lo/grain] = m
	})
	for _, m := range slots {
		maxAsym = max(maxAsym, m)
	}
	return maxAsym, err
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
