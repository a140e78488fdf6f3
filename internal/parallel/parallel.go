// Package parallel is the deterministic chunked parallel loop that ordinate's
// packages share (kernels re-exports it as ParallelFor, arrowio fills
// frames with it): items [0, n) in chunks of grain items whose boundaries
// depend only on n and grain, so that a result written per chunk is the
// same for any thread count.
package parallel

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

// Workers returns the number of workers ForWorker starts for n items:
// the resolved thread count, capped by the number of chunks. Use it to size
// per-worker scratch space.
func Workers(n, threads, grain int) int {
	return min(Threads(threads), NumChunks(n, grain))
}

// For calls fn(lo, hi) for the chunks of about grain items that cover
// [0, n), on up to threads goroutines (threads ≤ 0: GOMAXPROCS). Chunks are
// handed out in increasing order from an atomic counter; their boundaries
// depend only on n and grain. fn must only write to data owned by its chunk.
// If ctx is cancelled, no further chunk starts and For returns
// ctx.Err() once the running chunks have finished; it returns nil if every
// chunk ran. With one worker, fn runs on the calling goroutine.
func For(ctx context.Context, n, threads, grain int, fn func(lo, hi int)) error {
	return ForWorker(ctx, n, threads, grain, func(_, lo, hi int) { fn(lo, hi) })
}

// ForWorker is For with the worker number w in
// [0, Workers(n, threads, grain)) passed to fn, so that fn can reuse scratch
// space owned by its worker. Which worker runs which chunk varies from run to
// run: per-worker state must not change the results (scratch buffers, or
// exact integer accumulators, are fine; floating-point sums are not — use
// per-chunk slots, as kernels.ParallelSum does). The chunk index is lo / grain.
func ForWorker(ctx context.Context, n, threads, grain int, fn func(w, lo, hi int)) error {
	if n < 0 {
		panic("parallel: negative item count")
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
