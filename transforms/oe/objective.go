package oe

import (
	"sync"
	"sync/atomic"

	"github.com/ordinate/ordinate/transforms/triplets"
)

// lossFunc returns the loss of rows [lo, hi) of t at y and adds its gradient
// to grad (n×dims).
type lossFunc func(y []float64, dims int, t *triplets.Table, lo, hi int, grad []float64) float64

const (
	maxChunks = 16   // upper bound on the fixed chunks of an evaluation
	minChunk  = 1024 // fewest triplets per chunk
)

// evaluator computes cost and gradient together, chunked and in parallel
// with a fixed reduction order.
type evaluator struct {
	t       *triplets.Table
	dims    int
	lambda  float64
	threads int
	loss    lossFunc
	bounds  []int       // chunk c is rows [bounds[c], bounds[c+1])
	bufs    [][]float64 // per-chunk gradients
	costs   []float64
}

func newEvaluator(t *triplets.Table, n int, o Options, loss lossFunc) *evaluator {
	T := t.Len()
	nc := min(maxChunks, (T+minChunk-1)/minChunk)
	bounds := make([]int, nc+1)
	for c := range bounds {
		bounds[c] = c * T / nc
	}
	bufs := make([][]float64, nc)
	for c := range bufs {
		bufs[c] = make([]float64, n*o.Dims)
	}
	return &evaluator{
		t: t, dims: o.Dims, lambda: o.Lambda, threads: o.Threads, loss: loss,
		bounds: bounds, bufs: bufs, costs: make([]float64, nc),
	}
}

// eval returns the cost at x and writes its gradient into g.
func (e *evaluator) eval(x, g []float64) float64 {
	nc := len(e.costs)
	var next atomic.Int64
	e.parallel(nc, func() {
		for {
			c := int(next.Add(1)) - 1
			if c >= nc {
				return
			}
			clear(e.bufs[c])
			e.costs[c] = e.loss(x, e.dims, e.t, e.bounds[c], e.bounds[c+1], e.bufs[c])
		}
	})
	f := 0.0
	for _, c := range e.costs {
		f += c
	}
	// Sum the chunk gradients coordinate by coordinate in chunk order, with
	// the coordinates split over the threads.
	m := len(x)
	parts := max(1, min(e.threads, m/256))
	var next2 atomic.Int64
	e.parallel(parts, func() {
		for {
			w := int(next2.Add(1)) - 1
			if w >= parts {
				return
			}
			for p := w * m / parts; p < (w+1)*m/parts; p++ {
				s := 2 * e.lambda * x[p]
				for c := range nc {
					s += e.bufs[c][p]
				}
				g[p] = s
			}
		}
	})
	if e.lambda != 0 {
		f += e.lambda * dot(x, x)
	}
	return f
}

// parallel runs work on min(threads, jobs) goroutines.
func (e *evaluator) parallel(jobs int, work func()) {
	w := min(e.threads, jobs)
	if w <= 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for range w {
		wg.Go(work)
	}
	wg.Wait()
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
