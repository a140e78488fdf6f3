package nerv

import (
	"context"
	"fmt"
	"math"

	"github.com/ordinate/ordinate/kernels"
)

// Barnes–Hut NeRV stress for large n (BH).
//
// The input is sparse: row i has a neighbour list N_i (k points, as
// kernels.KNN returns them) with β_ij calibrated over N_i, and β_ij = 0
// outside. In the recall term β log(β/b) that 0 contributes nothing; in the
// precision term b log(b/β) it is replaced by a floor ε_i:
// SparseInput.LogFloor, by default the smallest listed β of the row (β falls
// with input distance, so that bounds every unlisted β from above; Fit
// passes a lower, measured floor, see bhFloorStretch). The exact stress's
// floor for an underflowed β, 2^−1022, would make every unlisted pair cost
// up to 708·b nats. The output scale is
// one global s, h = 1/(2s²), so a_ij = h·D²_ij and
// b_ij = exp(−a_ij)/Σ_k exp(−a_ik).
//
// Every term of row i splits into an "as if outside N_i" part, which
// depends only on D_ij and Λ_ij,
//
//	t_ij = Λ_ij b_ij + (1 − Λ_ij) b_ij (log b_ij − log ε_i − 1),
//	g⁰_ij = Λ_ij b_ij + (1 − Λ_ij) b_ij (log b_ij − log ε_i),
//
// summed over all j ≠ i on a 2^dims-ary tree over the embedding
// (kernels.BHTree), plus an exact correction for the k pairs in N_i. A cell
// C of the tree is summed as if all its n_C points sat at its centre of mass
// when its worst possible error in Σ_j exp(m_i − a_ij) is below Tol:
//
//	n_C · exp(m_i − a_near) · min(1, h (2dρ + ρ²)) ≤ Tol · Σ_{j∈N_i} exp(m_i − a_ij),
//
// where d is the distance to the centre of mass, ρ the cell's diagonal,
// a_near = h·max(d − ρ, 0)² and m_i = min_{j∈N_i} a_ij. The left side bounds
// the cell's error in the row's normaliser Σ_j exp(m_i − a_ij), and the
// right side's sum over the listed neighbours bounds that normaliser from
// below, so Tol is a relative error per cell. Cells containing y_i are always opened. Λ over a cell
// uses the cell's summed label vector S: Σ_{j∈C} λ_ij ≈ Σ_c min(n_L ω_ic,
// S_c), which is exact for one-hot labels (it counts i's class in C) and,
// by concavity of min, an upper bound for soft ones; unlabelled members
// count γ. The gradient visits the same cells: the force of a cell on y_i
// is exact for that approximation, and its reaction is shared equally by
// the cell's members (as if each sat at the centre of mass), accumulated per
// node and pushed down the tree. Tol = 0 visits every point: the result is
// then the exact stress of the floored sparse β with a global scale.

// nervBHChunks is the fixed number of row chunks of the gradient pass, each
// with its own (n + nodes)×dims accumulator, so sums do not depend on the
// thread count.
const nervBHChunks = 16

// SparseInput is the input of BH: neighbour lists and their β, labels
// and trade-offs as in Input, and one global output scale.
type SparseInput struct {
	N, K         int
	Idx          []int32   // n×K neighbour indices (KNN layout, no self)
	Beta         []float64 // n×K β_ij over the lists, each row summing to 1
	C            int
	Soft         []float64 // n×C soft labels or nil; an all-NaN row is unlabelled
	Alpha, Gamma float64
	Scale        float64 // the global output scale s > 0
	// LogBeta, if not nil, caches log(max(β_ij, nervBetaFloor)) in the
	// layout of Beta (see SparseLogBeta).
	LogBeta []float64
	// LogFloor, if not nil, holds log ε_i per row, the value of log β used
	// for the unlisted points (default: the row's smallest listed log β).
	LogFloor []float64
}

// SparseLogBeta fills in.LogBeta (allocating it when needed); β is fixed
// during an optimisation, so this saves 2K logarithms per row and call.
func SparseLogBeta(in *SparseInput) {
	in.LogBeta = kernels.Grow(in.LogBeta, len(in.Beta))
	for q, b := range in.Beta {
		in.LogBeta[q] = math.Log(max(b, nervBetaFloor))
	}
}

// rowLogBeta returns log β over row i's list and the row's log floor
// log ε_i = min_q log β_iq (the β of the farthest listed neighbour).
func (in *SparseInput) rowLogBeta(sc *nervBHScratch, i int) (lbeta []float64, lf float64) {
	k := in.K
	if in.LogBeta != nil {
		lbeta = in.LogBeta[i*k : (i+1)*k]
	} else {
		sc.lbeta = kernels.Grow(sc.lbeta, k)
		lbeta = sc.lbeta
		for q, b := range in.Beta[i*k : (i+1)*k] {
			lbeta[q] = math.Log(max(b, nervBetaFloor))
		}
	}
	if in.LogFloor != nil {
		return lbeta, in.LogFloor[i]
	}
	lf = math.Inf(1)
	for _, v := range lbeta {
		lf = min(lf, v)
	}
	return lbeta, lf
}

func (in *SparseInput) check(y []float64, dims int) {
	n, k := in.N, in.K
	kernels.CheckEmbedding(y, n, dims)
	if dims > kernels.MaxBHDims {
		panic(fmt.Sprintf("nerv: Barnes–Hut needs dims ≤ %d, got %d", kernels.MaxBHDims, dims))
	}
	if k < 1 || k > max(n-1, 1) || len(in.Idx) != n*k || len(in.Beta) != n*k || (in.LogBeta != nil && len(in.LogBeta) != n*k) || (in.LogFloor != nil && len(in.LogFloor) != n) {
		panic(fmt.Sprintf("nerv: SparseInput with n = %d, K = %d, %d indices and %d β", n, k, len(in.Idx), len(in.Beta)))
	}
	if in.Soft != nil && (in.C < 1 || len(in.Soft) != n*in.C) {
		panic(fmt.Sprintf("nerv: len(Soft) = %d, want N·C = %d·%d", len(in.Soft), n, in.C))
	}
	if !(in.Alpha >= 0 && in.Alpha <= 1 && in.Gamma >= 0 && in.Gamma <= 1) {
		panic(fmt.Sprintf("nerv: alpha = %v, gamma = %v, want both in [0, 1]", in.Alpha, in.Gamma))
	}
	if !(in.Scale > 0) || math.IsInf(in.Scale, 1) {
		panic(fmt.Sprintf("nerv: Scale = %v, want finite and > 0", in.Scale))
	}
	for r, j := range in.Idx {
		if j < 0 || int(j) >= n || int(j) == r/k {
			panic(fmt.Sprintf("nerv: neighbour %d of row %d is %d", r%k, r/k, j))
		}
	}
}

// begin checks the arguments of a sparse stress (panicking on wrong
// lengths or parameters) and reports whether the call is already done:
// cancelled (with ctx.Err()) or with fewer than two points (zero stress and
// gradient).
func (in *SparseInput) begin(ctx context.Context, grad, y []float64, dims int, tol float64) (bool, error) {
	in.check(y, dims)
	if !(tol >= 0) {
		panic(fmt.Sprintf("nerv: tol = %v, want ≥ 0", tol))
	}
	if grad != nil && len(grad) != in.N*dims {
		panic(fmt.Sprintf("nerv: len(grad) = %d, want n·dims = %d", len(grad), in.N*dims))
	}
	if err := ctx.Err(); err != nil {
		return true, err
	}
	if in.N < 2 {
		clear(grad)
		return true, nil
	}
	return false, nil
}

// labelled reports whether row i has labels.
func (in *SparseInput) labelled(i int) bool {
	return in.Soft != nil && !math.IsNaN(in.Soft[i*in.C])
}

// tradeoff returns Λ_ij.
func (in *SparseInput) tradeoff(i, j int) float64 {
	return pairTradeoff(in.Soft, in.C, in.Alpha, in.Gamma, i, j)
}

// BH holds the reusable state of Barnes–Hut NeRV stresses (tree, label
// aggregates, scratch). The zero value is ready to use; it is not safe for
// concurrent use.
type BH struct {
	tree     kernels.BHTree
	nlab     []float64 // labelled members per node
	wsum     []float64 // nodes×C summed labels of the labelled members
	logCount []float64
	rowSums
}

// nervBHScratch is one worker's traversal stack and interaction list.
type nervBHScratch struct {
	stack []int32
	list  []nervBHItem
	lbeta []float64
	dg    []float64  // g_ij − g⁰_ij over the row's list
	runs  [][2]int32 // the cut-off's cell runs
}

// nervBHItem is one interaction of a row: a point (id = −1 − j) or a cell
// (id = node) at scaled squared distance a, with lam = Σ Λ over its members.
type nervBHItem struct {
	id        int32
	a, lam, e float64 // e = exp(shift − a), set by the stress loop
}

// Stress returns the approximate stress ζ (with the 1/n of the exact
// Stress) of the embedding y (n×dims, dims ≤ kernels.MaxBHDims) and, if grad
// is not nil, writes the approximate gradient into grad. See the comment at
// the top of stressbh.go for the approximation and tol. Each row walks the
// tree once, keeping its interaction list for the gradient; rows are split
// into 16 fixed chunks, each with its own accumulator, summed in chunk
// order, so results are bit-identical for any thread count. It panics on wrong
// lengths or parameters, and returns ctx.Err() if cancelled.
func (b *BH) Stress(ctx context.Context, grad, y []float64, dims int, in *SparseInput, tol float64, threads int) (float64, error) {
	if done, err := in.begin(ctx, grad, y, dims, tol); done {
		return 0, err
	}
	w := b.walker(in, y, dims, tol)
	// Rows in tree order: neighbouring rows walk the same nodes.
	return b.rowSums.run(ctx, w, b.tree.Perm, grad, threads)
}

// walker builds the tree and its label sums over y and returns the walk
// of tolerance tol over them.
func (b *BH) walker(in *SparseInput, y []float64, dims int, tol float64) *nervBHWalk {
	b.tree.Build(y, in.N, dims)
	b.aggregateLabels(in)
	b.logCount = kernels.Grow(b.logCount, len(b.tree.Nodes))
	for nd := range b.tree.Nodes {
		b.logCount[nd] = math.Log(float64(b.tree.Nodes[nd].Count))
	}
	w := &nervBHWalk{t: &b.tree, in: in, y: y, dims: dims, h: 1 / (2 * in.Scale * in.Scale), tol: tol, nlab: b.nlab, wsum: b.wsum,
		logTol: math.Log(tol), logCount: b.logCount, sqrtDims: math.Sqrt(float64(dims))}
	w.hardLabels = newHardLabels(in.Soft, in.N, in.C, in.Alpha, in.Gamma)
	return w
}

// rowSums runs the rows of a Barnes–Hut or cut-off stress: per-row stress,
// chunk accumulators of the gradient and per-worker scratch.
type rowSums struct {
	rows  []float64 // per-row stress
	slots []float64
	work  []nervBHScratch
}

// run evaluates every row of w in the given order, split into
// nervBHChunks fixed chunks with accumulators of (n + nodes)×dims each
// (one row per node of w's tree), summed in chunk order, so results are
// bit-identical for any thread count; it returns the stress and, if grad
// is not nil, writes the gradient.
func (r *rowSums) run(ctx context.Context, w *nervBHWalk, order []int32, grad []float64, threads int) (float64, error) {
	n, dims, nodes := w.in.N, w.dims, len(w.t.Nodes)
	r.rows = kernels.Grow(r.rows, n)
	m := (n + nodes) * dims
	grain := max(nervGrain, (n+nervBHChunks-1)/nervBHChunks)
	chunks := kernels.NumChunks(n, grain)
	if grad != nil {
		r.slots = kernels.Grow(r.slots, chunks*m)
	}
	for len(r.work) < kernels.Workers(n, threads, grain) {
		r.work = append(r.work, nervBHScratch{})
	}
	err := kernels.ParallelForWorker(ctx, n, threads, grain, func(wk, lo, hi int) {
		sc := &r.work[wk]
		var acc []float64
		if grad != nil {
			acc = r.slots[(lo/grain)*m : (lo/grain+1)*m]
			clear(acc)
		}
		for _, i := range order[lo:hi] {
			w.row(sc, r.rows, acc, int(i))
		}
	})
	if err != nil {
		return 0, err
	}
	var stress float64
	for _, v := range r.rows {
		stress += v
	}
	stress /= float64(n)
	if grad != nil {
		r.combine(grad, w.t, n, dims, chunks)
	}
	return stress, nil
}

// aggregateLabels fills the per-node label sums; children have larger
// indices than their parent, so a reverse sweep sees children first.
func (b *BH) aggregateLabels(in *SparseInput) {
	if in.Soft == nil {
		return
	}
	nodes, c := len(b.tree.Nodes), in.C
	b.nlab = kernels.Grow(b.nlab, nodes)
	b.wsum = kernels.Grow(b.wsum, nodes*c)
	clear(b.nlab)
	clear(b.wsum)
	nc := int32(1) << b.tree.Dims
	for nd := nodes - 1; nd >= 0; nd-- {
		node := &b.tree.Nodes[nd]
		ws := b.wsum[nd*c : (nd+1)*c]
		if node.Child >= 0 {
			for ch := node.Child; ch < node.Child+nc; ch++ {
				b.nlab[nd] += b.nlab[ch]
				for k, v := range b.wsum[int(ch)*c : int(ch+1)*c] {
					ws[k] += v
				}
			}
			continue
		}
		for _, p := range b.tree.Perm[node.Lo:node.Hi] {
			if in.labelled(int(p)) {
				b.nlab[nd]++
				for k, v := range in.Soft[int(p)*c : int(p+1)*c] {
					ws[k] += v
				}
			}
		}
	}
}

// combine sums the chunk accumulators in chunk order, pushes the per-member
// node reactions of the tree down to the points (parents precede
// children) and scales by 1/n into grad.
func (r *rowSums) combine(grad []float64, tree *kernels.BHTree, n, dims, chunks int) {
	nodes := len(tree.Nodes)
	m := (n + nodes) * dims
	total := r.slots[:m]
	for c := 1; c < chunks; c++ {
		for k, v := range r.slots[c*m : (c+1)*m] {
			total[k] += v
		}
	}
	node := total[n*dims:]
	nc := int32(1) << dims
	for nd := range nodes {
		t := &tree.Nodes[nd]
		f := node[nd*dims : (nd+1)*dims]
		if t.Child >= 0 {
			for ch := t.Child; ch < t.Child+nc; ch++ {
				for k := range f {
					node[int(ch)*dims+k] += f[k]
				}
			}
			continue
		}
		for _, p := range tree.Perm[t.Lo:t.Hi] {
			for k := range f {
				total[int(p)*dims+k] += f[k]
			}
		}
	}
	inv := 1 / float64(n)
	for k := range grad {
		grad[k] = total[k] * inv
	}
}

// nervBHWalk is the shared state of the two passes.
type nervBHWalk struct {
	t          *kernels.BHTree
	in         *SparseInput
	y          []float64
	dims       int
	h, tol     float64
	logTol     float64 // log tol; a row adds the log of its normaliser bound
	sqrtDims   float64
	nlab, wsum []float64
	hardLabels           // the ClassNeRV shortcut for Λ
	logCount   []float64 // log of each node's point count
	// Set by CutoffStress: rows with at most cutoffMax points in reach list
	// them (cutoffList, bound cutTol), the others walk the tree.
	grid      *CellGrid
	cutTol    float64
	cutoffMax int
}

// cellTradeoff returns Σ_{j∈node} Λ_ij for the node's n members.
func (w *nervBHWalk) cellTradeoff(i, nd int, n float64) float64 {
	in := w.in
	if !in.labelled(i) {
		return in.Gamma * n
	}
	c := in.C
	nl := w.nlab[nd]
	var lam float64
	if ci := w.class[i]; ci >= 0 {
		// One-hot: every other class adds min(0, S_c) = 0, so this is
		// the loop's value, bit for bit.
		lam = min(nl, w.wsum[nd*c+int(ci)])
	} else {
		for k, v := range in.Soft[i*c : (i+1)*c] {
			lam += min(v*nl, w.wsum[nd*c+k])
		}
	}
	return in.Gamma*(n-nl) + (1-in.Alpha)*in.Gamma*nl + in.Alpha*lam
}

// tradeoff returns Λ_ij, without the loop over the classes when both rows
// are one-hot.
func (w *nervBHWalk) tradeoff(i, j int) float64 {
	in := w.in
	return w.hardLabels.tradeoff(in.Soft, in.C, in.Alpha, in.Gamma, i, j)
}

// accept reports whether node nd may be summed at its centre of mass for
// point i at squared distance d2 from it, given the shift m.
func (w *nervBHWalk) accept(ndi int32, nd *kernels.BHNode, yi []float64, d2, m, logTol float64) bool {
	if w.tol == 0 || nd.Contains(yi) {
		return false
	}
	rho := 2 * nd.Half * w.sqrtDims
	d := math.Sqrt(d2)
	near := max(d-rho, 0)
	loss := m - w.h*near*near
	if loss > 0 {
		return false
	}
	// |e^−a_j − e^−a_com| ≤ e^−a_near·(1 − e^−|a_j − a_com|) ≤ e^−a_near·min(1, spread),
	// so the cell's error is at most count·e^loss·min(1, spread): compare
	// t = loss + log(count/tol) first, which needs no exponential when the
	// cell is far enough for spread not to matter.
	t := loss + w.logCount[ndi] - logTol
	if t <= 0 {
		return true
	}
	spread := w.h * rho * (2*d + rho)
	return spread < 1 && math.Exp(t)*spread <= 1
}

// walk lists point i's interactions in sc.list: the accepted cells and
// the points met one by one (never i), in a fixed order.
func (w *nervBHWalk) walk(sc *nervBHScratch, i int, m, logTol float64) {
	dims := w.dims
	yi := w.y[i*dims : (i+1)*dims]
	list := sc.list[:0]
	stack := append(sc.stack[:0], 0)
	for len(stack) > 0 {
		ndi := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &w.t.Nodes[ndi]
		if nd.Count == 0 {
			continue
		}
		if nd.Child < 0 {
			for _, p := range w.t.Perm[nd.Lo:nd.Hi] {
				if j := int(p); j != i {
					a := w.h * kernels.EmbedSqDist(yi, w.y[j*dims:(j+1)*dims])
					list = append(list, nervBHItem{id: -1 - p, a: a, lam: w.tradeoff(i, j)})
				}
			}
			continue
		}
		d2 := kernels.EmbedSqDist(yi, nd.COM[:dims])
		if w.accept(ndi, nd, yi, d2, m, logTol) {
			cnt := float64(nd.Count)
			list = append(list, nervBHItem{id: ndi, a: w.h * d2, lam: w.cellTradeoff(i, int(ndi), cnt)})
			continue
		}
		for o := int32(1<<dims) - 1; o >= 0; o-- {
			stack = append(stack, nd.Child+o)
		}
	}
	sc.list, sc.stack = list, stack
}

// count returns the number of points an interaction stands for.
func (w *nervBHWalk) count(it nervBHItem) float64 {
	if it.id < 0 {
		return 1
	}
	return float64(w.t.Nodes[it.id].Count)
}

// row computes row i's stress into stress[i] and, if acc is not nil, adds
// its forces and their reactions to acc (n point rows, then one row per node).
func (w *nervBHWalk) row(sc *nervBHScratch, stress, acc []float64, i int) {
	in, dims := w.in, w.dims
	k := in.K
	yi := w.y[i*dims : (i+1)*dims]
	nbr := in.Idx[i*k : (i+1)*k]
	beta := in.Beta[i*k : (i+1)*k]
	m := math.Inf(1)
	sc.dg = kernels.Grow(sc.dg, k)
	for q, j := range nbr {
		sc.dg[q] = w.h * kernels.EmbedSqDist(yi, w.y[int(j)*dims:int(j+1)*dims])
		m = min(m, sc.dg[q])
	}
	// The listed neighbours' kernels bound the normaliser from below: the
	// cell tolerance is relative to that bound.
	var zn float64
	for _, a := range sc.dg {
		zn += math.Exp(m - a)
	}
	if w.grid == nil || !w.cutoffList(sc, i, m, zn) {
		w.walk(sc, i, m, w.logTol+math.Log(zn))
	}
	// Shift by the smallest a so that the largest e is 1 (no overflow,
	// and Z ≥ 1); keep e for the force loop.
	s := m
	for _, it := range sc.list {
		s = min(s, it.a)
	}
	var z, sl, s1, sa float64
	for q := range sc.list {
		it := &sc.list[q]
		cnt := w.count(*it)
		e := math.Exp(s - it.a)
		it.e = e
		z += cnt * e
		sl += it.lam * e
		s1 += (cnt - it.lam) * e
		sa += (cnt - it.lam) * e * it.a
	}
	off := s - math.Log(z) // log b_ij = off − a_ij
	lbeta, lf := in.rowLogBeta(sc, i)
	// As-if-outside sums, then the exact correction over N_i.
	st := (sl + s1*(off-lf-1) - sa) / z
	sumG := (sl + s1*(off-lf) - sa) / z
	for q, j := range nbr {
		logb := off - sc.dg[q] // sc.dg holds a_ij until overwritten below
		bij := math.Exp(logb)
		lam := w.tradeoff(i, int(j))
		s, g := nervPair(beta[q], lbeta[q], bij, logb, lam)
		s0, g0 := nervPair(0, lf, bij, logb, lam)
		st += s - s0
		sumG += g - g0
		sc.dg[q] = g - g0
	}
	stress[i] = st
	if acc == nil {
		return
	}
	n := in.N
	gi := acc[i*dims : (i+1)*dims]
	h2 := 2 * w.h
	pair := func(j int, f float64) {
		yj := w.y[j*dims : (j+1)*dims]
		gj := acc[j*dims : (j+1)*dims]
		for c := range gi {
			t := f * (yi[c] - yj[c])
			gi[c] += t
			gj[c] -= t
		}
	}
	for _, it := range sc.list {
		// Σ c⁰ over the members: b(cnt·G − lam − (cnt − lam)(log b − log ε)).
		cnt := w.count(it)
		logb := off - it.a
		f := h2 * (it.e / z) * (cnt*sumG - it.lam - (cnt-it.lam)*(logb-lf))
		if it.id < 0 {
			pair(int(-1-it.id), f)
			continue
		}
		node := &w.t.Nodes[it.id]
		gn := acc[(n+int(it.id))*dims : (n+int(it.id)+1)*dims]
		for c := range gi {
			t := f * (yi[c] - node.COM[c])
			gi[c] += t
			gn[c] -= t / cnt
		}
	}
	for q, j := range nbr {
		// c = b·G − g, and the as-if part b·G − g⁰ is already in.
		pair(int(j), -h2*sc.dg[q])
	}
}
