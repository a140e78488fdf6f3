package nerv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ordinate/ordinate/transforms/placement"

	"github.com/ordinate/ordinate/kernels"
)

// TestMapIndex compares the grid's nearest-point and within-radius
// searches with brute force on random maps with clusters, duplicates and
// a far outlier, for queries inside and outside the map.
func TestMapIndex(t *testing.T) {
	for _, tc := range []struct {
		dims, n int
		cell    float64
	}{
		{1, 300, 0}, {2, 500, 0}, {3, 400, 0},
		{2, 500, 0.05}, {2, 200, 1e-6}, {3, 300, 5}, {1, 50, 100},
		{2, 1, 0}, {3, 2, 0},
	} {
		name := fmt.Sprintf("dims %d, n %d, cell %g", tc.dims, tc.n, tc.cell)
		rng := rand.New(rand.NewPCG(uint64(tc.dims), uint64(tc.n)))
		y := make([]float64, tc.n*tc.dims)
		for j := range tc.n {
			c := float64(j % 3)
			for a := range tc.dims {
				y[j*tc.dims+a] = 4*c + rng.NormFloat64()
			}
		}
		if tc.n > 10 {
			copy(y[5*tc.dims:6*tc.dims], y[7*tc.dims:8*tc.dims]) // a duplicate
			y[9*tc.dims] = 1e4                                   // a far outlier
		}
		ref := placement.Reference{Y: y, N: tc.n, Dims: tc.dims}
		m := newMapIndex(ref, tc.cell)
		if cells := len(m.start) - 1; cells > mapIndexMaxCells*tc.n {
			t.Errorf("%s: %d cells for %d points", name, cells, tc.n)
		}
		var got []int32
		for q := range 200 {
			p := make([]float64, tc.dims)
			for a := range p {
				p[a] = 14*rng.Float64() - 2
			}
			switch {
			case q == 0 && tc.n > 10:
				copy(p, y[5*tc.dims:6*tc.dims]) // on the duplicate: the smaller index wins
			case q == 1:
				p[0] = -50 // outside the grid
			case q == 2:
				p[0] = 2e4
			}
			bj, bd := int32(-1), math.Inf(1)
			for j := range tc.n {
				if d := kernels.EmbedSqDist(p, ref.Row(int32(j))); d < bd {
					bj, bd = int32(j), d
				}
			}
			if j, d := m.nearest(p); j != bj || d != bd {
				t.Errorf("%s: query %d: nearest %d at %g, want %d at %g", name, q, j, d, bj, bd)
			}
			r2 := []float64{0, 0.5, 4, 30, math.Inf(1)}[q%5]
			if q == 0 {
				r2 = 0
			}
			var want []int32
			for j := range tc.n {
				if kernels.EmbedSqDist(p, ref.Row(int32(j))) <= r2 {
					want = append(want, int32(j))
				}
			}
			got = m.within(got, p, r2)
			for q := 1; q < len(got); q++ {
				if m.rank[got[q]] <= m.rank[got[q-1]] {
					t.Errorf("%s: query %d: within lists %d before %d, against the grid's order", name, q, got[q-1], got[q])
				}
			}
			got = slices.Clone(got)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s: query %d: within r² = %g: %d points, want %d (%v vs %v)", name, q, r2, len(got), len(want), head(got), head(want))
			}
		}
	}
}

func head(s []int32) []int32 { return s[:min(len(s), 8)] }
