package kernels

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// projectorGap is ‖UUᵀ − VVᵀ‖_max for n×k orthonormal U (stride ku) and V
// (stride kv), comparing subspaces whatever their basis.
func projectorGap(u []float64, ku int, v []float64, kv, n, k int) float64 {
	var g float64
	for i := range n {
		for j := range n {
			var pu, pv float64
			for c := range k {
				pu += u[i*ku+c] * u[j*ku+c]
				pv += v[i*kv+c] * v[j*kv+c]
			}
			g = max(g, math.Abs(pu-pv))
		}
	}
	return g
}

// EigenSymExtreme against known spectra: well separated, clustered and
// repeated wanted eigenvalues, both ends, an indefinite matrix.
func TestEigenSymExtremeKnownSpectra(t *testing.T) {
	const n = 360
	geometric := func(first, ratio float64) []float64 {
		l := make([]float64, n)
		for i := range l {
			l[i] = first * math.Pow(ratio, float64(i))
		}
		return l
	}
	spread := func(lo, hi float64) []float64 {
		l := make([]float64, n)
		for i := range l {
			l[i] = lo + (hi-lo)*float64(i)/float64(n-1)
		}
		return l
	}
	withTop := func(l []float64, top ...float64) []float64 {
		copy(l, top)
		return l
	}
	cases := []struct {
		name    string
		lambda  []float64
		k       int
		largest bool
		hard    bool // the cycles run out: only the residual bound holds
	}{
		{"geometric, top 3", geometric(1, 0.97), 3, true, false},
		{"uniform spectrum (small gaps), top 5", spread(-1, 1), 5, true, false},
		{"uniform spectrum, bottom 4", spread(-1, 1), 4, false, false},
		{"clustered top", withTop(spread(-1, 0.9), 1, 1-1e-7, 1-2e-7), 3, true, false},
		{"repeated top", withTop(spread(-1, 0.9), 2, 2, 2), 3, true, false},
		{"indefinite, bottom 2", withTop(spread(-3, 3), -10, -9), 2, false, false},
		// The bottom of a geometric spectrum accumulates at 0 (gaps of
		// 5e-7 of its width): out of reach of a few hundred products.
		{"geometric, bottom 4 (hard)", geometric(1, 0.97), 4, false, true},
	}
	for _, tc := range cases {
		rng := rand.New(rand.NewPCG(21, uint64(len(tc.name))))
		a, q := withSpectrumQ(rng, tc.lambda)
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(i, j int) int {
			if tc.largest {
				return cmp.Compare(tc.lambda[j], tc.lambda[i])
			}
			return cmp.Compare(tc.lambda[i], tc.lambda[j])
		})
		want := make([]float64, tc.k)
		wantVecs := make([]float64, n*tc.k)
		for c := range tc.k {
			want[c] = tc.lambda[order[c]]
			for r := range n {
				wantVecs[r*tc.k+c] = q[r*n+order[c]]
			}
		}
		slices.Sort(want)
		vals, vecs := make([]float64, tc.k), make([]float64, n*tc.k)
		res, err := EigenSymExtreme(context.Background(), vals, vecs, a, n, tc.k, tc.largest, 2, KrylovSettings{Seed: 1, Steps: 6})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.hard {
			// Not converged, and said so; each value still lies within its
			// residual of an eigenvalue.
			if res.Converged {
				t.Errorf("%s: reported converged", tc.name)
			}
			for i, v := range vals {
				near := math.Inf(1)
				for _, l := range tc.lambda {
					near = min(near, math.Abs(v-l))
				}
				if near > res.Residuals[i]*(1+1e-9) {
					t.Errorf("%s: value %d = %g is %g from the spectrum, its residual %g", tc.name, i, v, near, res.Residuals[i])
				}
			}
			continue
		}
		if !res.Converged {
			t.Errorf("%s: not converged after %d cycles, residuals %v", tc.name, res.Cycles, res.Residuals)
		}
		for i := range want {
			if math.Abs(vals[i]-want[i]) > 1e-9*res.Norm || math.Abs(vals[i]-want[i]) > res.Residuals[i]+1e-12*res.Norm {
				t.Errorf("%s: value %d is %.15g, want %.15g (residual %.3g)", tc.name, i, vals[i], want[i], res.Residuals[i])
			}
		}
		// The wanted subspace, compared as a projector (the clustered and
		// repeated eigenvalues have no unique basis).
		if g := projectorGap(vecs, tc.k, wantVecs, tc.k, n, tc.k); g > 1e-6 {
			t.Errorf("%s: eigenspace off by %.3g", tc.name, g)
		}
		t.Logf("%s: %d cycles, %d products, max residual %.2e", tc.name, res.Cycles, res.Products, slices.Max(res.Residuals))
	}
}

// Against EigenSym on a random matrix, and for small n (the dense path),
// for any thread count.
func TestEigenSymExtremeAgainstEigenSym(t *testing.T) {
	for _, n := range []int{30, 400} {
		rng := rand.New(rand.NewPCG(4, uint64(n)))
		a := randomSym(rng, n)
		all := make([]float64, n)
		if err := EigenSym(context.Background(), all, nil, a, n, 2); err != nil {
			t.Fatal(err)
		}
		for _, largest := range []bool{true, false} {
			const k = 4
			var prev []float64
			for _, threads := range []int{1, 2} {
				name := fmt.Sprintf("n=%d largest=%v threads=%d", n, largest, threads)
				vals := make([]float64, k)
				res, err := EigenSymExtreme(context.Background(), vals, nil, a, n, k, largest, threads, KrylovSettings{Seed: 3})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				want := all[:k]
				if largest {
					want = all[n-k:]
				}
				for i := range want {
					if math.Abs(vals[i]-want[i]) > 1e-9*res.Norm {
						t.Errorf("%s: value %d is %.15g, EigenSym %.15g", name, i, vals[i], want[i])
					}
				}
				if prev != nil && !slicesEqualBits(prev, vals) {
					t.Errorf("%s: values depend on the thread count", name)
				}
				prev = vals
			}
		}
	}
}

func TestEigenSymExtremeCancel(t *testing.T) {
	const n = 500
	a := randomSym(rand.New(rand.NewPCG(1, 1)), n)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := EigenSymExtreme(ctx, make([]float64, 2), nil, a, n, 2, true, 2, KrylovSettings{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// BenchmarkEigenSymExtreme finds the 5 largest eigenpairs of n = 2,000
// matrices: a Gram matrix with a decaying spectrum (50 columns scaled by
// 0.9^c, as kernel matrices decay) and a random one (a semicircle
// spectrum, whose edge has small gaps: Krylov's hard case). Compare
// BenchmarkEigenSym/n=2000 for the full decomposition.
func BenchmarkEigenSymExtreme(b *testing.B) {
	const n, k, d = 2000, 5, 50
	rng := rand.New(rand.NewPCG(16, n))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64() * math.Pow(0.9, float64(i%d))
	}
	gram := make([]float64, n*n)
	if err := Gemm(context.Background(), 0, false, true, n, n, d, 1, x, d, x, d, 0, gram, n); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		for j := range i {
			gram[j*n+i] = gram[i*n+j]
		}
	}
	vals, vecs := make([]float64, k), make([]float64, n*k)
	for _, m := range []struct {
		name string
		a    []float64
	}{{"decaying", gram}, {"random", randomSym(rng, n)}} {
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				res, err := EigenSymExtreme(context.Background(), vals, vecs, m.a, n, k, true, 0, KrylovSettings{})
				if err != nil || !res.Converged {
					b.Fatal(err, res.Converged)
				}
				b.ReportMetric(float64(res.Products), "products")
			}
		})
	}
}
