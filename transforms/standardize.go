package transforms

import (
	"fmt"
	"math"
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
			s.Mean = append(s.Mean, mean[j])
			s.Scale = append(s.Scale, math.Sqrt(ss[j]/float64(n-1)))
		} else {
			s.Mean = append(s.Mean, 0)
			s.Scale = append(s.Scale, 1)
		}
	}
	return s, warnings
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
			out[j] = (in[c] - s.Mean[j]) / s.Scale[j]
		}
	}
	return dst
}
