package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

var threadCounts = []int{1, 2, 7}

func TestParallelForCoversEachItemOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 100, 1001} {
		for _, grain := range []int{0, 1, 3, 64, 2000} {
			for _, threads := range threadCounts {
				name := fmt.Sprintf("n=%d grain=%d threads=%d", n, grain, threads)
				hits := make([]int32, n)
				g := max(grain, 1)
				var bad atomic.Int32
				err := ParallelFor(context.Background(), n, threads, grain, func(lo, hi int) {
					if lo%g != 0 || hi-lo > g || hi <= lo || (hi-lo < g && hi != n) {
						bad.Add(1)
					}
					for i := lo; i < hi; i++ {
						hits[i]++
					}
				})
				if err != nil {
					t.Fatalf("%s: err = %v", name, err)
				}
				if bad.Load() != 0 {
					t.Errorf("%s: %d chunks with wrong bounds", name, bad.Load())
				}
				for i, h := range hits {
					if h != 1 {
						t.Fatalf("%s: item %d visited %d times", name, i, h)
					}
				}
			}
		}
	}
}

func TestParallelForWorkerNumbers(t *testing.T) {
	for _, tc := range []struct{ n, threads, grain int }{
		{100, 1, 1}, {100, 2, 1}, {100, 7, 3}, {5, 7, 1}, {5, 7, 10}, {0, 3, 1},
	} {
		name := fmt.Sprintf("%+v", tc)
		workers := Workers(tc.n, tc.threads, tc.grain)
		if want := min(tc.threads, NumChunks(tc.n, tc.grain)); workers != want {
			t.Errorf("%s: Workers = %d, want %d", name, workers, want)
		}
		busy := make([]atomic.Int32, max(workers, 1))
		var bad atomic.Int32
		err := ParallelForWorker(context.Background(), tc.n, tc.threads, tc.grain, func(w, lo, hi int) {
			if w < 0 || w >= workers {
				bad.Add(1)
				return
			}
			// A worker runs one chunk at a time, so its scratch is safe.
			if busy[w].Add(1) != 1 {
				bad.Add(1)
			}
			busy[w].Add(-1)
		})
		if err != nil || bad.Load() != 0 {
			t.Errorf("%s: err = %v, %d bad worker numbers or overlaps", name, err, bad.Load())
		}
	}
}

func TestParallelForCancel(t *testing.T) {
	for _, threads := range threadCounts {
		name := fmt.Sprintf("threads=%d", threads)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		called := false
		err := ParallelFor(ctx, 10, threads, 1, func(lo, hi int) { called = true })
		if !errors.Is(err, context.Canceled) || called {
			t.Errorf("%s: pre-cancelled: err = %v, called = %v", name, err, called)
		}

		ctx, cancel = context.WithCancel(context.Background())
		var ran atomic.Int32
		const chunks = 1000
		err = ParallelFor(ctx, chunks, threads, 1, func(lo, hi int) {
			ran.Add(1)
			cancel()
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", name, err)
		}
		if r := ran.Load(); r > int32(Threads(threads)) {
			t.Errorf("%s: %d chunks ran after cancellation, want at most one per worker", name, r)
		}
	}
}

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
