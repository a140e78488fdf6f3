package transforms

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestAffineTransform checks the fused one-pass transform against the
// definition y = ((x − mean) ⊘ scale − origin)·Axes evaluated step by step.
func TestAffineTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name string
		n, D int
		d    int
	}{{"2d", 17, 5, 2}, {"2d, one feature", 3, 1, 2}, {"1d", 4, 3, 1}, {"3d", 6, 7, 3}, {"square", 9, 4, 4},
		{"2d, blocks of columns", 2*columnBlock + 77, 6, 2}, {"3d, blocks of columns", columnBlock + 1, 4, 3}, {"no rows", 0, 3, 2}} {
		s := &Scaling{}
		origin := make([]float64, tc.D)
		for f := range tc.D {
			s.Names = append(s.Names, string(rune('a'+f)))
			s.Cols = append(s.Cols, f)
			s.Mean = append(s.Mean, rng.NormFloat64()*3)
			s.Scale = append(s.Scale, 0.5+rng.Float64())
			origin[f] = rng.NormFloat64()
		}
		axes := mat.NewDense(tc.D, tc.d, nil)
		for f := range tc.D {
			for j := range tc.d {
				axes.Set(f, j, rng.NormFloat64())
			}
		}
		m := NewAffine("test", s, "", true, origin, axes, nil)
		x := make([]float64, tc.n*tc.D)
		for i := range x {
			x[i] = rng.NormFloat64() * 10
		}
		got := m.Transform(nil, x, tc.n)
		// The general loop, the same operations in the same order: the
		// two-dimensional path must give its bits.
		for i := range tc.n {
			for j := range tc.d {
				g := -m.b[j]
				for f := range tc.D {
					g += x[i*tc.D+f] * m.w[f*tc.d+j]
				}
				if got[i*tc.d+j] != g {
					t.Fatalf("%s: y[%d,%d] = %v, the general loop gives %v", tc.name, i, j, got[i*tc.d+j], g)
				}
			}
		}
		// Columns (longer than n, as a batch's may be): the same bits.
		cols := make([][]float64, tc.D)
		for f := range cols {
			cols[f] = make([]float64, tc.n+3)
			for i := range tc.n {
				cols[f][i] = x[i*tc.D+f]
			}
		}
		byCols := make([]float64, tc.n*tc.d)
		m.TransformColumns(byCols, cols, tc.n)
		for k := range byCols {
			if byCols[k] != got[k] {
				t.Fatalf("%s: TransformColumns y[%d,%d] = %v, Transform %v", tc.name, k/tc.d, k%tc.d, byCols[k], got[k])
			}
		}
		for i := range tc.n {
			for j := range tc.d {
				var want float64
				for f := range tc.D {
					want += ((x[i*tc.D+f]-s.Mean[f])/s.Scale[f] - origin[f]) * axes.At(f, j)
				}
				if g := got[i*tc.d+j]; math.Abs(g-want) > 1e-10*math.Max(1, math.Abs(want)) {
					t.Errorf("%s: y[%d,%d] = %v, want %v", tc.name, i, j, g, want)
				}
			}
		}
	}
}
