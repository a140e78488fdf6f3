package score

import "math"

// logSigmoid returns ln(1/(1+e^{−z})) without overflow.
func logSigmoid(z float64) float64 {
	if z >= 0 {
		return -math.Log1p(math.Exp(-z))
	}
	return z - math.Log1p(math.Exp(z))
}

func dot(a, b []float64) float64 {
	var s float64
	for m := range a {
		s += a[m] * b[m]
	}
	return s
}

// work holds the ambient gradients of one triplet's objective and scratch
// space, all of length D = K+1. One per goroutine.
type work struct {
	gi, gj, gk, gx []float64 // ∂f/∂yᵢ, ∂f/∂yⱼ, ∂f/∂yₖ, ∂f/∂xₜ
	gd             float64   // ∂f/∂δₜ (exact, of ln l)
	resp           float64   // δσᵗ/l, the responsibility of the aspect view
	a, b, p, q     []float64
	ga, gb         []float64
}

func newWork(d int) *work {
	buf := make([]float64, 10*d)
	s := func(n int) []float64 { return buf[n*d : (n+1)*d : (n+1)*d] }
	return &work{gi: s(0), gj: s(1), gk: s(2), gx: s(3), a: s(4), b: s(5), p: s(6), q: s(7), ga: s(8), gb: s(9)}
}

// prior holds the vMF prior coefficients of one triplet: the objective gets
// c·κ·μᵀz for z ∈ {yᵢ, yⱼ, yₖ, xₜ}; see the package doc for the split of
// the prior over triplets.
type prior struct {
	mu             []float64 // nil when κ = 0
	ci, cj, ck, cx float64   // κ/n_z
}

// tangentDist computes p = (I − xxᵀ)a, d = ‖p‖ and the ambient gradients
// ∂d/∂a → ga, ∂d/∂x → added to gx with weight w. At unit x the first is
// p/d; the second, −[(xᵀp)a + (xᵀa)p]/d, is exact also off the sphere so
// that finite differences in R^{K+1} agree with it. d = 0 gives zero
// gradients (a subgradient).
func tangentDist(x, a, p, ga []float64) (d, xa, xp float64) {
	xa = dot(x, a)
	for m := range a {
		p[m] = a[m] - xa*x[m]
	}
	d = math.Sqrt(dot(p, p))
	xp = dot(x, p)
	if d == 0 {
		clear(ga)
		return 0, xa, xp
	}
	for m := range a {
		ga[m] = (p[m] - xp*x[m]) / d
	}
	return d, xa, xp
}

// evalTriplet evaluates, for ⟨i, j, k⟩ₜ, the objective
//
//	f = ln(δ·σᵗ + (1−δ)·σ) + Σ_z c_z·κ·μᵀz
//
// with σᵗ = sigmoid(α(dᵗⱼₖ − dᵗᵢⱼ)) (Eq. 3) and σ = sigmoid(α·yⱼᵀ(yᵢ − yₖ))
// (Eq. 5), and writes its ambient gradients into w. It returns f without the
// prior (ln l) and σᵗ, σ. δ may lie slightly outside [0, 1] as long as l > 0
// (finite differences at the clip bounds need that).
func evalTriplet(yi, yj, yk, x []float64, delta, alpha float64, pr *prior, w *work) (lnl, st, s float64) {
	for m := range yj {
		w.a[m] = yj[m] - yi[m]
		w.b[m] = yj[m] - yk[m]
	}
	dij, xa, xp := tangentDist(x, w.a, w.p, w.ga)
	djk, xb, xq := tangentDist(x, w.b, w.q, w.gb)
	u := djk - dij
	v := dot(yj, yi) - dot(yj, yk)

	fu, fv := alpha*delta, alpha*(1-delta)
	lnl, st, s, rt, rs, ct, cs := mixTerms(delta, alpha*u, alpha*v)
	// ∂ln l/∂u = αδσᵗ(1−σᵗ)/l and ∂ln l/∂v = α(1−δ)σ(1−σ)/l.
	fu *= rt * ct
	fv *= rs * cs
	w.gd = rt - rs
	w.resp = delta * rt
	// u = d(b) − d(a), a = yⱼ − yᵢ, b = yⱼ − yₖ; v = yⱼᵀyᵢ − yⱼᵀyₖ.
	var ua, ub float64 // ∂d/∂x coefficients, see tangentDist
	if dij > 0 {
		ua = 1 / dij
	}
	if djk > 0 {
		ub = 1 / djk
	}
	for m := range yi {
		w.gi[m] = fu*w.ga[m] + fv*yj[m]
		w.gj[m] = fu*(w.gb[m]-w.ga[m]) + fv*(yi[m]-yk[m])
		w.gk[m] = -fu*w.gb[m] - fv*yj[m]
		ddb := -(xq*w.b[m] + xb*w.q[m]) * ub
		dda := -(xp*w.a[m] + xa*w.p[m]) * ua
		w.gx[m] = fu * (ddb - dda)
	}
	if pr != nil && pr.mu != nil {
		for m, mm := range pr.mu {
			w.gi[m] += pr.ci * mm
			w.gj[m] += pr.cj * mm
			w.gk[m] += pr.ck * mm
			w.gx[m] += pr.cx * mm
		}
	}
	return lnl, st, s
}

// mixTerms returns for zt = α·u and zs = α·v: ln l, σᵗ, σ, σᵗ/l, σ/l,
// 1 − σᵗ and 1 − σ. The direct formulas are used while l is a normal
// float; otherwise (|z| in the hundreds, or δ outside [0, 1] in the
// finite-difference tests) everything goes through log space.
func mixTerms(delta, zt, zs float64) (lnl, st, s, rt, rs, ct, cs float64) {
	if delta >= 0 && delta <= 1 {
		et, es := math.Exp(-zt), math.Exp(-zs)
		st, s = 1/(1+et), 1/(1+es)
		l := delta*st + (1-delta)*s
		if l > 1e-300 && !math.IsInf(et, 0) && !math.IsInf(es, 0) {
			return math.Log(l), st, s, st / l, s / l, et * st, es * s
		}
	}
	lst, ls := logSigmoid(zt), logSigmoid(zs)
	lnl = logMix(delta, lst, ls)
	return lnl, math.Exp(lst), math.Exp(ls), math.Exp(lst - lnl), math.Exp(ls - lnl),
		math.Exp(logSigmoid(-zt)), math.Exp(logSigmoid(-zs))
}

// objective is evalTriplet's f including the prior terms (for tests).
func objective(yi, yj, yk, x []float64, delta, alpha float64, pr *prior, w *work) float64 {
	f, _, _ := evalTriplet(yi, yj, yk, x, delta, alpha, pr, w)
	if pr != nil && pr.mu != nil {
		f += pr.ci*dot(pr.mu, yi) + pr.cj*dot(pr.mu, yj) + pr.ck*dot(pr.mu, yk) + pr.cx*dot(pr.mu, x)
	}
	return f
}

// retract moves z on the sphere along the tangent part of the ascent
// direction g: z ← (z + ε(I − zzᵀ)g)/‖z + ε(I − zzᵀ)g‖ (Eqs. 8–9).
func retract(z, g []float64, eps float64) {
	zg := dot(z, g)
	var n float64
	for m := range z {
		z[m] += eps * (g[m] - zg*z[m])
		n += z[m] * z[m]
	}
	n = 1 / math.Sqrt(n)
	for m := range z {
		z[m] *= n
	}
}

// logMix returns ln(δ·e^{lst} + (1−δ)·e^{ls}) without underflow. Inside
// [0, 1] it is a log-sum-exp of two non-negative terms; just outside (for
// finite differences at the clip bounds) it factors out the term whose
// weight stays positive: l = σ(1 + δ(σᵗ/σ − 1)) or σᵗ(1 + (1−δ)(σ/σᵗ − 1)).
func logMix(delta, lst, ls float64) float64 {
	switch {
	case delta < 0:
		return ls + math.Log1p(delta*math.Expm1(lst-ls))
	case delta > 1:
		return lst + math.Log1p((1-delta)*math.Expm1(ls-lst))
	case delta == 0:
		return ls
	case delta == 1:
		return lst
	}
	a, b := math.Log(delta)+lst, math.Log1p(-delta)+ls
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}
