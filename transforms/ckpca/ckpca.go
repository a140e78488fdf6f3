package ckpca

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/internal/parallel"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// Sentinel errors; errors returned by this package wrap one of them, and
// each is of one of the two shared kinds (transforms.ErrInvalidData,
// transforms.ErrInvalidOption).
var (
	ErrControl    = transforms.NewSentinel(transforms.ErrInvalidData, "ckpca: bad control points")
	ErrInfeasible = transforms.NewSentinel(transforms.ErrInvalidData, "ckpca: control targets cannot be met with a unit-norm function")
	ErrKernel     = transforms.NewSentinel(transforms.ErrInvalidData, "ckpca: bad kernel matrix")
	ErrNumerical  = transforms.NewSentinel(transforms.ErrInvalidData, "ckpca: numerical failure")
)

// Control holds the m control rows and their targets.
type Control struct {
	Rows    []int     // indices into the n rows, distinct
	Targets []float64 // m×Dims row-major
}

// Component reports one fitted component.
type Component struct {
	Lambda   float64 `json:"lambda"`    // Lagrange multiplier of the sphere constraint
	T        float64 `json:"t"`         // norm left for the free part, √(1 − ‖x‖²) (1 with Soft)
	Variance float64 `json:"variance"`  // (1/n) Σᵢ (f(xᵢ) − mean f)², after scaling back
	HardCase bool    `json:"hard_case"` // the sphere problem's hard case occurred
}

// Result is a fitted cKPCA in feature space.
type Result struct {
	U          *mat.Dense // p×d coordinates u_s (columns), already divided by TargetScale
	Embedding  *mat.Dense // n×d: F·U, the training rows' coordinates
	Components []Component
	// TargetScale is the factor c the targets were multiplied by (1 unless
	// Scale is ScaleAuto).
	TargetScale float64
}

// Fit solves cKPCA for the feature matrix f (n×p, K = f·fᵀ; see the package
// doc) and the control points, with the options Dims, Nu, Scale, Budget
// and Soft of o (start from DefaultOptions; o is validated first). Dims 0
// takes one output dimension per column of the targets (2 without control
// points). It forms the p×p covariance of f and factorises the first
// component's sphere problem; the later components' problems are rank-one
// updates of that one (package doc, "Low-rank updates").
func Fit(f *mat.Dense, ctrl Control, o Options) (*Result, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, err
	}
	return fit(context.Background(), f, nil, ctrl, o, lowRankMaxTerms)
}

// FitFeatures is FitContext on a feature map. When feat.Lambda is set
// (FᵀF is diagonal: the exact kernel path), no p×p matrix is formed or
// factorised: every sphere problem is a few rank-one updates of that
// diagonal (package doc, "Low-rank updates").
func FitFeatures(ctx context.Context, feat *Features, ctrl Control, o Options) (*Result, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, err
	}
	return fitFeatures(ctx, feat, ctrl, o)
}

// fitFeatures is FitFeatures on options already validated (the stage's).
func fitFeatures(ctx context.Context, feat *Features, ctrl Control, o Options) (*Result, error) {
	return parallel.Detach(ctx, func() (*Result, error) { return fit(ctx, feat.F, feat.Lambda, ctrl, o, lowRankMaxTerms) })
}

// fit is Fit on validated options; lambda, if not nil, is the diagonal of
// fᵀf (which must then be diagonal), and maxTerms(k) the most rank-one
// terms worth building a first sphere problem of order k from
// (lowRankMaxTerms; tests raise it).
func fit(ctx context.Context, f *mat.Dense, lambda []float64, ctrl Control, o Options, maxTerms func(k int) int) (*Result, error) {
	n, p := f.Dims()
	m := len(ctrl.Rows)
	var err error
	if o.Dims, err = resolveDims(ctrl, o.Dims); err != nil {
		return nil, err
	}
	if err := checkControl(f, ctrl, o.Dims); err != nil {
		return nil, err
	}
	if lambda != nil && len(lambda) != p {
		panic(fmt.Sprintf("ckpca: %d values of FᵀF for %d features", len(lambda), p))
	}
	if o.Soft == 0 && m >= p {
		return nil, transforms.Errorf(ErrControl, "%d control points leave no freedom in a feature space of dimension %d (use fewer control points, a richer kernel, or soft)", m, p)
	}
	pr, err := newProblem(f, lambda, ctrl.Rows, o.Soft)
	if err != nil {
		return nil, err
	}
	_, k := pr.dims()
	pr.maxTerms = maxTerms(k)
	c, err := pr.targetScale(ctrl.Targets, o)
	if err != nil {
		return nil, err
	}
	targets := ctrl.Targets
	res := &Result{U: mat.NewDense(p, o.Dims, nil), TargetScale: c}
	var first *SphereQuadratic
	var prev [][]float64
	for s := range o.Dims {
		coef := o.Nu / float64(s+1)
		y := column(targets, m, o.Dims, s)
		for k := range y {
			y[k] *= c
		}
		var sq *SphereQuadratic
		if s == 0 {
			first, err = pr.sphere(ctx, lowRankCheckTol)
			sq = first
		} else {
			sq, err = pr.updated(ctx, first, prev, coef)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("component %d: %w: %w", s+1, ErrNumerical, err)
		}
		u, comp, err := pr.solve(sq, prev, coef, y)
		if err != nil {
			return nil, fmt.Errorf("component %d: %w", s+1, err)
		}
		prev = append(prev, u)
		for k, v := range u {
			res.U.Set(k, s, v/c)
		}
		res.Components = append(res.Components, comp)
	}
	res.Embedding = mat.NewDense(n, o.Dims, nil)
	res.Embedding.Mul(f, res.U)
	for s := range o.Dims {
		res.Components[s].Variance = variance(mat.Col(nil, s, res.Embedding))
	}
	return res, nil
}

// newProblem builds what the components share: W (dense, or from lambda,
// the diagonal of fᵀf), the control rows L of f and, for hard
// constraints (soft = 0), the QR reduction of L.
func newProblem(f *mat.Dense, lambda []float64, rows []int, soft float64) (*problem, error) {
	_, p := f.Dims()
	pr := &problem{w: newCovariance(f, lambda), soft: soft}
	if len(rows) == 0 {
		return pr, nil
	}
	pr.l = mat.NewDense(len(rows), p, nil)
	for k, r := range rows {
		pr.l.SetRow(k, f.RawRowView(r))
	}
	if soft == 0 {
		var err error
		if pr.cons, err = newConstraints(pr.l, rows); err != nil {
			return nil, err
		}
	}
	return pr, nil
}

// targetScale returns the factor c the targets are multiplied by: 1, or
// under ScaleAuto √Budget over the largest norm the constraints need; an
// infeasible target is an error otherwise.
func (pr *problem) targetScale(targets []float64, o Options) (float64, error) {
	if pr.cons == nil {
		return 1, nil
	}
	m := pr.cons.m
	worst := 0.0
	for s := range o.Dims {
		worst = max(worst, pr.cons.norm(column(targets, m, o.Dims, s)))
	}
	switch {
	case o.Scale == ScaleAuto && worst > 0:
		return math.Sqrt(o.Budget) / worst, nil
	case worst > 1:
		return 0, transforms.Errorf(ErrInfeasible, "the targets need a function of RKHS norm %.4g > 1 on the control rows alone; "+
			"scale the targets down by at least %.4g, or use scale auto (rescale, solve, scale back) or soft WEIGHT (penalty instead of exact constraints)",
			worst, worst)
	}
	return 1, nil
}

// resolveDims returns the output dimension: dims when not 0, otherwise
// one per column of the targets (2 without control points).
func resolveDims(ctrl Control, dims int) (int, error) {
	m := len(ctrl.Rows)
	switch {
	case dims != 0:
		return dims, nil
	case m == 0:
		return 2, nil
	case len(ctrl.Targets) == 0 || len(ctrl.Targets)%m != 0:
		return 0, transforms.Errorf(ErrControl, "%d target values for %d control rows: want the same number per row", len(ctrl.Targets), m)
	}
	return len(ctrl.Targets) / m, nil
}

func checkControl(f *mat.Dense, ctrl Control, dims int) error {
	n, _ := f.Dims()
	m := len(ctrl.Rows)
	if len(ctrl.Targets) != m*dims {
		return transforms.Errorf(ErrControl, "%d target values for %d control rows × %d dims", len(ctrl.Targets), m, dims)
	}
	if m >= n && m > 0 {
		return transforms.Errorf(ErrControl, "%d control rows for %d rows; need fewer control rows than rows", m, n)
	}
	seen := make(map[int]int, m)
	for k, r := range ctrl.Rows {
		if r < 0 || r >= n {
			return transforms.Errorf(ErrControl, "control row %d out of range [0, %d)", r, n)
		}
		if j, dup := seen[r]; dup {
			return transforms.Errorf(ErrControl, "row %d is a control point twice (entries %d and %d)", r, j, k)
		}
		seen[r] = k
	}
	for k, v := range ctrl.Targets {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return transforms.Errorf(ErrControl, "target %d of control row %d is %v", k%dims, ctrl.Rows[k/dims], v)
		}
	}
	return nil
}

// column returns column s of the m×d row-major a.
func column(a []float64, m, d, s int) []float64 {
	c := make([]float64, m)
	for k := range m {
		c[k] = a[k*d+s]
	}
	return c
}

// varianceMatrix returns (1/n)(HF)ᵀ(HF), the covariance of F's columns.
func varianceMatrix(f *mat.Dense) *mat.SymDense {
	n, p := f.Dims()
	hf := mat.DenseCopyOf(f)
	for j := range p {
		var mean float64
		for i := range n {
			mean += hf.At(i, j)
		}
		mean /= float64(n)
		for i := range n {
			hf.Set(i, j, hf.At(i, j)-mean)
		}
	}
	// kernels.Gemm rather than gonum's Dsyrk: twice the flops (both
	// triangles), but at a multiple of its rate (BENCHMARKS.md, "Dense
	// linear algebra beside numpy"). Element (i, j) and (j, i) sum
	// the same products in the same order, so the result is symmetric bit
	// for bit, and the same for any thread count.
	raw := hf.RawMatrix()
	data := make([]float64, p*p)
	if p > 0 && n > 0 {
		// Background context: Gemm's only error is cancellation.
		_ = kernels.Gemm(context.Background(), 0, true, false, p, p, n, 1/float64(n), raw.Data, raw.Stride, raw.Data, raw.Stride, 0, data, p)
	}
	return mat.NewSymDense(p, data)
}

func variance(v []float64) float64 {
	var mean float64
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	var s float64
	for _, x := range v {
		s += (x - mean) * (x - mean)
	}
	return s / float64(len(v))
}

// constraints holds the QR reduction of the hard constraints L u = y:
// Lᵀ = Q [P; 0] (Householder form, never the explicit p×p Q), so u = Q [x; z]
// with Pᵀx = y. Applying Q costs O(p·m) per vector and O(p²·m) per matrix.
type constraints struct {
	m, p int
	qr   blas64.General // Geqrf's output: R above the diagonal, reflectors below
	tau  []float64
	pt   *mat.TriDense
}

func newConstraints(l *mat.Dense, rows []int) (*constraints, error) {
	m, p := l.Dims()
	a := blas64.General{Rows: p, Cols: m, Stride: m, Data: make([]float64, p*m)}
	for i := range p {
		for j := range m {
			a.Data[i*m+j] = l.At(j, i)
		}
	}
	c := &constraints{m: m, p: p, qr: a, tau: make([]float64, m)}
	work := []float64{0}
	lapack64.Geqrf(a, c.tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqrf(a, c.tau, work, len(work))
	c.pt = mat.NewTriDense(m, mat.Lower, nil)
	var big float64
	for i := range m {
		big = max(big, math.Abs(a.Data[i*m+i]))
	}
	for i := range m {
		if math.Abs(a.Data[i*m+i]) <= 1e-10*big*float64(p) {
			return nil, transforms.Errorf(ErrControl, "control row %d lies in the span of the earlier control rows (rows %v) in feature space: a duplicate or a linear combination; remove it", rows[i], rows[:i])
		}
		for j := 0; j <= i; j++ {
			c.pt.SetTri(i, j, a.Data[j*m+i])
		}
	}
	return c, nil
}

// applyQ overwrites the p×k general matrix g with Q·g (trans false) or
// Qᵀ·g (trans true) from the left, or with g·Q (right, trans false).
func (c *constraints) applyQ(side blas.Side, trans blas.Transpose, g blas64.General) {
	work := []float64{0}
	lapack64.Ormqr(side, trans, c.qr, c.tau, g, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Ormqr(side, trans, c.qr, c.tau, g, work, len(work))
}

// x solves Pᵀx = y.
func (c *constraints) x(y []float64) []float64 {
	x := mat.NewVecDense(c.m, nil)
	if err := x.SolveVec(c.pt, mat.NewVecDense(c.m, append([]float64(nil), y...))); err != nil {
		panic(err) // P's diagonal was checked in newConstraints
	}
	return x.RawVector().Data
}

// norm returns ‖x‖ for targets y: the RKHS norm the constraints alone need.
func (c *constraints) norm(y []float64) float64 {
	return mat.Norm(mat.NewVecDense(c.m, c.x(y)), 2)
}

// FitContext is Fit under a context. Fit's dense steps (the p×p covariance
// of the features, the factorisation of the first sphere problem) cannot be
// interrupted inside gonum, so Fit runs detached (parallel.Detach): on
// cancellation FitContext returns ctx.Err() at once and the abandoned fit
// finishes in the background (f is only read).
func FitContext(ctx context.Context, f *mat.Dense, ctrl Control, o Options) (*Result, error) {
	return parallel.Detach(ctx, func() (*Result, error) { return Fit(f, ctrl, o) })
}
