package quality

import (
	"context"
	"math"

	"github.com/ordinate/ordinate/kernels"
)

// rowGrain is the number of points per parallel chunk. Results are exact
// integer counts, so it affects only scheduling.
const rowGrain = 8

// space writes the dissimilarities of point i to every point into dst.
// It may instead return a row it owns (a row of a precomputed matrix).
type space func(dst []float64, i int) []float64

func pointSpace(x []float64, dim int) space {
	if dim <= smallDim {
		return func(dst []float64, i int) []float64 {
			sqDistRowSmall(dst, x, dim, i)
			return dst
		}
	}
	return func(dst []float64, i int) []float64 {
		kernels.SqDistRow(dst, x, dim, i)
		return dst
	}
}

// smallDim is the largest dimension whose distance rows sqDistRowSmall
// computes inline; above it the vector kernel of package kernels is
// faster than the call it costs per pair.
const smallDim = 8

// sqDistRowSmall is kernels.SqDistRow for dim ≤ smallDim, bit for bit: the
// squared differences of coordinate c are added into lane c mod 4 with a
// fused multiply-add, and the lanes summed as (s0 + s1) + (s2 + s3), the
// formula of kernels.SqDist on every CPU.
func sqDistRowSmall(dst, x []float64, dim, i int) {
	n := len(x) / dim
	dst = dst[:n]
	xi := x[i*dim : (i+1)*dim]
	if dim == 2 { // an embedding: two lanes of one product each
		a0, a1 := xi[0], xi[1]
		x = x[:2*n]
		for j := range dst {
			t0, t1 := a0-x[2*j], a1-x[2*j+1]
			// The conversions round each product, as the lanes do: no
			// fused multiply-add here.
			dst[j] = float64(t0*t0) + float64(t1*t1)
		}
		dst[i] = 0
		return
	}
	// Lane c holds the term of coordinate c, rounded (a fused multiply-add
	// onto 0), then that of coordinate c+4, fused. The tests on dim are
	// the same for every j.
	var a [8]float64
	copy(a[:], xi)
	for j := range dst {
		b := x[j*dim : (j+1)*dim : (j+1)*dim]
		t := a[0] - b[0]
		s0 := float64(t * t)
		var s1, s2, s3 float64
		if dim > 1 {
			t = a[1] - b[1]
			s1 = float64(t * t)
		}
		if dim > 2 {
			t = a[2] - b[2]
			s2 = float64(t * t)
		}
		if dim > 3 {
			t = a[3] - b[3]
			s3 = float64(t * t)
		}
		if dim > 4 {
			t = a[4] - b[4]
			s0 = math.FMA(t, t, s0)
		}
		if dim > 5 {
			t = a[5] - b[5]
			s1 = math.FMA(t, t, s1)
		}
		if dim > 6 {
			t = a[6] - b[6]
			s2 = math.FMA(t, t, s2)
		}
		if dim > 7 {
			t = a[7] - b[7]
			s3 = math.FMA(t, t, s3)
		}
		dst[j] = (s0 + s1) + (s2 + s3)
	}
	dst[i] = 0
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
	dx     []float64 // a row of distances, in one space then the other
	ox, oy []int32   // neighbour orders, input and embedding
	rx, ry []int32   // ranks r(i,·) and r̂(i,·)
	rk     ranker
	votes  []int32 // per class: votes among the neighbours seen so far
	first  []int32 // per class: position of its first neighbour
	// hist is the worker's co-ranking histogram (counts.maxRank): at
	// most two pairs per point and rank, so 32 bits hold it for any
	// N < 2³¹, in half the memory.
	hist []uint32
	// mark is a bit per point: the embedding's nearest neighbours of the
	// current point, whose input ranks rx holds (rx is otherwise stale).
	mark []uint64
	c    *counts
}

func newWorker(n, nk int, lab *labels, structure bool) *worker {
	w := &worker{
		dx: make([]float64, n), ox: make([]int32, n-1), rx: make([]int32, n),
		c: newCounts(nk, 0, structure),
	}
	if structure {
		w.oy, w.ry = make([]int32, n-1), make([]int32, n)
		w.hist = make([]uint32, n)
		w.mark = make([]uint64, (n+63)/64)
	}
	if lab != nil {
		w.votes = make([]int32, len(lab.values))
		w.first = make([]int32, len(lab.values))
	}
	return w
}

// queries are the query points of a block: the positions [lo, hi) of
// the points scored, which are the points themselves, or the points of a
// sample (sample[q] is the point at position q).
type queries struct {
	lo, hi int
	sample []int32
}

// at returns the point at position q.
func (qs queries) at(q int) int {
	if qs.sample != nil {
		return int(qs.sample[q])
	}
	return q
}

// neighborhoods runs over the query points qs of n, comparing the input
// space sx with the embedding sy, and returns the summed counts.
func neighborhoods(ctx context.Context, sx, sy space, n int, qs queries, ks []int, lab *labels, threads int, progress func(int64)) (*counts, error) {
	lo, hi := qs.lo, qs.hi
	workers := make([]*worker, kernels.Workers(hi-lo, threads, rowGrain))
	for i := range workers {
		workers[i] = newWorker(n, len(ks), lab, true)
	}
	err := kernels.ParallelForWorker(ctx, hi-lo, threads, rowGrain, func(wi, a, b int) {
		w := workers[wi]
		for q := lo + a; q < lo+b; q++ {
			w.point(sx, sy, qs.at(q), ks, lab)
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
// input-space counts), over the query points qs of n.
func classify(ctx context.Context, sx space, n int, qs queries, ks []int, lab *labels, threads int, progress func(int64)) (*counts, error) {
	lo, hi := qs.lo, qs.hi
	workers := make([]*worker, kernels.Workers(hi-lo, threads, rowGrain))
	for i := range workers {
		workers[i] = newWorker(n, len(ks), lab, false)
	}
	err := kernels.ParallelForWorker(ctx, hi-lo, threads, rowGrain, func(wi, a, b int) {
		w := workers[wi]
		for q := lo + a; q < lo+b; q++ {
			i := qs.at(q)
			w.rk.order(w.ox, w.rx, sx(w.dx, i), i)
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
		for m, v := range w.hist {
			total.maxRank[m] += int64(v)
		}
	}
	return total
}

// point adds the contributions of point i. The embedding's row is ranked
// in full (r̂(i,·)); the input's is sorted and walked once: the co-ranking
// histogram from each position and r̂, the input ranks of the embedding's
// nearest neighbours (the only r(i,·) the penalties read) and the input's
// nearest neighbours (the only ones the penalties and votes read).
func (w *worker) point(sx, sy space, i int, ks []int, lab *labels) {
	kmax := 1
	if len(ks) > 0 {
		kmax = max(kmax, ks[len(ks)-1])
	}
	w.rk.order(w.oy, w.ry, sy(w.dx, i), i)
	near := w.oy[:kmax]
	for _, j := range near {
		w.mark[j>>6] |= 1 << (j & 63)
	}
	words, mask := w.rk.sorted(sx(w.dx, i), i)
	ry, hist, mark := w.ry, w.hist, w.mark
	hist[0]++ // i with itself
	for p, wd := range words {
		j := int32(wd & mask)
		r := int32(p + 1)
		hist[max(r, ry[j])]++
		if mark[j>>6]&(1<<(j&63)) != 0 {
			w.rx[j] = r
		}
	}
	for p := range kmax {
		w.ox[p] = int32(words[p] & mask)
	}
	for _, j := range near {
		mark[j>>6] = 0
	}
	c := w.c
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
