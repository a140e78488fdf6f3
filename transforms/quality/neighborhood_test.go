package quality

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAgainstReference compares every row with the plain implementation of
// reference_test.go, on continuous data and on integer grids full of exact
// ties and duplicate points.
func TestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 31
	ks := []int{1, 2, 5, 15, 16, 22, n - 2} // 15 < N/2 ≤ 16
	for _, tc := range []struct {
		name    string
		x, y    []float64
		D, d    int
		classes []int
	}{
		{"normal", normalPoints(rng, n, 4), normalPoints(rng, n, 2), 4, 2, randomClasses(rng, n, 3)},
		{"grid", gridPoints(rng, n, 3, 3), gridPoints(rng, n, 2, 3), 3, 2, randomClasses(rng, n, 4)},
		{"grid 1-D", gridPoints(rng, n, 2, 5), gridPoints(rng, n, 1, 4), 2, 1, randomClasses(rng, n, 2)},
		{"no classes", normalPoints(rng, n, 3), gridPoints(rng, n, 2, 4), 3, 2, nil},
		{"many classes", normalPoints(rng, n, 3), normalPoints(rng, n, 2), 3, 2, randomClasses(rng, n, 12)},
	} {
		want := reference(tc.x, tc.D, tc.y, tc.d, tc.classes, ks)
		rep := mustEvaluate(t, tc.x, tc.D, tc.y, tc.d, tc.classes, Options{Ks: ks})
		if len(rep.Rows) != len(want) {
			t.Errorf("%s: %d rows, want %d", tc.name, len(rep.Rows), len(want))
		}
		for _, row := range rep.Rows {
			w, ok := want[rowKey{row.Metric, row.K, row.Subset}]
			if !ok || math.Abs(row.Value-w) > 1e-12 {
				t.Errorf("%s: %s k=%d %s = %v, want %v (present %v)", tc.name, row.Metric, row.K, row.Subset, row.Value, w, ok)
			}
		}
	}
}

// TestClassDecomposition checks T = T_intra + T_inter − 1 and
// C = C_intra + C_inter − 1.
func TestClassDecomposition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 60
	x, y := normalPoints(rng, n, 5), normalPoints(rng, n, 2)
	ks := []int{1, 4, 29, 30, 45}
	rep := mustEvaluate(t, x, 5, y, 2, randomClasses(rng, n, 3), Options{Ks: ks})
	for _, m := range []string{MetricTrustworthiness, MetricContinuity} {
		for _, k := range ks {
			all := value(t, m, rep, m, k, SubsetAll)
			sum := value(t, m, rep, m, k, SubsetIntra) + value(t, m, rep, m, k, SubsetInter) - 1
			if math.Abs(all-sum) > 1e-12 || all == 1 {
				t.Errorf("%s k=%d: all = %v, intra + inter − 1 = %v", m, k, all, sum)
			}
		}
	}
}

func TestSeparatedClusters(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 40
	x := normalPoints(rng, n, 3)
	y := normalPoints(rng, n, 2)
	classes := make([]int, n)
	for i := n / 2; i < n; i++ {
		classes[i] = 1
		y[2*i] += 100
	}
	rep := mustEvaluate(t, x, 3, y, 2, classes, Options{Ks: []int{1, 5, 19, 25}})
	for _, k := range []int{1, 5, 19, 25} {
		if v := value(t, "clusters", rep, MetricKNNAccuracy, k, SubsetEmbedding); v != 1 {
			t.Errorf("knn_accuracy k=%d = %v, want 1", k, v)
		}
	}
	if v := value(t, "clusters", rep, MetricNNError, 1, SubsetEmbedding); v != 0 {
		t.Errorf("nn_error = %v, want 0", v)
	}
	// The input has no class structure, so the gain is positive.
	if v := value(t, "clusters", rep, MetricKNNGain, 5, SubsetAll); v <= 0 {
		t.Errorf("knn_gain k=5 = %v, want > 0", v)
	}
}

func sameReport(a, b *Report) bool {
	if a.N != b.N || len(a.Rows) != len(b.Rows) || len(a.CenterOrder) != len(b.CenterOrder) {
		return false
	}
	for i, r := range a.Rows {
		s := b.Rows[i]
		if r.Metric != s.Metric || r.K != s.K || r.Subset != s.Subset ||
			math.Float64bits(r.Value) != math.Float64bits(s.Value) {
			return false
		}
	}
	for i, c := range a.CenterOrder {
		if b.CenterOrder[i] != c {
			return false
		}
	}
	return true
}

func TestThreadsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n = 300
	x, y := normalPoints(rng, n, 6), gridPoints(rng, n, 2, 10)
	classes := randomClasses(rng, n, 4)
	dm := squaredDistances(x, n, 6)
	var first, firstD *Report
	for _, threads := range []int{1, 2, 3} {
		rep := mustEvaluate(t, x, 6, y, 2, classes, Options{Ks: []int{1, 7, 150, 200}, Threads: threads, Ordinal: true})
		drep, err := EvaluateDistances(context.Background(), dm, n, classes, Options{Ks: []int{3, 40}, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first, firstD = rep, drep
			continue
		}
		if !sameReport(first, rep) {
			t.Errorf("threads=%d: Evaluate report differs from threads=1", threads)
		}
		if !sameReport(firstD, drep) {
			t.Errorf("threads=%d: EvaluateDistances report differs from threads=1", threads)
		}
	}
}
