package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// perpRowEntropy is the entropy in nats of a probability row, computed
// independently of the package code.
func perpRowEntropy(p []float64) (h, sum float64) {
	for _, v := range p {
		sum += v
		if v > 0 {
			h -= v * math.Log(v)
		}
	}
	return h, sum
}

// perpCheckRow checks that p is a distribution with p[self] = 0, that it has
// the form p_j ∝ exp(−β·d2_j) and entropy log(perplexity) within tol.
func perpCheckRow(t *testing.T, name string, p, d2 []float64, self int, beta, perplexity, tol float64) {
	t.Helper()
	h, sum := perpRowEntropy(p)
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("%s: Σp = %v, want 1", name, sum)
	}
	if self >= 0 && p[self] != 0 {
		t.Errorf("%s: p[self] = %v, want 0", name, p[self])
	}
	if math.Abs(h-math.Log(perplexity)) > tol {
		t.Errorf("%s: entropy %v, want log(%v) = %v", name, h, perplexity, math.Log(perplexity))
	}
	// p_j / p_ref = exp(−β(d2_j − d2_ref)) for the nearest neighbour ref.
	ref := -1
	for j, v := range d2 {
		if j != self && (ref < 0 || v < d2[ref]) {
			ref = j
		}
	}
	for j, v := range d2 {
		if j == self {
			continue
		}
		want := p[ref] * math.Exp(-beta*(v-d2[ref]))
		if math.Abs(p[j]-want) > 1e-12 {
			t.Errorf("%s: p[%d] = %v, want p[ref]·exp(−β·Δ) = %v", name, j, p[j], want)
			return
		}
	}
}

func TestPerplexityRowEntropy(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 41))
	for _, n := range []int{3, 10, 100, 500} {
		for _, d := range []int{1, 5, 50} {
			x := randomPoints(rng, n, d)
			d2 := make([]float64, n)
			SqDistRow(d2, x, d, n/2)
			for _, perp := range []float64{1, 1.5, 5, 30, float64(n-1) - 0.5} {
				if perp >= float64(n-1) {
					continue
				}
				name := fmt.Sprintf("n=%d d=%d perplexity=%v", n, d, perp)
				p := make([]float64, n)
				beta, err := PerplexityRow(p, d2, n/2, perp, 0)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !(beta > 0) || math.IsInf(beta, 1) {
					t.Errorf("%s: β = %v, want finite > 0", name, beta)
				}
				perpCheckRow(t, name, p, d2, n/2, beta, perp, 1e-5)
			}
		}
	}
}

// Two groups of m neighbours at squared distances a and c: with mass q on
// the near group the entropy is log m + h(q), h the binary entropy, and
// β = log(q/(1−q))/(c−a).
func TestPerplexityRowTwoGroups(t *testing.T) {
	for _, c := range []struct {
		m       int
		a, c, q float64
	}{
		{1, 0.5, 1.5, 0.8}, {4, 1, 2, 0.8}, {10, 0, 3, 0.6}, {25, 2, 2.001, 0.51}, {7, 1e-3, 1e3, 0.99},
	} {
		name := fmt.Sprintf("m=%d a=%v c=%v q=%v", c.m, c.a, c.c, c.q)
		d2 := make([]float64, 2*c.m+1)
		self := c.m // in the middle
		for j := range d2 {
			switch {
			case j < self:
				d2[j] = c.a
			case j > self:
				d2[j] = c.c
			}
		}
		hq := -c.q*math.Log(c.q) - (1-c.q)*math.Log(1-c.q)
		perp := float64(c.m) * math.Exp(hq)
		wantBeta := math.Log(c.q/(1-c.q)) / (c.c - c.a)
		p := make([]float64, len(d2))
		beta, err := PerplexityRow(p, d2, self, perp, 1e-13)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if math.Abs(beta-wantBeta) > 1e-8*wantBeta {
			t.Errorf("%s: β = %v, want %v", name, beta, wantBeta)
		}
		if got := p[0] * float64(c.m); math.Abs(got-c.q) > 1e-9 {
			t.Errorf("%s: near-group mass %v, want %v", name, got, c.q)
		}
		perpCheckRow(t, name, p, d2, self, beta, perp, 1e-12)
	}
}

func TestPerplexityRowDegenerate(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name      string
		d2        []float64
		self      int
		perp      float64
		reachable bool      // the entropy target can be met
		want      []float64 // expected p when it cannot
	}{
		{"two duplicates", []float64{0, 0, 0, 1, 2, 3, 4, 5}, 0, 3, true, nil},
		{"duplicates exceed perplexity", []float64{0, 0, 0, 0, 1, 2}, 5, 2, false, []float64{0.25, 0.25, 0.25, 0.25, 0, 0}},
		{"all duplicates", []float64{0, 0, 0, 0, 0}, 2, 2, false, []float64{0.25, 0.25, 0, 0.25, 0.25}},
		{"all equidistant", []float64{4, 4, 4, 0}, 3, 2, false, []float64{1. / 3, 1. / 3, 1. / 3, 0}},
		{"infinite entries", []float64{inf, 1, 2, 3, inf, 4, 0}, 6, 2, true, nil},
		{"too few finite", []float64{inf, 1, 2, inf, inf, 0}, 5, 3, false, []float64{0, 0.5, 0.5, 0, 0, 0}},
		{"no self", []float64{1, 1, 2, 3, 5, 8}, -1, 3, true, nil},
		{"huge distances", []float64{1e300, 2e300, 3e300, 4e300}, -1, 2, true, nil},
		{"tiny distances", []float64{1e-300, 2e-300, 3e-300, 4e-300}, -1, 2, true, nil},
	} {
		p := make([]float64, len(c.d2))
		beta, err := PerplexityRow(p, c.d2, c.self, c.perp, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if math.IsNaN(beta) || math.IsInf(beta, 0) || beta < 0 {
			t.Errorf("%s: β = %v, want finite ≥ 0", c.name, beta)
		}
		for j, v := range p {
			if math.IsNaN(v) {
				t.Fatalf("%s: p[%d] is NaN", c.name, j)
			}
		}
		if c.reachable {
			h, _ := perpRowEntropy(p)
			if math.Abs(h-math.Log(c.perp)) > 1e-5 {
				t.Errorf("%s: entropy %v, want %v", c.name, h, math.Log(c.perp))
			}
			continue
		}
		for j := range p {
			if math.Abs(p[j]-c.want[j]) > 1e-15 {
				t.Errorf("%s: p = %v, want %v", c.name, p, c.want)
				break
			}
		}
	}
}

func TestPerplexityErrors(t *testing.T) {
	ctx := context.Background()
	d2 := make([]float64, 25)
	beta := make([]float64, 5)
	for _, c := range []struct {
		name string
		err  error
	}{
		{"row below 1", func() error { _, err := PerplexityRow(nil, d2[:5], 0, 0.5, 0); return err }()},
		{"row NaN", func() error { _, err := PerplexityRow(nil, d2[:5], 0, math.NaN(), 0); return err }()},
		{"row = m", func() error { _, err := PerplexityRow(nil, d2[:5], 0, 4, 0); return err }()},
		{"dense = n−1", Perplexity(ctx, beta, nil, d2, 5, 4, 1)},
		{"dense > n", Perplexity(ctx, beta, nil, d2, 5, 30, 1)},
		{"sparse = k", PerplexitySparse(ctx, beta, nil, d2[:15], 5, 3, 3, 1)},
		{"sparse below 1", PerplexitySparse(ctx, beta, nil, d2[:15], 5, 3, 0, 1)},
	} {
		if !errors.Is(c.err, ErrPerplexity) {
			t.Errorf("%s: error %v, want ErrPerplexity", c.name, c.err)
		}
	}
	if _, err := PerplexityRow(nil, d2[:5], 0, 3.9, 0); err != nil {
		t.Errorf("row 3.9 of 4: unexpected error %v", err)
	}
}

func TestPerplexityDenseSparse(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 9))
	const n, d = 120, 4
	x := randomPoints(rng, n, d)
	copy(x[d:2*d], x[:d]) // a duplicate pair
	d2 := make([]float64, n*n)
	if err := SqDistances(ctx, d2, x, n, d, 1); err != nil {
		t.Fatal(err)
	}
	for _, perp := range []float64{2, 10, 30} {
		var refBeta, refP []float64
		for _, threads := range threadCounts {
			name := fmt.Sprintf("dense perplexity=%v threads=%d", perp, threads)
			beta := make([]float64, n)
			p := make([]float64, n*n)
			if err := Perplexity(ctx, beta, p, d2, n, perp, threads); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if refBeta == nil {
				refBeta, refP = beta, p
				for i := range n {
					perpCheckRow(t, fmt.Sprintf("%s row %d", name, i), p[i*n:(i+1)*n], d2[i*n:(i+1)*n], i, beta[i], perp, 1e-5)
				}
				continue
			}
			for i := range beta {
				if beta[i] != refBeta[i] {
					t.Fatalf("%s: β[%d] = %v, threads=1 gave %v", name, i, beta[i], refBeta[i])
				}
			}
			for i := range p {
				if p[i] != refP[i] {
					t.Fatalf("%s: p[%d] = %v, threads=1 gave %v", name, i, p[i], refP[i])
				}
			}
		}
		// Sparse with k = n−1 neighbours is the same calibration.
		const k = n - 1
		idx := make([]int32, n*k)
		kd := make([]float64, n*k)
		if err := KNN(ctx, idx, kd, x, n, d, k, 1); err != nil {
			t.Fatal(err)
		}
		var sBeta, sP []float64
		for _, threads := range threadCounts {
			name := fmt.Sprintf("sparse perplexity=%v threads=%d", perp, threads)
			beta := make([]float64, n)
			p := make([]float64, n*k)
			if err := PerplexitySparse(ctx, beta, p, kd, n, k, perp, threads); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if sBeta == nil {
				sBeta, sP = beta, p
				continue
			}
			for i := range beta {
				if beta[i] != sBeta[i] {
					t.Fatalf("%s: β[%d] differs from threads=1", name, i)
				}
			}
			for i := range p {
				if p[i] != sP[i] {
					t.Fatalf("%s: p[%d] differs from threads=1", name, i)
				}
			}
		}
		for i := range n {
			if math.Abs(sBeta[i]-refBeta[i]) > 1e-6*refBeta[i] {
				t.Errorf("perplexity=%v: row %d: sparse β = %v, dense %v", perp, i, sBeta[i], refBeta[i])
			}
			for q := range k {
				j := int(idx[i*k+q])
				if math.Abs(sP[i*k+q]-refP[i*n+j]) > 1e-8 {
					t.Errorf("perplexity=%v: p(%d|%d): sparse %v, dense %v", perp, j, i, sP[i*k+q], refP[i*n+j])
				}
			}
		}
	}
}

func TestPerplexityCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	const n = 10
	d2 := make([]float64, n*n)
	for i := range d2 {
		d2[i] = float64(i % 7)
	}
	if err := Perplexity(ctx, make([]float64, n), nil, d2, n, 3, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("dense: error %v, want context.Canceled", err)
	}
	if err := PerplexitySparse(ctx, make([]float64, n), nil, d2, n, n, 3, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("sparse: error %v, want context.Canceled", err)
	}
}

func BenchmarkPerplexity(b *testing.B) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 1000, 50
	x := randomPoints(rng, n, d)
	d2 := make([]float64, n*n)
	if err := SqDistances(ctx, d2, x, n, d, 0); err != nil {
		b.Fatal(err)
	}
	beta := make([]float64, n)
	p := make([]float64, n*n)
	for b.Loop() {
		if err := Perplexity(ctx, beta, p, d2, n, 30, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPerplexityInPlace(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(6, 7))
	const n, d, k = 40, 3, 12
	x := randomPoints(rng, n, d)
	d2 := make([]float64, n*n)
	if err := SqDistances(ctx, d2, x, n, d, 1); err != nil {
		t.Fatal(err)
	}
	p := make([]float64, n*n)
	if err := Perplexity(ctx, make([]float64, n), p, d2, n, 5, 2); err != nil {
		t.Fatal(err)
	}
	if err := Perplexity(ctx, make([]float64, n), d2, d2, n, 5, 2); err != nil {
		t.Fatal(err)
	}
	for i := range p {
		if p[i] != d2[i] {
			t.Fatalf("dense: in place p[%d] = %v, want %v", i, d2[i], p[i])
		}
	}
	idx := make([]int32, n*k)
	kd := make([]float64, n*k)
	if err := KNN(ctx, idx, kd, x, n, d, k, 1); err != nil {
		t.Fatal(err)
	}
	sp := make([]float64, n*k)
	if err := PerplexitySparse(ctx, make([]float64, n), sp, kd, n, k, 5, 2); err != nil {
		t.Fatal(err)
	}
	if err := PerplexitySparse(ctx, make([]float64, n), kd, kd, n, k, 5, 2); err != nil {
		t.Fatal(err)
	}
	for i := range sp {
		if sp[i] != kd[i] {
			t.Fatalf("sparse: in place p[%d] = %v, want %v", i, kd[i], sp[i])
		}
	}
}
