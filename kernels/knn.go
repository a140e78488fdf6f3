package kernels

import (
	"context"
	"fmt"
	"sync"
)

// knnBlock is the number of query rows that KNN scans the data set for at
// once: each data row is read once per block while the queries stay in L1.
const knnBlock = 16

// KNN finds the k nearest neighbours of every row of x (n×d), excluding the
// row itself: by a search of a k-d tree for up to KDTreeMaxDims features
// (and at least 2,048 rows), by exhaustive search otherwise, with the same
// results to the bit. Row i's neighbours go to
// idx[i*k : (i+1)*k], ordered by (squared distance, index), and their
// squared Euclidean distances to dist[i*k : (i+1)*k]; dist may be nil. It
// panics unless 1 ≤ k ≤ n−1 and the slices have lengths n·d and n·k, and
// returns ctx.Err() if cancelled.
func KNN(ctx context.Context, idx []int32, dist []float64, x []float64, n, d, k, threads int) error {
	checkPoints(x, n, d)
	checkKNN(idx, dist, n, k)
	return exactKNN(ctx, idx, dist, x, n, d, k, threads, nil)
}

// exactKNN is KNN with progress (which may be nil): the tree reports its
// rows in about twenty steps, the exhaustive search after each block of
// knnBlock rows (the calls never overlap).
func exactKNN(ctx context.Context, idx []int32, dist []float64, x []float64, n, d, k, threads int, progress func(rows int)) error {
	if d <= KDTreeMaxDims && n >= kdTreeMinRows {
		return kdKNN(ctx, idx, dist, x, n, d, k, threads, progress)
	}
	return bruteKNN(ctx, idx, dist, x, n, d, k, threads, progress)
}

// bruteKNN is KNN by exhaustive search, reporting each finished block's
// rows to progress (nil: none).
func bruteKNN(ctx context.Context, idx []int32, dist []float64, x []float64, n, d, k, threads int, progress func(rows int)) error {
	var progMu sync.Mutex
	workers := Workers(n, threads, knnBlock)
	heaps := make([]maxHeap, workers*knnBlock)
	for h := range heaps {
		heaps[h] = newMaxHeap(k)
	}
	return ParallelForWorker(ctx, n, threads, knnBlock, func(w, lo, hi int) {
		hs := heaps[w*knnBlock : w*knnBlock+hi-lo]
		for q := range hs {
			hs[q].reset()
		}
		for j := range n {
			xj := x[j*d : (j+1)*d]
			for q := range hs {
				i := lo + q
				if i == j {
					continue
				}
				h := &hs[q]
				xi := x[i*d : (i+1)*d]
				if !h.full() {
					h.push(SqDist(xi, xj), int32(j))
					continue
				}
				// j grows, so a tie with the current worst loses.
				if s, ok := sqDistBelow(xi, xj, h.d[0]); ok {
					h.push(s, int32(j))
				}
			}
		}
		for q := range hs {
			i := lo + q
			hs[q].drain(idx[i*k:(i+1)*k], rowOrNil(dist, i, k))
		}
		if progress != nil {
			progMu.Lock()
			progress(hi - lo)
			progMu.Unlock()
		}
	})
}

// KNNFromDistances finds the k nearest neighbours of every row from the n×n
// row-major dissimilarity matrix dmat (only the off-diagonal order of each
// row is used; dmat need not be symmetric). Outputs are as for KNN, with the
// values of dmat in dist (which may be nil). It panics unless 1 ≤ k ≤ n−1 and
// the slices have lengths n·n and n·k, and returns ctx.Err() if cancelled.
func KNNFromDistances(ctx context.Context, idx []int32, dist []float64, dmat []float64, n, k, threads int) error {
	if n < 0 || len(dmat) != n*n {
		panic(fmt.Sprintf("kernels: len(dmat) = %d, want n² = %d", len(dmat), n*n))
	}
	checkKNN(idx, dist, n, k)
	const grain = 64
	rows := make([]RowKNN, Workers(n, threads, grain))
	return ParallelForWorker(ctx, n, threads, grain, func(w, lo, hi int) {
		r := &rows[w]
		for i := lo; i < hi; i++ {
			r.Find(idx[i*k:(i+1)*k], rowOrNil(dist, i, k), dmat[i*n:(i+1)*n], i)
		}
	})
}

// RowKNN finds the nearest neighbours within one row of dissimilarities, as
// KNNFromDistances does for every row of a matrix, reusing its buffers
// between calls. The zero value is ready to use; a RowKNN must not be used
// by several goroutines at once.
type RowKNN struct {
	h maxHeap
}

// Find writes to idx the k = len(idx) indices j ≠ self of the smallest
// entries of row, ordered by (value, index), and their values to dist
// (which may be nil). Only the order of the values is used. It panics
// unless 1 ≤ k ≤ len(row) − 1, 0 ≤ self < len(row) and, if dist is not
// nil, len(dist) = k.
func (r *RowKNN) Find(idx []int32, dist []float64, row []float64, self int) {
	k := len(idx)
	if k < 1 || k > len(row)-1 || self < 0 || self >= len(row) || (dist != nil && len(dist) != k) {
		panic(fmt.Sprintf("kernels: RowKNN.Find: k = %d, len(dist) = %d, self = %d for a row of %d", k, len(dist), self, len(row)))
	}
	h := &r.h
	if h.k != k {
		*h = newMaxHeap(k)
	}
	h.reset()
	for j, v := range row {
		if j != self && (!h.full() || v < h.d[0]) {
			h.push(v, int32(j))
		}
	}
	h.drain(idx, dist)
}

func checkKNN(idx []int32, dist []float64, n, k int) {
	if k < 1 || k > n-1 {
		panic(fmt.Sprintf("kernels: k = %d out of range [1, n−1 = %d]", k, n-1))
	}
	if len(idx) != n*k {
		panic(fmt.Sprintf("kernels: len(idx) = %d, want n·k = %d", len(idx), n*k))
	}
	if dist != nil && len(dist) != n*k {
		panic(fmt.Sprintf("kernels: len(dist) = %d, want n·k = %d", len(dist), n*k))
	}
}

func rowOrNil(s []float64, i, k int) []float64 {
	if s == nil {
		return nil
	}
	return s[i*k : (i+1)*k]
}

// maxHeap keeps the k smallest (distance, index) pairs seen, largest on top.
type maxHeap struct {
	d   []float64
	idx []int32
	k   int
}

func newMaxHeap(k int) maxHeap {
	return maxHeap{d: make([]float64, 0, k), idx: make([]int32, 0, k), k: k}
}

func (h *maxHeap) reset() { h.d, h.idx = h.d[:0], h.idx[:0] }

// full reports whether the heap holds k pairs. Once it does, a candidate
// with a larger index than every stored one must have a distance below the
// top's, h.d[0], to enter.
func (h *maxHeap) full() bool { return len(h.d) == h.k }

func (h *maxHeap) less(a, b int) bool {
	return h.d[a] < h.d[b] || (h.d[a] == h.d[b] && h.idx[a] < h.idx[b])
}

func (h *maxHeap) swap(a, b int) {
	h.d[a], h.d[b] = h.d[b], h.d[a]
	h.idx[a], h.idx[b] = h.idx[b], h.idx[a]
}

// push adds (v, j), evicting the top if the heap is full. The caller has
// checked that (v, j) is smaller than the top.
func (h *maxHeap) push(v float64, j int32) {
	if len(h.d) < h.k {
		h.d = append(h.d, v)
		h.idx = append(h.idx, j)
		for c := len(h.d) - 1; c > 0; {
			p := (c - 1) / 2
			if !h.less(p, c) {
				break
			}
			h.swap(p, c)
			c = p
		}
		return
	}
	h.d[0], h.idx[0] = v, j
	h.down(0, len(h.d))
}

func (h *maxHeap) down(p, m int) {
	for {
		c := 2*p + 1
		if c >= m {
			return
		}
		if c+1 < m && h.less(c, c+1) {
			c++
		}
		if !h.less(p, c) {
			return
		}
		h.swap(p, c)
		p = c
	}
}

// drain writes the contents in increasing (distance, index) order, emptying
// the heap (heap sort from the back).
func (h *maxHeap) drain(idx []int32, dist []float64) {
	for m := len(h.d); m > 0; m-- {
		idx[m-1] = h.idx[0]
		if dist != nil {
			dist[m-1] = h.d[0]
		}
		h.swap(0, m-1)
		h.down(0, m-1)
	}
	h.reset()
}
