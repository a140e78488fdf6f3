package bvp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms/linear"
)

// Solver selects how Fit finds the BVP subspace.
type Solver int

const (
	SVD Solver = iota // top right singular vectors of A (exact; default)
	RGD               // the paper's Algorithm 1 with deflation
)

// String returns "svd" or "rgd".
func (s Solver) String() string {
	switch s {
	case SVD:
		return "svd"
	case RGD:
		return "rgd"
	}
	return fmt.Sprintf("Solver(%d)", int(s))
}

// ParseSolver returns the solver named "svd" or "rgd".
func ParseSolver(name string) (Solver, error) {
	switch name {
	case "svd":
		return SVD, nil
	case "rgd":
		return RGD, nil
	}
	return 0, wrapf(ErrOption, "unknown solver %q (want svd or rgd)", name)
}

// Values lists the solvers' names, for hosts (the stage's enum option).
func (Solver) Values() []string { return []string{"svd", "rgd"} }

// MarshalText returns the solver's name.
func (s Solver) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses "svd" or "rgd".
func (s *Solver) UnmarshalText(b []byte) error {
	v, err := ParseSolver(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Options tunes Fit. The zero value selects the defaults.
type Options struct {
	Dims    int     // output dimension d; 0 selects 2
	Solver  Solver  // SVD (default) or RGD
	Seed    uint64  // RGD: seed of the random starts
	MaxIter int     // RGD: updates per deflation step; 0 selects 100
	Tol     float64 // RGD: stopping angle ε in radians; 0 selects 1e−5
	Step0   float64 // RGD: first step γ₀; 0 selects 0.05
}

// Paper defaults of Algorithm 1.
const (
	DefaultDims    = 2
	DefaultMaxIter = 100
	DefaultTol     = 1e-5
	DefaultStep0   = 0.05
)

func (o Options) resolve() (Options, error) {
	if o.Dims == 0 {
		o.Dims = DefaultDims
	}
	if o.MaxIter == 0 {
		o.MaxIter = DefaultMaxIter
	}
	if o.Tol == 0 {
		o.Tol = DefaultTol
	}
	if o.Step0 == 0 {
		o.Step0 = DefaultStep0
	}
	switch {
	case o.Solver != SVD && o.Solver != RGD:
		return o, wrapf(ErrOption, "unknown solver %v", o.Solver)
	case o.MaxIter < 0:
		return o, wrapf(ErrOption, "MaxIter = %d, want ≥ 1", o.MaxIter)
	case !(o.Tol > 0) || math.IsInf(o.Tol, 0):
		return o, wrapf(ErrOption, "Tol = %v, want a finite value > 0", o.Tol)
	case !(o.Step0 > 0) || math.IsInf(o.Step0, 0):
		return o, wrapf(ErrOption, "Step0 = %v, want a finite value > 0", o.Step0)
	}
	return o, nil
}

// Result is a fitted BVP.
type Result struct {
	linear.Projection            // Origin: mean of the class centres; Axes: D×d, orthonormal
	Centers           *mat.Dense // k×D class centres, in the input coordinates
	SingularValues    []float64  // of A, descending, min(k−1, D) of them
	Rank              int        // numerical rank of A (see the package documentation)
	NullFilled        int        // axes filled from null(A): max(0, d − Rank)
	Iterations        []int      // RGD: updates per deflation step; nil for SVD
	Warnings          []string   // sentences for the user
}

// Fit computes the d-dimensional best-view projection of the n×D data x with
// classes[i] ∈ 0..k−1 the ordinal class of row i (0 is the first class in the
// order). x must already be standardised if the caller wants that; neither x
// nor classes is modified.
func Fit(x *mat.Dense, classes []int, k int, opts Options) (*Result, error) {
	n, D := x.Dims()
	if n == 0 || D == 0 {
		return nil, wrapf(ErrNoData, "x is empty")
	}
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	d := o.Dims
	if d < 1 || d > D {
		return nil, wrapf(ErrDims, "d = %d, want 1 ≤ d ≤ D = %d", d, D)
	}
	counts, err := linear.ClassCounts(classes, n, k)
	if err != nil {
		return nil, err
	}
	if err := linear.CheckFinite(x); err != nil {
		return nil, err
	}

	centers := linear.ClassCenters(x, classes, counts)
	a := differences(centers)
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThinV) {
		return nil, wrapf(ErrNumerical, "SVD of the centre differences did not converge")
	}
	sv := svd.Values(nil)
	rank := rankOf(sv, centers)
	informative := min(d, rank)

	res := &Result{
		Centers:        centers,
		SingularValues: sv,
		Rank:           rank,
		NullFilled:     d - informative,
	}
	axes := mat.NewDense(D, d, nil)
	var top *mat.Dense // D×informative
	if informative > 0 {
		switch o.Solver {
		case SVD:
			var v mat.Dense
			svd.VTo(&v)
			top = mat.DenseCopyOf(v.Slice(0, D, 0, informative))
		case RGD:
			rng := rand.New(rand.NewPCG(o.Seed, 0))
			var warn string
			top, res.Iterations, warn, err = rgdAxes(centers, informative, o, rng)
			if err != nil {
				return nil, err
			}
			if warn != "" {
				res.Warnings = append(res.Warnings, warn)
			}
		}
		axes.Slice(0, D, 0, informative).(*mat.Dense).Copy(top)
	}
	if informative < d {
		fill, _, err := linear.PrincipalAxesOrthogonal(x, top, d-informative)
		if err != nil {
			return nil, err
		}
		axes.Slice(0, D, informative, d).(*mat.Dense).Copy(fill)
		res.Warnings = append(res.Warnings, fillWarning(k, rank, d))
	}

	span := mat.Row(nil, k-1, centers)
	for j, v := range mat.Row(nil, 0, centers) {
		span[j] -= v
	}
	linear.OrientAlong(axes, 0, span)
	for j := 1; j < d; j++ {
		linear.OrientByLargest(axes, j)
	}
	res.Projection = linear.Projection{Origin: linear.ColumnMeans(centers), Axes: axes}
	return res, nil
}

// rankOf counts the singular values above max(K−1, D)·ε·max(σ₁, max_k ‖c_k‖).
func rankOf(sv []float64, centers *mat.Dense) int {
	k, D := centers.Dims()
	scale := sv[0]
	for c := range k {
		scale = math.Max(scale, mat.Norm(centers.RowView(c), 2))
	}
	tol := float64(max(k-1, D)) * 0x1p-52 * scale
	r := 0
	for _, s := range sv {
		if s > tol {
			r++
		}
	}
	return r
}

// differences returns the (k−1)×D matrix of adjacent differences
// c_{k+1} − c_k of the rows of centers (Eq. 6).
func differences(centers *mat.Dense) *mat.Dense {
	k, D := centers.Dims()
	a := mat.NewDense(k-1, D, nil)
	for c := range k - 1 {
		for j := range D {
			a.Set(c, j, centers.At(c+1, j)-centers.At(c, j))
		}
	}
	return a
}

// fillWarning explains why only rank of the d axes are informative.
func fillWarning(k, rank, d int) string {
	var why string
	switch {
	case rank == 0:
		return fmt.Sprintf("the %d class centres coincide, so BVP has no informative axis; %s the direction%s of largest data variance",
			k, linear.AxisRange(1, d), linear.Plural(d))
	case rank == k-1:
		why = fmt.Sprintf("%d classes give %d informative BVP %s", k, rank, linear.AxisWord(rank))
	default:
		why = fmt.Sprintf("the %d class centres span only %d dimension%s, so BVP has %d informative %s",
			k, rank, linear.Plural(rank), rank, linear.AxisWord(rank))
	}
	return linear.FillSentence(why, rank, d)
}
