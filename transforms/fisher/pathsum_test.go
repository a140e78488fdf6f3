package fisher

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ordinate/ordinate/kernels"
)

// randomKernel returns a clipped random indefinite kernel: an RBF kernel of
// a k-class Gaussian mixture plus symmetric noise, and its labels.
func randomKernel(t testing.TB, n, k int, noise float64, seed uint64) ([]float64, []int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	const dim = 4
	x := make([]float64, n*dim)
	cls := make([]int, n)
	for i := range n {
		cls[i] = rng.IntN(k)
		for d := range dim {
			x[i*dim+d] = float64(cls[i]*(d%2)) + rng.NormFloat64()
		}
	}
	s := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			v := math.Exp(-kernels.SqDist(x[i*dim:(i+1)*dim], x[j*dim:(j+1)*dim]) / 4)
			v += noise * rng.NormFloat64()
			s[i*n+j], s[j*n+i] = v, v
		}
	}
	if _, err := kernels.CorrectSpectrum(s, s, n, kernels.Clip); err != nil {
		t.Fatal(err)
	}
	return s, cls
}

// twinKernel returns the linear kernel of n/2 unit-scale points, each with
// a twin of the next class at distance ≈ sep: with σ ≈ sep every Parzen
// weight away from the points underflows, yet the twins keep F nonzero.
func twinKernel(n, k int, sep float64, seed uint64) ([]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 8))
	const dim = 3
	x := make([]float64, n*dim)
	cls := make([]int, n)
	for i := 0; i < n; i += 2 {
		cls[i] = (i / 2) % k
		for d := range dim {
			x[i*dim+d] = rng.NormFloat64()
		}
		if i+1 < n {
			cls[i+1] = (cls[i] + 1) % k
			for d := range dim {
				x[(i+1)*dim+d] = x[i*dim+d] + sep*rng.NormFloat64()
			}
		}
	}
	s := linearGram(x, n, dim)
	return s, cls
}

// refF is F_ij(a) by its definition: plain loops, one exp per term, logits
// shifted by their maximum.
func refF(s []float64, n int, cls []int, k int, sigma, a float64, i, j int, excl bool) float64 {
	d2 := func(p, q int) float64 { return max(0, s[p*n+p]+s[q*n+q]-2*s[p*n+q]) }
	if p, q := i, j; p == q {
		return 0
	}
	lg := make([]float64, n)
	mx := math.Inf(-1)
	for l := range n {
		lg[l] = -((1-a)*d2(i, l) + a*d2(j, l)) / (2 * sigma * sigma)
		if excl && (l == i || l == j) {
			continue
		}
		mx = max(mx, lg[l])
	}
	var W float64
	xi := make([]float64, n)
	for l := range n {
		if excl && (l == i || l == j) {
			continue
		}
		xi[l] = math.Exp(lg[l] - mx)
		W += xi[l]
	}
	if W == 0 {
		return 0
	}
	var m float64
	pc := make([]float64, k)
	mc := make([]float64, k)
	for l := range n {
		g := s[j*n+l] - s[i*n+l]
		m += xi[l] / W * g
		pc[cls[l]] += xi[l] / W
		mc[cls[l]] += xi[l] / W * g
	}
	var f2 float64
	for c := range k {
		if pc[c] > 0 {
			f2 += pc[c] * (mc[c]/pc[c] - m) * (mc[c]/pc[c] - m)
		}
	}
	return math.Sqrt(f2)
}

func TestFisherPathSumsReference(t *testing.T) {
	cases := []struct {
		name  string
		n, k  int
		sigma float64
		T     int
		excl  bool
		fb    bool // fallbacks expected
	}{
		{"n23 k3 T4", 23, 3, 0.5, 4, false, false},
		{"n23 k3 T4 excl", 23, 3, 0.5, 4, true, false},
		{"n17 k2 T1", 17, 2, 0.8, 1, false, false},
		{"n30 k4 T5 excl", 30, 4, 0.3, 5, true, false},
		{"n20 k3 tiny sigma", 20, 3, 1e-3, 3, false, true},
		{"n20 k3 tiny sigma excl", 20, 3, 1e-3, 4, true, true},
	}
	for _, tc := range cases {
		s, cls := randomKernel(t, tc.n, tc.k, 0.05, 3)
		if tc.fb {
			s, cls = twinKernel(tc.n, tc.k, 1e-3, 3)
		}
		n := tc.n
		f0 := make([]float64, n*n)
		mid := make([]float64, n*n)
		fb, err := PathSums(context.Background(), f0, mid, s, n, cls, tc.k, PathParams{Sigma: tc.sigma, Steps: tc.T, ExcludeEndpoints: tc.excl, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		if (fb > 0) != tc.fb {
			t.Errorf("%s: %d fallbacks, want any = %v", tc.name, fb, tc.fb)
		}
		var worst, scale float64
		for i := range n {
			for j := range n {
				if i == j {
					if f0[i*n+i] != 0 || mid[i*n+i] != 0 {
						t.Errorf("%s: nonzero diagonal at %d", tc.name, i)
					}
					continue
				}
				w0 := refF(s, n, cls, tc.k, tc.sigma, 0, i, j, tc.excl)
				var wm float64
				for st := 1; st < tc.T; st++ {
					wm += refF(s, n, cls, tc.k, tc.sigma, float64(st)/float64(tc.T), i, j, tc.excl)
				}
				for _, v := range []float64{f0[i*n+j], mid[i*n+j]} {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("%s: non-finite result at (%d,%d)", tc.name, i, j)
					}
				}
				worst = max(worst, math.Abs(f0[i*n+j]-w0), math.Abs(mid[i*n+j]-wm))
				scale = max(scale, w0, wm)
			}
		}
		if !(scale > 1e-6) {
			t.Fatalf("%s: reference scale %g too small to test anything", tc.name, scale)
		}
		if worst > 1e-10*scale {
			t.Errorf("%s: max |fast − reference| = %.3g (scale %.3g)", tc.name, worst, scale)
		}
		t.Logf("%s: max |fast − reference| / scale = %.2g, %d fallbacks", tc.name, worst/scale, fb)
	}
}

func TestFisherPathSumsThreads(t *testing.T) {
	const n, k = 61, 3
	s, cls := randomKernel(t, n, k, 0.05, 5)
	var ref0, refm []float64
	for _, th := range []int{1, 2, 3} {
		f0 := make([]float64, n*n)
		mid := make([]float64, n*n)
		if _, err := PathSums(context.Background(), f0, mid, s, n, cls, k, PathParams{Sigma: 0.4, Steps: 6, Threads: th}); err != nil {
			t.Fatal(err)
		}
		if ref0 == nil {
			ref0, refm = f0, mid
			continue
		}
		for q := range f0 {
			if f0[q] != ref0[q] || mid[q] != refm[q] {
				t.Fatalf("threads %d: result differs at %d", th, q)
			}
		}
	}
	for _, th := range []int{1, 3} {
		r1, err := SparsePathSums(context.Background(), s, n, cls, k, 7, PathParams{Sigma: 0.4, Steps: 6, Threads: th})
		if err != nil {
			t.Fatal(err)
		}
		r2, err := SparsePathSums(context.Background(), s, n, cls, k, 7, PathParams{Sigma: 0.4, Steps: 6, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		for q := range r1.Mid {
			if r1.Mid[q] != r2.Mid[q] || r1.F0[q] != r2.F0[q] || r1.F1[q] != r2.F1[q] || r1.Idx[q] != r2.Idx[q] {
				t.Fatalf("sparse threads %d vs 2: differs at %d", th, q)
			}
		}
	}
}

func TestFisherPathSumsCancel(t *testing.T) {
	const n, k = 20, 2
	s, cls := randomKernel(t, n, k, 0, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := PathSums(ctx, make([]float64, n*n), make([]float64, n*n), s, n, cls, k, PathParams{Sigma: 1, Steps: 2})
	if err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestFisherSparseVsDense compares the truncated sparse sums with the dense
// ones on the same pairs, with σ small enough that points are dropped.
func TestFisherSparseVsDense(t *testing.T) {
	const n, k, knn = 80, 3, 10
	rbf, rbfCls := randomKernel(t, n, k, 0.02, 11)
	twin, twinCls := twinKernel(n, k, 1e-3, 4)
	cases := []struct {
		name  string
		s     []float64
		cls   []int
		sigma float64
		excl  bool
		fb    bool // underflow fallbacks expected
	}{
		{"rbf", rbf, rbfCls, 0.12, false, false},
		{"rbf excl", rbf, rbfCls, 0.12, true, false},
		{"twins tiny sigma", twin, twinCls, 1e-3, false, true},
		{"twins tiny sigma excl", twin, twinCls, 1e-3, true, true},
	}
	for _, tc := range cases {
		s, cls := tc.s, tc.cls
		p := PathParams{Sigma: tc.sigma, Steps: 5, ExcludeEndpoints: tc.excl}
		f0 := make([]float64, n*n)
		mid := make([]float64, n*n)
		if _, err := PathSums(context.Background(), f0, mid, s, n, cls, k, p); err != nil {
			t.Fatal(err)
		}
		r, err := SparsePathSums(context.Background(), s, n, cls, k, knn, p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Kept >= r.Dense {
			t.Errorf("%s: nothing dropped (%d of %d kept): the test does not exercise truncation", tc.name, r.Kept, r.Dense)
		}
		if (r.Fallbacks > 0) != tc.fb {
			t.Errorf("%s: %d fallbacks, want any = %v", tc.name, r.Fallbacks, tc.fb)
		}
		d2 := make([]float64, n*n)
		kernels.KernelSqDistances(d2, s, n)
		idx := make([]int32, n*knn)
		if err := kernels.KNNFromDistances(context.Background(), idx, nil, d2, n, knn, 1); err != nil {
			t.Fatal(err)
		}
		var worst, scale float64
		for i := range n {
			for q := range knn {
				j := int(idx[i*knn+q])
				if int(r.Idx[i*knn+q]) != j {
					t.Fatalf("%s: neighbour (%d,%d) = %d, want %d", tc.name, i, q, r.Idx[i*knn+q], j)
				}
				worst = max(worst, math.Abs(r.F0[i*knn+q]-f0[i*n+j]), math.Abs(r.F1[i*knn+q]-f0[j*n+i]), math.Abs(r.Mid[i*knn+q]-mid[i*n+j]))
				scale = max(scale, mid[i*n+j], f0[i*n+j])
			}
		}
		if !(scale > 0) || worst > 1e-9*scale {
			t.Errorf("%s: max |sparse − dense| = %.3g (scale %.3g)", tc.name, worst, scale)
		}
	}
}
