package linear

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/moments"
)

// The fits from statistics (PCAMoments, LDAMoments; bvp.FitMoments) take
// the rows' mergeable statistics (package moments) in place of the rows:
// the class counts and means, the co-moments. They solve the same problems
// as the fits of the rows, through the covariance where those take the
// SVD of the centred data (whose squared singular values are the
// covariance's eigenvalues), so the two agree to rounding amplified by the
// conditioning of the covariance: well inside 1e-12 on the axes of
// separated eigenvalues (TestFitsFromMoments).

// Covariance returns the sample covariance M2/(n−1) of pooled statistics
// (n rows, D×D co-moments), exactly symmetric.
func Covariance(n int64, m2 []float64, D int) *mat.SymDense {
	c := mat.NewSymDense(D, nil)
	den := float64(max(n-1, 1))
	for i := range D {
		for j := i; j < D; j++ {
			c.SetSym(i, j, m2[i*D+j]/den)
		}
	}
	return c
}

// principalCov returns the top-d eigenvectors (D×d) of the symmetric c,
// in decreasing order of eigenvalue, and the eigenvalues (negative
// rounding clamped to 0).
func principalCov(c *mat.SymDense, d int) (*mat.Dense, []float64, error) {
	D := c.SymmetricDim()
	var eig mat.EigenSym
	if !eig.Factorize(c, true) {
		return nil, nil, transforms.Errorf(ErrNumerical, "eigendecomposition of the covariance did not converge")
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	axes := mat.NewDense(D, d, nil)
	vars := make([]float64, d)
	for j := range d {
		src := D - 1 - j
		vars[j] = math.Max(vals[src], 0)
		for i := range D {
			axes.Set(i, j, vecs.At(i, src))
		}
	}
	return axes, vars, nil
}

// PrincipalAxesOrthogonalCov is PrincipalAxesOrthogonal from the data's
// covariance c instead of its rows: the top-d eigenvectors of c inside the
// orthogonal complement of the column span of q, oriented by
// OrientByLargest, and the variances along them.
func PrincipalAxesOrthogonalCov(c *mat.SymDense, q *mat.Dense, d int) (*mat.Dense, []float64, error) {
	return axesInComplement(q, c.SymmetricDim(), d, func(basis *mat.Dense) (*mat.Dense, []float64, error) {
		_, m := basis.Dims()
		var cb, bcb mat.Dense
		cb.Mul(c, basis)
		bcb.Mul(basis.T(), &cb)
		inner := mat.NewSymDense(m, nil) // Bᵀ C B, exactly symmetric
		for i := range m {
			for j := i; j < m; j++ {
				inner.SetSym(i, j, (bcb.At(i, j)+bcb.At(j, i))/2)
			}
		}
		return principalCov(inner, d)
	})
}

// PCAMoments is PCA from statistics of one class (all rows): the top-d
// eigenvectors of the covariance, oriented as PCA orients its axes, the
// variances along them and their share of the total; the origin is the
// mean. It needs 2 rows or more and 1 ≤ d ≤ D.
func PCAMoments(m *moments.Moments, d int) (*PCAResult, error) {
	D := m.D
	n, mean, m2 := m.Pooled()
	switch {
	case n == 0:
		return nil, transforms.Errorf(ErrNoData, "no rows")
	case n < 2:
		return nil, transforms.Errorf(ErrTooFewRows, "PCA needs at least 2 rows, got %d", n)
	case d < 1 || d > D:
		return nil, dimsError(d, D)
	}
	c := Covariance(n, m2, D)
	axes, vars, err := principalCov(c, d)
	if err != nil {
		return nil, err
	}
	for j := range d {
		OrientByLargest(axes, j)
	}
	total := mat.Trace(c)
	ratio := make([]float64, d)
	if total > 0 {
		for i, v := range vars {
			ratio[i] = v / total
		}
	}
	return &PCAResult{Projection: Projection{Origin: mean, Axes: axes}, Variances: vars, VarianceRatio: ratio}, nil
}

// ClassStats returns the class counts and the k×D class centres of
// statistics with one class per label, checking that every class has
// rows.
func ClassStats(m *moments.Moments) ([]int, *mat.Dense, error) {
	if m.K < 2 {
		return nil, nil, transforms.Errorf(ErrTooFewClasses, "k = %d", m.K)
	}
	counts := make([]int, m.K)
	for c, nc := range m.Count {
		if nc == 0 {
			return nil, nil, transforms.Errorf(ErrEmptyClass, "class %d has no rows", c)
		}
		counts[c] = int(nc)
	}
	return counts, mat.NewDense(m.K, m.D, m.Means()), nil
}

// LDAMoments is LDA from statistics with one class per label (k ≥ 2, each
// with rows): S_w is the sum of the classes' co-moments, the mean that of
// all rows, and filled axes come from the covariance of all rows.
func LDAMoments(m *moments.Moments, opts LDAOptions) (*LDAResult, error) {
	if err := transforms.Validate(&opts); err != nil {
		return nil, err
	}
	D := m.D
	if opts.Dims > D {
		return nil, dimsError(opts.Dims, D)
	}
	counts, centers, err := ClassStats(m)
	if err != nil {
		return nil, err
	}
	sw := mat.NewSymDense(D, nil)
	for c := range m.K {
		m2 := m.M2[c*D*D : (c+1)*D*D]
		for i := range D {
			for j := i; j < D; j++ {
				sw.SetSym(i, j, sw.At(i, j)+m2[i*D+j])
			}
		}
	}
	n, mean, pooled := m.Pooled()
	cov := Covariance(n, pooled, D)
	return ldaSolve(centers, counts, mean, sw, opts, func(disc *mat.Dense, dd int) (*mat.Dense, error) {
		fill, _, err := PrincipalAxesOrthogonalCov(cov, disc, dd)
		return fill, err
	})
}
