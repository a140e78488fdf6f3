package fisher

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// TestFitFeaturesVsGram: with every other row listed (L = n−1) and σ given,
// the local mode sums what SparseDistances sums on the dense Gram matrix of
// the same kernel, less the terms the latter drops below 1e-12 of the kept
// weight: the distances agree to 1e-9 relative, for every kernel, rule and
// endpoint choice, and the pairs are the same K nearest rows.
func TestFitFeaturesVsGram(t *testing.T) {
	const n, dim, k, K = 70, 5, 3, 8
	x, cls := mixtureRows(n, dim, k, 3)
	for _, kind := range LocalKernels {
		for _, rule := range []Rule{Trapezoid, Left} {
			for _, excl := range []bool{false, true} {
				name := fmt.Sprintf("%s %s excl=%v", kind, rule, excl)
				kern, err := kernels.Kernel{Kind: kind}.Resolve(x, n, dim)
				if err != nil {
					t.Fatal(err)
				}
				o := DefaultOptions()
				o.Neighbors, o.ParzenNeighbors, o.Rule, o.ExcludeEndpoints, o.Threads = K, n-1, rule, excl, 2
				o.Sigma = map[string]float64{"rbf": 0.3, "linear": 1.2, "cosine": 0.25}[kind]
				res, err := FitFeatures(context.Background(), x, n, dim, kern, cls, k, o, nil)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				s := gram(t, kern, x, n, dim)
				idx, dist, _, err := SparseDistances(context.Background(), s, n, cls, k, o)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if res.K != K || len(res.Idx) != n*K || len(res.Dist) != n*K {
					t.Fatalf("%s: K = %d with %d pairs and %d distances, want %d and %d", name, res.K, len(res.Idx), len(res.Dist), K, n*K)
				}
				var worst, scale float64
				for q := range idx {
					if res.Idx[q] != idx[q] {
						t.Fatalf("%s: pair %d is row %d, want %d", name, q, res.Idx[q], idx[q])
					}
					worst = max(worst, math.Abs(res.Dist[q]-dist[q]))
					scale = max(scale, dist[q])
				}
				if !(scale > 0) || worst > 1e-9*scale {
					t.Errorf("%s: max |local − Gram| = %.3g (scale %.3g)", name, worst, scale)
				}
				// The trapezoid rule sums a pair listed from both ends once.
				twins := 0
				for q, j := range res.Idx {
					i := q / K
					for p, l := range res.Idx[int(j)*K : (int(j)+1)*K] {
						if int(l) == i {
							twins++
							if rule == Trapezoid && res.Dist[q] != res.Dist[int(j)*K+p] {
								t.Fatalf("%s: d(%d,%d) = %v but d(%d,%d) = %v", name, i, j, res.Dist[q], j, i, res.Dist[int(j)*K+p])
							}
						}
					}
				}
				wantSummed := int64(n * K)
				if rule == Trapezoid {
					wantSummed -= int64(twins / 2)
				}
				if got := res.Figures["summed_pairs"].(int64); twins == 0 || got != wantSummed {
					t.Errorf("%s: %d pairs summed, want %d (%d twins)", name, got, wantSummed, twins)
				}
				if e := res.Figures["truncation_error_max"].(float64); e > 1e-9 {
					t.Errorf("%s: truncation error %.3g with every row listed", name, e)
				}
				if res.Figures["dropped_mass_max"].(float64) != 0 {
					t.Errorf("%s: dropped mass %v with every row listed", name, res.Figures["dropped_mass_max"])
				}
			}
		}
	}
}

// TestFitFeaturesKernelMetric: metric kernel writes √d² of the K nearest
// rows, as the Gram matrix gives them.
func TestFitFeaturesKernelMetric(t *testing.T) {
	const n, dim, k, K = 50, 4, 2, 6
	x, cls := mixtureRows(n, dim, k, 4)
	kern, err := kernels.Kernel{Kind: "rbf"}.Resolve(x, n, dim)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Neighbors, o.Metric = K, MetricKernel
	res, err := FitFeatures(context.Background(), x, n, dim, kern, cls, k, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := gram(t, kern, x, n, dim)
	for q, j := range res.Idx {
		i := q / K
		want := math.Sqrt(max(0, s[i*n+i]+s[int(j)*n+int(j)]-2*s[i*n+int(j)]))
		if math.Abs(res.Dist[q]-want) > 1e-12 {
			t.Fatalf("pair (%d,%d): %v, want %v", i, j, res.Dist[q], want)
		}
		if q%K > 0 && res.Dist[q] < res.Dist[q-1] {
			t.Fatalf("row %d: pairs not nearest first", i)
		}
	}
}

// TestFitFeaturesErrors: bad options and data name what is wrong.
func TestFitFeaturesErrors(t *testing.T) {
	const n, dim, k = 40, 3, 2
	x, cls := mixtureRows(n, dim, k, 6)
	rbf := kernels.Kernel{Kind: "rbf", Gamma: 1}
	bad := append([]float64(nil), x...)
	bad[7*dim+2] = math.NaN()
	one := make([]int, n)
	for _, tc := range []struct {
		name   string
		x      []float64
		cls    []int
		kern   kernels.Kernel
		set    func(o *Options)
		option string // "" for a data error
		target error
	}{
		{"no neighbors", x, cls, rbf, func(o *Options) { o.Neighbors = 0 }, "neighbors", nil},
		{"neighbors N", x, cls, rbf, func(o *Options) { o.Neighbors = n }, "neighbors", nil},
		{"poly", x, cls, kernels.Kernel{Kind: "poly", Gamma: 1, Degree: 2}, nil, "kernel", nil},
		{"short lists", x, cls, rbf, func(o *Options) { o.ParzenNeighbors = 3 }, "perplexity", nil},
		{"perplexity", x, cls, rbf, func(o *Options) { o.Perplexity = 39 }, "perplexity", nil},
		{"NaN", bad, cls, rbf, nil, "", ErrNonFinite},
		{"one class", x, one, rbf, nil, "", ErrTooFewClasses},
	} {
		o := DefaultOptions()
		o.Neighbors = 5
		if tc.set != nil {
			tc.set(&o)
		}
		_, err := FitFeatures(context.Background(), tc.x, n, dim, tc.kern, tc.cls, k, o, nil)
		var oe *transforms.OptionError
		switch {
		case tc.option != "" && (!errors.As(err, &oe) || oe.Option != tc.option):
			t.Errorf("%s: error %v, want one on option %q", tc.name, err, tc.option)
		case tc.option == "" && !errors.Is(err, tc.target):
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.target)
		}
	}
	// The NaN's position is named.
	o := DefaultOptions()
	o.Neighbors = 5
	_, err := FitFeatures(context.Background(), bad, n, dim, rbf, cls, k, o, nil)
	var de *transforms.DataError
	if !errors.As(err, &de) || de.Row != 7 || de.Column != "2" {
		t.Errorf("NaN at (7, 2): error %v", err)
	}
}

// TestFitFeaturesMemory: a plan beyond the memory limit is refused before
// anything is allocated, naming the option that sizes it.
func TestFitFeaturesMemory(t *testing.T) {
	const n, dim, k = 40, 3, 2
	x, cls := mixtureRows(n, dim, k, 6)
	o := DefaultOptions()
	o.Neighbors = 30
	ctx := transforms.WithMemoryLimit(context.Background(), 1<<10)
	_, err := FitFeatures(ctx, x, n, dim, kernels.Kernel{Kind: "rbf", Gamma: 1}, cls, k, o, nil)
	var oe *transforms.OptionError
	if !errors.As(err, &oe) || oe.Option != "neighbors" || !errors.Is(err, transforms.ErrMemory) {
		t.Errorf("1 KiB limit: error %v, want a memory error on neighbors", err)
	}
}

// TestFitFeaturesSigma: σ from the perplexity over L = n−1 listed rows is
// the dense fit's σ, calibrated over all other rows of the Gram matrix;
// over fewer rows it differs.
func TestFitFeaturesSigma(t *testing.T) {
	const n, dim, k = 60, 4, 3
	x, cls := mixtureRows(n, dim, k, 8)
	kern, err := kernels.Kernel{Kind: "rbf"}.Resolve(x, n, dim)
	if err != nil {
		t.Fatal(err)
	}
	s := gram(t, kern, x, n, dim)
	o := DefaultOptions()
	o.Perplexity, o.Correction = 10, CorrectNone
	dense, err := Fit(context.Background(), s, n, cls, k, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		L    int
		same bool
	}{{n - 1, true}, {30, false}} {
		o.Neighbors, o.ParzenNeighbors = 5, tc.L
		res, err := FitFeatures(context.Background(), x, n, dim, kern, cls, k, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if same := math.Abs(res.Sigma-dense.Sigma) <= 1e-4*dense.Sigma; same != tc.same {
			t.Errorf("L = %d: σ = %.6g, dense σ = %.6g, want equal = %v", tc.L, res.Sigma, dense.Sigma, tc.same)
		}
	}
}

// TestFitFeaturesThreads: with NN-descent's lists (2,500 rows) the
// distances do not depend on the thread count, bit for bit.
func TestFitFeaturesThreads(t *testing.T) {
	const n, dim, k = 2500, 12, 4
	x, cls := mixtureRows(n, dim, k, 10)
	kern, err := kernels.Kernel{Kind: "rbf"}.Resolve(x, n, dim)
	if err != nil {
		t.Fatal(err)
	}
	var ref *FitResult
	for _, threads := range []int{1, 2, 3} {
		o := DefaultOptions()
		o.Neighbors, o.KNN, o.Threads = 10, kernels.KNNApprox, threads
		res, err := FitFeatures(context.Background(), x, n, dim, kern, cls, k, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Figures["knn"] != "approx" {
			t.Fatalf("search %v, want approx", res.Figures["knn"])
		}
		if ref == nil {
			ref = res
			continue
		}
		for q := range res.Dist {
			if res.Idx[q] != ref.Idx[q] || res.Dist[q] != ref.Dist[q] {
				t.Fatalf("%d threads: entry %d is (%d, %v), want (%d, %v)", threads, q, res.Idx[q], res.Dist[q], ref.Idx[q], ref.Dist[q])
			}
		}
	}
}

// TestFitFeaturesTruncationCheck: the truncation figures are the relative
// differences, on the seeded sample of pairs, between the local distances
// and the dense Distances of the Gram matrix at the same σ.
func TestFitFeaturesTruncationCheck(t *testing.T) {
	const n, dim, k, K, L = 120, 4, 3, 6, 15
	x, cls := mixtureRows(n, dim, k, 12)
	kern, err := kernels.Kernel{Kind: "rbf"}.Resolve(x, n, dim)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Neighbors, o.ParzenNeighbors, o.Sigma, o.Perplexity = K, L, 0.2, 5
	res, err := FitFeatures(context.Background(), x, n, dim, kern, cls, k, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := gram(t, kern, x, n, dim)
	od := o
	od.Neighbors, od.ParzenNeighbors = 0, 0
	dense, _, err := Distances(context.Background(), s, n, cls, k, od)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0xf15e7))
	rel := make([]float64, TruncationPairs)
	for q := range rel {
		e := rng.IntN(n * K)
		full := dense[e/K*n+int(res.Idx[e])]
		rel[q] = math.Abs(res.Dist[e]-full) / full
	}
	slices.Sort(rel)
	for _, c := range []struct {
		figure string
		want   float64
	}{{"truncation_error_median", rel[len(rel)/2]}, {"truncation_error_p90", rel[len(rel)*9/10]}, {"truncation_error_max", rel[len(rel)-1]}} {
		got := res.Figures[c.figure].(float64)
		if math.Abs(got-c.want) > 1e-9*max(c.want, 1e-3) {
			t.Errorf("%s = %.6g, want %.6g", c.figure, got, c.want)
		}
	}
	if rel[len(rel)/2] < 1e-6 {
		t.Errorf("median truncation error %.3g: the test does not truncate", rel[len(rel)/2])
	}
}

// TestLocalTiles: the local mode's model is its set-up: the tiles computed
// from it (FitModel) hold every entry of the whole table once, with the
// bits of the fit that wrote the model, for both rules and endpoint
// choices; an option that changes the set-up is refused by name.
func TestLocalTiles(t *testing.T) {
	const n, dim, k = 150, 12, 3
	x, cls := mixtureRows(n, dim, k, 31)
	for _, rule := range []Rule{Trapezoid, Left} {
		for _, excl := range []bool{false, true} {
			name := fmt.Sprintf("%s excl=%v", rule, excl)
			o := DefaultOptions()
			o.Neighbors, o.ParzenNeighbors, o.Perplexity, o.Rule, o.ExcludeEndpoints, o.Threads = 25, 15, 5, rule, excl, 2
			fm, _, res := fittedMap(t, x, n, dim, cls, k, "rbf", o)
			const T = 3
			got := make([]float64, n*o.Neighbors)
			seen := make([]int, n*o.Neighbors)
			for I := range T {
				for J := range T {
					to := DefaultOptions()
					to.Tile, to.Threads = Tile{I, J, T}, 1+I%2
					tr, err := FitModel(context.Background(), fm, to, nil)
					if err != nil {
						t.Fatalf("%s tile %d,%d: %v", name, I, J, err)
					}
					in := to.Tile.ordered(n)
					for e, j := range tr.Idx {
						if in(e/tr.K, int(j)) {
							got[e] = tr.Dist[e]
							seen[e]++
						}
					}
				}
			}
			for e := range got {
				if seen[e] != 1 || math.Float64bits(got[e]) != math.Float64bits(res.Dist[e]) {
					t.Fatalf("%s: entry %d in %d tiles with %v, the fit has %v", name, e, seen[e], got[e], res.Dist[e])
				}
			}
			fm.Release()
		}
	}
	o := DefaultOptions()
	o.Neighbors, o.Perplexity, o.Threads = 20, 5, 2
	fm, bound, _ := fittedMap(t, x, n, dim, cls, k, "rbf", o)
	defer fm.Release()
	defer bound.Release()
	for _, tc := range []struct {
		option string
		set    func(o *Options)
	}{
		{"neighbors", func(o *Options) { o.Neighbors = 30 }},
		{"steps", func(o *Options) { o.Steps = 4 }},
		{"perplexity", func(o *Options) { o.Perplexity = 7 }},
		{"kernel", func(o *Options) { o.Kernel = CosineKernel }},
		{"metric", func(o *Options) { o.Metric = MetricKernel }},
	} {
		to := DefaultOptions()
		tc.set(&to)
		_, err := FitModel(context.Background(), fm, to, nil)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option {
			t.Errorf("%s: %v, want an option error on it", tc.option, err)
		}
	}
	// The model's own values are no conflict.
	to := DefaultOptions()
	to.Neighbors, to.Perplexity, to.Kernel = 20, 5, RBFKernel
	if _, err := FitModel(context.Background(), fm, to, nil); err != nil {
		t.Errorf("the model's own options: %v", err)
	}
}
