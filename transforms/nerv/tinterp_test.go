package nerv

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
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
		ti.setGrid(y, tc.n, tc.dims)
		want := make([]float64, len(members)*k)
		tDirect(want, y, tc.dims, members, charge, comps, make([]float64, k), ti.r)
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
	used := tInterp{maxI: 20, capI: 20}
	for step, f := range []float64{1, 2.3, 0.7, 4.1, 1, 3, 0.5, 2.3} {
		y := make([]float64, len(base))
		for k, v := range base {
			y[k] = v * f
		}
		// A window: the points left of the map's middle, as a class plane
		// would take it, then the whole map.
		for _, part := range [][]int32{members[:n/2], members} {
			fresh := tInterp{maxI: 20, capI: 20}
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
