package linear

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
)

// LDAResult is a fitted Fisher discriminant analysis.
type LDAResult struct {
	Projection               // Origin: mean of all rows; Axes: discriminant axes, then filled ones
	Eigenvalues   []float64  // λ of S_b w = λ(S_w+εI)w per discriminant axis, descending
	Discriminants int        // number of discriminant axes (≤ k−1); axes after them are filled
	Shrinkage     float64    // the ε used
	Centers       *mat.Dense // k×D class centres
	Warnings      []string   // sentences for the user, e.g. about filled axes
}

// LDA fits opts.Dims = d axes of Fisher's linear discriminant analysis to
// the n×D data x with classes[i] ∈ 0..k−1, with the shrinkage of opts
// (start from DefaultLDAOptions; the columns and order are the stage's and
// unused here). Axis 1 is oriented so that the last class centre
// lies on its positive side relative to the first one; the other axes so
// that their component of largest absolute value is positive. When d exceeds
// the number of discriminant axes (at most k−1), the rest are the top
// principal directions of x orthogonal to the discriminant axes, and
// Warnings says so. x and classes are not modified. Options out of their
// range, and a d above D, are a *transforms.OptionError naming the option.
func LDA(x *mat.Dense, classes []int, k int, opts LDAOptions) (*LDAResult, error) {
	if err := transforms.Validate(&opts); err != nil {
		return nil, err
	}
	n, D := x.Dims()
	if n == 0 || D == 0 {
		return nil, transforms.Errorf(ErrNoData, "x is empty")
	}
	d := opts.Dims
	if d > D {
		return nil, dimsError(d, D)
	}
	counts, err := ClassCounts(classes, n, k)
	if err != nil {
		return nil, err
	}
	if err := CheckFinite(x); err != nil {
		return nil, err
	}

	centers := ClassCenters(x, classes, counts)
	mean := ColumnMeans(x)

	// Within-class scatter S_w = RᵀR with R the rows minus their class centre.
	resid := mat.NewDense(n, D, nil)
	for i := range n {
		for j := range D {
			resid.Set(i, j, x.At(i, j)-centers.At(classes[i], j))
		}
	}
	var sw mat.SymDense
	sw.SymOuterK(1, resid.T())
	return ldaSolve(centers, counts, mean, &sw, opts, func(disc *mat.Dense, dd int) (*mat.Dense, error) {
		fill, _, err := PrincipalAxesOrthogonal(x, disc, dd)
		return fill, err
	})
}

// ldaSolve is LDA from the class centres and counts, the mean of all rows
// and the within-class scatter S_w (which it shrinks in place), with fill
// supplying the dd principal axes orthogonal to the discriminant ones.
func ldaSolve(centers *mat.Dense, counts []int, mean []float64, sw *mat.SymDense, opts LDAOptions, fill func(disc *mat.Dense, dd int) (*mat.Dense, error)) (*LDAResult, error) {
	k, D := centers.Dims()
	d := opts.Dims
	shrink := opts.Shrinkage
	if shrink == 0 {
		shrink = defaultShrinkage(sw, centers, counts, mean)
	}
	for j := range D {
		sw.SetSym(j, j, sw.At(j, j)+shrink)
	}
	var chol mat.Cholesky
	if !chol.Factorize(sw) {
		return nil, transforms.Errorf(ErrNumerical, "S_w + εI is not positive definite (ε = %g); increase the shrinkage", shrink)
	}
	var l mat.TriDense
	chol.LTo(&l)

	// S_b = HᵀH with rows √n_k (c_k − m). The generalized problem
	// S_b w = λ L Lᵀ w becomes the SVD of G = L⁻¹Hᵀ: z = left singular
	// vector, λ = σ², w = L⁻ᵀ z.
	h := mat.NewDense(k, D, nil)
	for c := range k {
		s := math.Sqrt(float64(counts[c]))
		for j := range D {
			h.Set(c, j, s*(centers.At(c, j)-mean[j]))
		}
	}
	var warnings []string
	var g mat.Dense
	if err := l.SolveTo(&g, false, h.T()); err != nil {
		if !isCondition(err) {
			return nil, transforms.Errorf(ErrNumerical, "whitening: %v", err)
		}
		warnings = append(warnings, fmt.Sprintf("S_w + εI is ill-conditioned (ε = %g); the discriminant axes may be inaccurate", shrink))
	}
	var svd mat.SVD
	if !svd.Factorize(&g, mat.SVDThinU) {
		return nil, transforms.Errorf(ErrNumerical, "SVD of the whitened between-class matrix did not converge")
	}
	sv := svd.Values(nil)
	nDisc := min(d, k-1, numericalRank(sv, float64(max(D, k))*eps*sv[0]))

	axes := mat.NewDense(D, d, nil)
	lambda := make([]float64, nDisc)
	var disc *mat.Dense
	if nDisc > 0 {
		var u mat.Dense
		svd.UTo(&u)
		var w mat.Dense
		if err := l.SolveTo(&w, true, u.Slice(0, D, 0, nDisc)); err != nil && !isCondition(err) {
			return nil, transforms.Errorf(ErrNumerical, "back-substitution: %v", err)
		}
		for j := range nDisc {
			col := mat.Col(nil, j, &w)
			norm := math.Sqrt(dot(col, col))
			for i, v := range col {
				axes.Set(i, j, v/norm)
			}
			lambda[j] = sv[j] * sv[j]
		}
		disc = mat.DenseCopyOf(axes.Slice(0, D, 0, nDisc))
	}
	if nDisc < d {
		fillAxes, err := fill(disc, d-nDisc)
		if err != nil {
			return nil, err
		}
		axes.Slice(0, D, nDisc, d).(*mat.Dense).Copy(fillAxes)
		warnings = append(warnings, fillWarning(k, nDisc, d))
	}

	first, last := mat.Row(nil, 0, centers), mat.Row(nil, k-1, centers)
	for i := range first {
		last[i] -= first[i]
	}
	OrientAlong(axes, 0, last)
	for j := 1; j < d; j++ {
		OrientByLargest(axes, j)
	}
	return &LDAResult{
		Projection:    Projection{Origin: mean, Axes: axes},
		Eigenvalues:   lambda,
		Discriminants: nDisc,
		Shrinkage:     shrink,
		Centers:       centers,
		Warnings:      warnings,
	}, nil
}

// defaultShrinkage is 1e−6·trace(S_w)/D, with trace(S_b) and then 1 standing
// in for a zero trace(S_w).
func defaultShrinkage(sw *mat.SymDense, centers *mat.Dense, counts []int, mean []float64) float64 {
	D := sw.SymmetricDim()
	tr := mat.Trace(sw)
	if tr == 0 {
		for c, nc := range counts {
			for j := range D {
				v := centers.At(c, j) - mean[j]
				tr += float64(nc) * v * v
			}
		}
	}
	if tr == 0 {
		return 1
	}
	return 1e-6 * tr / float64(D)
}

func isCondition(err error) bool {
	var c mat.Condition
	return errors.As(err, &c)
}

// fillWarning explains why only nDisc of the d axes are discriminant.
func fillWarning(k, nDisc, d int) string {
	var why string
	switch {
	case nDisc == 0:
		return fmt.Sprintf("the %d class centres coincide, so LDA has no discriminant axis; %s the direction%s of largest data variance",
			k, AxisRange(1, d), Plural(d))
	case nDisc == k-1:
		why = fmt.Sprintf("%d classes give at most %d discriminant %s", k, nDisc, AxisWord(nDisc))
	default:
		why = fmt.Sprintf("the %d class centres give only %d discriminant %s", k, nDisc, AxisWord(nDisc))
	}
	return FillSentence(why, nDisc, d)
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// ClassCounts validates the class indices against n rows and k classes and
// returns the count of each class.
func ClassCounts(classes []int, n, k int) ([]int, error) {
	if len(classes) != n {
		return nil, transforms.Errorf(ErrLength, "%d class indices for %d rows", len(classes), n)
	}
	if k < 2 {
		return nil, transforms.Errorf(ErrTooFewClasses, "k = %d", k)
	}
	counts := make([]int, k)
	for i, c := range classes {
		if c < 0 || c >= k {
			return nil, transforms.MatrixErrorf("classes", i, -1, ErrClassRange, "class %d, want 0 ≤ class < %d", c, k)
		}
		counts[c]++
	}
	for c, nc := range counts {
		if nc == 0 {
			return nil, transforms.Errorf(ErrEmptyClass, "class %d has no rows", c)
		}
	}
	return counts, nil
}

// ClassCenters returns the k×D matrix of class means.
func ClassCenters(x *mat.Dense, classes []int, counts []int) *mat.Dense {
	_, D := x.Dims()
	centers := mat.NewDense(len(counts), D, nil)
	for i, c := range classes {
		for j := range D {
			centers.Set(c, j, centers.At(c, j)+x.At(i, j))
		}
	}
	for c, nc := range counts {
		for j := range D {
			centers.Set(c, j, centers.At(c, j)/float64(nc))
		}
	}
	return centers
}
