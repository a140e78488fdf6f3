package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrKernel reports a kernel that cannot be built: an unknown kind or a bad
// parameter, or data it is undefined on.
var ErrKernel = errors.New("kernels: bad kernel")

// Kernel is a positive semi-definite kernel on feature rows.
type Kernel struct {
	Kind   string  // "linear", "rbf", "poly" or "cosine"
	Gamma  float64 // rbf: exp(−γ‖a − b‖²); poly: (γ aᵀb + Coef0)^Degree
	Degree int     // poly
	Coef0  float64 // poly
}

// Eval returns k(a, b). It panics on an unknown kind (Resolve checks it).
func (k Kernel) Eval(a, b []float64) float64 {
	switch k.Kind {
	case "linear":
		return dot(a, b)
	case "rbf":
		return math.Exp(-k.Gamma * SqDist(a, b))
	case "poly":
		return math.Pow(k.Gamma*dot(a, b)+k.Coef0, float64(k.Degree))
	case "cosine":
		na, nb := math.Sqrt(dot(a, a)), math.Sqrt(dot(b, b))
		if na == 0 || nb == 0 {
			return 0
		}
		return dot(a, b) / (na * nb)
	}
	panic(fmt.Sprintf("kernels: unknown kernel %q", k.Kind))
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// Resolve fills in the data-dependent defaults of k for the n×d row-major
// x: rbf γ = 1/median of the squared distances between distinct rows, poly
// γ = 1/d, degree 3 (Coef0 as given). It checks the kind, the degree, and
// for cosine that no row is all zeros.
func (k Kernel) Resolve(x []float64, n, d int) (Kernel, error) {
	checkPoints(x, n, d)
	switch k.Kind {
	case "linear":
	case "rbf":
		if k.Gamma <= 0 {
			k.Gamma = 1 / MedianSqDist(x, n, d)
		}
	case "poly":
		if k.Gamma <= 0 {
			k.Gamma = 1 / float64(d)
		}
		if k.Degree == 0 {
			k.Degree = 3
		}
		if k.Degree < 1 {
			return k, fmt.Errorf("%w: poly degree %d must be ≥ 1", ErrKernel, k.Degree)
		}
	case "cosine":
		for i := range n {
			if r := x[i*d : (i+1)*d]; dot(r, r) == 0 {
				return k, fmt.Errorf("%w: row %d is all zeros, so its cosine similarity is undefined", ErrKernel, i)
			}
		}
	default:
		return k, fmt.Errorf("%w: unknown kernel %q (want linear, rbf, poly or cosine)", ErrKernel, k.Kind)
	}
	return k, nil
}

// MedianSqDist is the upper median of the squared distances between the
// distinct rows of the n×d x (1 if it is 0 or there is one row). Beyond
// 2,000 rows it uses every k-th row, so that at most about 2 M pairs are
// sorted.
func MedianSqDist(x []float64, n, d int) float64 {
	step := max(1, n/2000)
	var all []float64
	for i := 0; i < n; i += step {
		for j := i + step; j < n; j += step {
			all = append(all, SqDist(x[i*d:(i+1)*d], x[j*d:(j+1)*d]))
		}
	}
	if len(all) == 0 {
		return 1
	}
	slices.Sort(all)
	if m := all[len(all)/2]; m > 0 {
		return m
	}
	return 1
}

// Gram writes k(a_i, b_j) into dst (na×nb row-major, allocated when nil)
// for the row-major na×d a and nb×d b, rows in parallel, and returns it.
// It returns ctx.Err() if cancelled.
func (k Kernel) Gram(ctx context.Context, dst, a []float64, na int, b []float64, nb, d, threads int) ([]float64, error) {
	checkPoints(a, na, d)
	checkPoints(b, nb, d)
	if dst == nil {
		dst = make([]float64, na*nb)
	}
	if len(dst) != na*nb {
		panic(fmt.Sprintf("kernels: len(dst) = %d, want %d", len(dst), na*nb))
	}
	err := ParallelFor(ctx, na, threads, 16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ai := a[i*d : (i+1)*d]
			row := dst[i*nb : (i+1)*nb]
			for j := range row {
				row[j] = k.Eval(ai, b[j*d:(j+1)*d])
			}
		}
	})
	return dst, err
}
