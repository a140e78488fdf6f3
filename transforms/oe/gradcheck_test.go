package oe

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ordinate/ordinate/transforms/triplets"
)

// randomTable draws T triplets of distinct objects in [0, n) with aspects
// in [0, aspects).
func randomTable(rng *rand.Rand, n, T, aspects int) *triplets.Table {
	t := &triplets.Table{}
	for t.Len() < T {
		i, j, k := rng.IntN(n), rng.IntN(n), rng.IntN(n)
		if i == j || j == k || i == k {
			continue
		}
		t.Append(int32(i), int32(j), int32(k), int32(rng.IntN(aspects)))
	}
	return t
}

// gradError is ‖g − g_fd‖/‖g_fd‖ at x, with central differences.
func gradError(eval func(x, g []float64) float64, x []float64, scale float64) float64 {
	m := len(x)
	g := make([]float64, m)
	eval(x, g)
	scratch := make([]float64, m)
	xp := append([]float64(nil), x...)
	var num, den float64
	for p := range x {
		h := 1e-6 * math.Max(scale, math.Abs(x[p]))
		xp[p] = x[p] + h
		fp := eval(xp, scratch)
		xp[p] = x[p] - h
		fm := eval(xp, scratch)
		xp[p] = x[p]
		fd := (fp - fm) / (2 * h)
		num += (g[p] - fd) * (g[p] - fd)
		den += fd * fd
	}
	return math.Sqrt(num / den)
}

func TestGradients(t *testing.T) {
	const n, T = 15, 400
	for _, tc := range []struct {
		name   string
		dims   int
		loss   lossFunc
		lambda float64
		scale  float64
	}{
		{"tste dims=2 alpha=1", 2, tsteLoss(1), 0, 1},
		{"tste dims=3 alpha=2 (default)", 3, tsteLoss(2), 0, 1},
		{"tste dims=1 alpha=1", 1, tsteLoss(1), 0, 1},
		{"tste dims=5 alpha=7 lambda", 5, tsteLoss(7), 0.3, 1},
		{"tste dims=3 alpha=2 far apart", 3, tsteLoss(2), 0, 30},
		{"tste dims=2 alpha=1 small", 2, tsteLoss(1), 0, 0.1},
		{"soe dims=2", 2, soeLoss(0.1), 0, 1},
		{"soe dims=3", 3, soeLoss(0.1), 0, 1},
		{"soe dims=1 margin=0.5", 1, soeLoss(0.5), 0, 1},
		{"soe dims=4 lambda", 4, soeLoss(0.1), 0.2, 0.3},
	} {
		rng := rand.New(rand.NewPCG(7, uint64(tc.dims)))
		tab := randomTable(rng, n, T, 1)
		x := make([]float64, n*tc.dims)
		for p := range x {
			x[p] = tc.scale * rng.NormFloat64()
		}
		ev := newEvaluator(tab, n, Options{Dims: tc.dims, Lambda: tc.lambda, Threads: 2}, tc.loss)
		e := gradError(ev.eval, x, tc.scale)
		t.Logf("%s: relative gradient error %.2g", tc.name, e)
		if !(e < 1e-6) {
			t.Errorf("%s: relative gradient error %.3g, want < 1e-6", tc.name, e)
		}
	}
}

// TestGradientCheckDetectsWrongTSTE shows that the check above would catch
// the published mistakes: the gradient of −ΣP paired with the −Σlog P cost
// (cblearn), and K in place of β (valid only for α = 1).
func TestGradientCheckDetectsWrongTSTE(t *testing.T) {
	const n, T, dims, alpha = 15, 400, 3, 2.0
	rng := rand.New(rand.NewPCG(8, 1))
	tab := randomTable(rng, n, T, 1)
	x := make([]float64, n*dims)
	for p := range x {
		x[p] = rng.NormFloat64()
	}
	right := newEvaluator(tab, n, Options{Dims: dims, Threads: 1}, tsteLoss(alpha))
	for _, tc := range []struct {
		name   string
		weight func(P, beta, K float64) float64 // replaces (1−P)·β
	}{
		{"gradient of -sum P", func(P, beta, K float64) float64 { return P * (1 - P) * beta }},
		{"K instead of beta", func(P, beta, K float64) float64 { return (1 - P) * K }},
	} {
		wrong := func(x, g []float64) float64 {
			f := right.eval(x, g)
			clear(g)
			c := (alpha + 1) / alpha
			for r := range T {
				a, b, k := int(tab.J[r])*dims, int(tab.I[r])*dims, int(tab.K[r])*dims
				dab, dac := sqDist(x, a, b, dims), sqDist(x, a, k, dims)
				Kab := math.Pow(1+dab/alpha, -(alpha+1)/2)
				Kac := math.Pow(1+dac/alpha, -(alpha+1)/2)
				P := Kab / (Kab + Kac)
				wb := c * tc.weight(P, 1/(1+dab/alpha), Kab)
				wk := c * tc.weight(P, 1/(1+dac/alpha), Kac)
				for d := range dims {
					xab, xac := x[a+d]-x[b+d], x[a+d]-x[k+d]
					g[a+d] += wb*xab - wk*xac
					g[b+d] -= wb * xab
					g[k+d] += wk * xac
				}
			}
			return f
		}
		e := gradError(wrong, x, 1)
		t.Logf("%s: relative gradient error %.2g", tc.name, e)
		if !(e > 0.05) {
			t.Errorf("%s: relative error %.3g, the check should have failed", tc.name, e)
		}
	}
}

// TestSOEZeroDistance checks the documented subgradient: with the anchor on
// top of the near object, only the far term moves the points.
func TestSOEZeroDistance(t *testing.T) {
	tab := &triplets.Table{}
	tab.Append(0, 1, 2, 0) // anchor 1, near 0, far 2
	y := []float64{0, 0, 0, 0, 0.05, 0}
	g := make([]float64, len(y))
	f := soeLoss(0.1)(y, 2, tab, 0, 1, g)
	// h = 0 + 0.1 − 0.05 = 0.05; ∂/∂y_1 = −2h (y_1 − y_2)/d_12 = −0.1·(−1, 0).
	want := []float64{0, 0, 0.1, 0, -0.1, 0}
	if math.Abs(f-0.0025) > 1e-15 {
		t.Errorf("cost %g, want 0.0025", f)
	}
	for p := range want {
		if math.Abs(g[p]-want[p]) > 1e-15 {
			t.Errorf("grad[%d] = %g, want %g", p, g[p], want[p])
		}
	}
}

// TestTSTEClosedForm checks one triplet's cost against the formula.
func TestTSTEClosedForm(t *testing.T) {
	tab := &triplets.Table{}
	tab.Append(0, 1, 2, 0) // anchor 1 at origin, near 0 at distance 1, far 2 at distance 2
	y := []float64{1, 0, 0, 0, 0, 2}
	for _, alpha := range []float64{1, 2, 5} {
		Kab := math.Pow(1+1/alpha, -(alpha+1)/2)
		Kac := math.Pow(1+4/alpha, -(alpha+1)/2)
		want := -math.Log(Kab / (Kab + Kac))
		got := tsteLoss(alpha)(y, 2, tab, 0, 1, make([]float64, 6))
		if math.Abs(got-want) > 1e-14 {
			t.Errorf("alpha=%g: cost %.17g, want %.17g", alpha, got, want)
		}
	}
}
