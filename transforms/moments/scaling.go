package moments

import (
	"fmt"
	"math"

	"github.com/ordinate/ordinate/transforms"
)

// ErrRange reports a feature whose values lie beyond 1e±150, where the
// co-moments (squares of deviations) overflow or underflow.
var ErrRange = transforms.NewSentinel(transforms.ErrInvalidData, "feature out of the range of mergeable statistics")

// Scaling returns the standardisation that transforms.FitScaling fits on
// the same rows: the pooled mean and the sample standard deviation (N − 1)
// of every feature, a constant feature (its smallest value is its largest,
// or there are fewer than 2 rows) dropped and named in the warnings; with
// standardize false the kept features get mean 0 and scale 1. names are
// the D features' names. A feature whose largest magnitude is beyond
// 1e±150 is an error wrapping ErrRange naming it (FitScaling rescales such
// a column; its statistics would have overflowed or underflowed here).
func (m *Moments) Scaling(names []string, standardize bool) (*transforms.Scaling, []string, error) {
	if len(names) != m.D {
		panic(fmt.Sprintf("moments: Scaling: %d names for %d features", len(names), m.D))
	}
	n, mean, m2 := m.Pooled()
	s := &transforms.Scaling{}
	var warnings []string
	for j := range m.D {
		if n < 2 || m.Min[j] == m.Max[j] {
			v := math.NaN()
			if n > 0 {
				v = m.Min[j]
			}
			if standardize {
				warnings = append(warnings, fmt.Sprintf("feature %q is constant (%g) and was dropped: it has no scale to standardise by", names[j], v))
			} else {
				warnings = append(warnings, fmt.Sprintf("feature %q is constant (%g) and was dropped: it carries no information", names[j], v))
			}
			continue
		}
		if big := max(math.Abs(m.Min[j]), math.Abs(m.Max[j])); big > 1e150 || big < 1e-150 {
			return nil, nil, fmt.Errorf("%w: feature %q reaches %g: fit it from its rows, or rescale it", ErrRange, names[j], big)
		}
		s.Names = append(s.Names, names[j])
		s.Cols = append(s.Cols, j)
		if standardize {
			s.Mean = append(s.Mean, mean[j])
			s.Scale = append(s.Scale, math.Sqrt(m2[j*m.D+j]/float64(n-1)))
		} else {
			s.Mean = append(s.Mean, 0)
			s.Scale = append(s.Scale, 1)
		}
	}
	return s, warnings, nil
}

// Standardized returns the statistics of the rows (x_c − mean) ⊘ scale over
// the kept features s.Cols: means shifted and divided, co-moments divided
// by scale_i·scale_j, ranges mapped (and swapped for no feature: scales
// are positive).
func (m *Moments) Standardized(s *transforms.Scaling) *Moments {
	D := len(s.Cols)
	out := New(D, m.K)
	copy(out.Count, m.Count)
	for c := range m.K {
		for a, ja := range s.Cols {
			if m.Count[c] > 0 {
				// The shift's difference from the mean is exact for
				// shifts near it (Sterbenz): the class means keep the
				// digits of the deviations, whatever the offset.
				out.Mean[c*D+a] = (m.Mean[c*m.D+ja] + (m.shiftOf(ja) - s.Mean[a])) / s.Scale[a]
			}
			for b, jb := range s.Cols {
				out.M2[c*D*D+a*D+b] = m.M2[c*m.D*m.D+ja*m.D+jb] / (s.Scale[a] * s.Scale[b])
			}
		}
	}
	for a, ja := range s.Cols {
		out.Min[a] = (m.Min[ja] - s.Mean[a]) / s.Scale[a]
		out.Max[a] = (m.Max[ja] - s.Mean[a]) / s.Scale[a]
	}
	return out
}
