package score

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randUnit(rng *rand.Rand, d int) []float64 {
	v := make([]float64, d)
	for m := range v {
		v[m] = rng.NormFloat64()
	}
	s := 1 / math.Sqrt(dot(v, v))
	for m := range v {
		v[m] *= s
	}
	return v
}

// near returns a unit vector at angle ≈ eps from z.
func near(rng *rand.Rand, z []float64, eps float64) []float64 {
	v := randUnit(rng, len(z))
	w := make([]float64, len(z))
	for m := range z {
		w[m] = z[m] + eps*v[m]
	}
	s := 1 / math.Sqrt(dot(w, w))
	for m := range w {
		w[m] *= s
	}
	return w
}

// TestGradientFD checks every ambient gradient of the per-triplet objective
// (ln l plus the prior share) against central differences in R^{K+1}.
func TestGradientFD(t *testing.T) {
	type tc struct {
		name       string
		dims       int
		delta      float64
		alpha      float64
		kappa      float64
		coincident string // "", "ij", "jk": place two points 1e-3 apart
		seed       uint64
	}
	cases := []tc{
		{"K2 delta0.5", 2, 0.5, 30, 0, "", 1},
		{"K2 delta0", 2, 0, 30, 0, "", 2},
		{"K2 delta1", 2, 1, 30, 0, "", 3},
		{"K2 prior", 2, 0.3, 30, 0.7, "", 4},
		{"K1", 1, 0.6, 5, 0.1, "", 5},
		{"K5 alpha1", 5, 0.2, 1, 2, "", 6},
		{"K2 near ij", 2, 0.8, 30, 0, "ij", 7},
		{"K2 near jk", 2, 0.4, 30, 0, "jk", 8},
		{"K3 near ij delta1", 3, 1, 10, 0.5, "ij", 9},
	}
	for _, c := range cases {
		rng := rand.New(rand.NewPCG(c.seed, 77))
		d := c.dims + 1
		yi, yj, yk, x := randUnit(rng, d), randUnit(rng, d), randUnit(rng, d), randUnit(rng, d)
		h := 1e-6
		switch c.coincident {
		case "ij":
			yi = near(rng, yj, 1e-3)
			h = 1e-8
		case "jk":
			yk = near(rng, yj, 1e-3)
			h = 1e-8
		}
		pr := &prior{ci: 0.3 * c.kappa, cj: 0.2 * c.kappa, ck: 0.5 * c.kappa, cx: c.kappa}
		if c.kappa > 0 {
			pr.mu = randUnit(rng, d)
		}
		w := newWork(d)
		evalTriplet(yi, yj, yk, x, c.delta, c.alpha, pr, w)
		ws := newWork(d)
		f := func() float64 { return objective(yi, yj, yk, x, c.delta, c.alpha, pr, ws) }
		for _, p := range []struct {
			name string
			z, g []float64
		}{{"y_i", yi, w.gi}, {"y_j", yj, w.gj}, {"y_k", yk, w.gk}, {"x_t", x, w.gx}} {
			num := make([]float64, d)
			for m := range p.z {
				z0 := p.z[m]
				p.z[m] = z0 + h
				fp := f()
				p.z[m] = z0 - h
				fm := f()
				p.z[m] = z0
				num[m] = (fp - fm) / (2 * h)
			}
			if e := relErr(p.g, num); e > 1e-6 {
				t.Errorf("%s: ∂f/∂%s: rel. error %.3g\nanalytic %v\nnumeric  %v", c.name, p.name, e, p.g, num)
			}
		}
		// δ: l is linear in δ, so differences straddling 0 and 1 are fine.
		hd := 1e-6
		dd := c.delta
		c.delta = dd + hd
		fp := f()
		c.delta = dd - hd
		fm := f()
		c.delta = dd
		num := (fp - fm) / (2 * hd)
		if e := relErr([]float64{w.gd}, []float64{num}); e > 1e-6 {
			t.Errorf("%s: ∂f/∂δ: analytic %v numeric %v (rel. error %.3g)", c.name, w.gd, num, e)
		}
	}
}

// relErr is max|g − n| / max(max|n|, 1): relative for large gradients,
// absolute for small ones.
func relErr(g, n []float64) float64 {
	var e, s float64
	for m := range g {
		e = math.Max(e, math.Abs(g[m]-n[m]))
		s = math.Max(s, math.Abs(n[m]))
	}
	return e / math.Max(s, 1)
}

// TestObjectiveClosedForm checks ln l against a direct evaluation of
// Eqs. 3, 5 and 6 with explicit projection matrices.
func TestObjectiveClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		d := 2 + trial%3
		yi, yj, yk, x := randUnit(rng, d), randUnit(rng, d), randUnit(rng, d), randUnit(rng, d)
		delta, alpha := rng.Float64(), 1+20*rng.Float64()
		proj := func(v []float64) []float64 { // (I − xxᵀ)v via the matrix
			out := make([]float64, d)
			for r := range d {
				for c := range d {
					p := -x[r] * x[c]
					if r == c {
						p++
					}
					out[r] += p * v[c]
				}
			}
			return out
		}
		dist := func(a, b []float64) float64 {
			pa, pb := proj(a), proj(b)
			var s float64
			for m := range pa {
				s += (pa[m] - pb[m]) * (pa[m] - pb[m])
			}
			return math.Sqrt(s)
		}
		sig := func(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
		st := sig(alpha * (dist(yj, yk) - dist(yi, yj)))
		s := sig(alpha * (dot(yi, yj) - dot(yk, yj)))
		want := math.Log(delta*st + (1-delta)*s)
		got, gst, gs := evalTriplet(yi, yj, yk, x, delta, alpha, nil, newWork(d))
		if math.Abs(got-want) > 1e-12*(1+math.Abs(want)) || math.Abs(gst-st) > 1e-12 || math.Abs(gs-s) > 1e-12 {
			t.Errorf("trial %d: ln l %v want %v; σᵗ %v want %v; σ %v want %v", trial, got, want, gst, st, gs, s)
		}
	}
}

// TestRetract checks that the retraction keeps unit norm and ignores the
// normal component of the direction.
func TestRetract(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 10 {
		z := randUnit(rng, 3)
		g := randUnit(rng, 3)
		g2 := make([]float64, 3)
		for m := range g {
			g2[m] = g[m] + 5*z[m]
		}
		a, b := append([]float64(nil), z...), append([]float64(nil), z...)
		retract(a, g, 0.1)
		retract(b, g2, 0.1)
		if math.Abs(dot(a, a)-1) > 1e-14 || relErr(a, b) > 1e-14 {
			t.Errorf("trial %d: retract %v vs %v (norm² %v)", trial, a, b, dot(a, a))
		}
	}
}

// TestMixTermsPaths checks the direct formulas against the log-space path
// and that extreme arguments stay finite.
func TestMixTermsPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 200 {
		delta := rng.Float64()
		zt, zs := 80*(rng.Float64()-0.5), 80*(rng.Float64()-0.5)
		lnl, st, s, rt, rs, ct, cs := mixTerms(delta, zt, zs)
		lst, ls := logSigmoid(zt), logSigmoid(zs)
		wl := logMix(delta, lst, ls)
		want := []float64{wl, math.Exp(lst), math.Exp(ls), math.Exp(lst - wl), math.Exp(ls - wl), math.Exp(logSigmoid(-zt)), math.Exp(logSigmoid(-zs))}
		for q, g := range []float64{lnl, st, s, rt, rs, ct, cs} {
			if math.Abs(g-want[q]) > 1e-12*math.Max(1, math.Abs(want[q])) {
				t.Errorf("trial %d (δ %v, z %v %v): term %d = %v, log space %v", trial, delta, zt, zs, q, g, want[q])
			}
		}
	}
	lnl, st, s, rt, rs, ct, cs := mixTerms(0.5, -900, -1000)
	for q, g := range []float64{lnl, st, s, rt, rs, ct, cs} {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			t.Errorf("z = −900, −1000: term %d = %v", q, g)
		}
	}
	if want := math.Log(0.5) - 900; math.Abs(lnl-want) > 1e-9 {
		t.Errorf("z = −900, −1000: ln l = %v, want %v", lnl, want)
	}
}
