package transforms

import (
	"fmt"
	"math"

	"github.com/ordinate/ordinate/arrowio"
)

// Scaling is a fitted per-feature standardisation.
type Scaling struct {
	Names []string  // the features kept
	Cols  []int     // their column indices in the input
	Mean  []float64 // subtracted
	Scale []float64 // divided by
}

// FitScaling computes column means and sample standard deviations (N−1) of
// the n×d row-major x. A constant column (or every column, when n < 2) is
// dropped, standardised or not, and named in the returned warnings: it
// carries no information and has no scale to standardise by. With
// standardize false the kept columns get mean 0 and scale 1.
//
// A column whose magnitudes are beyond 1e±150 (where the squares of its
// deviations would overflow or underflow) is computed on x / max|x| and
// scaled back, so that every large but representable column gets a finite
// mean and scale; a scale that still is not finite (values near ±1.8e308
// whose standard deviation exceeds the largest float64) is left +Inf, and
// CheckScaling reports it. Other columns are computed as they always were.
func FitScaling(x []float64, n, d int, names []string, standardize bool) (*Scaling, []string) {
	if len(x) != n*d || len(names) != d {
		panic("transforms: FitScaling size mismatch")
	}
	s := &Scaling{}
	mean := make([]float64, d)
	for i := range n {
		row := x[i*d : (i+1)*d]
		for j, v := range row {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	ss := make([]float64, d)
	constant := make([]bool, d)
	for j := range constant {
		constant[j] = true
	}
	for i := range n {
		row := x[i*d : (i+1)*d]
		for j, v := range row {
			dv := v - mean[j]
			ss[j] += dv * dv
			if v != x[j] {
				constant[j] = false
			}
		}
	}
	var warnings []string
	for j := range d {
		if constant[j] || n < 2 {
			v := math.NaN()
			if n > 0 {
				v = x[j]
			}
			if standardize {
				warnings = append(warnings, fmt.Sprintf("feature %q is constant (%g) and was dropped: it has no scale to standardise by", names[j], v))
			} else {
				warnings = append(warnings, fmt.Sprintf("feature %q is constant (%g) and was dropped: it carries no information", names[j], v))
			}
			continue
		}
		s.Names = append(s.Names, names[j])
		s.Cols = append(s.Cols, j)
		if standardize {
			m, sd := mean[j], math.Sqrt(ss[j]/float64(n-1))
			if big := maxAbs(x, n, d, j); big > 1e150 || big < 1e-150 {
				m, sd = scaledMeanStd(x, n, d, j, big)
			}
			s.Mean = append(s.Mean, m)
			s.Scale = append(s.Scale, sd)
		} else {
			s.Mean = append(s.Mean, 0)
			s.Scale = append(s.Scale, 1)
		}
	}
	return s, warnings
}

// maxAbs is the largest |x| of column j of the n×d x.
func maxAbs(x []float64, n, d, j int) float64 {
	var m float64
	for i := range n {
		m = max(m, math.Abs(x[i*d+j]))
	}
	return m
}

// scaledMeanStd computes the mean and sample standard deviation of column j
// of the n×d x on x / big (big = max|x| > 0), where neither the sum nor the
// squares can overflow or underflow, and scales them back. The mean is
// finite; the standard deviation is +Inf only when it exceeds the largest
// float64.
func scaledMeanStd(x []float64, n, d, j int, big float64) (mean, std float64) {
	var sum float64
	for i := range n {
		sum += x[i*d+j] / big
	}
	mu := sum / float64(n)
	var ss float64
	for i := range n {
		dv := x[i*d+j]/big - mu
		ss += dv * dv
	}
	return mu * big, math.Sqrt(ss/float64(n-1)) * big
}

// CheckScaling reports the first kept column whose mean or scale is not a
// finite number (scale also > 0) as a *DataError naming the column (File
// is left for the caller to set). FitScaling leaves a scale +Inf only when
// the column's standard deviation exceeds the largest float64.
func (s *Scaling) CheckScaling() error {
	for k, name := range s.Names {
		m, sc := s.Mean[k], s.Scale[k]
		if math.IsNaN(m) || math.IsInf(m, 0) || !(sc > 0) || math.IsInf(sc, 0) {
			return &DataError{Column: name, Row: -1, Err: fmt.Errorf(
				"%w: the column's mean (%g) or standard deviation (%g) is not a finite number: its values are too large to standardise in float64; rescale the column",
				arrowio.ErrInvalidValue, m, sc)}
		}
	}
	return nil
}

// Select writes the raw (unstandardised) kept columns of the n×d x into dst
// (n×len(s.Cols)) and returns it; dst is allocated when nil. These are the
// values a model of the kept features takes, as apply reads them.
func (s *Scaling) Select(dst, x []float64, n, d int) []float64 {
	k := len(s.Cols)
	if dst == nil {
		dst = make([]float64, n*k)
	}
	if len(dst) != n*k || len(x) != n*d {
		panic("transforms: Scaling.Select size mismatch")
	}
	for i := range n {
		in := x[i*d : (i+1)*d]
		out := dst[i*k : (i+1)*k]
		for j, c := range s.Cols {
			out[j] = in[c]
		}
	}
	return dst
}

// Apply writes the standardised kept columns of the n×d x into dst
// (n×len(s.Cols)) and returns it; dst is allocated when nil.
func (s *Scaling) Apply(dst, x []float64, n, d int) []float64 {
	k := len(s.Cols)
	if dst == nil {
		dst = make([]float64, n*k)
	}
	if len(dst) != n*k || len(x) != n*d {
		panic("transforms: Scaling.Apply size mismatch")
	}
	for i := range n {
		in := x[i*d : (i+1)*d]
		out := dst[i*k : (i+1)*k]
		for j, c := range s.Cols {
			out[j] = standardized(in[c], s.Mean[j], s.Scale[j])
		}
	}
	return dst
}

// standardized is (v − mean) / scale, computed as v/scale − mean/scale when
// the difference overflows (v and mean near ±1e308 of opposite signs).
// Standardize returns the raw value v of feature j (of Names) standardised
// as the fit was: (v − Mean[j]) / Scale[j], computed as v/scale − mean/scale
// where the difference would overflow.
func (s *Scaling) Standardize(j int, v float64) float64 {
	return standardized(v, s.Mean[j], s.Scale[j])
}

func standardized(v, mean, scale float64) float64 {
	z := (v - mean) / scale
	if math.IsInf(z, 0) {
		z = v/scale - mean/scale
	}
	return z
}
