package parallel

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

var threadCounts = []int{1, 2, 7}

func TestForCoversEachItemOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 100, 1001} {
		for _, grain := range []int{0, 1, 3, 64, 2000} {
			for _, threads := range threadCounts {
				name := fmt.Sprintf("n=%d grain=%d threads=%d", n, grain, threads)
				hits := make([]int32, n)
				g := max(grain, 1)
				var bad atomic.Int32
				err := For(context.Background(), n, threads, grain, func(lo, hi int) {
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

func TestForWorkerNumbers(t *testing.T) {
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
		err := ForWorker(context.Background(), tc.n, tc.threads, tc.grain, func(w, lo, hi int) {
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

func TestForCancel(t *testing.T) {
	for _, threads := range threadCounts {
		name := fmt.Sprintf("threads=%d", threads)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		called := false
		err := For(ctx, 10, threads, 1, func(lo, hi int) { called = true })
		if !errors.Is(err, context.Canceled) || called {
			t.Errorf("%s: pre-cancelled: err = %v, called = %v", name, err, called)
		}

		ctx, cancel = context.WithCancel(context.Background())
		var ran atomic.Int32
		const chunks = 1000
		err = For(ctx, chunks, threads, 1, func(lo, hi int) {
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
