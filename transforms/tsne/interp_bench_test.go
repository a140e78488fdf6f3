package tsne

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// benchInterpMap is a seeded 2-D map shaped like a late t-SNE map: 20
// Gaussian clusters whose centres spread over ±R, R = 30·(N/10⁴)^¼ (60,
// 107 and 190 map units across at N = 10⁴, 10⁵, 10⁶), each of deviation
// R/10.
func benchInterpMap(n int) []float64 {
	rng := rand.New(rand.NewPCG(15, uint64(n)))
	r := 30 * math.Pow(float64(n)/1e4, 0.25)
	const k = 20
	var centres [2 * k]float64
	for i := range centres {
		centres[i] = 2 * r * (rng.Float64() - 0.5)
	}
	y := make([]float64, 2*n)
	for i := range n {
		c := rng.IntN(k)
		y[2*i] = centres[2*c] + r/10*rng.NormFloat64()
		y[2*i+1] = centres[2*c+1] + r/10*rng.NormFloat64()
	}
	return y
}

// benchRandomP is a joint P over k random neighbours per point (uniform
// conditionals): the attraction costs what a perplexity-30 P costs.
func benchRandomP(n, k int) *SparseAffinities {
	rng := rand.New(rand.NewPCG(16, uint64(n)))
	idx := make([]int32, n*k)
	cond := make([]float64, n*k)
	for i := range n {
		for e := range k {
			j := rng.IntN(n - 1)
			if j >= i {
				j++
			}
			idx[i*k+e] = int32(j)
			cond[i*k+e] = 1 / float64(k)
		}
	}
	return JointPSparse(idx, cond, n, k)
}

// BenchmarkInterpGradient times one gradient by interpolation (defaults)
// and by Barnes–Hut at θ = 0.5, on all threads: "repulsion" with an empty
// P (the part the methods differ in), "full" with k = 90 random
// neighbours. N = 10⁶ needs ORDINATE_BENCH_HUGE=1 (Barnes–Hut takes tens of
// seconds there); run with -benchtime=1x at that size.
func BenchmarkInterpGradient(b *testing.B) {
	ctx := context.Background()
	sizes := []int{10_000, 100_000}
	if os.Getenv("ORDINATE_BENCH_HUGE") == "1" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		y := benchInterpMap(n)
		grad := make([]float64, 2*n)
		for _, kind := range []string{"repulsion", "full"} {
			p := emptyP(n)
			if kind == "full" {
				p = benchRandomP(n, 90)
			}
			b.Run(fmt.Sprintf("N=%d/%s/interp", n, kind), func(b *testing.B) {
				g := newInterp()
				for b.Loop() {
					if _, err := g.Grad(ctx, grad, y, p, 2, 1, 0); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("N=%d/%s/bh", n, kind), func(b *testing.B) {
				var bh BHGradient
				for b.Loop() {
					if _, err := bh.Grad(ctx, grad, y, p, 2, 0.5, 1, 0); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
