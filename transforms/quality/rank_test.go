package quality

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ordinate/ordinate/kernels"
)

// TestRankerMatchesKernels: the packed ranker gives kernels.Ranker's order
// and ranks exactly, on rows full of ties, signed zeros, values that agree
// on every bit above the index bits, tight clusters and wide ranges.
func TestRankerMatchesKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	gens := []struct {
		name string
		f    func(j int) float64
	}{
		{"normal", func(int) float64 { return rng.NormFloat64() }},
		{"squared", func(int) float64 { v := rng.NormFloat64(); return v * v }},
		{"few values", func(int) float64 { return float64(rng.IntN(4)) }},
		{"signed zeros", func(int) float64 { return []float64{math.Copysign(0, -1), 0, 1}[rng.IntN(3)] }},
		{"wide range", func(int) float64 { return rng.NormFloat64() * math.Pow(2, float64(rng.IntN(2000)-1000)) }},
		{"tight cluster", func(int) float64 { return 1e7 + rng.Float64() }},
		{"tight cluster with ties", func(int) float64 { return 1e7 + float64(rng.IntN(300))/256 }},
		// Keys that differ only in the lowest bits, which the index bits
		// replace in the packed words.
		{"last bits", func(int) float64 { return math.Float64frombits(math.Float64bits(3) + uint64(rng.IntN(1<<12))) }},
		{"last bits descending", func(j int) float64 { return math.Float64frombits(math.Float64bits(3) + uint64(1<<20-j)) }},
		{"descending", func(j int) float64 { return float64(-j) }},
		{"squared with duplicates", func(int) float64 {
			if rng.IntN(10) == 0 {
				return 0
			}
			v := rng.NormFloat64()
			return v * v
		}},
		{"zeros and negatives", func(int) float64 { return []float64{0, -1e-300, -2, 3, math.Copysign(0, -1)}[rng.IntN(5)] }},
		{"huge span", func(int) float64 { return []float64{0, 5e-324, 1e308, 1, 2}[rng.IntN(5)] }},
	}
	var r ranker
	var kr kernels.Ranker
	for _, g := range gens {
		for _, n := range []int{2, 3, 10, 49, 50, 500, 5000, 70000} {
			row := make([]float64, n)
			for j := range row {
				row[j] = g.f(j)
			}
			for _, self := range []int{0, n / 2, n - 1} {
				name := fmt.Sprintf("%s n=%d self=%d", g.name, n, self)
				wantO, wantR := make([]int32, n-1), make([]int32, n)
				kr.NeighborRanks(wantO, wantR, row, self)
				gotO, gotR := make([]int32, n-1), make([]int32, n)
				r.order(gotO, gotR, row, self)
				if !slices.Equal(gotO, wantO) || !slices.Equal(gotR, wantR) {
					t.Fatalf("%s: order or ranks differ from kernels.Ranker", name)
				}
			}
		}
	}
}

// TestSqDistRowSmall: the inline distance rows are kernels.SqDistRow's bit
// for bit, for every small dimension.
func TestSqDistRowSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 2))
	const n = 300
	for dim := 1; dim <= smallDim; dim++ {
		x := make([]float64, n*dim)
		for i := range x {
			x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
		}
		got, want := make([]float64, n), make([]float64, n)
		for _, i := range []int{0, 7, n - 1} {
			sqDistRowSmall(got, x, dim, i)
			kernels.SqDistRow(want, x, dim, i)
			for j := range got {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("dim %d, row %d, point %d: %v, kernels %v", dim, i, j, got[j], want[j])
				}
			}
		}
	}
}
