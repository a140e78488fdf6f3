package bvp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/linear"
	"github.com/ordinate/ordinate/transforms/moments"
	"github.com/ordinate/ordinate/transforms/statfit"
)

// Solver selects how Fit finds the BVP subspace.
type Solver string

const (
	SVD Solver = "svd" // top right singular vectors of A (exact; default)
	RGD Solver = "rgd" // the paper's Algorithm 1 with deflation
)

// Values lists the solvers, for hosts and transforms.Validate.
func (Solver) Values() []string { return []string{string(SVD), string(RGD)} }

// Options are the options of Stage and of Fit, which uses Dims and the
// solver's (the columns, order and standardisation are the stage's). Start
// from DefaultOptions: the zero value is not valid.
type Options struct {
	transforms.Columns
	Order []string `opt:"order" help:"class order as a comma list, e.g. low,mid,high (required for text labels; numeric labels default to ascending)"`
	// Dims is the output dimension d, at most D; the axes beyond the rank of
	// the centre differences (at most classes − 1) are filled.
	Dims int `opt:"dims" range:"[1,)" help:"output dimensions, at most the number of features; axes beyond classes − 1 are filled with directions of largest variance, with a warning"`
	transforms.Standardization
	statfit.Streaming
	Solver  Solver  `opt:"solver" help:"how the subspace is found: svd exactly, rgd by the paper's Algorithm 1"`
	MaxIter int     `opt:"max-iter" range:"[1,)" help:"rgd: updates per deflation step"`
	Tol     float64 `opt:"tol" range:"(0,)" help:"rgd: stop when the angle between iterates is below this (radians)"`
	Step0   float64 `opt:"step0" range:"(0,)" help:"rgd: first step size γ₀"`
	Seed    uint64  `opt:"seed" help:"random seed (rgd's random starts); the same input, seed and thread count give bit-identical output"`
}

// DefaultOptions returns the defaults: 2 dimensions of the standardised
// features by the SVD solver; for RGD the paper's defaults of Algorithm 1
// (100 updates per step, angle tolerance 1e−5, first step 0.05) and seed 1.
func DefaultOptions() Options {
	return Options{
		Columns:         transforms.DefaultColumns(),
		Dims:            2,
		Standardization: transforms.Standardization{Standardize: true},
		Streaming:       statfit.DefaultStreaming(),
		Solver:          SVD,
		MaxIter:         100,
		Tol:             1e-5,
		Step0:           0.05,
		Seed:            1,
	}
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
// order), in opts.Dims = d dimensions. x must already be standardised if
// the caller wants that; neither x nor classes is modified. Options out of
// their range, and a d above D, are a *transforms.OptionError naming the
// option.
func Fit(x *mat.Dense, classes []int, k int, opts Options) (*Result, error) {
	if err := transforms.Validate(&opts); err != nil {
		return nil, err
	}
	n, D := x.Dims()
	if n == 0 || D == 0 {
		return nil, transforms.Errorf(ErrNoData, "x is empty")
	}
	d := opts.Dims
	if d > D {
		return nil, transforms.Optionf("dims", "%w: %d, want between 1 and the number of features, %d", ErrDims, d, D)
	}
	counts, err := linear.ClassCounts(classes, n, k)
	if err != nil {
		return nil, err
	}
	if err := linear.CheckFinite(x); err != nil {
		return nil, err
	}

	centers := linear.ClassCenters(x, classes, counts)
	return fitCenters(centers, opts, func(top *mat.Dense, dd int) (*mat.Dense, error) {
		fill, _, err := linear.PrincipalAxesOrthogonal(x, top, dd)
		return fill, err
	})
}

// FitMoments is Fit from the rows' statistics (package moments), one class
// per ordinal class in order, already standardised if the caller wants
// that: the class centres are their means, and axes beyond the informative
// ones come from the covariance of all rows. It agrees with Fit on the
// same rows to rounding (TestFitMoments).
func FitMoments(m *moments.Moments, opts Options) (*Result, error) {
	if err := transforms.Validate(&opts); err != nil {
		return nil, err
	}
	if m.Rows() == 0 {
		return nil, transforms.Errorf(ErrNoData, "no rows")
	}
	if opts.Dims > m.D {
		return nil, transforms.Optionf("dims", "%w: %d, want between 1 and the number of features, %d", ErrDims, opts.Dims, m.D)
	}
	_, centers, err := linear.ClassStats(m)
	if err != nil {
		return nil, err
	}
	n, _, pooled := m.Pooled()
	cov := linear.Covariance(n, pooled, m.D)
	return fitCenters(centers, opts, func(top *mat.Dense, dd int) (*mat.Dense, error) {
		fill, _, err := linear.PrincipalAxesOrthogonalCov(cov, top, dd)
		return fill, err
	})
}

// fitCenters is Fit from the k×D class centres, with fill supplying the dd
// principal axes orthogonal to the informative ones.
func fitCenters(centers *mat.Dense, opts Options, fill func(top *mat.Dense, dd int) (*mat.Dense, error)) (*Result, error) {
	k, D := centers.Dims()
	d := opts.Dims
	var err error
	a := differences(centers)
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThinV) {
		return nil, transforms.Errorf(ErrNumerical, "SVD of the centre differences did not converge")
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
		switch opts.Solver {
		case SVD:
			var v mat.Dense
			svd.VTo(&v)
			top = mat.DenseCopyOf(v.Slice(0, D, 0, informative))
		case RGD:
			rng := rand.New(rand.NewPCG(opts.Seed, 0))
			var warn string
			top, res.Iterations, warn, err = rgdAxes(centers, informative, opts, rng)
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
		fillAxes, err := fill(top, d-informative)
		if err != nil {
			return nil, err
		}
		axes.Slice(0, D, informative, d).(*mat.Dense).Copy(fillAxes)
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
