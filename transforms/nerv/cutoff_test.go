package nerv

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestCutoffExact checks that with tol = 0 (every pair summed) the cut-off
// stress and gradient are Barnes–Hut's with tol = 0, which
// TestNeRVBHExact checks against the plain formula and central
// differences.
func TestCutoffExact(t *testing.T) {
	cases := []struct {
		name          string
		n, k, dims    int
		labels        string
		spreadY, perp float64
	}{
		{"nerv 1-D full lists", 40, 39, 1, "none", 1, 8},
		{"hard 2-D sparse", 120, 30, 2, "hard", 1, 10},
		{"soft 2-D sparse", 120, 30, 2, "soft", 2, 10},
		{"unlabelled 3-D", 90, 20, 3, "unlabelled", 0.5, 6},
	}
	for _, tc := range cases {
		rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.k)))
		sp, _ := nervSparseFixture(t, rng, tc.n, tc.k, 4, tc.perp, tc.labels)
		y := nervRandomY(rng, tc.n, tc.dims)
		for i := range y {
			y[i] *= tc.spreadY * sp.Scale
		}
		var bh BH
		co := CutoffStress{BHAbove: -1}
		gWant := make([]float64, len(y))
		want, err := bh.Stress(context.Background(), gWant, y, tc.dims, sp, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, len(y))
		got, err := co.Stress(context.Background(), g, y, tc.dims, sp, 0, DefaultBHTol, 2)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
			t.Errorf("%s: stress %v, Barnes–Hut %v", tc.name, got, want)
		}
		if d := maxAbsDiff(g, gWant); d > 1e-12*max(1, maxAbs(gWant)) {
			t.Errorf("%s: gradient differs from Barnes–Hut's by %g", tc.name, d)
		}
	}
}

// TestCutoffApprox checks the cut-off against the full sums: the stress and
// gradient errors stay within tol (the bound on every row's normaliser),
// shrink with tol, and are below Barnes–Hut's at the same tol, on a spread
// map and on a dense one (every point within a few widths of hundreds).
func TestCutoffApprox(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	const n, k, dims = 1500, 45, 2
	for _, labels := range []string{"none", "hard", "soft"} {
		sp, _ := nervSparseFixture(t, rng, n, k, 5, 15, labels)
		for _, spread := range []float64{3, 0.5} {
			name := fmt.Sprintf("%s, spread %g", labels, spread)
			y := nervRandomY(rng, n, dims)
			for i := range y {
				y[i] *= spread * sp.Scale
			}
			co := CutoffStress{BHAbove: -1}
			var bh BH
			gx := make([]float64, n*dims)
			exact, err := co.Stress(context.Background(), gx, y, dims, sp, 0, 0, 2)
			if err != nil {
				t.Fatal(err)
			}
			prevS, prevG := math.Inf(1), math.Inf(1)
			for _, tol := range []float64{1e-1, 1e-2, 1e-4} {
				g := make([]float64, n*dims)
				s, err := co.Stress(context.Background(), g, y, dims, sp, tol, DefaultBHTol, 2)
				if err != nil {
					t.Fatal(err)
				}
				es, eg := math.Abs(s-exact)/math.Abs(exact), gradRelErr(g, gx)
				gb := make([]float64, n*dims)
				sb, err := bh.Stress(context.Background(), gb, y, dims, sp, tol, 2)
				if err != nil {
					t.Fatal(err)
				}
				esb, egb := math.Abs(sb-exact)/math.Abs(exact), gradRelErr(gb, gx)
				t.Logf("%s tol %g: stress rel err %.2e (BH %.2e), grad rel err %.2e (BH %.2e)", name, tol, es, esb, eg, egb)
				if es > tol || eg > tol {
					t.Errorf("%s tol %g: stress rel err %g, grad rel err %g, want ≤ tol", name, tol, es, eg)
				}
				if es > prevS*1.01+1e-14 || eg > prevG*1.01+1e-14 {
					t.Errorf("%s tol %g: errors %g, %g did not shrink from %g, %g", name, tol, es, eg, prevS, prevG)
				}
				if eg > egb {
					t.Errorf("%s tol %g: gradient error %g above Barnes–Hut's %g", name, tol, eg, egb)
				}
				prevS, prevG = es, eg
			}
		}
	}
}

// TestCutoffHybrid checks the rows that take the Barnes–Hut sums: with
// BHAbove = 1 every row does, and the result is Barnes–Hut's (summed in
// another row order); with a threshold between, on a map dense in its
// middle, both kinds of rows occur, and the errors lie within Barnes–Hut's.
func TestCutoffHybrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	const n, k, dims = 1500, 45, 2
	sp, _ := nervSparseFixture(t, rng, n, k, 5, 15, "soft")
	y := nervRandomY(rng, n, dims)
	for i := range y {
		y[i] *= 3 * sp.Scale
		if i < n { // half the points crowd the centre
			y[i] *= 0.1
		}
	}
	ctx := context.Background()
	exact := make([]float64, n*dims)
	sx, err := (&CutoffStress{BHAbove: -1}).Stress(ctx, exact, y, dims, sp, 0, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	var bh BH
	gb := make([]float64, n*dims)
	sb, _ := bh.Stress(ctx, gb, y, dims, sp, DefaultBHTol, 2)
	gAll := make([]float64, n*dims)
	sAll, _ := (&CutoffStress{BHAbove: 1}).Stress(ctx, gAll, y, dims, sp, DefaultCutoffTol, DefaultBHTol, 2)
	if math.Abs(sAll-sb) > 1e-12*math.Abs(sb) || maxAbsDiff(gAll, gb) > 1e-12*maxAbs(gb) {
		t.Errorf("BHAbove 1: stress %v, gradient off by %g; Barnes–Hut %v", sAll, maxAbsDiff(gAll, gb), sb)
	}
	gPure := make([]float64, n*dims)
	sPure, _ := (&CutoffStress{BHAbove: -1}).Stress(ctx, gPure, y, dims, sp, DefaultCutoffTol, DefaultBHTol, 2)
	gMix := make([]float64, n*dims)
	sMix, _ := (&CutoffStress{BHAbove: 400}).Stress(ctx, gMix, y, dims, sp, DefaultCutoffTol, DefaultBHTol, 2)
	if sMix == sPure || sMix == sAll {
		t.Errorf("BHAbove 400: stress %v equals a pure one (cut-off %v, Barnes–Hut %v): the rows did not mix", sMix, sPure, sAll)
	}
	es, eg := math.Abs(sMix-sx)/math.Abs(sx), gradRelErr(gMix, exact)
	esb, egb := math.Abs(sb-sx)/math.Abs(sx), gradRelErr(gb, exact)
	t.Logf("mixed: stress rel err %.2e, grad rel err %.2e; Barnes–Hut %.2e, %.2e", es, eg, esb, egb)
	if es > esb*1.01+1e-12 || eg > egb*1.01+1e-12 {
		t.Errorf("mixed: errors %g, %g above Barnes–Hut's %g, %g", es, eg, esb, egb)
	}
}

func TestCutoffThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, k, dims = 700, 30, 2
	sp, _ := nervSparseFixture(t, rng, n, k, 3, 10, "soft")
	y := nervRandomY(rng, n, dims)
	checkThreadsBitIdentical(t, n*dims, func(grad []float64, threads int) (float64, error) {
		co := CutoffStress{BHAbove: 200} // both kinds of rows
		return co.Stress(context.Background(), grad, y, dims, sp, 1e-2, DefaultBHTol, threads)
	})
}

// TestCutoffDegenerate covers coincident points, a point far from all
// others (its row would underflow without the shift, and its reach spans
// the grid), and coordinates that are not finite or whose extent
// overflows (stress NaN, which a line search rejects).
func TestCutoffDegenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const n, k, dims = 200, 20, 2
	sp := nervSparseOnly(t, rng, n, k, 3, 6, "hard")
	y := nervRandomY(rng, n, dims)
	for i := 1; i < 30; i++ {
		copy(y[2*i:2*i+2], y[0:2])
	}
	y[2*50], y[2*50+1] = 1e4, -1e4
	for _, tol := range []float64{0, 1e-2} {
		co := CutoffStress{BHAbove: -1}
		g := make([]float64, n*dims)
		s, err := co.Stress(context.Background(), g, y, dims, sp, tol, DefaultBHTol, 1)
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(s) || math.IsInf(s, 0) {
			t.Fatalf("tol %g: stress %v", tol, s)
		}
		for q, v := range g {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("tol %g: grad[%d] = %v", tol, q, v)
			}
		}
		if want := nervSparseBrute(y, dims, sp); math.Abs(s-want) > 1e-9*math.Abs(want) {
			t.Errorf("tol %g: stress %v, plain formula %v", tol, s, want)
		}
	}
	for _, bad := range []struct {
		name string
		v    [2]float64
	}{{"NaN", [2]float64{math.NaN(), 0}}, {"+Inf", [2]float64{0, math.Inf(1)}}, {"extent overflow", [2]float64{1.5e308, 0}}} {
		yy := append([]float64(nil), y...)
		yy[2*7], yy[2*7+1] = bad.v[0], bad.v[1]
		if bad.name == "extent overflow" {
			yy[2*8] = -1.5e308
		}
		co := CutoffStress{BHAbove: -1}
		g := make([]float64, n*dims)
		s, err := co.Stress(context.Background(), g, yy, dims, sp, 1e-2, DefaultBHTol, 1)
		if err != nil || !math.IsNaN(s) || !math.IsNaN(g[0]) {
			t.Errorf("%s: stress %v, grad[0] %v, err %v; want NaN, NaN, nil", bad.name, s, g[0], err)
		}
	}
}

func TestCutoffCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	sp, _ := nervSparseFixture(t, rng, 100, 10, 2, 3, "none")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	co := CutoffStress{BHAbove: -1}
	if _, err := co.Stress(ctx, nil, nervRandomY(rng, 100, 2), 2, sp, 1e-2, DefaultBHTol, 1); err != context.Canceled {
		t.Errorf("cancelled: err = %v", err)
	}
}

// BenchmarkNeRVCutoff is BenchmarkNeRVBH's evaluation with the cut-off
// stress at the same tolerance.
func BenchmarkNeRVCutoff(b *testing.B) {
	for _, n := range []int{5000, 20000} {
		rng := rand.New(rand.NewPCG(1, 2))
		sp := nervSparseOnly(b, rng, n, 96, 3, 32, "hard")
		y := nervRandomY(rng, n, 2)
		for i := range y {
			y[i] *= math.Sqrt(float64(n)/28) * sp.Scale
		}
		g := make([]float64, n*2)
		co := CutoffStress{BHAbove: -1}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := co.Stress(context.Background(), g, y, 2, sp, 1e-2, DefaultBHTol, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
