package ckpca

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// lowRankMaxTerms is the most rank-one terms for which building the first
// sphere problem (order k) by updates of a diagonal beats forming and
// factorising it: each update costs O(k²) (secular roots, Löwner vector,
// carrying the later vectors through), a dense factorisation O(k³). Fits
// of 2m + 1 = 11, 21 and 31 terms (RBF, 2 dimensions; updates against
// dense) at k = 995, 1,495 and 2,489 cross over near 13, 16 and 22 terms,
// which 7 + k/160 fits; with 50 control points (101 terms) at k = 1,500
// the updates lose by a large factor, so the rule matters (the times are
// in BENCHMARKS.md, "Dense linear algebra beside numpy", "Since the
// low-rank updates").
func lowRankMaxTerms(k int) int { return 7 + k/160 }

// lowRankCheckTol is the largest relative error ‖C̃x − Cx‖/(‖C‖·‖x‖), for
// one seeded random x, accepted from the rank-one construction of a
// sphere problem; above it the problem is factorised densely instead.
const lowRankCheckTol = 1e-9

// errLowRankCheck reports a rank-one construction that failed its check.
var errLowRankCheck = errors.New("ckpca: rank-one construction disagrees with the matrix")

// covariance is W = (1/n)(HF)ᵀ(HF): dense, or, when FᵀF = diag(Λ), as
// diag(Λ/n) − μμᵀ with μ the column means of F.
type covariance struct {
	dense *mat.SymDense
	diag  []float64 // Λ/n
	mean  []float64 // μ
}

func newCovariance(f *mat.Dense, lambda []float64) *covariance {
	if lambda == nil {
		return &covariance{dense: varianceMatrix(f)}
	}
	n, p := f.Dims()
	w := &covariance{diag: make([]float64, p), mean: make([]float64, p)}
	for j, l := range lambda {
		w.diag[j] = l / float64(n)
	}
	for i := range n {
		for j, v := range f.RawRowView(i) {
			w.mean[j] += v
		}
	}
	for j := range w.mean {
		w.mean[j] /= float64(n)
	}
	return w
}

// mul sets dst = W·x.
func (w *covariance) mul(dst, x []float64) {
	if w.dense != nil {
		mat.NewVecDense(len(dst), dst).MulVec(w.dense, mat.NewVecDense(len(x), x))
		return
	}
	mx := floats.Dot(w.mean, x)
	for i, d := range w.diag {
		dst[i] = d*x[i] - w.mean[i]*mx
	}
}

// problem is what the components share: W, and the hard constraints
// (cons), the soft penalty (l, soft) or neither.
type problem struct {
	w    *covariance
	cons *constraints
	l    *mat.Dense
	soft float64
	// maxTerms bounds the rank-one terms of a low-rank first problem;
	// beyond it the problem is factorised densely.
	maxTerms int
}

// dims returns p and k, the order of the sphere problems.
func (pr *problem) dims() (p, k int) {
	p = pr.w.order()
	if pr.cons != nil {
		return p, p - pr.cons.m
	}
	return p, p
}

// order returns p.
func (w *covariance) order() int {
	if w.dense != nil {
		return w.dense.SymmetricDim()
	}
	return len(w.diag)
}

// applyQv overwrites the p-vector v with Qc·v or Qcᵀ·v.
func (c *constraints) applyQv(trans blas.Transpose, v []float64) {
	c.applyQ(blas.Left, trans, blas64.General{Rows: c.p, Cols: 1, Stride: 1, Data: v})
}

// project returns the sphere coordinates of a direction u of feature
// space: (Qcᵀu)[m:] under hard constraints, u otherwise.
func (pr *problem) project(u []float64) []float64 {
	v := append([]float64(nil), u...)
	if pr.cons == nil {
		return v
	}
	pr.cons.applyQv(blas.Trans, v)
	return v[pr.cons.m:]
}

// cmul sets dst = C₁·x, the first component's sphere matrix (Section 2.1:
// the block (QcᵀWQc)[m:, m:]; with soft constraints W − soft·LᵀL; else W).
func (pr *problem) cmul(dst, x []float64) {
	p, _ := pr.dims()
	switch {
	case pr.cons != nil:
		m := pr.cons.m
		y := make([]float64, p)
		copy(y[m:], x)
		pr.cons.applyQv(blas.NoTrans, y)
		t := make([]float64, p)
		pr.w.mul(t, y)
		pr.cons.applyQv(blas.Trans, t)
		copy(dst, t[m:])
	case pr.l != nil:
		pr.w.mul(dst, x)
		lx := make([]float64, pr.l.RawMatrix().Rows)
		mat.NewVecDense(len(lx), lx).MulVec(pr.l, mat.NewVecDense(p, x))
		for k, v := range lx {
			for j, lj := range pr.l.RawRowView(k) {
				dst[j] -= pr.soft * v * lj
			}
		}
	default:
		pr.w.mul(dst, x)
	}
}

// sphere returns the first component's sphere problem: C₁ factorised
// densely when W is dense or when it would take more than maxTerms
// rank-one terms, else built from rank-one updates of W's diagonal
// (lowRankSphere), checked to tol, and factorised densely if the check
// fails.
func (pr *problem) sphere(ctx context.Context, tol float64) (*SphereQuadratic, error) {
	if pr.w.dense != nil {
		return NewSphereQuadratic(pr.denseC(nil, 0))
	}
	p, k := pr.dims()
	d0 := pr.w.diag
	var span [][]float64
	switch {
	case pr.cons != nil:
		// Q₂ᵀ·diag·Q₂ − diag₂ lies in the span of D₂Y₂ and Y₂ (Y₂: the
		// reflectors' rows m … p−1, D₂ = diag[m:]), and the centring adds
		// (Qcᵀμ)[m:].
		m := pr.cons.m
		d0 = d0[m:]
		for i := range m {
			y, dy := make([]float64, k), make([]float64, k)
			for r := m; r < p; r++ {
				y[r-m] = pr.cons.qr.Data[r*m+i]
				dy[r-m] = d0[r-m] * y[r-m]
			}
			span = append(span, y, dy)
		}
		span = append(span, pr.project(pr.w.mean))
	case pr.l != nil:
		span = append(span, pr.w.mean)
		for r := range pr.l.RawMatrix().Rows {
			span = append(span, pr.l.RawRowView(r))
		}
	default:
		span = append(span, pr.w.mean)
	}
	if len(span) > pr.maxTerms {
		return NewSphereQuadratic(pr.denseC(nil, 0))
	}
	sq, err := lowRankSphere(ctx, d0, span, pr.cmul, tol)
	if errors.Is(err, errLowRankCheck) {
		return NewSphereQuadratic(pr.denseC(nil, 0))
	}
	return sq, err
}

// denseC returns the sphere matrix of W_s = W − coef·Σ u uᵀ over prev
// (C₁ for no prev) as a matrix.
func (pr *problem) denseC(prev [][]float64, coef float64) *mat.SymDense {
	p, k := pr.dims()
	w := pr.w.dense
	if w == nil {
		// diag(Λ/n) − μμᵀ, formed.
		w = mat.NewSymDense(p, nil)
		for i := range p {
			for j := i; j < p; j++ {
				w.SetSym(i, j, -pr.w.mean[i]*pr.w.mean[j])
			}
			w.SetSym(i, i, pr.w.diag[i]-pr.w.mean[i]*pr.w.mean[i])
		}
	}
	if len(prev) > 0 && coef != 0 {
		ws := mat.NewSymDense(p, nil)
		ws.CopySym(w)
		for _, u := range prev {
			ws.SymRankOne(ws, -coef, mat.NewVecDense(p, u))
		}
		w = ws
	}
	switch {
	case pr.cons != nil:
		m := pr.cons.m
		g := blas64.General{Rows: p, Cols: p, Stride: p, Data: make([]float64, p*p)}
		for i := range p {
			for j := range p {
				g.Data[i*p+j] = w.At(i, j)
			}
		}
		pr.cons.applyQ(blas.Left, blas.Trans, g)
		pr.cons.applyQ(blas.Right, blas.NoTrans, g)
		cm := mat.NewSymDense(k, nil)
		for i := range k {
			for j := i; j < k; j++ {
				cm.SetSym(i, j, 0.5*(g.Data[(m+i)*p+m+j]+g.Data[(m+j)*p+m+i]))
			}
		}
		return cm
	case pr.l != nil:
		cm := mat.NewSymDense(p, nil)
		cm.SymOuterK(-pr.soft, pr.l.T())
		cm.AddSym(cm, w)
		return cm
	}
	return w
}

// updated returns component s's sphere problem, C₁ − coef·Σ_{s'<s} v v ᵀ
// with v the sphere coordinates of the earlier u: rank-one updates of the
// first problem, one per earlier component, or, beyond maxTerms of them,
// the matrix formed and factorised.
func (pr *problem) updated(ctx context.Context, first *SphereQuadratic, prev [][]float64, coef float64) (*SphereQuadratic, error) {
	if coef == 0 {
		return first, nil
	}
	if len(prev) > pr.maxTerms {
		return NewSphereQuadratic(pr.denseC(prev, coef))
	}
	rhos := make([]float64, len(prev))
	vs := make([][]float64, len(prev))
	for i, u := range prev {
		rhos[i], vs[i] = -coef, pr.project(u)
	}
	return first.updateLowRank(ctx, rhos, vs)
}

// solve is the paper's Section 2.1 for one component, given its sphere
// problem: x from the targets y, b = −Bx with B = (QcᵀW_sQc)[m:, :m] and
// W_s = W − coef·Σ u uᵀ over the earlier components (or b from the soft
// penalty), z on the sphere of radius t, and u = Qc[x; z].
func (pr *problem) solve(sq *SphereQuadratic, prev [][]float64, coef float64, y []float64) ([]float64, Component, error) {
	p, k := pr.dims()
	b := make([]float64, k)
	t := 1.0
	var x []float64
	switch {
	case pr.cons != nil:
		m := pr.cons.m
		x = pr.cons.x(y)
		xx := floats.Dot(x, x)
		if xx > 1 {
			return nil, Component{}, transforms.Errorf(ErrInfeasible, "‖x‖² = %.6g > 1", xx)
		}
		t = math.Sqrt(1 - xx)
		v := make([]float64, p)
		copy(v, x)
		pr.cons.applyQv(blas.NoTrans, v)
		wv := make([]float64, p)
		pr.w.mul(wv, v)
		for _, u := range prev {
			f := coef * floats.Dot(u, v)
			for i := range wv {
				wv[i] -= f * u[i]
			}
		}
		pr.cons.applyQv(blas.Trans, wv)
		for i := range b {
			b[i] = -wv[m+i]
		}
	case pr.l != nil:
		for r, yr := range y {
			for j, lj := range pr.l.RawRowView(r) {
				b[j] -= pr.soft * yr * lj
			}
		}
	}
	z := make([]float64, k)
	lambda, _, err := sq.Maximize(z, b, t)
	if err != nil {
		return nil, Component{}, transforms.Errorf(ErrNumerical, "%w", err)
	}
	comp := Component{Lambda: lambda, T: t, HardCase: k > 0 && lambda == sq.MaxEigenvalue()}
	if pr.cons == nil {
		return z, comp, nil
	}
	u := append(x, z...)
	pr.cons.applyQv(blas.NoTrans, u)
	return u, comp, nil
}

// lowRankSphere returns the sphere problem of C = diag(d0) + E, where E's
// range lies in the span of the given vectors and cmul multiplies by C: an
// orthonormal basis P of the span, the core M = Pᵀ(C − diag(d0))P and its
// eigenpairs (σ_l, g_l) give E = Σ σ_l (Pg_l)(Pg_l)ᵀ, one rank-one update
// each, starting from the diagonal (kernels.UpdateEigenLowRank). The
// result is checked against cmul on one seeded random vector; a relative
// error above tol gives errLowRankCheck.
func lowRankSphere(ctx context.Context, d0 []float64, span [][]float64, cmul func(dst, x []float64), tol float64) (*SphereQuadratic, error) {
	k := len(d0)
	if k == 0 {
		return &SphereQuadratic{}, nil
	}
	basis := orthonormalise(span)
	r := len(basis)
	core := make([]float64, r*r)
	cp := make([]float64, k)
	for j, pj := range basis {
		cmul(cp, pj)
		for i := range cp {
			cp[i] -= d0[i] * pj[i]
		}
		for i, pi := range basis {
			core[i*r+j] = floats.Dot(pi, cp)
		}
	}
	for i := range r {
		for j := range i {
			core[i*r+j] = 0.5 * (core[i*r+j] + core[j*r+i])
		}
	}
	sig, g := make([]float64, r), make([]float64, r*r)
	if r > 0 {
		if err := kernels.EigenSym(ctx, sig, g, core, r, 1); err != nil {
			return nil, err
		}
	}
	vs := make([][]float64, r)
	for l := range sig {
		v := make([]float64, k)
		for i, pi := range basis {
			gi := g[i*r+l]
			for t, x := range pi {
				v[t] += gi * x
			}
		}
		vs[l] = v
	}
	last, err := kernels.UpdateEigenLowRank(ctx, kernels.IdentityBasis(k), d0, sig, vs, 0)
	if err != nil {
		return nil, err
	}
	sq := newSphere(last.Values, last)

	// Check C̃x against Cx.
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, k)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	want, got := make([]float64, k), make([]float64, k)
	cmul(want, x)
	last.MulQT(got, x)
	for i, l := range last.Values {
		got[i] *= l
	}
	last.MulQ(got, got)
	var diff float64
	for i := range got {
		diff = math.Hypot(diff, got[i]-want[i])
	}
	if scale := max(sq.norm, math.SmallestNonzeroFloat64) * math.Sqrt(floats.Dot(x, x)); !(diff <= tol*scale) {
		return nil, fmt.Errorf("%w: relative error %.3g", errLowRankCheck, diff/scale)
	}
	return sq, nil
}

// orthonormalise returns an orthonormal basis of the span of vs (modified
// Gram–Schmidt, two passes), dropping a vector whose part outside the
// earlier ones is below 1e-12 of its norm.
func orthonormalise(vs [][]float64) [][]float64 {
	var basis [][]float64
	for _, v0 := range vs {
		n0 := math.Sqrt(floats.Dot(v0, v0))
		if n0 == 0 {
			continue
		}
		v := append([]float64(nil), v0...)
		for range 2 {
			for _, q := range basis {
				f := floats.Dot(q, v)
				for i := range v {
					v[i] -= f * q[i]
				}
			}
		}
		nv := math.Sqrt(floats.Dot(v, v))
		if nv <= 1e-12*n0 {
			continue
		}
		for i := range v {
			v[i] /= nv
		}
		basis = append(basis, v)
	}
	return basis
}
