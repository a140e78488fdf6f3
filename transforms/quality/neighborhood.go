package quality

import (
	"context"

	"github.com/ordinate/ordinate/kernels"
)

// rowGrain is the number of points per parallel chunk. Results are exact
// integer counts, so it affects only scheduling.
const rowGrain = 8

// space writes the dissimilarities of point i to every point into dst.
// It may instead return a row it owns (a row of a precomputed matrix).
type space func(dst []float64, i int) []float64

func pointSpace(x []float64, dim int) space {
	return func(dst []float64, i int) []float64 {
		kernels.SqDistRow(dst, x, dim, i)
		return dst
	}
}

func matrixSpace(dist []float64, n int) space {
	return func(_ []float64, i int) []float64 { return dist[i*n : (i+1)*n] }
}

// counts are the exact integer sums behind every neighbourhood metric. Each
// worker fills its own counts; they are added at the end, and integer sums
// do not depend on the order.
type counts struct {
	// Per requested k (index t into ks).
	tPen, tInter []int64 // Σ (r − k) over intrusions; the between-class part
	cPen, cIntra []int64 // Σ (r̂ − k) over extrusions; the within-class part
	hitY, hitX   []int64 // correct k-NN votes in the embedding and the input
	sameY, sameX []int64 // same-class points among the k nearest
	// maxRank[m] counts pairs (i, j ≠ i) with max(r(i,j), r̂(i,j)) = m, so
	// that |N_k(i) ∩ N̂_k(i)| summed over i is Σ_{m ≤ k} maxRank[m].
	maxRank  []int64
	nnY, nnX int64 // correct 1-NN votes
}

func newCounts(nk, n int, structure bool) *counts {
	c := &counts{
		hitY: make([]int64, nk), hitX: make([]int64, nk),
		sameY: make([]int64, nk), sameX: make([]int64, nk),
	}
	if structure {
		c.tPen, c.tInter = make([]int64, nk), make([]int64, nk)
		c.cPen, c.cIntra = make([]int64, nk), make([]int64, nk)
		c.maxRank = make([]int64, n)
	}
	return c
}

func (c *counts) addTo(dst *counts) {
	for _, p := range [][2][]int64{
		{dst.tPen, c.tPen}, {dst.tInter, c.tInter}, {dst.cPen, c.cPen}, {dst.cIntra, c.cIntra},
		{dst.hitY, c.hitY}, {dst.hitX, c.hitX}, {dst.sameY, c.sameY}, {dst.sameX, c.sameX},
		{dst.maxRank, c.maxRank},
	} {
		for i, v := range p[1] {
			p[0][i] += v
		}
	}
	dst.nnY += c.nnY
	dst.nnX += c.nnX
}

// worker is the O(N) scratch space of one goroutine.
type worker struct {
	dx, dy []float64
	ox, oy []int32 // neighbour orders, input and embedding
	rx, ry []int32 // ranks r(i,·) and r̂(i,·)
	rk     kernels.Ranker
	votes  []int32 // per class: votes among the neighbours seen so far
	first  []int32 // per class: position of its first neighbour
	c      *counts
}

func newWorker(n, nk int, lab *labels, structure bool) *worker {
	w := &worker{
		dx: make([]float64, n), ox: make([]int32, n-1),
		c: newCounts(nk, n, structure),
	}
	if structure {
		w.dy, w.oy = make([]float64, n), make([]int32, n-1)
		w.rx, w.ry = make([]int32, n), make([]int32, n)
	}
	if lab != nil {
		w.votes = make([]int32, len(lab.values))
		w.first = make([]int32, len(lab.values))
	}
	return w
}

// neighborhoods runs over the points [lo, hi) of n, comparing the input
// space sx with the embedding sy, and returns the summed counts.
func neighborhoods(ctx context.Context, sx, sy space, n, lo, hi int, ks []int, lab *labels, threads int, progress func(int64)) (*counts, error) {
	workers := make([]*worker, kernels.Workers(hi-lo, threads, rowGrain))
	for i := range workers {
		workers[i] = newWorker(n, len(ks), lab, true)
	}
	err := kernels.ParallelForWorker(ctx, hi-lo, threads, rowGrain, func(wi, a, b int) {
		w := workers[wi]
		for i := lo + a; i < lo+b; i++ {
			w.point(sx, sy, i, ks, lab)
		}
		if progress != nil {
			progress(int64(b - a))
		}
	})
	if err != nil {
		return nil, err
	}
	return sum(workers, len(ks), n, true), nil
}

// classify runs the classification part alone on one space (reported as the
// input-space counts), over the points [lo, hi) of n.
func classify(ctx context.Context, sx space, n, lo, hi int, ks []int, lab *labels, threads int, progress func(int64)) (*counts, error) {
	workers := make([]*worker, kernels.Workers(hi-lo, threads, rowGrain))
	for i := range workers {
		workers[i] = newWorker(n, len(ks), lab, false)
	}
	err := kernels.ParallelForWorker(ctx, hi-lo, threads, rowGrain, func(wi, a, b int) {
		w := workers[wi]
		for i := lo + a; i < lo+b; i++ {
			w.rk.NeighborOrder(w.ox, sx(w.dx, i), i)
			if w.vote(w.ox, lab.id, lab.id[i], ks, w.c.hitX, w.c.sameX) {
				w.c.nnX++
			}
		}
		if progress != nil {
			progress(int64(b - a))
		}
	})
	if err != nil {
		return nil, err
	}
	return sum(workers, len(ks), n, false), nil
}

func sum(workers []*worker, nk, n int, structure bool) *counts {
	total := newCounts(nk, n, structure)
	for _, w := range workers {
		w.c.addTo(total)
	}
	return total
}

// point adds the contributions of point i.
func (w *worker) point(sx, sy space, i int, ks []int, lab *labels) {
	w.rk.NeighborRanks(w.ox, w.rx, sx(w.dx, i), i)
	w.rk.NeighborRanks(w.oy, w.ry, sy(w.dy, i), i)
	c := w.c
	ry := w.ry[:len(w.rx)]
	for j, r := range w.rx {
		c.maxRank[max(r, ry[j])]++ // j = i lands in maxRank[0], unused
	}
	var cls []int32
	var ci int32
	if lab != nil {
		cls, ci = lab.id, lab.id[i]
	}
	for t, k := range ks {
		k32 := int32(k)
		// Intrusions: embedding neighbours beyond rank k in the input.
		for _, j := range w.oy[:k] {
			if r := w.rx[j]; r > k32 {
				c.tPen[t] += int64(r - k32)
				if cls != nil && cls[j] != ci {
					c.tInter[t] += int64(r - k32)
				}
			}
		}
		// Extrusions: input neighbours beyond rank k in the embedding.
		for _, j := range w.ox[:k] {
			if r := w.ry[j]; r > k32 {
				c.cPen[t] += int64(r - k32)
				if cls != nil && cls[j] == ci {
					c.cIntra[t] += int64(r - k32)
				}
			}
		}
	}
	if cls != nil {
		if w.vote(w.oy, cls, ci, ks, c.hitY, c.sameY) {
			c.nnY++
		}
		if w.vote(w.ox, cls, ci, ks, c.hitX, c.sameX) {
			c.nnX++
		}
	}
}

// vote walks the neighbours in order up to the largest k, keeping the
// majority class with ties going to the tied class whose nearest member
// comes first. At each requested k it counts a hit when the majority is ci,
// and adds the number of neighbours of class ci to same. It reports whether
// the nearest neighbour has class ci.
func (w *worker) vote(order, cls []int32, ci int32, ks []int, hits, same []int64) bool {
	kmax := 1
	if len(ks) > 0 {
		kmax = ks[len(ks)-1]
	}
	best, bestN := int32(-1), int32(0)
	var nSame int64
	t := 0
	for p, j := range order[:kmax] {
		c := cls[j]
		if w.votes[c] == 0 {
			w.first[c] = int32(p)
		}
		w.votes[c]++
		// Only c's count changed, so the majority is the old one or c.
		if v := w.votes[c]; v > bestN || (v == bestN && w.first[c] < w.first[best]) {
			best, bestN = c, v
		}
		if c == ci {
			nSame++
		}
		for t < len(ks) && ks[t] == p+1 {
			if best == ci {
				hits[t]++
			}
			same[t] += nSame
			t++
		}
	}
	for _, j := range order[:kmax] {
		w.votes[cls[j]] = 0
	}
	return cls[order[0]] == ci
}
