package linear

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
)

// Projection is a fitted linear map of a row x to y = (x − Origin)·Axes.
type Projection struct {
	Origin []float64  // length D
	Axes   *mat.Dense // D×d, one unit-length column per output axis
}

// Dims returns the input dimension D and the output dimension d.
func (p *Projection) Dims() (D, d int) { return p.Axes.Dims() }

// Transform stores (x − Origin)·Axes for the n×D matrix x in dst and returns
// dst. A nil dst is allocated and an empty one resized; otherwise dst must be
// n×d. Transform panics when x does not have D columns or dst has the wrong
// shape.
func (p *Projection) Transform(dst *mat.Dense, x mat.Matrix) *mat.Dense {
	n, c := x.Dims()
	D, d := p.Axes.Dims()
	if c != D || len(p.Origin) != D {
		panic(mat.ErrShape)
	}
	if dst == nil {
		dst = mat.NewDense(n, d, nil)
	} else if dst.IsEmpty() {
		dst.ReuseAs(n, d)
	} else if r, cc := dst.Dims(); r != n || cc != d {
		panic(mat.ErrShape)
	}
	// y = x·Axes − Origin·Axes: one product, no centred copy of x.
	dst.Mul(x, p.Axes)
	shift := make([]float64, d)
	for f, o := range p.Origin {
		for j := range d {
			shift[j] += o * p.Axes.At(f, j)
		}
	}
	for i := range n {
		for j := range d {
			dst.Set(i, j, dst.At(i, j)-shift[j])
		}
	}
	return dst
}

// tieTol is the relative tolerance within which two components of an axis
// count as equally large for OrientByLargest.
const tieTol = 1e-9

// OrientByLargest flips the sign of column j of axes, if needed, so that its
// component of largest absolute value is positive. Components within a
// relative 1e−9 of the largest are ties; the lowest index wins.
func OrientByLargest(axes *mat.Dense, j int) {
	r, _ := axes.Dims()
	var big float64
	for i := range r {
		big = math.Max(big, math.Abs(axes.At(i, j)))
	}
	if big == 0 {
		return
	}
	for i := range r {
		if v := axes.At(i, j); math.Abs(v) >= (1-tieTol)*big {
			if v < 0 {
				flip(axes, j)
			}
			return
		}
	}
}

// OrientAlong flips the sign of column j of axes, if needed, so that its inner
// product with dir is positive. When |dir·axis| ≤ 1e−9·‖dir‖ (dir is zero or
// orthogonal to the axis up to rounding) it applies OrientByLargest instead.
func OrientAlong(axes *mat.Dense, j int, dir []float64) {
	r, _ := axes.Dims()
	if len(dir) != r {
		panic(mat.ErrShape)
	}
	var dot, norm float64
	for i, v := range dir {
		dot += v * axes.At(i, j)
		norm += v * v
	}
	if math.Abs(dot) <= 1e-9*math.Sqrt(norm) {
		OrientByLargest(axes, j)
		return
	}
	if dot < 0 {
		flip(axes, j)
	}
}

func flip(axes *mat.Dense, j int) {
	r, _ := axes.Dims()
	for i := range r {
		axes.Set(i, j, -axes.At(i, j))
	}
}

// PrincipalAxesOrthogonal returns the top-d principal directions of the
// n×D data x inside the orthogonal complement of the column span of q
// (D×m; nil means no constraint), as the columns of a D×d matrix, and the
// variance (N−1 denominator) of x along each. Each axis is oriented by
// OrientByLargest. BVP and LDA use it to fill axes beyond their informative
// ones. It panics when q does not have D rows or when d exceeds D minus the
// rank of q; it returns an error wrapping ErrNumerical if an SVD fails.
func PrincipalAxesOrthogonal(x, q *mat.Dense, d int) (*mat.Dense, []float64, error) {
	_, D := x.Dims()
	return axesInComplement(q, D, d, func(basis *mat.Dense) (*mat.Dense, []float64, error) {
		var y mat.Dense
		y.Mul(centered(x), basis) // n×m coordinates inside the complement
		return principal(&y, d)
	})
}

// axesInComplement maps the top d principal directions inside the
// orthogonal complement of q's columns (top, in the complement's
// coordinates) back to D dimensions, each oriented by OrientByLargest.
func axesInComplement(q *mat.Dense, D, d int, top func(basis *mat.Dense) (*mat.Dense, []float64, error)) (*mat.Dense, []float64, error) {
	basis, err := complement(q, D)
	if err != nil {
		return nil, nil, err
	}
	if _, m := basis.Dims(); d < 1 || d > m {
		panic("linear: principal axes in a complement: d out of range")
	}
	vecs, vars, err := top(basis)
	if err != nil {
		return nil, nil, err
	}
	axes := mat.NewDense(D, d, nil)
	axes.Mul(basis, vecs)
	for j := range d {
		OrientByLargest(axes, j)
	}
	return axes, vars, nil
}

// complement returns an orthonormal basis (D×(D−rank q)) of the orthogonal
// complement of the column span of q, from the full left singular vectors of
// q. A nil q gives the identity.
func complement(q *mat.Dense, D int) (*mat.Dense, error) {
	if q == nil {
		id := mat.NewDense(D, D, nil)
		for i := range D {
			id.Set(i, i, 1)
		}
		return id, nil
	}
	r, m := q.Dims()
	if r != D {
		panic(mat.ErrShape)
	}
	var svd mat.SVD
	if !svd.Factorize(q, mat.SVDFullU) {
		return nil, transforms.Errorf(ErrNumerical, "SVD of a basis did not converge")
	}
	sv := svd.Values(nil)
	rank := numericalRank(sv, float64(max(D, m))*eps*sv[0])
	if rank == D {
		panic("linear: the basis spans the whole space")
	}
	var u mat.Dense
	svd.UTo(&u)
	return mat.DenseCopyOf(u.Slice(0, D, rank, D)), nil
}

// principal returns the top-d right singular vectors of the already centred
// n×D matrix y (D×d) and the variances σ²/(n−1) along them. When d exceeds
// min(n, D) the full V supplies the zero-variance directions.
func principal(y *mat.Dense, d int) (*mat.Dense, []float64, error) {
	n, D := y.Dims()
	kind := mat.SVDThinV
	if d > min(n, D) {
		kind = mat.SVDFullV
	}
	var svd mat.SVD
	if !svd.Factorize(y, kind) {
		return nil, nil, transforms.Errorf(ErrNumerical, "SVD of the centred data did not converge")
	}
	sv := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	vars := make([]float64, d)
	for i := range min(d, len(sv)) {
		if n > 1 {
			vars[i] = sv[i] * sv[i] / float64(n-1)
		}
	}
	return mat.DenseCopyOf(v.Slice(0, D, 0, d)), vars, nil
}

// eps is the machine epsilon of float64, 2⁻⁵².
const eps = 0x1p-52

// numericalRank counts the singular values (sorted descending) above tol.
func numericalRank(sv []float64, tol float64) int {
	r := 0
	for _, s := range sv {
		if s > tol {
			r++
		}
	}
	return r
}

// centered returns x minus its column means.
func centered(x *mat.Dense) *mat.Dense {
	n, D := x.Dims()
	mean := ColumnMeans(x)
	c := mat.NewDense(n, D, nil)
	for i := range n {
		for j := range D {
			c.Set(i, j, x.At(i, j)-mean[j])
		}
	}
	return c
}

// ColumnMeans returns the mean of every column of x.
func ColumnMeans(x *mat.Dense) []float64 {
	n, D := x.Dims()
	mean := make([]float64, D)
	for i := range n {
		for j := range D {
			mean[j] += x.At(i, j)
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	return mean
}

// CheckFinite returns a *transforms.DataError naming row and column of x
// for the first NaN or ±Inf in x.
func CheckFinite(x *mat.Dense) error {
	n, D := x.Dims()
	for i := range n {
		for j := range D {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return transforms.MatrixErrorf("x", i, j, ErrNonFinite, "%v", v)
			}
		}
	}
	return nil
}

// dimsError is the error for an output dimension d outside 1 … D: an
// option error naming "dims", the option of every linear stage.
func dimsError(d, D int) error {
	return transforms.Optionf("dims", "%w: %d, want between 1 and the number of features, %d", ErrDims, d, D)
}
