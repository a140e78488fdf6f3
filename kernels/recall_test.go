package kernels

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// TestEstimateRecall: on a hard set (an isotropic 50-D Gaussian, where
// NN-descent does worst) and a mixture, with narrow joins that leave
// recall well below 1, the estimate from 300 rows is within 0.01 of the
// recall over every row against the exact neighbours; scoring every row
// gives the true recall exactly.
func TestEstimateRecall(t *testing.T) {
	ctx := context.Background()
	const n, d, k = 6000, 50, 30
	for _, tc := range []struct {
		name     string
		clusters int
		cands    int
	}{
		{"isotropic, 12 candidates", 1, 12},
		{"isotropic, 24 candidates", 1, 24},
		{"mixture, 12 candidates", 10, 12},
	} {
		x := mixture(n, d, tc.clusters, 3, 2)
		exact := make([]int32, n*k)
		if err := KNN(ctx, exact, nil, x, n, d, k, 0); err != nil {
			t.Fatal(err)
		}
		idx := make([]int32, n*k)
		set := NNDescentSettings{Seed: 3, MaxCandidates: tc.cands, MaxIterations: 4, Trees: 2}
		if err := ApproxKNN(ctx, idx, nil, x, n, d, k, 0, set); err != nil {
			t.Fatal(err)
		}
		truth := recallOf(idx, exact, allRows(n), k)
		est, err := EstimateRecall(ctx, idx, x, n, d, k, 0, 5, 0)
		if err != nil {
			t.Fatal(err)
		}
		all, err := EstimateRecall(ctx, idx, x, n, d, k, n, 5, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: true recall %.4f, estimate %.4f", tc.name, truth, est)
		if truth > 0.98 {
			t.Errorf("%s: true recall %.4f: the case should leave neighbours unfound", tc.name, truth)
		}
		if math.Abs(est-truth) > 0.01 {
			t.Errorf("%s: estimate %.4f, true recall %.4f", tc.name, est, truth)
		}
		if math.Abs(all-truth) > 1e-12 {
			t.Errorf("%s: every row scored: %.6f, want the true recall %.6f", tc.name, all, truth)
		}
	}
}

// TestApproxKNNTargetRecall: a join too narrow for the target is widened
// until the estimate reaches it; with no widening allowed, the estimate
// reported is the narrow join's, below the target.
func TestApproxKNNTargetRecall(t *testing.T) {
	ctx := context.Background()
	const n, d, k = 6000, 50, 30
	x := mixture(n, d, 1, 3, 4)
	exact := make([]int32, n*k)
	if err := KNN(ctx, exact, nil, x, n, d, k, 0); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		widenings int
		reach     bool
	}{{-1, false}, {5, true}} {
		name := fmt.Sprintf("widenings %d", tc.widenings)
		var got []float64
		var cands []int
		set := NNDescentSettings{Seed: 3, MaxCandidates: 8, MaxIterations: 4, Trees: 2, TargetRecall: 0.95, MaxWidenings: tc.widenings,
			Recall: func(r float64, c int) { got, cands = append(got, r), append(cands, c) }}
		idx := make([]int32, n*k)
		dist := make([]float64, n*k)
		if err := ApproxKNN(ctx, idx, dist, x, n, d, k, 0, set); err != nil {
			t.Fatal(err)
		}
		checkRows(t, x, idx, dist, n, d, k)
		truth := recallOf(idx, exact, allRows(n), k)
		t.Logf("%s: estimates %.4f at candidates %v, true recall %.4f", name, got, cands, truth)
		last := got[len(got)-1]
		if math.Abs(last-truth) > 0.01 {
			t.Errorf("%s: last estimate %.4f, true recall %.4f", name, last, truth)
		}
		if reached := last >= 0.95; reached != tc.reach {
			t.Errorf("%s: last estimate %.4f, reached the target: %v, want %v", name, last, reached, tc.reach)
		}
		if !tc.reach && len(got) != 1 {
			t.Errorf("%s: %d estimates, want 1", name, len(got))
		}
	}
}
