package linear

import (
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
)

// PCAResult is a fitted principal component analysis.
type PCAResult struct {
	Projection              // Origin: column means; Axes: top-d principal directions
	Variances     []float64 // variance of the data along each axis (N−1 denominator)
	VarianceRatio []float64 // Variances divided by the total variance; 0 when that is 0
}

// PCA fits the top-d principal directions of the n×D data x (n ≥ 2,
// 1 ≤ d ≤ D). The axes are the right singular vectors of the centred data in
// decreasing order of variance, each oriented so that its component of
// largest absolute value is positive. x is not modified. A d outside
// 1 … D is a *transforms.OptionError naming "dims" that wraps ErrDims.
func PCA(x *mat.Dense, d int) (*PCAResult, error) {
	n, D := x.Dims()
	switch {
	case n == 0 || D == 0:
		return nil, transforms.Errorf(ErrNoData, "x is empty")
	case n < 2:
		return nil, transforms.Errorf(ErrTooFewRows, "PCA needs at least 2 rows, got %d", n)
	case d < 1 || d > D:
		return nil, dimsError(d, D)
	}
	if err := CheckFinite(x); err != nil {
		return nil, err
	}
	c := centered(x)
	axes, vars, err := principal(c, d)
	if err != nil {
		return nil, err
	}
	for j := range d {
		OrientByLargest(axes, j)
	}
	var total float64
	for i := range n {
		for j := range D {
			v := c.At(i, j)
			total += v * v
		}
	}
	total /= float64(n - 1)
	ratio := make([]float64, d)
	if total > 0 {
		for i, v := range vars {
			ratio[i] = v / total
		}
	}
	return &PCAResult{
		Projection:    Projection{Origin: ColumnMeans(x), Axes: axes},
		Variances:     vars,
		VarianceRatio: ratio,
	}, nil
}
