package kernels

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// rankOneCase is a diagonal or dense symmetric start and rank-one updates
// applied one after another.
type rankOneCase struct {
	name  string
	n     int
	d     []float64 // diagonal start (identity basis), or nil
	a     []float64 // dense start (full n×n), used when d is nil
	rhos  []float64
	vs    [][]float64
	bound float64 // eigenBound unless set
}

func rankOneCases() []rankOneCase {
	rng := rand.New(rand.NewPCG(7, 11))
	gauss := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	seq := func(n int, f func(i int) float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	full := func(lower []float64, n int) []float64 {
		for i := range n {
			for j := 0; j < i; j++ {
				lower[j*n+i] = lower[i*n+j]
			}
		}
		return lower
	}
	var cs []rankOneCase
	for _, n := range []int{1, 2, 3, 7, 40, 150} {
		cs = append(cs,
			rankOneCase{name: "random diagonal, ρ > 0", n: n, d: gauss(n), rhos: []float64{0.7}, vs: [][]float64{gauss(n)}},
			rankOneCase{name: "random diagonal, ρ < 0", n: n, d: gauss(n), rhos: []float64{-2.5}, vs: [][]float64{gauss(n)}},
			rankOneCase{name: "dense, three updates of both signs", n: n, a: full(randomSym(rng, n), n), rhos: []float64{1, -3, 0.01}, vs: [][]float64{gauss(n), gauss(n), gauss(n)}},
		)
	}
	n := 60
	cs = append(cs,
		rankOneCase{name: "repeated poles (deflation by rotation)", n: n, d: seq(n, func(i int) float64 { return float64(i % 4) }), rhos: []float64{1.5, -0.5}, vs: [][]float64{gauss(n), gauss(n)}},
		rankOneCase{name: "clustered poles 1 + i·1e-13", n: n, d: seq(n, func(i int) float64 { return 1 + float64(i)*1e-13 }), rhos: []float64{1}, vs: [][]float64{gauss(n)}},
		rankOneCase{name: "v with zero entries (deflation by size)", n: n, d: gauss(n), rhos: []float64{2}, vs: [][]float64{seq(n, func(i int) float64 {
			if i%3 == 0 {
				return 0
			}
			return 1 + float64(i)
		})}},
		rankOneCase{name: "graded poles 1e-10 … 1e10", n: n, d: seq(n, func(i int) float64 { return math.Pow(10, -10+20*float64(i)/float64(n-1)) }), rhos: []float64{-1e-3}, vs: [][]float64{gauss(n)}},
		rankOneCase{name: "decaying kernel spectrum, centring and a constraint", n: n, d: seq(n, func(i int) float64 { return math.Exp(-float64(i) / 3) }), rhos: []float64{-0.2, -1, 0.3}, vs: [][]float64{gauss(n), gauss(n), gauss(n)}},
		rankOneCase{name: "ρ = 0", n: n, d: gauss(n), rhos: []float64{0}, vs: [][]float64{gauss(n)}},
		rankOneCase{name: "v = 0", n: n, d: gauss(n), rhos: []float64{3}, vs: [][]float64{make([]float64, n)}},
		rankOneCase{name: "ρ·vvᵀ negligible", n: n, d: gauss(n), rhos: []float64{1e-40}, vs: [][]float64{gauss(n)}},
		rankOneCase{name: "zero start, rank-one matrix", n: n, d: make([]float64, n), rhos: []float64{-4}, vs: [][]float64{gauss(n)}},
		rankOneCase{name: "v along one pole's axis", n: n, d: gauss(n), rhos: []float64{5}, vs: [][]float64{seq(n, func(i int) float64 {
			if i == 17 {
				return 2
			}
			return 0
		})}},
	)
	return cs
}

// denseOf returns the full matrix of a case before its updates.
func (c rankOneCase) start() []float64 {
	if c.d == nil {
		return append([]float64(nil), c.a...)
	}
	a := make([]float64, c.n*c.n)
	for i, v := range c.d {
		a[i*c.n+i] = v
	}
	return a
}

// run applies the case's updates to its start and returns the last
// decomposition and the dense matrix it decomposes.
func (c rankOneCase) run(t *testing.T, threads int) (*RankOneEigen, []float64) {
	t.Helper()
	n := c.n
	a := c.start()
	var q Basis = IdentityBasis(n)
	vals := c.d
	if c.d == nil {
		f, err := NewSymEigen(context.Background(), a, n, threads)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		q, vals = f, f.Values
	}
	var r *RankOneEigen
	for u, rho := range c.rhos {
		v := c.vs[u]
		var err error
		if r, err = UpdateEigen(context.Background(), q, vals, rho, v, threads); err != nil {
			t.Fatalf("%s: update %d: %v", c.name, u, err)
		}
		q, vals = r, r.Values
		for i := range n {
			for j := range n {
				a[i*n+j] += rho * v[i] * v[j]
			}
		}
	}
	return r, a
}

// columns materialises the basis of r (column c = r's eigenvector c).
func columns(r *RankOneEigen) []float64 {
	n := r.N()
	v := make([]float64, n*n)
	col := make([]float64, n)
	for c := range n {
		r.Vector(col, c)
		for i, x := range col {
			v[i*n+c] = x
		}
	}
	return v
}

func TestUpdateEigenAccuracy(t *testing.T) {
	for _, c := range rankOneCases() {
		r, a := c.run(t, 2)
		n := c.n
		for i := 1; i < n; i++ {
			if !(r.Values[i-1] <= r.Values[i]) {
				t.Fatalf("%s (n = %d): values not ascending at %d: %v, %v", c.name, n, i, r.Values[i-1], r.Values[i])
			}
		}
		res, orth := eigenQuality(a, r.Values, columns(r), n)
		bound := float64(eigenBound)
		if c.bound > 0 {
			bound = c.bound
		}
		if res > bound || orth > bound {
			t.Errorf("%s (n = %d): scaled residual %.3g, orthogonality loss %.3g, want ≤ %g", c.name, n, res, orth, bound)
		}
		// Independent values: EigenSym of the dense result.
		want := make([]float64, n)
		if err := EigenSym(context.Background(), want, nil, a, n, 1); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var norm float64
		for _, l := range want {
			norm = max(norm, math.Abs(l))
		}
		for i := range n {
			if d := math.Abs(r.Values[i] - want[i]); d > 10*float64(n)*eigenTestEps*max(norm, 1e-300)+1e-300 {
				t.Errorf("%s (n = %d): value %d = %.17g, EigenSym %.17g (off by %.3g·‖A‖)", c.name, n, i, r.Values[i], want[i], d/norm)
				break
			}
		}
	}
}

// MulQ and MulQT are inverse to each other and agree with Vector.
func TestUpdateEigenProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, c := range rankOneCases() {
		r, _ := c.run(t, 2)
		n := c.n
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		y := make([]float64, n)
		r.MulQT(y, x)
		back := make([]float64, n)
		r.MulQ(back, y)
		var worst, xn float64
		for i := range x {
			worst = max(worst, math.Abs(back[i]-x[i]))
			xn = max(xn, math.Abs(x[i]))
		}
		if worst > 100*float64(n)*eigenTestEps*xn {
			t.Errorf("%s (n = %d): ‖Q Qᵀx − x‖ = %.3g", c.name, n, worst)
		}
		// In place.
		z := append([]float64(nil), x...)
		r.MulQT(z, z)
		for i := range z {
			if z[i] != y[i] {
				t.Fatalf("%s (n = %d): MulQT in place differs at %d", c.name, n, i)
			}
		}
	}
}

func TestUpdateEigenThreadsBitIdentical(t *testing.T) {
	for _, c := range rankOneCases() {
		r1, _ := c.run(t, 1)
		v1 := columns(r1)
		for _, th := range []int{2, 3} {
			r, _ := c.run(t, th)
			v := columns(r)
			for i := range r.Values {
				if r.Values[i] != r1.Values[i] {
					t.Fatalf("%s (n = %d): %d threads: value %d differs", c.name, c.n, th, i)
				}
			}
			for i := range v {
				if v[i] != v1[i] {
					t.Fatalf("%s (n = %d): %d threads: vector entry %d differs", c.name, c.n, th, i)
				}
			}
		}
	}
}

func TestUpdateEigenNegateVector(t *testing.T) {
	c := rankOneCases()[3] // n = 2, random diagonal, ρ > 0
	r, _ := c.run(t, 1)
	before := columns(r)
	r.NegateVector(1)
	after := columns(r)
	n := c.n
	for i := range n {
		for k := range n {
			want := before[i*n+k]
			if k == 1 {
				want = -want
			}
			if after[i*n+k] != want {
				t.Fatalf("entry (%d, %d): %v, want %v", i, k, after[i*n+k], want)
			}
		}
	}
}

func TestUpdateEigenErrors(t *testing.T) {
	d := []float64{1, 2, 3}
	v := []float64{1, 1, 1}
	for _, tc := range []struct {
		name string
		d, v []float64
		rho  float64
	}{
		{"NaN ρ", d, v, math.NaN()},
		{"Inf ρ", d, v, math.Inf(-1)},
		{"NaN in d", []float64{1, math.NaN(), 3}, v, 1},
		{"Inf in v", d, []float64{1, math.Inf(1), 1}, 1},
	} {
		if _, err := UpdateEigen(context.Background(), IdentityBasis(3), tc.d, tc.rho, tc.v, 1); !errors.Is(err, ErrEigen) {
			t.Errorf("%s: err = %v, want ErrEigen", tc.name, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := UpdateEigen(ctx, IdentityBasis(3), d, 1, v, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("wrong length: no panic")
		}
	}()
	_, _ = UpdateEigen(context.Background(), IdentityBasis(3), d[:2], 1, v, 1)
}

// UpdateEigenLowRank applies all of a case's terms at once (the vectors
// carried through the updates together) and must give a decomposition as
// good as the one-at-a-time chain; a zero weight is skipped.
func TestUpdateEigenLowRank(t *testing.T) {
	for _, c := range rankOneCases() {
		n := c.n
		a := c.start()
		var q Basis = IdentityBasis(n)
		vals := c.d
		if c.d == nil {
			f, err := NewSymEigen(context.Background(), a, n, 2)
			if err != nil {
				t.Fatal(err)
			}
			q, vals = f, f.Values
		}
		rhos := append([]float64{0}, c.rhos...)
		vs := append([][]float64{make([]float64, n)}, c.vs...)
		r, err := UpdateEigenLowRank(context.Background(), q, vals, rhos, vs, 2)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for u, rho := range c.rhos {
			for i := range n {
				for j := range n {
					a[i*n+j] += rho * c.vs[u][i] * c.vs[u][j]
				}
			}
		}
		res, orth := eigenQuality(a, r.Values, columns(r), n)
		if res > eigenBound || orth > eigenBound {
			t.Errorf("%s (n = %d): scaled residual %.3g, orthogonality loss %.3g", c.name, n, res, orth)
		}
		seq, _ := c.run(t, 2)
		var norm float64
		for _, l := range seq.Values {
			norm = max(norm, math.Abs(l))
		}
		for i := range n {
			if d := math.Abs(r.Values[i] - seq.Values[i]); d > 10*float64(n)*eigenTestEps*norm {
				t.Errorf("%s (n = %d): value %d: %.17g at once, %.17g one at a time", c.name, n, i, r.Values[i], seq.Values[i])
				break
			}
		}
	}
}
