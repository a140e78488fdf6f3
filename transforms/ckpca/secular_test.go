package ckpca

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// randOrtho returns a random k×k orthogonal matrix (Q of a Gaussian QR).
func randOrtho(rng *rand.Rand, k int) *mat.Dense {
	a := mat.NewDense(k, k, nil)
	for i := range k {
		for j := range k {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return &q
}

// symFromSpectrum returns Q diag(lam) Qᵀ, symmetrised bit for bit.
func symFromSpectrum(q *mat.Dense, lam []float64) *mat.SymDense {
	k := len(lam)
	var ql mat.Dense
	ql.CloneFrom(q)
	for j, l := range lam {
		col := ql.ColView(j).(*mat.VecDense)
		col.ScaleVec(l, col)
	}
	var c mat.Dense
	c.Mul(&ql, q.T())
	s := mat.NewSymDense(k, nil)
	for i := range k {
		for j := i; j < k; j++ {
			s.SetSym(i, j, 0.5*(c.At(i, j)+c.At(j, i)))
		}
	}
	return s
}

// randSym returns a random symmetric matrix: Gaussian (indefinite), a
// Gram matrix (PSD) or one with a three-fold top eigenvalue.
func randSym(rng *rand.Rand, k int, kind string) *mat.SymDense {
	switch kind {
	case "indefinite":
		s := mat.NewSymDense(k, nil)
		for i := range k {
			for j := i; j < k; j++ {
				s.SetSym(i, j, rng.NormFloat64())
			}
		}
		return s
	case "psd":
		a := mat.NewDense(k+2, k, nil)
		for i := range k + 2 {
			for j := range k {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		s := mat.NewSymDense(k, nil)
		s.SymOuterK(1, a.T())
		return s
	case "repeated":
		lam := make([]float64, k)
		for i := range lam {
			lam[i] = 4*rng.Float64() - 2
		}
		for i := 0; i < min(3, k); i++ {
			lam[i] = 2.5
		}
		return symFromSpectrum(randOrtho(rng, k), lam)
	}
	panic("unknown kind " + kind)
}

// objective returns zᵀCz − 2bᵀz.
func objective(c *mat.SymDense, b, z []float64) float64 {
	zv := mat.NewVecDense(len(z), z)
	return mat.Inner(zv, c, zv) - 2*floats.Dot(b, z)
}

// blockEigenMu returns the largest real eigenvalue of the Gander–Golub–von
// Matt matrix
//
//	A = [ C        −I ]
//	    [ −bbᵀ/t²   C ]
//
// With γ = (C − μI)⁻²b and η = (C − μI)γ: Cγ − η = μγ, and since
// (C − μI)η = b = b(bᵀγ)/t² (because bᵀγ = ‖(C − μI)⁻¹b‖² = t²),
// −bbᵀγ/t² + Cη = μη. Conversely det(A − μI) = det((C − μI)² − bbᵀ/t²)
// = Π(λ_i − μ)² (1 − Σ d_i²/((λ_i − μ)² t²)), whose largest real root is
// the secular root μ ≥ λ₁.
func blockEigenMu(c *mat.SymDense, b []float64, t float64) (float64, error) {
	k := len(b)
	a := mat.NewDense(2*k, 2*k, nil)
	for i := range k {
		for j := range k {
			a.Set(i, j, c.At(i, j))
			a.Set(k+i, k+j, c.At(i, j))
			a.Set(k+i, j, -b[i]*b[j]/(t*t))
		}
		a.Set(i, k+i, -1)
	}
	var eig mat.Eigen
	if !eig.Factorize(a, mat.EigenNone) {
		return 0, errors.New("block eigen failed")
	}
	best := math.Inf(-1)
	for _, v := range eig.Values(nil) {
		if math.Abs(imag(v)) <= 1e-7*(1+cmplx.Abs(v)) {
			best = max(best, real(v))
		}
	}
	return best, nil
}

// checkSolution verifies ‖z‖ = t and (C − μI)z = b.
func checkSolution(t *testing.T, name string, c *mat.SymDense, b, z []float64, radius, mu float64) {
	t.Helper()
	k := len(b)
	if zn := floats.Norm(z, 2); math.Abs(zn-radius) > 1e-12*max(1, radius) {
		t.Errorf("%s: ‖z‖ = %.17g, want t = %.17g", name, zn, radius)
	}
	var r mat.VecDense
	r.MulVec(c, mat.NewVecDense(k, z))
	var cn float64
	for i := range k {
		for j := range k {
			cn = max(cn, math.Abs(c.At(i, j)))
		}
	}
	scale := float64(k)*cn*radius + math.Abs(mu)*radius + floats.Norm(b, 2)
	var res float64
	for i := range k {
		res = math.Hypot(res, r.AtVec(i)-mu*z[i]-b[i])
	}
	if res > 1e-8*scale {
		t.Errorf("%s: stationarity residual ‖(C−μI)z − b‖ = %.3g (scale %.3g)", name, res, scale)
	}
}

// multistartBest returns the best objective over n random feasible points
// and a projected-gradient ascent from starts random starts.
func multistartBest(rng *rand.Rand, c *mat.SymDense, b []float64, radius float64, n, starts int) float64 {
	k := len(b)
	z := make([]float64, k)
	project := func() {
		if nz := floats.Norm(z, 2); nz > 0 {
			floats.Scale(radius/nz, z)
		}
	}
	random := func() {
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		project()
	}
	best := math.Inf(-1)
	for range n {
		random()
		best = max(best, objective(c, b, z))
	}
	var cn float64
	for i := range k {
		for j := range k {
			cn += math.Abs(c.At(i, j))
		}
	}
	step := 1 / (2*cn + 1)
	g := mat.NewVecDense(k, nil)
	for range starts {
		random()
		for range 2000 {
			// ∇ = 2Cz − 2b; ascend, then project back onto the sphere.
			g.MulVec(c, mat.NewVecDense(k, z))
			for i := range z {
				z[i] += step * 2 * (g.AtVec(i) - b[i])
			}
			project()
		}
		best = max(best, objective(c, b, z))
	}
	return best
}

func TestSecularOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 17))
	kinds := []string{"indefinite", "psd", "repeated"}
	ks := []int{1, 2, 3, 5, 8, 13, 21, 30}
	var worst float64
	n := 0
	for _, kind := range kinds {
		for _, k := range ks {
			name := fmt.Sprintf("%s/k=%d", kind, k)
			c := randSym(rng, k, kind)
			b := make([]float64, k)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			radius := 0.2 + 2*rng.Float64()
			sq, err := NewSphereQuadratic(c)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			z := make([]float64, k)
			mu, val, err := sq.Maximize(z, b, radius)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want, err := blockEigenMu(c, b, radius)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rel := math.Abs(mu-want) / max(1, math.Abs(want))
			worst = max(worst, rel)
			if rel > 1e-8 {
				t.Errorf("%s: μ = %.17g, block eigen %.17g (rel %.3g)", name, mu, want, rel)
			}
			if ev := objective(c, b, z); math.Abs(ev-val) > 1e-10*(1+math.Abs(ev)) {
				t.Errorf("%s: reported value %.17g, recomputed %.17g", name, val, ev)
			}
			checkSolution(t, name, c, b, z, radius, mu)
			n++
		}
	}
	t.Logf("%d problems, worst relative |μ − μ_block| = %.3g", n, worst)
}

func TestSecularMultistart(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		kind string
		k    int
	}{
		{"indefinite", 2}, {"indefinite", 6}, {"indefinite", 15},
		{"psd", 3}, {"psd", 10}, {"repeated", 5}, {"repeated", 12},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%s/k=%d", tc.kind, tc.k)
		c := randSym(rng, tc.k, tc.kind)
		b := make([]float64, tc.k)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		radius := 0.5 + rng.Float64()
		sq, err := NewSphereQuadratic(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		z := make([]float64, tc.k)
		_, val, err := sq.Maximize(z, b, radius)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		best := multistartBest(rng, c, b, radius, 2000, 20)
		if val < best-1e-9*(1+math.Abs(best)) {
			t.Errorf("%s: secular value %.17g below multistart %.17g", name, val, best)
		}
		t.Logf("%s: secular %.15g, multistart %.15g", name, val, best)
	}
}

func TestSecularHardCase(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 29))
	cases := []struct {
		name string
		k    int
		mult int // multiplicity of λ₁
	}{
		{"simple", 6, 1},
		{"simple-k20", 20, 1},
		{"double-top", 8, 2},
	}
	for _, tc := range cases {
		q := randOrtho(rng, tc.k)
		lam := make([]float64, tc.k)
		for i := range lam {
			lam[i] = 2 * rng.Float64() // below λ₁ = 3
		}
		for i := range tc.mult {
			lam[i] = 3
		}
		c := symFromSpectrum(q, lam)
		// b in the span of the eigenvectors below λ₁, small enough that
		// ‖z(λ₁)‖ = ‖Σ q_i c_i/(λ_i − 3)‖ ≤ ‖c‖ < t.
		b := make([]float64, tc.k)
		for j := tc.mult; j < tc.k; j++ {
			cj := 0.1 * rng.NormFloat64() / math.Sqrt(float64(tc.k))
			for i := range b {
				b[i] += cj * q.At(i, j)
			}
		}
		radius := 1.0
		sq, err := NewSphereQuadratic(c)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		z := make([]float64, tc.k)
		mu, val, err := sq.Maximize(z, b, radius)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(mu-3) > 1e-12*3 {
			t.Errorf("%s: μ = %.17g, want λ₁ = 3", tc.name, mu)
		}
		checkSolution(t, tc.name, c, b, z, radius, mu)
		best := multistartBest(rng, c, b, radius, 2000, 20)
		if val < best-1e-9*(1+math.Abs(best)) {
			t.Errorf("%s: secular value %.17g below multistart %.17g", tc.name, val, best)
		}
		if tc.mult == 1 {
			// The documented sign: τ = q₁ᵀz ≥ 0 with q₁'s largest-magnitude
			// entry positive, so z = z_r + τq₁ exactly as in the doc.
			q1 := mat.Col(nil, 0, q)
			if j := floats.MaxIdx(q1); -floats.Min(q1) > q1[j] {
				floats.Scale(-1, q1)
			}
			var zr2 float64
			for j := 1; j < tc.k; j++ {
				qj := mat.Col(nil, j, q)
				r := floats.Dot(qj, b) / (lam[j] - 3)
				zr2 += r * r
			}
			tau := floats.Dot(q1, z)
			if want := math.Sqrt(radius*radius - zr2); math.Abs(tau-want) > 1e-12 {
				t.Errorf("%s: τ = q₁ᵀz = %.17g, want +√(t² − ‖z_r‖²) = %.17g", tc.name, tau, want)
			}
		}
		t.Logf("%s: μ = %.17g, value %.15g, multistart %.15g", tc.name, mu, val, best)
	}
}

// TestSecularNearHardCase moves b's component along q₁ from 1e-2 down to 0:
// μ must approach λ₁ from above, and z must stay feasible, stationary and
// at least as good as a multistart search throughout.
func TestSecularNearHardCase(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 37))
	const k = 10
	q := randOrtho(rng, k)
	lam := make([]float64, k)
	for i := range lam {
		lam[i] = 2 * rng.Float64()
	}
	lam[0] = 3
	c := symFromSpectrum(q, lam)
	sq, err := NewSphereQuadratic(c)
	if err != nil {
		t.Fatal(err)
	}
	base := make([]float64, k)
	for j := 1; j < k; j++ {
		cj := 0.05 * rng.NormFloat64()
		for i := range base {
			base[i] += cj * q.At(i, j)
		}
	}
	prev := math.Inf(1)
	for _, eps := range []float64{1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12, 1e-14, 0} {
		name := fmt.Sprintf("q₁ᵀb=%g", eps)
		b := append([]float64(nil), base...)
		for i := range b {
			b[i] += eps * q.At(i, 0)
		}
		z := make([]float64, k)
		mu, val, err := sq.Maximize(z, b, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if mu < 3-1e-12 || mu > prev+1e-12 {
			t.Errorf("%s: μ = %.17g, want in [λ₁ = 3, %.17g]", name, mu, prev)
		}
		prev = mu
		checkSolution(t, name, c, b, z, 1, mu)
		best := multistartBest(rng, c, b, 1, 200, 3)
		if val < best-1e-9*(1+math.Abs(best)) {
			t.Errorf("%s: secular value %.17g below multistart %.17g", name, val, best)
		}
	}
}

func TestSphereQuadraticEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	k := 5
	c := randSym(rng, k, "indefinite")
	sq, err := NewSphereQuadratic(c)
	if err != nil {
		t.Fatal(err)
	}
	var eig mat.EigenSym
	eig.Factorize(c, true)
	vals := eig.Values(nil)
	// μ = λ₁ exactly (below) is the solver's own λ₁; gonum's agrees to
	// rounding.
	lam1 := sq.MaxEigenvalue()
	if math.Abs(lam1-vals[k-1]) > 1e-13*math.Abs(vals[k-1]) {
		t.Errorf("λ₁ = %v, gonum %v", lam1, vals[k-1])
	}
	b := make([]float64, k)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	z := make([]float64, k)

	// t = 0: z = 0, μ = +Inf for b ≠ 0 and λ₁ for b = 0.
	mu, val, err := sq.Maximize(z, b, 0)
	if err != nil || floats.Norm(z, 2) != 0 || val != 0 || !math.IsInf(mu, 1) {
		t.Errorf("t=0: z=%v μ=%v value=%v err=%v", z, mu, val, err)
	}
	mu, _, err = sq.Maximize(z, make([]float64, k), 0)
	if err != nil || mu != lam1 {
		t.Errorf("t=0,b=0: μ=%v err=%v, want λ₁=%v", mu, err, lam1)
	}

	// b = 0: z = t q₁, μ = λ₁, value = λ₁t².
	mu, val, err = sq.Maximize(z, make([]float64, k), 2)
	if err != nil {
		t.Fatalf("b=0: %v", err)
	}
	if mu != lam1 || math.Abs(val-4*lam1) > 1e-12*(1+math.Abs(val)) {
		t.Errorf("b=0: μ=%v value=%v, want %v and %v", mu, val, lam1, 4*lam1)
	}
	checkSolution(t, "b=0", c, make([]float64, k), z, 2, mu)

	// dst aliasing b.
	want := make([]float64, k)
	sq.Maximize(want, b, 1.5)
	alias := append([]float64(nil), b...)
	sq.Maximize(alias, alias, 1.5)
	if !floats.Equal(alias, want) {
		t.Errorf("alias: %v, want %v", alias, want)
	}

	// k = 1: z = −t·sign(b), μ = c + |b|/t; b = 0 gives z = +t.
	for _, tc := range []struct{ c, b, t float64 }{{2, 3, 0.5}, {-1, -0.25, 2}, {0, 0, 1.5}} {
		name := fmt.Sprintf("k=1/c=%v,b=%v,t=%v", tc.c, tc.b, tc.t)
		sq1, err := NewSphereQuadratic(mat.NewSymDense(1, []float64{tc.c}))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		z1 := []float64{0}
		mu, val, err := sq1.Maximize(z1, []float64{tc.b}, tc.t)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wz := tc.t
		if tc.b > 0 {
			wz = -tc.t
		}
		wmu := tc.c + math.Abs(tc.b)/tc.t
		wval := tc.c*tc.t*tc.t - 2*tc.b*wz
		if z1[0] != wz || math.Abs(mu-wmu) > 1e-15*(1+math.Abs(wmu)) || math.Abs(val-wval) > 1e-14*(1+math.Abs(wval)) {
			t.Errorf("%s: z=%v μ=%v value=%v, want %v %v %v", name, z1[0], mu, val, wz, wmu, wval)
		}
	}

	// Invalid input.
	nanB := append([]float64(nil), b...)
	nanB[2] = math.NaN()
	infB := append([]float64(nil), b...)
	infB[0] = math.Inf(-1)
	for _, tc := range []struct {
		name string
		b    []float64
		t    float64
	}{
		{"NaN in b", nanB, 1},
		{"Inf in b", infB, 1},
		{"NaN t", b, math.NaN()},
		{"Inf t", b, math.Inf(1)},
		{"negative t", b, -1},
	} {
		if _, _, err := sq.Maximize(z, tc.b, tc.t); !errors.Is(err, ErrSecular) {
			t.Errorf("%s: err = %v, want ErrSecular", tc.name, err)
		}
	}
	bad := mat.NewSymDense(2, []float64{1, math.NaN(), math.NaN(), 1})
	if _, err := NewSphereQuadratic(bad); !errors.Is(err, ErrSecular) {
		t.Errorf("NaN in C: err = %v, want ErrSecular", err)
	}

	// Wrong lengths panic.
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("short dst: no panic")
			}
		}()
		sq.Maximize(z[:k-1], b, 1)
	}()
}

func BenchmarkSphereQuadratic(b *testing.B) {
	const k = 800
	rng := rand.New(rand.NewPCG(3, 4))
	c := randSym(rng, k, "indefinite")
	v := make([]float64, k)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	b.Run("secular", func(b *testing.B) {
		z := make([]float64, k)
		for b.Loop() {
			sq, err := NewSphereQuadratic(c)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := sq.Maximize(z, v, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("block-eigen", func(b *testing.B) {
		for b.Loop() {
			if _, err := blockEigenMu(c, v, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
