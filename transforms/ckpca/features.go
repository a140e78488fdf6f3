package ckpca

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Kernel is a positive semi-definite kernel on feature rows.
type Kernel struct {
	Kind   string  // "linear", "rbf", "poly" or "cosine"
	Gamma  float64 // rbf: exp(−γ‖a − b‖²); poly: (γ aᵀb + Coef0)^Degree
	Degree int     // poly
	Coef0  float64 // poly
}

// Eval returns k(a, b).
func (k Kernel) Eval(a, b []float64) float64 {
	switch k.Kind {
	case "linear":
		return dot(a, b)
	case "rbf":
		var s float64
		for i, v := range a {
			d := v - b[i]
			s += d * d
		}
		return math.Exp(-k.Gamma * s)
	case "poly":
		return math.Pow(k.Gamma*dot(a, b)+k.Coef0, float64(k.Degree))
	case "cosine":
		na, nb := math.Sqrt(dot(a, a)), math.Sqrt(dot(b, b))
		if na == 0 || nb == 0 {
			return 0
		}
		return dot(a, b) / (na * nb)
	}
	panic(fmt.Sprintf("ckpca: unknown kernel %q", k.Kind))
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// Resolve fills in the data-dependent defaults of k for the n×d x: rbf γ =
// 1/median of the squared distances between distinct rows (the issue's
// default), poly γ = 1/d, degree 3, coef0 1 (scikit-learn's). It checks
// the kind, and for cosine that no row is all zeros.
func (k Kernel) Resolve(x *mat.Dense) (Kernel, error) {
	n, d := x.Dims()
	switch k.Kind {
	case "linear":
	case "rbf":
		if k.Gamma <= 0 {
			k.Gamma = 1 / medianSqDist(x)
		}
	case "poly":
		if k.Gamma <= 0 {
			k.Gamma = 1 / float64(d)
		}
		if k.Degree == 0 {
			k.Degree = 3
		}
		if k.Degree < 1 {
			return k, fmt.Errorf("%w: poly degree %d must be ≥ 1", ErrOption, k.Degree)
		}
	case "cosine":
		for i := range n {
			if dot(x.RawRowView(i), x.RawRowView(i)) == 0 {
				return k, fmt.Errorf("%w: row %d is all zeros, so its cosine similarity is undefined", ErrKernel, i)
			}
		}
	default:
		return k, fmt.Errorf("%w: unknown kernel %q (want linear, rbf, poly, cosine or precomputed)", ErrOption, k.Kind)
	}
	return k, nil
}

// medianSqDist is the median squared distance between distinct rows
// (upper median; 1 if all rows coincide).
func medianSqDist(x *mat.Dense) float64 {
	n, _ := x.Dims()
	// Subsample pairs beyond 2,000 rows: the median of 2 M pairs is plenty.
	step := max(1, n/2000)
	var d []float64
	for i := 0; i < n; i += step {
		for j := i + step; j < n; j += step {
			var s float64
			for c, v := range x.RawRowView(i) {
				t := v - x.At(j, c)
				s += t * t
			}
			d = append(d, s)
		}
	}
	if len(d) == 0 {
		return 1
	}
	slices.Sort(d)
	if m := d[len(d)/2]; m > 0 {
		return m
	}
	return 1
}

// Gram returns the kernel matrix k(a_i, b_j) (rows of a by rows of b).
func (k Kernel) Gram(a, b *mat.Dense) *mat.Dense {
	na, _ := a.Dims()
	nb, _ := b.Dims()
	g := mat.NewDense(na, nb, nil)
	for i := range na {
		ai := a.RawRowView(i)
		row := g.RawRowView(i)
		for j := range nb {
			row[j] = k.Eval(ai, b.RawRowView(j))
		}
	}
	return g
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
	if err := CheckSymmetric(k); err != nil {
		return nil, err
	}
	n, _ := k.Dims()
	sym := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, 0.5*(k.At(i, j)+k.At(j, i)))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, fmt.Errorf("%w: eigendecomposition of the %d×%d kernel matrix failed", ErrNumerical, n, n)
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	top := vals[n-1]
	if top <= 0 {
		return nil, fmt.Errorf("%w: the kernel matrix has no positive eigenvalue (largest %g)", ErrKernel, top)
	}
	if vals[0] < -psdTol*top {
		return nil, fmt.Errorf("%w: not positive semi-definite: smallest eigenvalue %.4g (%.2g of the largest, %.4g); "+
			"an indefinite similarity needs correcting first, e.g. clipping its negative eigenvalues", ErrKernel, vals[0], -vals[0]/top, top)
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
	for c, i := range keep {
		s := math.Sqrt(vals[i])
		for r := range n {
			v := vecs.At(r, i)
			f.Set(r, c, v*s)
			coef.Set(r, c, v/s)
		}
	}
	return &Features{F: f, Coef: coef, Rank: p, Dropped: n - p}, nil
}

// CheckSymmetric reports a kernel matrix that is not square, has a
// non-finite entry, or is not symmetric within 1e-10 of its largest entry,
// naming the worst pair.
func CheckSymmetric(k *mat.Dense) error {
	n, c := k.Dims()
	if n != c {
		return fmt.Errorf("%w: %d×%d, want square", ErrKernel, n, c)
	}
	var big, worst float64
	wi, wj := 0, 0
	for i := range n {
		for j := i; j < n; j++ {
			v, w := k.At(i, j), k.At(j, i)
			if math.IsNaN(v) || math.IsInf(v, 0) || math.IsNaN(w) || math.IsInf(w, 0) {
				return fmt.Errorf("%w: entry (%d, %d) or (%d, %d) is not finite", ErrKernel, i, j, j, i)
			}
			big = max(big, math.Abs(v))
			if d := math.Abs(v - w); d > worst {
				worst, wi, wj = d, i, j
			}
		}
	}
	if worst > 1e-10*max(big, 1e-300) {
		return fmt.Errorf("%w: not symmetric: K[%d,%d] = %g but K[%d,%d] = %g", ErrKernel, wi, wj, k.At(wi, wj), wj, wi, k.At(wj, wi))
	}
	return nil
}

// NystromFeatures returns F = K_nM V Λ^{-1/2} over the landmark rows of x
// (indices, distinct), for kernel k: K ≈ FFᵀ with the rank of K_MM.
func NystromFeatures(x *mat.Dense, landmarks []int, k Kernel) (*Features, error) {
	n, d := x.Dims()
	m := len(landmarks)
	lx := mat.NewDense(m, d, nil)
	for r, i := range landmarks {
		lx.SetRow(r, x.RawRowView(i))
	}
	kmm, err := KernelFeatures(k.Gram(lx, lx))
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
