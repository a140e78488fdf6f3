package fisher

import (
	"context"
	"fmt"
	"math"

	"github.com/ordinate/ordinate/kernels"
)

// PlaceDistances computes the Fisher distances from m new rows xq (m×d
// features, standardised as lc's rows were; cosine rows are normalised
// here) to the rows of lc, the fitted local mode: each new row's K nearest
// rows of lc in the kernel metric (exhaustive search, O(n·d) a row), in
// idx[r·K : (r+1)·K] nearest first, and the path lengths to them in dist,
// with σ, T, the rule and ExcludeEndpoints of p and rule. A pair's Parzen
// sums run over {j} ∪ N_L(q) ∪ N_L(j) with L = lc.Parzen: rows of lc only,
// so the new row needs no label (its posterior is the fitted rows'), and
// with ExcludeEndpoints j is left out as in the fit. Each new row is
// computed alone by one worker: results do not depend on m, on the other
// rows or on the thread count. It needs 1 ≤ K and max(K, L) ≤ n, and returns
// ctx.Err() if cancelled.
func PlaceDistances(ctx context.Context, lc *Local, xq []float64, m, K int, rule Rule, p PathParams) (idx []int32, dist []float64, err error) {
	n, D, L := lc.N, lc.D, lc.Parzen
	M := max(K, L)
	if len(xq) != m*D || K < 1 || M > n || L > lc.Knn {
		panic(fmt.Sprintf("fisher: PlaceDistances: %d values for %d rows of %d, K = %d, L = %d, n = %d", len(xq), m, D, K, L, n))
	}
	idx = make([]int32, m*K)
	dist = make([]float64, m*K)
	T := p.Steps
	scale := 1 / (p.Sigma * p.Sigma * float64(T))
	const grain = 16
	workers := kernels.Workers(m, p.Threads, grain)
	type scratch struct {
		wk   *localWork
		row  []float64 // kernel squared distances to the n rows, +Inf at n
		x    []float64 // the prepared new row
		near []int32
		d2   []float64
		sel  kernels.RowKNN
	}
	ss := make([]scratch, workers)
	for w := range ss {
		ss[w] = scratch{wk: newLocalWork(lc, p), row: make([]float64, n+1), x: make([]float64, D),
			near: make([]int32, M), d2: make([]float64, M)}
		ss[w].row[n] = math.Inf(1) // stands for the new row itself, never selected
	}
	err = kernels.ParallelForWorker(ctx, m, p.Threads, grain, func(w, lo, hi int) {
		s := &ss[w]
		for r := lo; r < hi; r++ {
			copy(s.x, xq[r*D:(r+1)*D])
			if lc.Kernel.Kind == "cosine" {
				unitRow(s.x, s.x)
			}
			for l := range n {
				s.row[l] = lc.KernelSqDist(s.x, lc.X[l*D:(l+1)*D])
			}
			s.sel.Find(s.near, s.d2, s.row, n)
			placeRow(dist[r*K:(r+1)*K], s.wk, s.x, s.near, s.d2, L, rule, scale)
			copy(idx[r*K:(r+1)*K], s.near[:K])
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return idx, dist, nil
}

// placeRow writes to dst the path lengths from the prepared new row x to
// its first len(dst) candidates near (ascending by kernel squared distance
// d2), with the Parzen sums over its first L candidates and each
// candidate's own L-list.
func placeRow(dst []float64, wk *localWork, x []float64, near []int32, d2 []float64, L int, rule Rule, scale float64) {
	wk.setEnd(x, near[:L], d2[:L], -1)
	for q := range dst {
		f0, f1, mid, _ := wk.pair(int(near[q]), d2[q])
		dst[q] = rule.pathLength(f0, f1, mid, scale)
	}
	wk.clearEnd()
}

// unitRow writes row/‖row‖ to dst (the rows of the cosine kernel's metric).
func unitRow(dst, row []float64) {
	var ss float64
	for _, v := range row {
		ss += v * v
	}
	inv := 1 / math.Sqrt(ss)
	for c, v := range row {
		dst[c] = v * inv
	}
}
