package lsp

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// Sentinel errors, of the two shared kinds (transforms.ErrInvalidData,
// transforms.ErrInvalidOption).
var (
	ErrControl = transforms.NewSentinel(transforms.ErrInvalidData, "lsp: bad control points")
	ErrSolve   = transforms.NewSentinel(transforms.ErrInvalidData, "lsp: solver failed")
)

// Linear returns the D×d map P = pinv(X_cp)·Y for the control rows of x
// (rows) and their targets (m×d row-major): the embedding is x·P. Singular
// values below max(m, D)·ε·σ_max count as zero, as in numpy's pinv.
func Linear(x *mat.Dense, rows []int, targets []float64, d int) (*mat.Dense, error) {
	_, D := x.Dims()
	m := len(rows)
	if m == 0 || len(targets) != m*d {
		return nil, transforms.Errorf(ErrControl, "%d control rows and %d target values for %d dims", m, len(targets), d)
	}
	xc := mat.NewDense(m, D, nil)
	for k, r := range rows {
		xc.SetRow(k, x.RawRowView(r))
	}
	var svd mat.SVD
	if !svd.Factorize(xc, mat.SVDThin) {
		return nil, transforms.Errorf(ErrSolve, "SVD of the control rows failed")
	}
	vals := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	tol := float64(max(m, D)) * 0x1p-52 * vals[0]
	// pinv = V Σ⁺ Uᵀ.
	k := len(vals)
	vs := mat.NewDense(D, k, nil)
	for j := range k {
		if vals[j] > tol {
			for i := range D {
				vs.Set(i, j, v.At(i, j)/vals[j])
			}
		}
	}
	var pinv, p mat.Dense
	pinv.Mul(vs, u.T())
	p.Mul(&pinv, mat.NewDense(m, d, append([]float64(nil), targets...)))
	return &p, nil
}

// Laplacian returns the n×d row-major Paulovich LSP layout of x with the
// control rows placed at their targets (see the package doc). Every
// connected component of the (symmetrised) neighbour graph needs a control
// row, or its position would be undetermined: that is an error naming a
// row of the component. Of o (start from DefaultOptions; it is validated
// first) it reads Neighbors, which must be below the number of rows, Tol
// and Threads.
func Laplacian(ctx context.Context, x *mat.Dense, rows []int, targets []float64, d int, o Options) ([]float64, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, err
	}
	return laplacianLayout(ctx, x, rows, targets, d, o)
}

// laplacianLayout is Laplacian on validated options (the stage's).
func laplacianLayout(ctx context.Context, x *mat.Dense, rows []int, targets []float64, d int, o Options) ([]float64, error) {
	n, D := x.Dims()
	m := len(rows)
	k := o.Neighbors
	if k >= n {
		return nil, transforms.Optionf("neighbors", "%d neighbours for %d rows: want fewer than the rows", k, n)
	}
	if m == 0 || len(targets) != m*d {
		return nil, transforms.Errorf(ErrControl, "%d control rows and %d target values for %d dims", m, len(targets), d)
	}
	idx := make([]int32, n*k)
	d2 := make([]float64, n*k)
	if err := kernels.KNN(ctx, idx, d2, x.RawMatrix().Data, n, D, k, o.Threads); err != nil {
		return nil, err
	}
	if err := checkComponents(idx, n, k, rows); err != nil {
		return nil, err
	}
	sys := newLaplacian(idx, d2, n, k, rows)
	out := make([]float64, n*d)
	b := make([]float64, n+m)
	rhs := make([]float64, n)
	e := make([]float64, n)
	for s := range d {
		clear(b)
		for c := range m {
			b[n+c] = targets[c*d+s]
		}
		sys.applyT(rhs, b)
		clear(e)
		if err := cg(ctx, sys, e, rhs, max(o.Tol, 1e-14), 20*n+100); err != nil {
			return nil, fmt.Errorf("dimension %d: %w", s, err)
		}
		for i := range n {
			out[i*d+s] = e[i]
		}
	}
	return out, nil
}

// newLaplacian builds the system from the neighbour lists (KNN layout,
// squared distances): weights 1/(distance + 1e-5), normalised per row.
func newLaplacian(idx []int32, d2 []float64, n, k int, rows []int) *laplacian {
	w := make([]float64, n*k)
	for i := range n {
		var s float64
		for q := range k {
			w[i*k+q] = 1 / (math.Sqrt(d2[i*k+q]) + 1e-5)
			s += w[i*k+q]
		}
		for q := range k {
			w[i*k+q] /= s
		}
	}
	return &laplacian{n: n, k: k, idx: idx, w: w, rows: rows}
}

// laplacian is the (n + m)×n sparse matrix A of the least-squares problem:
// rows i < n are eᵢ − Σ wᵢⱼ eⱼ, row n + c is e_{rows[c]}.
type laplacian struct {
	n, k int
	idx  []int32
	w    []float64
	rows []int
}

// apply writes A·v into dst (length n + m).
func (a *laplacian) apply(dst, v []float64) {
	for i := range a.n {
		s := v[i]
		for q, j := range a.idx[i*a.k : (i+1)*a.k] {
			s -= a.w[i*a.k+q] * v[j]
		}
		dst[i] = s
	}
	for c, r := range a.rows {
		dst[a.n+c] = v[r]
	}
}

// applyT writes Aᵀ·r into dst (length n).
func (a *laplacian) applyT(dst, r []float64) {
	copy(dst, r[:a.n])
	for i := range a.n {
		for q, j := range a.idx[i*a.k : (i+1)*a.k] {
			dst[j] -= a.w[i*a.k+q] * r[i]
		}
	}
	for c, row := range a.rows {
		dst[row] += r[a.n+c]
	}
}

// cg solves AᵀA·x = rhs by conjugate gradients from x.
func cg(ctx context.Context, a *laplacian, x, rhs []float64, tol float64, maxIter int) error {
	n, m := a.n, len(a.rows)
	r := make([]float64, n)
	p := make([]float64, n)
	ap := make([]float64, n)
	tmp := make([]float64, n+m)
	a.apply(tmp, x)
	a.applyT(ap, tmp)
	var rr, bb float64
	for i := range r {
		r[i] = rhs[i] - ap[i]
		p[i] = r[i]
		rr += r[i] * r[i]
		bb += rhs[i] * rhs[i]
	}
	if bb == 0 {
		clear(x)
		return nil
	}
	for it := 0; it < maxIter; it++ {
		if rr <= tol*tol*bb {
			return nil
		}
		if it%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		a.apply(tmp, p)
		a.applyT(ap, tmp)
		var pap float64
		for i := range p {
			pap += p[i] * ap[i]
		}
		if !(pap > 0) {
			return transforms.Errorf(ErrSolve, "the normal equations are singular (pᵀAᵀAp = %g)", pap)
		}
		alpha := rr / pap
		var rr2 float64
		for i := range x {
			x[i] += alpha * p[i]
			r[i] -= alpha * ap[i]
			rr2 += r[i] * r[i]
		}
		beta := rr2 / rr
		rr = rr2
		for i := range p {
			p[i] = r[i] + beta*p[i]
		}
	}
	return transforms.Errorf(ErrSolve, "conjugate gradients did not reach a relative residual of %g in %d iterations (%g)", tol, maxIter, math.Sqrt(rr/bb))
}

// checkComponents reports a component of the symmetrised neighbour graph
// that holds no control row.
func checkComponents(idx []int32, n, k int, rows []int) error {
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i := range n {
		for _, j := range idx[i*k : (i+1)*k] {
			if a, b := find(i), find(int(j)); a != b {
				parent[a] = b
			}
		}
	}
	anchored := make(map[int]bool)
	for _, r := range rows {
		anchored[find(r)] = true
	}
	for i := range n {
		if !anchored[find(i)] {
			size := 0
			for j := range n {
				if find(j) == find(i) {
					size++
				}
			}
			return transforms.Errorf(ErrControl, "row %d is in a group of %d rows that the %d-neighbour graph does not connect to any control row; add a control row there or raise the neighbors option", i, size, k)
		}
	}
	return nil
}
