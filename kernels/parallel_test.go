package kernels

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

var threadCounts = []int{1, 2, 7}

// TestParallelSumDeterministic sums terms of wildly different magnitudes,
// where the order of additions matters, and checks that every thread count
// reproduces the chunk-order sum bit for bit.
func TestParallelSumDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 10007
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(30)-15))
	}
	for _, grain := range []int{1, 17, 1000} {
		var want float64
		for lo := 0; lo < n; lo += grain {
			var s float64
			for _, x := range v[lo:min(lo+grain, n)] {
				s += x
			}
			want += s
		}
		for _, threads := range threadCounts {
			got, err := ParallelSum(context.Background(), n, threads, grain, func(lo, hi int) float64 {
				var s float64
				for _, x := range v[lo:hi] {
					s += x
				}
				return s
			})
			if err != nil || math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("grain=%d threads=%d: got %v (err %v), want %v", grain, threads, got, err, want)
			}
		}
	}
}

func TestParallelSumVec(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, m, grain = 5003, 3, 50
	v := make([]float64, n*m)
	for i := range v {
		v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
	}
	for _, threads := range threadCounts {
		dst := []float64{7, 7, 7} // overwritten, not added to
		err := ParallelSumVec(context.Background(), dst, n, threads, grain, func(lo, hi int, acc []float64) {
			for i := lo; i < hi; i++ {
				for c := range m {
					acc[c] += v[i*m+c]
				}
			}
		})
		if err != nil {
			t.Fatalf("threads=%d: %v", threads, err)
		}
		for c := range m {
			want, _ := ParallelSum(context.Background(), n, 1, grain, func(lo, hi int) float64 {
				var s float64
				for i := lo; i < hi; i++ {
					s += v[i*m+c]
				}
				return s
			})
			if dst[c] != want {
				t.Errorf("threads=%d: component %d = %v, want %v", threads, c, dst[c], want)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dst := []float64{1, 2, 3}
	err := ParallelSumVec(ctx, dst, n, 2, grain, func(lo, hi int, acc []float64) {})
	if !errors.Is(err, context.Canceled) || dst[0] != 1 {
		t.Errorf("cancelled: err = %v, dst = %v (want unchanged)", err, dst)
	}
}
