package tsne

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// benchMixture is the benchmark data: n points from a mixture of 10
// Gaussians in 50-D (unit spread, centres N(0, 5²) per coordinate), seeded.
func benchMixture(n int) []float64 {
	const d, k = 50, 10
	rng := rand.New(rand.NewPCG(2026, 50))
	centres := make([]float64, k*d)
	for i := range centres {
		centres[i] = 5 * rng.NormFloat64()
	}
	x := make([]float64, n*d)
	for i := range n {
		c := i % k
		for a := range d {
			x[i*d+a] = centres[c*d+a] + rng.NormFloat64()
		}
	}
	return x
}

// BenchmarkTSNE runs the default options (1000 iterations, perplexity 30,
// PCA start) and reports the final KL. N = 20,000 needs
// ORDINATE_BENCH_HUGE=1.
func BenchmarkTSNE(b *testing.B) {
	sizes := []int{2000}
	if os.Getenv("ORDINATE_BENCH_HUGE") == "1" {
		sizes = append(sizes, 20000)
	}
	for _, n := range sizes {
		x := benchMixture(n)
		for _, m := range []Method{Exact, BH} {
			if m == Exact && n > 5000 {
				continue
			}
			b.Run(fmt.Sprintf("N=%d/%v", n, m), func(b *testing.B) {
				var kl float64
				for b.Loop() {
					r, err := FromFeatures(context.Background(), x, n, 50, with(func(o *Options) { o.Method = m }))
					if err != nil {
						b.Fatal(err)
					}
					kl = r.KL
				}
				b.ReportMetric(kl, "KL")
			})
		}
	}
}
