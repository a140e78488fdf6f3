package ckpca

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/internal/parallel"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// gram is the kernel matrix k(a_i, b_j) as a gonum matrix.
func gram(k kernels.Kernel, a, b *mat.Dense) *mat.Dense {
	na, d := a.Dims()
	nb, _ := b.Dims()
	g, err := k.Gram(context.Background(), nil, a.RawMatrix().Data, na, b.RawMatrix().Data, nb, d, 0)
	if err != nil {
		panic(err) // only a cancelled context fails, and this one cannot be
	}
	return mat.NewDense(na, nb, g)
}

// Features is a feature map with K ≈ FFᵀ on the training rows.
type Features struct {
	F *mat.Dense // n×p
	// Coef maps coordinates u (p) to kernel weights α = Coef·u over the
	// reference rows (the training rows, or the landmarks); nil for the
	// primal linear path, where u is the weight vector itself.
	Coef *mat.Dense
	// Ref are the indices of the reference rows (nil: all rows).
	Ref []int
	// Rank is p, and Dropped the number of kernel eigenvalues treated as 0.
	Rank, Dropped int
	// Lambda, if not nil, is the diagonal of FᵀF, which is then diagonal:
	// the kept eigenvalues of K on the exact kernel path (F = VΛ^{1/2}).
	// FitFeatures uses it to build the sphere problems by rank-one updates.
	Lambda []float64
}

// rankTol is the relative eigenvalue below which K's spectrum counts as 0.
const rankTol = 1e-10

// psdTol is the relative size of a negative eigenvalue that is tolerated
// as rounding.
const psdTol = 1e-8

// KernelFeatures returns F = V_r Λ_r^{1/2} for the n×n symmetric positive
// semi-definite kernel matrix k, restricted to eigenvalues above rankTol
// times the largest. It checks symmetry and semi-definiteness, and says
// where they fail.
func KernelFeatures(k *mat.Dense) (*Features, error) {
	return kernelFeatures(context.Background(), k)
}

// kernelFeatures is KernelFeatures with a context for the
// eigendecomposition (kernels.EigenSym, ascending eigenvalues).
func kernelFeatures(ctx context.Context, k *mat.Dense) (*Features, error) {
	if err := CheckSymmetric(k); err != nil {
		return nil, err
	}
	n, _ := k.Dims()
	// The lower triangle of (K + Kᵀ)/2, row-major.
	a := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			a[i*n+j] = 0.5 * (k.At(i, j) + k.At(j, i))
		}
	}
	vals := make([]float64, n)
	vdata := make([]float64, n*n)
	if err := kernels.EigenSym(ctx, vals, vdata, a, n, 0); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, transforms.Errorf(ErrNumerical, "eigendecomposition of the %d×%d kernel matrix failed: %w", n, n, err)
	}
	a = nil
	vecs := mat.NewDense(n, n, vdata)
	top := vals[n-1]
	if top <= 0 {
		return nil, transforms.Errorf(ErrKernel, "the kernel matrix has no positive eigenvalue (largest %g)", top)
	}
	if vals[0] < -psdTol*top {
		return nil, transforms.Errorf(ErrKernel, "not positive semi-definite: smallest eigenvalue %.4g (%.2g of the largest, %.4g); "+
			"an indefinite similarity needs correcting first, e.g. clipping its negative eigenvalues", vals[0], -vals[0]/top, top)
	}
	var keep []int
	for i := n - 1; i >= 0; i-- {
		if vals[i] > rankTol*top {
			keep = append(keep, i)
		}
	}
	p := len(keep)
	f := mat.NewDense(n, p, nil)
	coef := mat.NewDense(n, p, nil)
	lambda := make([]float64, p)
	for c, i := range keep {
		lambda[c] = vals[i]
		s := math.Sqrt(vals[i])
		for r := range n {
			v := vecs.At(r, i)
			f.Set(r, c, v*s)
			coef.Set(r, c, v/s)
		}
	}
	return &Features{F: f, Coef: coef, Rank: p, Dropped: n - p, Lambda: lambda}, nil
}

// CheckSymmetric reports a kernel matrix that is not square, has a
// non-finite entry, or is not symmetric within 1e-10 of its largest entry,
// naming the worst pair.
func CheckSymmetric(k *mat.Dense) error {
	n, c := k.Dims()
	if n != c {
		return transforms.Errorf(ErrKernel, "%d×%d, want square", n, c)
	}
	var big, worst float64
	wi, wj := 0, 0
	for i := range n {
		for j := i; j < n; j++ {
			v, w := k.At(i, j), k.At(j, i)
			if math.IsNaN(v) || math.IsInf(v, 0) || math.IsNaN(w) || math.IsInf(w, 0) {
				return transforms.Errorf(ErrKernel, "entry (%d, %d) or (%d, %d) is not finite", i, j, j, i)
			}
			big = max(big, math.Abs(v))
			if d := math.Abs(v - w); d > worst {
				worst, wi, wj = d, i, j
			}
		}
	}
	if worst > 1e-10*max(big, 1e-300) {
		return transforms.Errorf(ErrKernel, "not symmetric: K[%d,%d] = %g but K[%d,%d] = %g", wi, wj, k.At(wi, wj), wj, wi, k.At(wj, wi))
	}
	return nil
}

// NystromFeatures returns F = K_nM V Λ^{-1/2} over the landmark rows of x
// (indices, distinct), for kernel k: K ≈ FFᵀ with the rank of K_MM.
func NystromFeatures(x *mat.Dense, landmarks []int, k kernels.Kernel) (*Features, error) {
	n, d := x.Dims()
	m := len(landmarks)
	lx := mat.NewDense(m, d, nil)
	for r, i := range landmarks {
		lx.SetRow(r, x.RawRowView(i))
	}
	kmm, err := KernelFeatures(gram(k, lx, lx))
	if err != nil {
		return nil, fmt.Errorf("landmark kernel matrix: %w", err)
	}
	// F = K_nM · Coef_M, with Coef_M = V Λ^{-1/2}: computed in row blocks
	// so that K_nM is never held whole.
	p := kmm.Rank
	f := mat.NewDense(n, p, nil)
	const block = 1024
	knm := mat.NewDense(min(block, n), m, nil)
	for lo := 0; lo < n; lo += block {
		hi := min(lo+block, n)
		kb := knm.Slice(0, hi-lo, 0, m).(*mat.Dense)
		for i := lo; i < hi; i++ {
			row := kb.RawRowView(i - lo)
			xi := x.RawRowView(i)
			for j := range m {
				row[j] = k.Eval(xi, lx.RawRowView(j))
			}
		}
		f.Slice(lo, hi, 0, p).(*mat.Dense).Mul(kb, kmm.Coef)
	}
	return &Features{F: f, Coef: kmm.Coef, Ref: slices.Clone(landmarks), Rank: p, Dropped: kmm.Dropped}, nil
}

// KernelFeaturesContext is KernelFeatures under a context. The n×n
// symmetric eigendecomposition (kernels.EigenSym) checks ctx between its
// steps and chunks; the call runs detached (parallel.Detach), so that on
// cancellation the call returns ctx.Err() at once and the abandoned
// computation, on its own copies (k is only read), stops at the
// eigensolver's next check of ctx.
func KernelFeaturesContext(ctx context.Context, k *mat.Dense) (*Features, error) {
	return parallel.Detach(ctx, func() (*Features, error) { return kernelFeatures(ctx, k) })
}

// NystromFeaturesContext is NystromFeatures under a context: the landmark
// eigendecomposition runs detached (KernelFeaturesContext), and the n×m
// kernel rows and their product with the landmark map are computed in row
// blocks on up to threads goroutines (≤ 0: GOMAXPROCS) that check ctx. The
// result is the same as NystromFeatures' for any thread count.
func NystromFeaturesContext(ctx context.Context, x *mat.Dense, landmarks []int, k kernels.Kernel, threads int) (*Features, error) {
	n, d := x.Dims()
	m := len(landmarks)
	lx := mat.NewDense(m, d, nil)
	for r, i := range landmarks {
		lx.SetRow(r, x.RawRowView(i))
	}
	g, err := k.Gram(ctx, nil, lx.RawMatrix().Data, m, lx.RawMatrix().Data, m, d, threads)
	if err != nil {
		return nil, err
	}
	kmm, err := KernelFeaturesContext(ctx, mat.NewDense(m, m, g))
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("landmark kernel matrix: %w", err)
	}
	p := kmm.Rank
	f := mat.NewDense(n, p, nil)
	// Row blocks of NystromFeatures' size, so that each row's product is
	// summed as there.
	const block = 1024
	err = kernels.ParallelFor(ctx, n, threads, block, func(lo, hi int) {
		kb := mat.NewDense(hi-lo, m, nil)
		for i := lo; i < hi; i++ {
			row := kb.RawRowView(i - lo)
			xi := x.RawRowView(i)
			for j := range m {
				row[j] = k.Eval(xi, lx.RawRowView(j))
			}
		}
		f.Slice(lo, hi, 0, p).(*mat.Dense).Mul(kb, kmm.Coef)
	})
	if err != nil {
		return nil, err
	}
	return &Features{F: f, Coef: kmm.Coef, Ref: slices.Clone(landmarks), Rank: p, Dropped: kmm.Dropped}, nil
}
