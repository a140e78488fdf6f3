package kernels

import (
	"context"

	"github.com/ordinate/ordinate/internal/parallel"
)

// The chunked loop itself lives in internal/parallel, which arrowio uses
// too without depending on the numerics here; these are its names in this
// package, where the method packages find them.

// Threads resolves a thread count: threads ≤ 0 means runtime.GOMAXPROCS(0).
func Threads(threads int) int { return parallel.Threads(threads) }

// NumChunks returns the number of chunks that the parallel loops split n
// items into for the given grain (grain ≤ 0 counts as 1). Chunk c covers the
// items [c*grain, min((c+1)*grain, n)).
func NumChunks(n, grain int) int { return parallel.NumChunks(n, grain) }

// Workers returns the number of workers ParallelForWorker starts for n items:
// the resolved thread count, capped by the number of chunks. Use it to size
// per-worker scratch space.
func Workers(n, threads, grain int) int { return parallel.Workers(n, threads, grain) }

// ParallelFor calls fn(lo, hi) for the chunks of about grain items that cover
// [0, n), on up to threads goroutines (threads ≤ 0: GOMAXPROCS): parallel.For.
// fn must only write to data owned by its chunk. If ctx is cancelled, no
// further chunk starts and ParallelFor returns ctx.Err() once the running
// chunks have finished. With one worker, fn runs on the calling goroutine.
func ParallelFor(ctx context.Context, n, threads, grain int, fn func(lo, hi int)) error {
	return parallel.For(ctx, n, threads, grain, fn)
}

// ParallelForWorker is ParallelFor with the worker number w in
// [0, Workers(n, threads, grain)) passed to fn (parallel.ForWorker), so that
// fn can reuse scratch space owned by its worker; per-worker state must not
// change the results. The chunk index is lo / grain.
func ParallelForWorker(ctx context.Context, n, threads, grain int, fn func(w, lo, hi int)) error {
	return parallel.ForWorker(ctx, n, threads, grain, fn)
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
