package kernels

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Threads resolves a thread count: threads ≤ 0 means runtime.GOMAXPROCS(0).
func Threads(threads int) int {
	if threads <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return threads
}

// NumChunks returns the number of chunks that the parallel loops split n
// items into for the given grain (grain ≤ 0 counts as 1). Chunk c covers the
// items [c*grain, min((c+1)*grain, n)).
func NumChunks(n, grain int) int {
	if n <= 0 {
		return 0
	}
	grain = max(grain, 1)
	return (n + grain - 1) / grain
}

// Workers returns the number of workers ParallelForWorker starts for n items:
// the resolved thread count, capped by the number of chunks. Use it to size
// per-worker scratch space.
func Workers(n, threads, grain int) int {
	return min(Threads(threads), NumChunks(n, grain))
}

// ParallelFor calls fn(lo, hi) for the chunks of about grain items that cover
// [0, n), on up to threads goroutines (threads ≤ 0: GOMAXPROCS). Chunks are
// handed out in increasing order from an atomic counter; their boundaries
// depend only on n and grain. fn must only write to data owned by its chunk.
// If ctx is cancelled, no further chunk starts and ParallelFor returns
// ctx.Err() once the running chunks have finished; it returns nil if every
// chunk ran. With one worker, fn runs on the calling goroutine.
func ParallelFor(ctx context.Context, n, threads, grain int, fn func(lo, hi int)) error {
	return ParallelForWorker(ctx, n, threads, grain, func(_, lo, hi int) { fn(lo, hi) })
}

// ParallelForWorker is ParallelFor with the worker number w in
// [0, Workers(n, threads, grain)) passed to fn, so that fn can reuse scratch
// space owned by its worker. Which worker runs which chunk varies from run to
// run: per-worker state must not change the results (scratch buffers, or
// exact integer accumulators, are fine; floating-point sums are not — use
// per-chunk slots, as ParallelSum does). The chunk index is lo / grain.
func ParallelForWorker(ctx context.Context, n, threads, grain int, fn func(w, lo, hi int)) error {
	if n < 0 {
		panic("kernels: negative item count")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	grain = max(grain, 1)
	chunks := NumChunks(n, grain)
	workers := min(Threads(threads), chunks)
	done := ctx.Done()
	if workers <= 1 {
		for c := range chunks {
			if cancelled(done) {
				return ctx.Err()
			}
			lo := c * grain
			fn(0, lo, min(lo+grain, n))
		}
		return nil
	}
	var (
		next    atomic.Int64
		stopped atomic.Bool
		wg      sync.WaitGroup
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stopped.Load() {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				if cancelled(done) {
					stopped.Store(true)
					return
				}
				lo := c * grain
				fn(w, lo, min(lo+grain, n))
			}
		}()
	}
	wg.Wait()
	if stopped.Load() {
		return ctx.Err()
	}
	return nil
}

func cancelled(done <-chan struct{}) bool {
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// ParallelSum returns the sum over the chunks of [0, n) of fn(lo, hi), each
// chunk's partial sum stored in its own slot and the slots added in chunk
// order, so the result does not depend on the thread count. It allocates
// NumChunks(n, grain) float64s.
func ParallelSum(ctx context.Context, n, threads, grain int, fn func(lo, hi int) float64) (float64, error) {
	grain = max(grain, 1)
	slots := make([]float64, NumChunks(n, grain))
	err := ParallelFor(ctx, n, threads, grain, func(lo, hi int) {
		slots[lo/grain] = fn(lo, hi)
	})
	if err != nil {
		return 0, err
	}
	var s float64
	for _, v := range slots {
		s += v
	}
	return s, nil
}

// ParallelSumVec is the vector form of ParallelSum: fn accumulates the
// contribution of items [lo, hi) into acc (len(acc) == len(dst), zeroed for
// each chunk), and dst is overwritten with the chunk-order sum of the acc
// slots. It allocates NumChunks(n, grain)·len(dst) float64s, so choose grain
// to keep the chunk count modest. On cancellation dst is left unchanged.
func ParallelSumVec(ctx context.Context, dst []float64, n, threads, grain int, fn func(lo, hi int, acc []float64)) error {
	grain = max(grain, 1)
	m := len(dst)
	slots := make([]float64, NumChunks(n, grain)*m)
	err := ParallelFor(ctx, n, threads, grain, func(lo, hi int) {
		c := lo / grain
		fn(lo, hi, slots[c*m:(c+1)*m:(c+1)*m])
	})
	if err != nil {
		return err
	}
	clear(dst)
	for c := 0; c < len(slots); c += m {
		for i, v := range slots[c : c+m] {
			dst[i] += v
		}
	}
	return nil
}
