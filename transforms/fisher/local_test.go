package fisher

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ordinate/ordinate/kernels"
)

// mixtureRows returns n rows of dim features from k overlapping Gaussian
// classes of unequal widths, and their labels.
func mixtureRows(n, dim, k int, seed uint64) ([]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 9))
	x := make([]float64, n*dim)
	cls := make([]int, n)
	for i := range n {
		c := rng.IntN(k)
		cls[i] = c
		for d := range dim {
			x[i*dim+d] = float64(c*((d+c)%2)) + (0.5+0.5*float64(c))*rng.NormFloat64()
		}
	}
	return x, cls
}

// gram is the dense Gram matrix of the n×dim rows x under kern: the
// references' kernel.
func gram(t testing.TB, kern kernels.Kernel, x []float64, n, dim int) []float64 {
	t.Helper()
	s, err := kern.Gram(context.Background(), nil, x, n, x, n, dim, 1)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// localCase prepares a Local and the dense Gram matrix of the same kernel.
func localCase(t *testing.T, kind string, n, dim, k, knn int, m kernels.KNNMethod) (*Local, []float64) {
	t.Helper()
	x, cls := mixtureRows(n, dim, k, 5)
	kern, err := kernels.Kernel{Kind: kind}.Resolve(x, n, dim)
	if err != nil {
		t.Fatal(err)
	}
	lc, _, err := NewLocal(context.Background(), x, n, dim, kern, cls, k, knn, 2, m, kernels.NNDescentSettings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := gram(t, kern, x, n, dim)
	return lc, s
}

// TestLocalPathSumsAllNeighbours: with every other row listed the local
// sums are the untruncated ones, so they equal F by its definition (refF on
// the dense Gram matrix) and drop nothing.
func TestLocalPathSumsAllNeighbours(t *testing.T) {
	const n, dim, k, T = 60, 5, 3, 6
	cases := []struct {
		kind  string
		sigma float64
		fb    bool // underflow fallbacks expected
	}{
		{"rbf", 0.4, false},
		{"linear", 1.5, false},
		{"cosine", 0.3, false},
		{"linear", 0.04, true},
	}
	for _, tc := range cases {
		for _, excl := range []bool{false, true} {
			kind, sigma := tc.kind, tc.sigma
			name := fmt.Sprintf("%s σ=%g", kind, sigma)
			if excl {
				name += " excl"
			}
			lc, s := localCase(t, kind, n, dim, k, n-1, kernels.KNNExact)
			r, err := LocalPathSums(context.Background(), lc, PathParams{Sigma: sigma, Steps: T, ExcludeEndpoints: excl, Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			var worst, scale float64
			for i := range n {
				for q := range n - 1 {
					e := i*(n-1) + q
					j := int(lc.Idx[e])
					if r.Dropped[e] != 0 {
						t.Fatalf("%s: pair (%d,%d) dropped %g with every row listed", name, i, j, r.Dropped[e])
					}
					var mid float64
					for st := 1; st < T; st++ {
						mid += refF(s, n, lc.Classes, k, sigma, float64(st)/T, i, j, excl)
					}
					f0 := refF(s, n, lc.Classes, k, sigma, 0, i, j, excl)
					f1 := refF(s, n, lc.Classes, k, sigma, 1, i, j, excl)
					worst = max(worst, math.Abs(r.F0[e]-f0), math.Abs(r.F1[e]-f1), math.Abs(r.Mid[e]-mid))
					scale = max(scale, mid)
				}
			}
			if (r.Fallbacks > 0) != tc.fb {
				t.Errorf("%s: %d fallbacks, want any = %v", name, r.Fallbacks, tc.fb)
			}
			if !(scale > 0) || worst > 1e-9*scale {
				t.Errorf("%s: max |local − definition| = %.3g (scale %.3g)", name, worst, scale)
			}
		}
	}
}

// TestLocalPathSumsTruncation: with short lists the sums lack the rows
// outside both neighbourhoods. Dropped must bound their normalised weight
// at every path point, and F² may move by at most 2·Dropped·G² (G the
// spread of h over all rows).
func TestLocalPathSumsTruncation(t *testing.T) {
	const n, dim, k, knn, T = 150, 4, 3, 12, 5
	for _, kind := range LocalKernels {
		lc, s := localCase(t, kind, n, dim, k, knn, kernels.KNNExact)
		d2 := make([]float64, n*n)
		kernels.KernelSqDistances(d2, s, n)
		sigma := 0.15
		if kind == "linear" {
			sigma = 0.6
		}
		r, err := LocalPathSums(context.Background(), lc, PathParams{Sigma: sigma, Steps: T, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		in := make([]bool, n)
		var someDropped bool
		for i := range n {
			for q := range knn {
				e := i*knn + q
				j := int(lc.Idx[e])
				clear(in)
				in[i], in[j] = true, true
				for _, l := range lc.Idx[i*knn : (i+1)*knn] {
					in[l] = true
				}
				for _, l := range lc.Idx[j*knn : (j+1)*knn] {
					in[l] = true
				}
				var hmin, hmax float64 = math.Inf(1), math.Inf(-1)
				for l := range n {
					h := (d2[i*n+l] - d2[j*n+l]) / 2
					hmin, hmax = min(hmin, h), max(hmax, h)
				}
				G := hmax - hmin
				outside := 0
				for _, v := range in {
					if !v {
						outside++
					}
				}
				rhoI, rhoJ := lc.D2[i*knn+knn-1], lc.D2[j*knn+knn-1]
				var bound float64
				for st := 0; st <= T; st++ {
					a := float64(st) / T
					var w float64
					for l := range n {
						if in[l] {
							w += math.Exp(-((1-a)*d2[i*n+l] + a*d2[j*n+l]) / (2 * sigma * sigma))
						}
					}
					bound = max(bound, float64(outside)*math.Exp(-((1-a)*rhoI+a*rhoJ)/(2*sigma*sigma))/w)
				}
				if math.Abs(bound-r.Dropped[e]) > 1e-9*bound {
					t.Fatalf("%s: pair (%d,%d): Dropped = %.6g, want %.6g", kind, i, j, r.Dropped[e], bound)
				}
				for st := 0; st <= T; st++ {
					a := float64(st) / T
					var wIn, wOut float64
					for l := range n {
						w := math.Exp(-((1-a)*d2[i*n+l] + a*d2[j*n+l] - (1-a)*d2[i*n+j]) / (2 * sigma * sigma))
						if in[l] {
							wIn += w
						} else {
							wOut += w
						}
					}
					if wOut/wIn > r.Dropped[e]*(1+1e-9)+1e-300 {
						t.Fatalf("%s: pair (%d,%d) at a = %g: outside weight %.3g of the kept, bound %.3g", kind, i, j, a, wOut/wIn, r.Dropped[e])
					}
					someDropped = someDropped || wOut/wIn > 1e-12
					full := refF(s, n, lc.Classes, k, sigma, a, i, j, false)
					var got float64
					switch st {
					case 0:
						got = r.F0[e]
					case T:
						got = r.F1[e]
					default:
						continue // Mid is a sum over the inner points
					}
					if diff := math.Abs(got*got - full*full); diff > 2*r.Dropped[e]*G*G+1e-10*(full*full+1e-300) {
						t.Fatalf("%s: pair (%d,%d) at a = %g: |ΔF²| = %.3g above 2·%.3g·G² (G = %.3g)", kind, i, j, a, diff, r.Dropped[e], G)
					}
				}
			}
		}
		if !someDropped {
			t.Errorf("%s: no pair lacks any weight: the test does not exercise truncation", kind)
		}
	}
}

// BenchmarkLocalPathSums is the local mode's pair sums on 20,000 rows of a
// 50-D overlapping mixture (rbf, the perplexity-30 σ over the lists),
// L = 90 Parzen rows, T = 10: what `fisher --in --neighbors K` spends after
// its search, for K = 90 with every listed pair summed, with twins summed
// once (mirror, as the trapezoid rule does), and for K = 150 with mirror.
// The neighbour lists (150 a row) are built once, outside the timing;
// ns/pair is per listed pair.
func BenchmarkLocalPathSums(b *testing.B) {
	const n, dim, k, knn, L = 20000, 50, 30, 150, 90
	x, cls := mixtureRows(n, dim, k, 1)
	kern, err := kernels.Kernel{Kind: "rbf"}.Resolve(x, n, dim)
	if err != nil {
		b.Fatal(err)
	}
	lc, _, err := NewLocal(context.Background(), x, n, dim, kern, cls, k, knn, 0, kernels.KNNApprox, kernels.NNDescentSettings{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	lc.Parzen = L
	beta := make([]float64, n)
	if err := kernels.PerplexitySparse(context.Background(), beta, nil, lc.D2, n, knn, 30, 0); err != nil {
		b.Fatal(err)
	}
	var sigma float64
	for _, v := range beta {
		sigma += 1 / math.Sqrt(2*v) / n
	}
	p := PathParams{Sigma: sigma, Steps: DefaultSteps}
	for _, c := range []struct {
		name   string
		pairs  int
		mirror bool
	}{{"K=90/every-pair", 90, false}, {"K=90/mirror", 90, true}, {"K=150/mirror", 150, true}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := localSums(context.Background(), lc, c.pairs, p, c.mirror, nil, func(_, _ int, _, _, _, _ float64) {}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*c.pairs), "ns/pair")
		})
	}
}

// refFOver is F_ij(a) by its definition with the Parzen sums over the rows
// where in is true, from the dense Gram matrix s.
func refFOver(s []float64, n int, cls []int, k int, sigma, a float64, i, j int, in []bool) float64 {
	d2 := func(p, q int) float64 { return max(0, s[p*n+p]+s[q*n+q]-2*s[p*n+q]) }
	mx := math.Inf(-1)
	for l := range n {
		if in[l] {
			mx = max(mx, -((1-a)*d2(i, l)+a*d2(j, l))/(2*sigma*sigma))
		}
	}
	var W, m float64
	pc, mc := make([]float64, k), make([]float64, k)
	for l := range n {
		if !in[l] {
			continue
		}
		w := math.Exp(-((1-a)*d2(i, l)+a*d2(j, l))/(2*sigma*sigma) - mx)
		g := s[j*n+l] - s[i*n+l]
		W += w
		m += w * g
		pc[cls[l]] += w
		mc[cls[l]] += w * g
	}
	m /= W
	var f2 float64
	for c := range k {
		if pc[c] > 0 {
			f2 += pc[c] / W * (mc[c]/pc[c] - m) * (mc[c]/pc[c] - m)
		}
	}
	return math.Sqrt(f2)
}

// TestLocalPathSumsShortParzen: with Parzen rows fewer than the listed
// pairs, a pair's far end j may lie outside a's Parzen rows; the sums are
// still over {i, j} ∪ N_L(i) ∪ N_L(j), as the definition over that set
// gives them.
func TestLocalPathSumsShortParzen(t *testing.T) {
	const n, dim, k, knn, L, T = 90, 4, 3, 20, 6, 4
	for _, excl := range []bool{false, true} {
		lc, s := localCase(t, "rbf", n, dim, k, knn, kernels.KNNExact)
		lc.Parzen = L
		const sigma = 0.25
		p := PathParams{Sigma: sigma, Steps: T, ExcludeEndpoints: excl, Threads: 2}
		f0s, f1s, mids := make([]float64, n*knn), make([]float64, n*knn), make([]float64, n*knn)
		if _, _, err := localSums(context.Background(), lc, knn, p, false, nil, func(_, e int, f0, f1, mid, _ float64) {
			f0s[e], f1s[e], mids[e] = f0, f1, mid
		}); err != nil {
			t.Fatal(err)
		}
		in := make([]bool, n)
		var worst, scale float64
		outside := 0
		for i := range n {
			for q := range knn {
				j := int(lc.Idx[i*knn+q])
				clear(in)
				for _, l := range lc.Idx[i*knn : i*knn+L] {
					in[l] = true
				}
				for _, l := range lc.Idx[j*knn : j*knn+L] {
					in[l] = true
				}
				if !in[j] {
					outside++
				}
				in[i], in[j] = !excl, !excl
				var mid float64
				for st := 1; st < T; st++ {
					mid += refFOver(s, n, lc.Classes, k, sigma, float64(st)/T, i, j, in)
				}
				e := i*knn + q
				worst = max(worst, math.Abs(f0s[e]-refFOver(s, n, lc.Classes, k, sigma, 0, i, j, in)),
					math.Abs(f1s[e]-refFOver(s, n, lc.Classes, k, sigma, 1, i, j, in)), math.Abs(mids[e]-mid))
				scale = max(scale, mid)
			}
		}
		if outside == 0 {
			t.Fatalf("excl=%v: every pair's far end is among the near end's Parzen rows: the test does not exercise K > L", excl)
		}
		if !(scale > 0) || worst > 1e-9*scale {
			t.Errorf("excl=%v: max |local − definition over U| = %.3g (scale %.3g)", excl, worst, scale)
		}
	}
}
