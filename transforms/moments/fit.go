package moments

import (
	"fmt"
	"math"
	"strings"

	"github.com/ordinate/ordinate/transforms"
)

// Standardize returns the standardisation that ReadFeatures fits on the
// rows of t (its constant columns dropped, its warnings given) and m, t's
// statistics with their classes in the stage's order, over the kept
// features standardised as the fit takes them. It runs ReadFeatures'
// checks on the statistics (a column too large to standardise, a range
// whose squares overflow: named by file and column, not row), warns of
// unstandardised scales a factor 100 apart, and records the features.
func (t *Table) Standardize(env *transforms.Env, m *Moments, standardize bool) (*transforms.Scaling, *Moments, error) {
	s, warns, err := m.Scaling(t.Features, standardize)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", t.Path, err)
	}
	for _, w := range warns {
		env.Warn("%s", w)
	}
	n := m.Rows()
	if len(s.Cols) == 0 {
		if n < 2 {
			return nil, nil, fmt.Errorf("%w: %s: %d row; a fit needs at least 2 rows", transforms.ErrNoFeatures, t.Path, n)
		}
		return nil, nil, fmt.Errorf("%w: %s: every feature column is constant", transforms.ErrNoFeatures, t.Path)
	}
	if err := s.CheckScaling(); err != nil {
		err.(*transforms.DataError).File = t.Path
		return nil, nil, err
	}
	z := m.Standardized(s)
	if err := transforms.CheckRangeStats(t.Path, s.Names, z.Min, z.Max, n); err != nil {
		return nil, nil, err
	}
	if !standardize {
		_, _, m2 := z.Pooled()
		sd := make([]float64, z.D)
		for j := range sd {
			sd[j] = math.Sqrt(m2[j*z.D+j] / float64(max(n-1, 1)))
		}
		if w := transforms.ScaleGap(sd, s.Names); w != "" {
			env.Warn("%s: %s", t.Path, w)
		}
	}
	env.Log.Info("features", "columns", strings.Join(s.Names, ","), "standardize", standardize, "from", "statistics")
	env.Figure("features", s.Names)
	return s, z, nil
}
