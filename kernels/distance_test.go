package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// plainSqDist is the documented formula, written independently of SqDist:
// term c goes to partial sum c mod 4, combined as (s0 + s1) + (s2 + s3).
func plainSqDist(x []float64, d, i, j int) float64 {
	var s [4]float64
	for c := range d {
		t := x[i*d+c] - x[j*d+c]
		s[c%4] = math.FMA(t, t, s[c%4])
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}

func randomPoints(rng *rand.Rand, n, d int) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// gridPoints draws integer coordinates in [0, m): many exact ties and
// duplicate points.
func gridPoints(rng *rand.Rand, n, d, m int) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = float64(rng.IntN(m))
	}
	return x
}

func TestSqDistRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name string
		n, d int
		x    []float64
	}{
		{"random", 40, 3, randomPoints(rng, 40, 3)},
		{"grid", 40, 2, gridPoints(rng, 40, 2, 4)},
		{"one point", 1, 4, randomPoints(rng, 1, 4)},
		{"wide", 9, 37, randomPoints(rng, 9, 37)},
	} {
		dst := make([]float64, tc.n)
		for i := range tc.n {
			SqDistRow(dst, tc.x, tc.d, i)
			for j, v := range dst {
				if want := plainSqDist(tc.x, tc.d, i, j); v != want {
					t.Fatalf("%s: d(%d,%d) = %v, want %v", tc.name, i, j, v, want)
				}
			}
		}
	}
}

// TestSqDistNoCancellation uses points far from the origin, where the
// ‖a‖² + ‖b‖² − 2⟨a,b⟩ formula loses every significant digit.
func TestSqDistNoCancellation(t *testing.T) {
	x := []float64{1e8, 1e8, 1e8 + 0.5, 1e8, 1e8, 1e8 - 0.25}
	want := [][]float64{{0, 0.25, 0.0625}, {0.25, 0, 0.3125}, {0.0625, 0.3125, 0}}
	dst := make([]float64, 9)
	if err := SqDistances(context.Background(), dst, x, 3, 2, 1); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		for j := range 3 {
			if dst[i*3+j] != want[i][j] {
				t.Errorf("d(%d,%d) = %v, want %v", i, j, dst[i*3+j], want[i][j])
			}
		}
	}
}

func TestSqDistances(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct{ n, d int }{
		{0, 2}, {1, 2}, {2, 1}, {17, 2}, {130, 1}, {300, 2}, {200, 33}, {70, 300},
		{41, 3}, {29, 4}, {37, 5}, {50, 50}, {9, 7}, // the 4×2 kernel: tails of 0–3 terms, a few rows
		// The blocked path (d ≥ 64 with AVX2): several tiles with a partial
		// last one, runs of terms cut at 256 with a tail of 0–3 terms, rows
		// and columns left over from the 4×2 groups.
		{129, 64}, {300, 67}, {133, 259}, {262, 514}, {5, 513},
	} {
		name := fmt.Sprintf("n=%d d=%d blocked=%v", tc.n, tc.d, useBlockedSqDist(tc.d))
		x := randomPoints(rng, tc.n, tc.d)
		row := make([]float64, tc.n)
		for _, threads := range threadCounts {
			dst := make([]float64, tc.n*tc.n)
			for i := range dst {
				dst[i] = math.NaN() // every element must be written
			}
			if err := SqDistances(context.Background(), dst, x, tc.n, tc.d, threads); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// Equal to SqDistRow and to the plain formula bit for bit, hence
			// to every other thread count.
			for i := range tc.n {
				SqDistRow(row, x, tc.d, i)
				for j := range tc.n {
					want := plainSqDist(x, tc.d, i, j)
					if v := dst[i*tc.n+j]; v != row[j] || v != dst[j*tc.n+i] || v != want {
						t.Fatalf("%s threads=%d: d(%d,%d) = %v, row %v, mirror %v, plain formula %v", name, threads, i, j, v, row[j], dst[j*tc.n+i], want)
					}
				}
			}
		}
	}
}

// TestSqDistBelow: when it accepts, the value is SqDist's bit for bit; when
// it refuses, SqDist is not below the bound.
func TestSqDistBelow(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, d := range []int{1, 3, 15, 16, 17, 33, 64, 100} {
		for range 50 {
			ab := randomPoints(rng, 2, d)
			a, b := ab[:d], ab[d:]
			full := SqDist(a, b)
			for _, bound := range []float64{0, full * 0.3, full * 0.9, full, math.Nextafter(full, math.Inf(1)), 2 * full, math.Inf(1)} {
				got, ok := sqDistBelow(a, b, bound)
				if ok != (full < bound) || (ok && got != full) {
					t.Fatalf("d=%d bound=%v: got (%v, %v), SqDist %v", d, bound, got, ok, full)
				}
				got, ok = sqDistAtMost(a, b, bound)
				if ok != (full <= bound) || (ok && got != full) {
					t.Fatalf("d=%d bound=%v: at most: got (%v, %v), SqDist %v", d, bound, got, ok, full)
				}
			}
		}
	}
}

func TestUpperPair(t *testing.T) {
	for _, nb := range []int{1, 2, 5} {
		p := 0
		for bi := range nb {
			for bj := bi; bj < nb; bj++ {
				if gi, gj := upperPair(p, nb); gi != bi || gj != bj {
					t.Errorf("nb=%d p=%d: got (%d,%d), want (%d,%d)", nb, p, gi, gj, bi, bj)
				}
				p++
			}
		}
	}
}

func TestDistancePanics(t *testing.T) {
	x := make([]float64, 12) // 4 points in 3-D
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"row dst short", func() { SqDistRow(make([]float64, 3), x, 3, 0) }},
		{"row x ragged", func() { SqDistRow(make([]float64, 4), x[:11], 3, 0) }},
		{"row index", func() { SqDistRow(make([]float64, 4), x, 3, 4) }},
		{"row d zero", func() { SqDistRow(make([]float64, 4), x, 0, 0) }},
		{"all dst short", func() { _ = SqDistances(context.Background(), make([]float64, 15), x, 4, 3, 1) }},
		{"all n wrong", func() { _ = SqDistances(context.Background(), make([]float64, 9), x, 3, 3, 1) }},
	} {
		if !panics(tc.f) {
			t.Errorf("%s: no panic", tc.name)
		}
	}
}

func TestSqDistancesCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := make([]float64, 100)
	err := SqDistances(ctx, make([]float64, 100*100), x, 100, 1, 2)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

func BenchmarkSqDistances(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, d := range []int{2, 32, 512} {
			b.Run(fmt.Sprintf("N=%d/D=%d", n, d), func(b *testing.B) {
				x := randomPoints(rand.New(rand.NewPCG(1, 1)), n, d)
				dst := make([]float64, n*n)
				b.ResetTimer()
				for b.Loop() {
					if err := SqDistances(context.Background(), dst, x, n, d, 0); err != nil {
						b.Fatal(err)
					}
				}
				// 3 flops (subtract, multiply, add) per term of each of the
				// n(n−1)/2 pairs.
				b.ReportMetric(1.5*float64(n)*float64(n-1)*float64(d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
