package nerv

import (
	"context"
	"fmt"
	"math"

	"github.com/ordinate/ordinate/kernels"
)

// Cut-off NeRV stress for large n (CutoffStress, method Cutoff).
//
// The objective is the Barnes–Hut one (stressbh.go): sparse input β with
// the floor ε_i for unlisted points, one global output scale, h = 1/(2s²).
// Instead of summing far cells at their centres of mass, row i sums every
// point j with
//
//	a_ij ≤ m_i + T_i,  T_i = log((n − 1) / (tol · z_i)),
//
// one by one and exactly, and drops the rest; m_i = min_{j∈N_i} a_ij and
// z_i = Σ_{j∈N_i} exp(m_i − a_ij) ≥ 1 as in the Barnes–Hut acceptance test.
// The dropped points add at most (n − 1)·exp(−T_i) = tol·z_i to the row's
// shifted normaliser Σ_j exp(m_i − a_ij), which z_i bounds from below: so
// tol bounds the relative error of every row's normaliser, and of every
// sum the row needs (the label-weighted ones are at most the normaliser).
// The Gaussian falls so fast that the bound is loose: TestCutoffApprox
// measures stress errors of 1e-5 and gradient errors of 1e-4 relative at
// tol = 1e-2, against Barnes–Hut's 3e-5 to 5e-2 and 1e-3 to 7e-2 at its
// default. The points in reach are found on a CellGrid of cells one
// output width wide, so a row costs the number of points within about
// √(2(m_i + T_i)) widths of it.
//
// That number is a few hundred once a map has spread out, but thousands in
// the dense first iterations from a PCA start, where Barnes–Hut's cells
// are cheaper (and less accurate). So a row whose query meets cells holding
// more than BHAbove points (default 2,000) takes the Barnes–Hut sums
// instead, with the Barnes–Hut tolerance: per evaluation on the four-cluster
// data at N = 10⁵ that costs as much as Barnes–Hut from the PCA start and
// 1.1 to 1.6 times less on spread maps, where the cut-off alone would cost
// 2.2 times more at the start (BENCHMARKS.md). Tol = 0 with BHAbove < 0
// sums every pair: the result is then BH's with tol = 0.

// CutoffStress holds the reusable state of cut-off NeRV stresses (grid,
// scratch). The zero value is ready to use; it is not safe for concurrent
// use.
type CutoffStress struct {
	// BHAbove is the number of points in reach (in the cells a row's
	// query meets) above which the row takes the Barnes–Hut sums; 0 means
	// DefaultCutoffBHAbove, a negative value never.
	BHAbove int
	grid    CellGrid
	bh      BH // the Barnes–Hut sums of the rows with too many points in reach
}

// Stress returns the cut-off stress ζ (with the 1/n of the exact Stress) of
// the embedding y (n×dims, dims ≤ kernels.MaxBHDims) and, if grad is not
// nil, writes its gradient into grad; see the comment at the top of
// cutoff.go for tol, and BH.Stress for bhTol, the tolerance of the rows
// that take the Barnes–Hut sums. A y with a non-finite coordinate has
// stress NaN (and a NaN gradient), which a line search rejects. Results
// are bit-identical for any thread count. It panics on wrong lengths or
// parameters, and returns ctx.Err() if cancelled.
func (c *CutoffStress) Stress(ctx context.Context, grad, y []float64, dims int, in *SparseInput, tol, bhTol float64, threads int) (float64, error) {
	if !(bhTol >= 0) {
		panic(fmt.Sprintf("nerv: bhTol = %v, want ≥ 0", bhTol))
	}
	if done, err := in.begin(ctx, grad, y, dims, tol); done {
		return 0, err
	}
	if !c.grid.Build(y, in.N, dims, in.Scale) {
		for k := range grad {
			grad[k] = math.NaN()
		}
		return math.NaN(), nil
	}
	w := c.bh.walker(in, y, dims, bhTol)
	w.grid, w.cutTol, w.cutoffMax = &c.grid, tol, c.BHAbove
	switch {
	case c.BHAbove == 0:
		w.cutoffMax = DefaultCutoffBHAbove
	case c.BHAbove < 0:
		w.cutoffMax = math.MaxInt
	}
	// Rows in cell order: neighbouring rows read the same cells.
	return c.bh.rowSums.run(ctx, w, c.grid.Perm, grad, threads)
}

// DefaultCutoffBHAbove is CutoffStress's default BHAbove: with it the
// evaluations from a dense PCA start cost what Barnes–Hut's do, and lower
// thresholds (500, 600) were no faster there and slower on spread maps
// (BENCHMARKS.md, "NeRV (issue 5)", the cut-off against Barnes–Hut).
const DefaultCutoffBHAbove = 2000

// cutoffList lists in sc.list every point j ≠ i with a_ij ≤ m + T_i (see
// the top of cutoff.go), zn being row i's z_i, in the grid's fixed order,
// and reports true; or, when the cells in reach hold more than
// w.cutoffMax points, lists nothing and reports false (the row then takes
// the Barnes–Hut walk).
func (w *nervBHWalk) cutoffList(sc *nervBHScratch, i int, m, zn float64) bool {
	g, dims := w.grid, w.dims
	yi := w.y[i*dims : (i+1)*dims]
	lim := math.Inf(1)
	if w.cutTol > 0 {
		lim = m + math.Log(float64(w.in.N-1)/(w.cutTol*zn))
	}
	sc.runs = g.AppendRuns(sc.runs[:0], yi, math.Sqrt(lim/w.h))
	var cand int32
	for _, run := range sc.runs {
		cand += run[1] - run[0]
	}
	if int(cand) > w.cutoffMax {
		return false
	}
	list := sc.list[:0]
	for _, run := range sc.runs {
		for p := run[0]; p < run[1]; p++ {
			a := w.h * kernels.EmbedSqDist(yi, g.Pos[int(p)*dims:int(p+1)*dims])
			if j := g.Perm[p]; a <= lim && int(j) != i {
				list = append(list, nervBHItem{id: -1 - j, a: a, lam: w.tradeoff(i, int(j))})
			}
		}
	}
	sc.list = list
	return true
}
