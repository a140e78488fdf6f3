package nerv

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ordinate/ordinate/kernels"
)

// TestTInterpAgainstDirect checks the interpolated sums against direct
// summation on planes of every shape: the whole map, a corner, a class
// mixed through the map, in one and two dimensions, small and large maps
// (the grid's two regimes: 50 intervals across, or intervals one unit wide).
func TestTInterpAgainstDirect(t *testing.T) {
	cases := []struct {
		name       string
		n, dims    int
		spread     float64
		part       func(i int) bool
		tol0, tolG float64
		p          int
		charged    bool
	}{
		{"2-D small map, all points", 1500, 2, 3, nil, 1e-7, 1e-6, 0, false},
		{"2-D large map, all points", 3000, 2, 80, nil, 5e-5, 5e-4, 0, false},
		{"2-D large map, three nodes", 3000, 2, 80, nil, 2e-4, 2e-3, 3, false},
		{"2-D large map, a corner", 3000, 2, 80, func(i int) bool { return i%3 == 0 }, 5e-5, 5e-4, 0, false},
		{"2-D mixed class", 3000, 2, 30, func(i int) bool { return i%2 == 0 }, 5e-5, 5e-4, 0, false},
		{"1-D", 2000, 1, 60, nil, 5e-5, 5e-4, 0, false},
		{"2-D charged", 3000, 2, 30, nil, 5e-5, 5e-4, 0, true},
	}
	for _, tc := range cases {
		rng := rand.New(rand.NewPCG(7, uint64(tc.n)))
		y := make([]float64, tc.n*tc.dims)
		for i := range tc.n {
			for c := range tc.dims {
				// Clusters of unequal widths.
				centre := float64((i%5)-2) * tc.spread / 5
				y[i*tc.dims+c] = centre + rng.NormFloat64()*tc.spread/float64(4+i%3*6)
			}
			if tc.name == "2-D large map, a corner" && i%3 == 0 {
				y[i*tc.dims] = math.Abs(y[i*tc.dims])
				y[i*tc.dims+1] = math.Abs(y[i*tc.dims+1])
			}
		}
		var members []int32
		for i := range tc.n {
			if tc.part == nil || tc.part(i) {
				members = append(members, int32(i))
			}
		}
		k := tFields(tc.dims)
		comps := make([]int, k)
		for f := range comps {
			comps[f] = f
		}
		var charge []float64
		if tc.charged {
			charge = make([]float64, len(members))
			for r := range charge {
				charge[r] = rng.Float64()*2 - 0.5
			}
		}
		var ti tInterp
		ti.p = tc.p
		ti.gridOnly = true
		ti.setGrid(y, tc.n, tc.dims)
		want := make([]float64, len(members)*k)
		tDirect(want, y, tc.dims, members, charge, comps, ti.r)
		got := make([]float64, len(members)*k)
		if err := ti.sums(context.Background(), got, y, members, charge, comps, 2); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		worst := tRelErrs(got, want, k)
		if worst[0] > tc.tol0 || worst[1] > tc.tol0 {
			t.Errorf("%s: F0, F1 relative errors %.2g, %.2g, want ≤ %g", tc.name, worst[0], worst[1], tc.tol0)
		}
		for f := 2; f < k; f++ {
			if worst[f] > tc.tolG {
				t.Errorf("%s: field %d relative error %.2g, want ≤ %g", tc.name, f, worst[f], tc.tolG)
			}
		}
		t.Logf("%s: grid %v intervals, worst errors %.2g", tc.name, ti.nb, worst[:k])
	}
}

// tRelErrs returns each field's relative L2 error over the members.
func tRelErrs(got, want []float64, k int) (e [6]float64) {
	for f := range k {
		var num, den float64
		for r := f; r < len(want); r += k {
			num += (got[r] - want[r]) * (got[r] - want[r])
			den += want[r] * want[r]
		}
		e[f] = math.Sqrt(num / den)
	}
	return e
}

// TestTInterpReuse: with a spectra budget of a few small sets (capI 20),
// maps of other extents and windows drop kept spectra and reuse their
// buffers (makeRoom); every sum must still be the bits a fresh tInterp
// gives.
func TestTInterpReuse(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 5))
	const n, dims = 2000, 2
	base := make([]float64, n*dims)
	for k := range base {
		base[k] = rng.NormFloat64() * 9
	}
	members := make([]int32, n)
	for i := range members {
		members[i] = int32(i)
	}
	comps := tComps(dims, 0, tFields(dims))
	used := tInterp{maxI: 20, capI: 20, gridOnly: true}
	for step, f := range []float64{1, 2.3, 0.7, 4.1, 1, 3, 0.5, 2.3} {
		y := make([]float64, len(base))
		for k, v := range base {
			y[k] = v * f
		}
		// A window: the points left of the map's middle, as a class plane
		// would take it, then the whole map.
		for _, part := range [][]int32{members[:n/2], members} {
			fresh := tInterp{maxI: 20, capI: 20, gridOnly: true}
			fresh.setGrid(y, n, dims)
			want := make([]float64, len(part)*len(comps))
			if err := fresh.sums(ctx, want, y, part, nil, comps, 2); err != nil {
				t.Fatal(err)
			}
			used.setGrid(y, n, dims)
			got := make([]float64, len(want))
			if err := used.sums(ctx, got, y, part, nil, comps, 2); err != nil {
				t.Fatal(err)
			}
			for k := range got {
				if got[k] != want[k] {
					t.Fatalf("map %d (×%g), %d members: sum %d is %v, a fresh tInterp's %v", step, f, len(part), k, got[k], want[k])
				}
			}
		}
	}
	if used.reused == 0 {
		t.Errorf("no buffer was reused: makeRoom's reuse was not exercised")
	}
}

// BenchmarkTDirect: one call of a plane's direct sums (pass 1's fields),
// the cost tInterp.direct weighs against the grid's (tDirectPairSeconds:
// the time over m²).
func BenchmarkTDirect(b *testing.B) {
	for _, m := range []int{1000, 4000} {
		rng := rand.New(rand.NewPCG(3, uint64(m)))
		y := make([]float64, 2*m)
		for k := range y {
			y[k] = 30 * rng.NormFloat64()
		}
		members := make([]int32, m)
		for i := range members {
			members[i] = int32(i)
		}
		comps := []int{0, 1, 2, 3, 4, 5}
		dst := make([]float64, m*len(comps))
		ti := tInterp{}
		ti.setGrid(y, m, 2)
		b.Run(fmt.Sprint(m), func(b *testing.B) {
			for range b.N {
				if err := kernels.ParallelFor(context.Background(), m, 2, 64, func(lo, hi int) {
					tDirectRows(dst, y, 2, members, nil, comps, ti.r, lo, hi)
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m)/float64(m), "ns/pair")
		})
	}
}

// TestTInterpDirect: a plane whose grid costs more than its pairs is
// summed directly, to the bits of tDirect; a large plane is interpolated,
// and gridOnly interpolates a small one.
func TestTInterpDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct {
		name      string
		n         int
		spread    float64
		gridOnly  bool
		direct    bool
		tolerance float64 // against tDirect, relative
	}{
		{"569 rows over a wide grid", 569, 400, false, true, 0},
		{"569 rows, grid only", 569, 400, true, false, 1e-3},
		{"30,000 rows over 50 intervals", 30000, 10, false, false, 1e-4},
	} {
		y := make([]float64, 2*tc.n)
		for k := range y {
			y[k] = tc.spread * rng.NormFloat64()
		}
		members := make([]int32, tc.n)
		for i := range members {
			members[i] = int32(i)
		}
		ti := tInterp{gridOnly: tc.gridOnly}
		ti.setGrid(y, tc.n, 2)
		i0, i1 := ti.window(members)
		p0 := tFFTSize(2*int(i1[0]-i0[0]+1)*ti.nodes() - 1)
		p1 := tFFTSize(2*int(i1[1]-i0[1]+1)*ti.nodes() - 1)
		if got := ti.direct(tc.n, 6, p0, p1); got != tc.direct {
			t.Errorf("%s: direct %v, want %v (grid %v intervals)", tc.name, got, tc.direct, ti.nb)
		}
		if tc.n > 5000 {
			continue // tDirect's reference would take seconds
		}
		comps := []int{0, 1, 2, 3, 4, 5}
		want := make([]float64, tc.n*6)
		tDirect(want, y, 2, members, nil, comps, ti.r)
		got := make([]float64, tc.n*6)
		if err := ti.sums(context.Background(), got, y, members, nil, comps, 2); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		worst := 0.0
		for _, e := range tRelErrs(got, want, 6) {
			worst = max(worst, e)
		}
		if worst > tc.tolerance || (worst == 0) != tc.direct {
			t.Errorf("%s: relative error %.2g against tDirect, want ≤ %g (and 0 only when direct)", tc.name, worst, tc.tolerance)
		}
	}
}
