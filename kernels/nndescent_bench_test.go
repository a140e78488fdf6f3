package kernels

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkApproxKNN builds the k = 90 graph of 10⁵ points in 50 dimensions
// and reports the build time and the recall on a fixed random sample of
// 1,000 rows whose exact neighbours are found by brute force, with the
// default candidates (max(k + k/3, 60) = 120) and, on the isotropic set,
// with fewer and more. Run it with -benchtime 1x; it takes minutes.
func BenchmarkApproxKNN(b *testing.B) {
	const n, d, k, sample = 100_000, 50, 90, 1000
	for _, bc := range []struct {
		name       string
		clusters   int
		candidates int
		target     float64
	}{{"mixture10", 10, 0, 0}, {"isotropic", 1, 0, 0}, {"isotropic/candidates=90", 1, 90, 0}, {"isotropic/candidates=150", 1, 150, 0},
		{"isotropic/tsne", 1, 60, 0.99}} {
		b.Run(bc.name, func(b *testing.B) {
			x := mixture(n, d, bc.clusters, 3, 1)
			rng := rand.New(rand.NewPCG(9, 9))
			rows := rng.Perm(n)[:sample]
			exact := make([]int32, sample*k)
			var r RowKNN
			row := make([]float64, n)
			for s, i := range rows {
				SqDistRow(row, x, d, i)
				r.Find(exact[s*k:(s+1)*k], nil, row, i)
			}
			idx := make([]int32, n*k)
			dist := make([]float64, n*k)
			b.ResetTimer()
			var secs float64
			for range b.N {
				start := time.Now()
				if err := ApproxKNN(context.Background(), idx, dist, x, n, d, k, 0, NNDescentSettings{Seed: 1, MaxCandidates: bc.candidates, TargetRecall: bc.target}); err != nil {
					b.Fatal(err)
				}
				secs = time.Since(start).Seconds()
			}
			b.ReportMetric(secs, "build-s")
			b.ReportMetric(recallOf(idx, exact, rows, k), "recall")
		})
	}
}

// BenchmarkExactKNN times exact KNN at the size given (20,000 rows, 50
// dimensions, k = 90) to estimate its O(N²) cost at 10⁵.
func BenchmarkExactKNN(b *testing.B) {
	const n, d, k = 20_000, 50, 90
	x := mixture(n, d, 10, 3, 1)
	idx := make([]int32, n*k)
	for range b.N {
		if err := KNN(context.Background(), idx, nil, x, n, d, k, 0); err != nil {
			b.Fatal(err)
		}
	}
}
