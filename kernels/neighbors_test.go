package kernels

import (
	"context"
	"slices"
	"testing"
)

func TestKNNMethodResolve(t *testing.T) {
	for _, c := range []struct {
		name    string
		m       KNNMethod
		n, d, c int // c: NN-descent's candidates per point
		want    KNNMethod
	}{
		{"auto small", KNNAuto, AutoApproxKNNAbove, 50, 60, KNNExact},
		{"auto large", KNNAuto, AutoApproxKNNAbove + 1, 50, 60, KNNApprox},
		{"auto at the 120-candidate crossover", KNNAuto, 57_600, 50, 120, KNNExact},
		{"auto above it", KNNAuto, 57_601, 50, 120, KNNApprox},
		{"auto, many candidates", KNNAuto, 200_000, 50, 234, KNNExact},
		{"auto large, few features", KNNAuto, 100 * AutoApproxKNNAbove, KDTreeMaxDims, 60, KNNExact},
		{"auto large, one feature more", KNNAuto, AutoApproxKNNAbove + 1, KDTreeMaxDims + 1, 60, KNNApprox},
		{"exact large", KNNExact, 10 * AutoApproxKNNAbove, 50, 60, KNNExact},
		{"approx small", KNNApprox, 10, 2, 60, KNNApprox},
	} {
		if got := c.m.Resolve(c.n, c.d, c.c); got != c.want {
			t.Errorf("%s: Resolve(%d, %d, %d) = %v, want %v", c.name, c.n, c.d, c.c, got, c.want)
		}
	}
	// FindKNN resolves with the candidates it would join: the default for
	// k = 176 (234) keeps 30,000 rows exhaustive, t-SNE's 60 do not.
	if findsApprox(30_000, 10, 176, KNNAuto, NNDescentSettings{}) {
		t.Error("30,000 × 10, k = 176, default candidates: NN-descent, want the exhaustive search")
	}
	if !findsApprox(30_000, 10, 90, KNNAuto, NNDescentSettings{MaxCandidates: 60}) {
		t.Error("30,000 × 10, k = 90, 60 candidates: exhaustive, want NN-descent")
	}
}

func TestKNNMethodValues(t *testing.T) {
	for _, m := range []KNNMethod{KNNAuto, KNNExact, KNNApprox} {
		if !slices.Contains(m.Values(), string(m)) {
			t.Errorf("%q is not among Values %v", m, m.Values())
		}
	}
	if len(KNNAuto.Values()) != 3 {
		t.Errorf("Values %v, want the three methods", KNNAuto.Values())
	}
}

// FindKNN must return exactly what the method it reports returns, and
// report exact where the approximate search falls back to it.
func TestFindKNNFallbackReported(t *testing.T) {
	for _, c := range []struct {
		name string
		n, k int
		want KNNMethod
	}{{"few rows", 500, 5, KNNExact}, {"k ≥ n/8", 2400, 300, KNNExact}, {"large", 2400, 5, KNNApprox}} {
		x := mixture(c.n, 3, 2, 3, 1)
		ran, err := FindKNN(context.Background(), make([]int32, c.n*c.k), nil, x, c.n, 3, c.k, 2, KNNApprox, NNDescentSettings{Seed: 1})
		if err != nil || ran != c.want {
			t.Errorf("%s: ran %v (err %v), want %v", c.name, ran, err, c.want)
		}
		if plan := PlanKNN(c.n, 3, c.k, KNNApprox, NNDescentSettings{Seed: 1}); plan != ran {
			t.Errorf("%s: PlanKNN says %v, FindKNN ran %v", c.name, plan, ran)
		}
	}
}

// FindKNN must return exactly what the method it reports returns.
func TestFindKNNDispatch(t *testing.T) {
	const n, d, k = 3000, 8, 10
	x := mixture(n, d, 4, 3, 2)
	for _, m := range []KNNMethod{KNNExact, KNNApprox} {
		got := make([]int32, n*k)
		ran, err := FindKNN(context.Background(), got, nil, x, n, d, k, 2, m, NNDescentSettings{Seed: 3})
		if err != nil || ran != m {
			t.Fatalf("%v: ran %v, err %v", m, ran, err)
		}
		want := make([]int32, n*k)
		if m == KNNExact {
			err = KNN(context.Background(), want, nil, x, n, d, k, 2)
		} else {
			err = ApproxKNN(context.Background(), want, nil, x, n, d, k, 2, NNDescentSettings{Seed: 3})
		}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%v: FindKNN differs from the method it reports (err %v)", m, err)
		}
	}
}

// Progress must report work in every case, end the exhaustive search at
// exactly KNNWork rows, the exhaustive one as it goes (more than one
// call), and
// never pass KNNWork for NN-descent (which may converge sooner); the total
// must reach at least the trees and one descent iteration.
func TestFindKNNProgress(t *testing.T) {
	for _, c := range []struct {
		name    string
		n, d, k int
		m       KNNMethod
	}{{"k-d tree", 2400, 3, 5, KNNExact}, {"exhaustive", 400, 12, 5, KNNExact}, {"fallback", 500, 3, 5, KNNApprox}, {"approx", 2400, 3, 5, KNNApprox}} {
		x := mixture(c.n, c.d, 2, 3, 1)
		var rows, calls int
		set := NNDescentSettings{Seed: 1, Progress: func(r int) { rows += r; calls++ }}
		ran, err := FindKNN(context.Background(), make([]int32, c.n*c.k), nil, x, c.n, c.d, c.k, 2, c.m, set)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		work := KNNWork(c.n, c.d, c.k, c.m, set)
		switch {
		case ran == KNNExact && (int64(rows) != work || c.name == "exhaustive" && calls < 2):
			t.Errorf("%s: exact search reported %d rows of KNNWork %d in %d calls", c.name, rows, work, calls)
		case ran == KNNApprox && (int64(rows) > work || rows < 2*c.n):
			t.Errorf("%s: NN-descent reported %d rows, want 2·n = %d to KNNWork = %d", c.name, rows, 2*c.n, work)
		}
	}
}

// KNNBytes counts NN-descent's scratch only where NN-descent runs, more
// for a wider join and for the widenings a recall target allows, and never
// more update buffer than the budget.
func TestKNNBytes(t *testing.T) {
	const n, d, k = 100_000, 50, 90
	base := NNDescentSettings{MaxCandidates: 60}
	target := base
	target.TargetRecall = 0.99
	wide := base
	wide.MaxCandidates = 120
	for _, tc := range []struct {
		name     string
		bytes    float64
		min, max float64
	}{
		{"exact", KNNBytes(n, d, k, KNNExact, base), 0, 0},
		{"low dimension", KNNBytes(n, 3, k, KNNAuto, base), 0, 0},
		{"approx", KNNBytes(n, d, k, KNNApprox, base), float64(n) * k * 18, float64(n)*k*18 + float64(n)*60*8 + 16*n + nndUpdateBudget},
		{"wider", KNNBytes(n, d, k, KNNApprox, wide), KNNBytes(n, d, k, KNNApprox, base) + 1, 1e12},
		{"target", KNNBytes(n, d, k, KNNApprox, target), KNNBytes(n, d, k, KNNApprox, wide), 1e12},
	} {
		if tc.bytes < tc.min || tc.bytes > tc.max {
			t.Errorf("%s: %.4g bytes, want [%.4g, %.4g]", tc.name, tc.bytes, tc.min, tc.max)
		}
	}
}
