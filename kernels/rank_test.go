package kernels

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func bruteOrder(row []float64, self int) []int32 {
	var js []int32
	for j := range row {
		if j != self {
			js = append(js, int32(j))
		}
	}
	slices.SortStableFunc(js, func(a, b int32) int { return cmp.Compare(row[a], row[b]) })
	return js
}

func TestNeighborRanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	gens := []struct {
		name string
		f    func() float64
	}{
		{"normal", func() float64 { return rng.NormFloat64() }},
		{"few values", func() float64 { return float64(rng.IntN(4)) }},
		{"signed zeros", func() float64 { return []float64{math.Copysign(0, -1), 0, 1}[rng.IntN(3)] }},
		{"wide range", func() float64 { return rng.NormFloat64() * math.Pow(2, float64(rng.IntN(2000)-1000)) }},
		// Values within a relative 2⁻²¹ of each other: one long run after the
		// first radix stage, sorted on the low bits.
		{"tight cluster", func() float64 { return 1e7 + rng.Float64() }},
		{"tight cluster with ties", func() float64 { return 1e7 + float64(rng.IntN(300))/256 }},
		{"infinities", func() float64 { return []float64{math.Inf(-1), -1, 3, math.Inf(1)}[rng.IntN(4)] }},
	}
	var r Ranker // shared across sizes: buffers grow and shrink
	for _, g := range gens {
		for _, n := range []int{1, 2, 10, radixMin - 1, radixMin, radixMin + 1, 500, 5000, 7} {
			row := make([]float64, n)
			for j := range row {
				row[j] = g.f()
			}
			for _, self := range []int{-1, 0, n / 2, n - 1} {
				name := fmt.Sprintf("%s n=%d self=%d", g.name, n, self)
				want := bruteOrder(row, self)
				order := make([]int32, len(want))
				rank := make([]int32, n)
				r.NeighborRanks(order, rank, row, self)
				if !slices.Equal(order, want) {
					t.Fatalf("%s: order %v, want %v", name, order, want)
				}
				for p, j := range want {
					if rank[j] != int32(p+1) {
						t.Fatalf("%s: rank[%d] = %d, want %d", name, j, rank[j], p+1)
					}
				}
				if self >= 0 && rank[self] != 0 {
					t.Fatalf("%s: rank[self] = %d, want 0", name, rank[self])
				}
				order2 := make([]int32, len(want))
				NeighborOrder(order2, row, self)
				if !slices.Equal(order2, want) {
					t.Fatalf("%s: NeighborOrder differs", name)
				}
			}
		}
	}
}

func TestRankPanics(t *testing.T) {
	row := make([]float64, 5)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"order long", func() { NeighborOrder(make([]int32, 5), row, 0) }},
		{"order short", func() { NeighborOrder(make([]int32, 4), row, -1) }},
		{"self high", func() { NeighborOrder(make([]int32, 4), row, 5) }},
		{"self low", func() { NeighborOrder(make([]int32, 5), row, -2) }},
		{"rank short", func() { NeighborRanks(make([]int32, 4), make([]int32, 4), row, 0) }},
	} {
		if !panics(tc.f) {
			t.Errorf("%s: no panic", tc.name)
		}
	}
}

func BenchmarkNeighborRanks(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			row := make([]float64, n)
			for j := range row {
				row[j] = rng.ExpFloat64()
			}
			order := make([]int32, n-1)
			rank := make([]int32, n)
			var r Ranker
			for b.Loop() {
				r.NeighborRanks(order, rank, row, 0)
			}
		})
	}
}
