package nerv

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

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

// TestCutoffNonFinite checks coordinates that are not finite or whose
// extent overflows: stress NaN and a NaN gradient, which a line search
// rejects, where the grid could not be built.
func TestCutoffNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const n, k, dims = 200, 20, 2
	sp := nervSparseOnly(t, rng, n, k, 3, 6, "hard")
	y := nervRandomY(rng, n, dims)
	for _, bad := range []struct {
		name string
		v    [2]float64
	}{{"NaN", [2]float64{math.NaN(), 0}}, {"+Inf", [2]float64{0, math.Inf(1)}}, {"extent overflow", [2]float64{1.5e308, 0}}} {
		yy := append([]float64(nil), y...)
		yy[2*7], yy[2*7+1] = bad.v[0], bad.v[1]
		if bad.name == "extent overflow" {
			yy[2*8] = -1.5e308
		}
		var co CutoffStress
		g := make([]float64, n*dims)
		s, err := co.Stress(context.Background(), g, yy, dims, sp, DefaultCutoffTol, DefaultBHTol, 1)
		if err != nil || !math.IsNaN(s) || !math.IsNaN(g[0]) {
			t.Errorf("%s: stress %v, grad[0] %v, err %v; want NaN, NaN, nil", bad.name, s, g[0], err)
		}
	}
}
