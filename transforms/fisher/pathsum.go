package fisher

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/ordinate/ordinate/kernels"
)

// PathParams configures the Fisher path sums (see PathSums).
type PathParams struct {
	Sigma            float64 // Parzen bandwidth σ > 0 of exp(−‖x−x_l‖²/(2σ²))
	Steps            int     // T ≥ 1 path segments
	ExcludeEndpoints bool    // drop l = i and l = j from the Parzen sums of the pair (i, j)
	Threads          int     // ≤ 0: GOMAXPROCS
	// Progress, if not nil, is called after each chunk of rows with the
	// work done and its total (pairs i < j for PathSums, rows for
	// SparsePathSums). Calls come from worker goroutines but never
	// concurrently, with done increasing; keep it fast.
	Progress func(done, total int64)
	// Pairs, if not nil, restricts PathSums to the unordered pairs {a, b}
	// (indices of s) for which it returns true, in either order; the
	// entries of the other pairs are left 0. A pair's values do not depend
	// on which other pairs are computed, so a restricted run gives the same
	// bits as the full one where it computes (the tiles of the fisher
	// stage). SparsePathSums ignores it.
	Pairs func(a, b int) bool
}

// fisherUnderflow is the smallest Parzen normaliser W that the table
// evaluation trusts. Table weights are products A·B of factors ≤ 1, so a
// weight that underflows is smaller than 2⁻¹⁰²², and n such terms change a
// normaliser W ≥ 2⁻⁹⁶⁰ by less than n·2⁻¹¹⁴ relatively. Below it the pair
// step is recomputed in the log domain.
var fisherUnderflow = math.Ldexp(1, -960)

// SparseDrop is the relative weight below which the sparse Fisher
// sums drop a point: l is dropped from the pair (i, j) when its Gaussian
// weight at every point of the path is below SparseDrop times the
// weight of some point that is kept.
const SparseDrop = 1e-12

// fisherTile is the number of rows that share each loaded row j (cache
// blocking of the dense sums).
const fisherTile = 4

func checkFisher(s []float64, n int, classes []int, k int, p PathParams) {
	if n < 2 || len(s) != n*n || len(classes) != n {
		panic("fisher: path sums: bad size")
	}
	if k < 1 || !(p.Sigma > 0) || p.Steps < 1 {
		panic("fisher: path sums: bad parameters")
	}
	for _, c := range classes {
		if c < 0 || c >= k {
			panic(fmt.Sprintf("fisher: path sums: class %d out of range [0, %d)", c, k))
		}
	}
}

// pathSumsDirect is PathSums by the definition's loops: per pair and path
// point it streams the two table rows and g, so it runs at the speed of the
// cache, a small share of the machine's peak (BENCHMARKS.md, "Fisher
// distances (transforms/fisher)", "Flops against the peak"). It is the
// reference of the tests for PathSums.
//
// It computes the unscaled Fisher path integrands of every pair
// of points of the symmetric n×n kernel s (already corrected to be PSD;
// only its values are used, so an indefinite s gives a pseudo-metric) with
// class labels classes[i] ∈ [0, k).
//
// For the path x(a) = (1−a)x_i + a x_j in feature space, the Parzen weights
// are ξ_l(a) = softmax_l(−[(1−a)d²_il + a d²_jl]/(2σ²)) with d² the kernel
// squared distances, g_l = s_jl − s_il, m = Σ ξ_l g_l, p(c) = Σ_{l∈c} ξ_l,
// m_c = Σ_{l∈c} ξ_l g_l / p(c) and F_ij(a) = √(Σ_c p(c)(m_c − m)²).
// It writes f0[i·n+j] = F_ij(0) for every i ≠ j (so that
// f0[j·n+i] = F_ij(1)) and mid[i·n+j] = mid[j·n+i] = Σ_{t=1}^{T−1} F_ij(t/T);
// diagonals are set to 0. The left-rule path length is then
// (f0[i·n+j] + mid[i·n+j])/(σ²T) and the trapezoid one
// (½f0[i·n+j] + ½f0[j·n+i] + mid[i·n+j])/(σ²T).
//
// The weights come from per-step tables exp((1−a)E) and exp(aE) with
// E = −D²/(2σ²) ≤ 0, so each weight is a product of two factors ≤ 1 and
// cannot overflow; a pair step whose normaliser is below 2⁻⁹⁶⁰ is recomputed
// in the log domain with max subtraction and counted in fallbacks. Points
// are processed in class order, each pair by one worker with a fixed
// summation order, so the results are bit-identical for any thread count.
// Memory: T+2 n×n float64 work arrays besides s, f0 and mid.
//
// Wrong sizes, σ ≤ 0, T < 1 or a class out of range panic; the only error is
// ctx.Err().
func pathSumsDirect(ctx context.Context, f0, mid, s []float64, n int, classes []int, k int, p PathParams) (fallbacks int64, err error) {
	checkFisher(s, n, classes, k, p)
	if len(f0) != n*n || len(mid) != n*n {
		panic("fisher: PathSums: bad output size")
	}
	ord, bounds := classOrder(classes, k)
	// Permuted kernel sp and E = −d²/(2σ²).
	sp := make([]float64, n*n)
	for a, oa := range ord {
		row := s[oa*n : (oa+1)*n]
		dst := sp[a*n : (a+1)*n]
		for b, ob := range ord {
			dst[b] = row[ob]
		}
	}
	e := make([]float64, n*n)
	inv := -1 / (2 * p.Sigma * p.Sigma)
	if err := kernels.ParallelFor(ctx, n, p.Threads, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := e[i*n : (i+1)*n]
			kernels.KernelSqDistRow(row, sp, n, i)
			for l := range row {
				row[l] *= inv
			}
		}
	}); err != nil {
		return 0, err
	}
	clear(f0)
	clear(mid)
	T := p.Steps
	// Tables X_q = exp((q/T)E) for q = 1…T (X_0 = 1 is implicit), stored
	// point by point: the T rows of point i are contiguous, so the rows a
	// pair needs form two streams.
	tables := make([]float64, T*n*n)
	tab := func(q, i int) []float64 {
		o := (i*T + q - 1) * n
		return tables[o : o+n : o+n]
	}
	if err := kernels.ParallelFor(ctx, n, p.Threads, 16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ei := e[i*n : (i+1)*n]
			for q := 1; q <= T; q++ {
				c := float64(q) / float64(T)
				x := tab(q, i)
				for l, v := range ei {
					x[l] = math.Exp(c * v)
				}
			}
		}
	}); err != nil {
		return 0, err
	}
	workers := kernels.Workers(n, p.Threads, fisherTile)
	fb := make([]int64, workers)
	ws := make([]fisherWork, workers)
	for w := range ws {
		ws[w] = fisherWork{g: make([]float64, n), wc: make([]float64, k), gc: make([]float64, k), seg: make([]int, 0, 6*k)}
	}
	var (
		progMu   sync.Mutex
		progDone int64
	)
	total := int64(n) * int64(n-1) / 2
	err = kernels.ParallelForWorker(ctx, n, p.Threads, fisherTile, func(w, i0, i1 int) {
		wk := &ws[w]
		for j := i0 + 1; j < n; j++ {
			for i := i0; i < min(i1, j); i++ {
				if p.Pairs != nil && !p.Pairs(ord[i], ord[j]) {
					continue
				}
				a, z, m := wk.pair(tables, (i*T-1)*n, (j*T-1)*n, n,
					sp[i*n:(i+1)*n], sp[j*n:(j+1)*n], e[i*n:(i+1)*n], e[j*n:(j+1)*n], bounds, i, j, T, p.ExcludeEndpoints, &fb[w])
				oi, oj := ord[i], ord[j]
				f0[oi*n+oj], f0[oj*n+oi] = a, z
				mid[oi*n+oj], mid[oj*n+oi] = m, m
			}
		}
		if p.Progress != nil {
			var c int64
			for i := i0; i < i1; i++ {
				c += int64(n - 1 - i)
			}
			progMu.Lock()
			progDone += c
			p.Progress(progDone, total)
			progMu.Unlock()
		}
	})
	if err != nil {
		return 0, err
	}
	for _, v := range fb {
		fallbacks += v
	}
	return fallbacks, nil
}

// fisherWork is one worker's scratch space for PathSums.
type fisherWork struct {
	g      []float64 // g_l = s_jl − s_il of the current pair
	wc, gc []float64 // per-class sums
	seg    []int     // per class: number of segments, then [lo, hi) pairs
	ub     []float64 // PathSums: per-class sums of nonnegative terms of G
	redone int64     // PathSums: pairs redone directly
}

// pair returns F_ij(0), F_ij(1) and Σ_{t=1}^{T−1} F_ij(t/T) of the pair of
// class-ordered indices i < j. The rows of i and j of the tables X_q
// (q = 1…T) start at tables[oi+q·stride] and tables[oj+q·stride]; si, sj
// and ei, ej are their rows of s and E (all in class order). Fallbacks to the log domain are counted in fb. PathSums
// uses it for the pairs whose Gemm sums it does not trust, so both give the
// same bits there.
func (wk *fisherWork) pair(tables []float64, oi, oj, stride int, si, sj, ei, ej []float64, bounds []int, i, j, T int, excl bool, fb *int64) (f0, f1, mid float64) {
	n := len(si)
	ti := func(q int) []float64 { return tables[oi+q*stride : oi+q*stride+n : oi+q*stride+n] }
	tj := func(q int) []float64 { return tables[oj+q*stride : oj+q*stride+n : oj+q*stride+n] }
	g := wk.g
	for l := range g {
		g[l] = sj[l] - si[l]
	}
	wk.segments(bounds, i, j, excl)
	for t := 0; t <= T; t++ {
		var W float64
		switch t {
		case 0:
			W = wk.sums1(ti(T))
		case T:
			W = wk.sums1(tj(T))
		default:
			W = wk.sums2(ti(T-t), tj(t))
		}
		if W < fisherUnderflow {
			*fb++
			ca, cb := float64(T-t)/float64(T), float64(t)/float64(T)
			logSums(wk.wc, wk.gc, ei, ej, g, ca, cb, bounds, i, j, excl)
		}
		f := fisherF(wk.wc, wk.gc)
		switch t {
		case 0:
			f0 = f
		case T:
			f1 = f
		default:
			mid += f
		}
	}
	return f0, f1, mid
}

// segments lists, per class, the contiguous index ranges of the Parzen
// sums of the pair (i, j): the class's range, or with excl up to three
// pieces around i and j (i < j).
func (wk *fisherWork) segments(bounds []int, i, j int, excl bool) {
	wk.seg = wk.seg[:0]
	for c := 0; c+1 < len(bounds); c++ {
		lo, hi := bounds[c], bounds[c+1]
		if !excl || ((i < lo || i >= hi) && (j < lo || j >= hi)) {
			wk.seg = append(wk.seg, 1, lo, hi)
			continue
		}
		at := len(wk.seg)
		wk.seg = append(wk.seg, 0)
		start := lo
		for _, x := range [2]int{i, j} {
			if x >= lo && x < hi {
				if x > start {
					wk.seg = append(wk.seg, start, x)
					wk.seg[at]++
				}
				start = x + 1
			}
		}
		if hi > start {
			wk.seg = append(wk.seg, start, hi)
			wk.seg[at]++
		}
	}
}

// sums1 fills the class sums for weights a (one end point of the path) and
// returns the total weight.
func (wk *fisherWork) sums1(a []float64) float64 {
	var W float64
	q := 0
	for c := range wk.wc {
		var w, g float64
		m := wk.seg[q]
		q++
		for ; m > 0; m-- {
			lo, hi := wk.seg[q], wk.seg[q+1]
			q += 2
			sw, sg := weightedSums1(a[lo:hi], wk.g[lo:hi])
			w += sw
			g += sg
		}
		wk.wc[c], wk.gc[c] = w, g
		W += w
	}
	return W
}

// sums2 is sums1 for the weights a_l·b_l of an interior path point.
func (wk *fisherWork) sums2(a, b []float64) float64 {
	var W float64
	q := 0
	for c := range wk.wc {
		var w, g float64
		m := wk.seg[q]
		q++
		for ; m > 0; m-- {
			lo, hi := wk.seg[q], wk.seg[q+1]
			q += 2
			sw, sg := weightedSums2(a[lo:hi], b[lo:hi], wk.g[lo:hi])
			w += sw
			g += sg
		}
		wk.wc[c], wk.gc[c] = w, g
		W += w
	}
	return W
}

// classOrder returns the points stably sorted by class and the class
// boundaries in that order: class c occupies [bounds[c], bounds[c+1]).
func classOrder(classes []int, k int) (ord []int, bounds []int) {
	bounds = make([]int, k+1)
	for _, c := range classes {
		bounds[c+1]++
	}
	for c := range k {
		bounds[c+1] += bounds[c]
	}
	next := append([]int(nil), bounds[:k]...)
	ord = make([]int, len(classes))
	for i, c := range classes {
		ord[next[c]] = i
		next[c]++
	}
	return ord, bounds
}

// weightedSums1 returns Σ a_l and Σ a_l g_l with four interleaved partial
// sums added as (0+1)+(2+3).
func weightedSums1(a, g []float64) (w, s float64) {
	n := len(a)
	g = g[:n]
	var w0, w1, w2, w3, s0, s1, s2, s3 float64
	l := 0
	for ; l+4 <= n; l += 4 {
		x := a[l : l+4 : l+4]
		y := g[l : l+4 : l+4]
		w0 += x[0]
		w1 += x[1]
		w2 += x[2]
		w3 += x[3]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
	}
	for ; l < n; l++ {
		w0 += a[l]
		s0 += a[l] * g[l]
	}
	return (w0 + w1) + (w2 + w3), (s0 + s1) + (s2 + s3)
}

// weightedSums2 returns Σ a_l b_l and Σ a_l b_l g_l, summed as
// weightedSums1.
func weightedSums2(a, b, g []float64) (w, s float64) {
	n := len(a)
	b, g = b[:n], g[:n]
	var w0, w1, w2, w3, s0, s1, s2, s3 float64
	l := 0
	for ; l+4 <= n; l += 4 {
		x := a[l : l+4 : l+4]
		z := b[l : l+4 : l+4]
		y := g[l : l+4 : l+4]
		x0, x1, x2, x3 := x[0]*z[0], x[1]*z[1], x[2]*z[2], x[3]*z[3]
		w0 += x0
		w1 += x1
		w2 += x2
		w3 += x3
		s0 += x0 * y[0]
		s1 += x1 * y[1]
		s2 += x2 * y[2]
		s3 += x3 * y[3]
	}
	for ; l < n; l++ {
		x := a[l] * b[l]
		w0 += x
		s0 += x * g[l]
	}
	return (w0 + w1) + (w2 + w3), (s0 + s1) + (s2 + s3)
}

// logSums fills the class sums of the pair (i, j) in the log domain: logits
// ca·ei_l + cb·ej_l, shifted by their maximum before exponentiation.
func logSums(wc, gc, ei, ej, g []float64, ca, cb float64, bounds []int, i, j int, excl bool) {
	mx := math.Inf(-1)
	for l := range ei {
		if excl && (l == i || l == j) {
			continue
		}
		mx = max(mx, ca*ei[l]+cb*ej[l])
	}
	for c := range wc {
		var w, sg float64
		for l := bounds[c]; l < bounds[c+1]; l++ {
			if excl && (l == i || l == j) {
				continue
			}
			x := math.Exp(ca*ei[l] + cb*ej[l] - mx)
			w += x
			sg += x * g[l]
		}
		wc[c], gc[c] = w, sg
	}
}

// fisherF returns √(Σ_c p(c)(m_c − m)²) from the per-class sums, written as
// Σ_c (G_c − m W_c)²/(W_c W); classes without weight contribute 0, and so
// does a pair with no weight at all.
func fisherF(wc, gc []float64) float64 {
	var W, G float64
	for c := range wc {
		W += wc[c]
		G += gc[c]
	}
	if !(W > 0) {
		return 0
	}
	m := G / W
	var f2 float64
	for c, w := range wc {
		if w > 0 {
			// (d/W)·(d/w), not d²/(wW): wW can underflow.
			d := gc[c] - m*w
			f2 += (d / W) * (d / w)
		}
	}
	return math.Sqrt(f2)
}

// SparseSums holds the sparse path integrands of SparsePathSums for
// the pairs (i, Idx[i·K+q]): F0 = F_ij(0), F1 = F_ij(1) and Mid =
// Σ_{t=1}^{T−1} F_ij(t/T), as in PathSums.
type SparseSums struct {
	Idx         []int32
	F0, F1, Mid []float64
	// Kept counts the Parzen terms used over all pairs, Dense the terms
	// that untruncated sums would have used.
	Kept, Dense int64
	Fallbacks   int64 // (pair, path point) evaluations redone in the log domain
}

// SparsePathSums computes the Fisher path integrands of PathSums for
// the pairs (i, j) with j among the knn nearest neighbours of i in the
// kernel squared distance d²_ij = s_ii + s_jj − 2s_ij (ties by index; the
// point itself excluded), with truncated Parzen sums. Work memory is one
// n×n float64 table plus O(n) per worker.
//
// Truncation: for a positive semi-definite s every point of the path is at
// distance at least r_l = max(0, (d_il + d_jl − d_ij)/2) from x_l (triangle
// inequality on plain distances), and at distance at most R from some point
// that is kept, with R = d_ij/2 (the nearer end point) or, with
// ExcludeEndpoints, the smallest max(d_il, d_jl) over the other neighbours l
// of i. Point l is dropped when r_l² − R² > 2σ² ln(1/SparseDrop), so
// at every path point its normalised weight is below ε = SparseDrop
// and the dropped mass is below nε. Since Var_ξ(g) and E_ξ[Var(g|c)] are
// minima of functionals linear in ξ with integrands in [0, G²], F² changes
// by at most 2nεG², G the spread max_l g_l − min_l g_l.
//
// Weights are exp(E_il)·(exp(E_jl/T)·exp(−E_il/T))^t, all factors from
// tables (an n×n table of exp(E/T), as large as s, and per-row ones), then
// T multiplications, which matches the direct exponential to about 3T ulp; a pair step whose normaliser is below
// 2⁻⁹⁶⁰ is redone in the log domain and counted. Each row is computed by
// one worker in a fixed order: results do not depend on the thread count.
// Panics as PathSums, and unless 1 ≤ knn ≤ n−1.
func SparsePathSums(ctx context.Context, s []float64, n int, classes []int, k, knn int, p PathParams) (*SparseSums, error) {
	checkFisher(s, n, classes, k, p)
	if knn < 1 || knn > n-1 {
		panic(fmt.Sprintf("fisher: SparsePathSums: knn = %d out of range [1, n−1]", knn))
	}
	r := &SparseSums{
		Idx: make([]int32, n*knn),
		F0:  make([]float64, n*knn), F1: make([]float64, n*knn), Mid: make([]float64, n*knn),
	}
	ord, _ := classOrder(classes, k)
	const grain = 4
	workers := kernels.Workers(n, p.Threads, grain)
	ws := make([]sparseWork, workers)
	for w := range ws {
		ws[w] = newSparseWork(n, k, knn, p.Steps)
	}
	counts := make([][3]int64, workers)
	sp := sparseParams{
		slack: 2 * p.Sigma * p.Sigma * math.Log(1/SparseDrop),
		inv:   -1 / (2 * p.Sigma * p.Sigma),
		ord:   ord,
		diag:  make([]float64, n),
	}
	for l := range n {
		sp.diag[l] = s[l*n+l]
	}
	// y = exp(E/T): one exponential per (row, column) instead of one per
	// (pair, kept term).
	sp.y = make([]float64, n*n)
	if err := kernels.ParallelFor(ctx, n, p.Threads, 16, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			row := sp.y[j*n : (j+1)*n]
			kernels.KernelSqDistRow(row, s, n, j)
			for l, v := range row {
				row[l] = math.Exp(sp.inv * v / float64(p.Steps))
			}
		}
	}); err != nil {
		return nil, err
	}
	var (
		progMu   sync.Mutex
		progDone int64
	)
	err := kernels.ParallelForWorker(ctx, n, p.Threads, grain, func(w, lo, hi int) {
		wk := &ws[w]
		for i := lo; i < hi; i++ {
			wk.row(r, s, n, classes, knn, i, p, &sp, &counts[w])
		}
		if p.Progress != nil {
			progMu.Lock()
			progDone += int64(hi - lo)
			p.Progress(progDone, int64(n))
			progMu.Unlock()
		}
	})
	if err != nil {
		return nil, err
	}
	for _, c := range counts {
		r.Kept += c[0]
		r.Dense += c[1]
		r.Fallbacks += c[2]
	}
	return r, nil
}

type sparseParams struct {
	slack, inv float64
	ord        []int
	diag       []float64 // s_ll
	y          []float64 // exp(E/T), n×n
}

// sparseWork is one worker's scratch space for SparsePathSums.
type sparseWork struct {
	d2i        []float64      // squared distances from i
	di, xi     []float64      // their square roots, and exp(E_il)
	nearest    kernels.RowKNN // selects the row's knn nearest neighbours
	dist       []float64      // d² of the neighbours
	ball       []int32        // candidates of row i, in class order
	ei, ej, g  []float64      // kept terms of the pair, in class order
	xl         []float64      // exp(ei) of the kept terms
	rl         []float64      // exp((ej − ei)/T) of the kept terms (if ei ≥ −700)
	yinv       []float64      // exp(−E_il/T)
	cnt        []int          // kept terms per class
	wcT, gcT   []float64      // class sums per path point, (T+1)×k
	accW, accG []float64      // accumulators per path point
	lg         []float64
	wc, gc     []float64
	f          []float64 // F at each of the T+1 path points
}

func newSparseWork(n, k, knn, T int) sparseWork {
	return sparseWork{
		d2i: make([]float64, n), yinv: make([]float64, n), di: make([]float64, n), xi: make([]float64, n), dist: make([]float64, knn),
		ball: make([]int32, 0, n), ei: make([]float64, 0, n), xl: make([]float64, 0, n), rl: make([]float64, 0, n), ej: make([]float64, 0, n), g: make([]float64, 0, n),
		cnt: make([]int, k), wcT: make([]float64, (T+1)*k), gcT: make([]float64, (T+1)*k),
		accW: make([]float64, T+1), accG: make([]float64, T+1), lg: make([]float64, n),
		wc: make([]float64, k), gc: make([]float64, k), f: make([]float64, T+1),
	}
}

// radius2 returns R² of the pair (i, idx[q]) (see SparsePathSums).
func (wk *sparseWork) radius2(s []float64, n int, idx []int32, q int, excl bool) float64 {
	if !excl {
		return wk.dist[q] / 4
	}
	j := int(idx[q])
	best := math.Inf(1)
	sjj := s[j*n+j]
	for q2, l32 := range idx {
		if q2 == q {
			continue
		}
		l := int(l32)
		d2jl := max(0, sjj+s[l*n+l]-2*s[j*n+l])
		best = min(best, max(wk.dist[q2], d2jl))
	}
	return best
}

// row computes the sparse results of row i; counts gets the kept terms,
// the dense terms and the fallbacks.
func (wk *sparseWork) row(r *SparseSums, s []float64, n int, classes []int, knn, i int, p PathParams, sp *sparseParams, counts *[3]int64) {
	kernels.KernelSqDistRow(wk.d2i, s, n, i)
	idx := r.Idx[i*knn : (i+1)*knn]
	wk.nearest.Find(idx, wk.dist, wk.d2i, i)
	for l, v := range wk.d2i {
		wk.di[l] = math.Sqrt(v)
		wk.xi[l] = math.Exp(sp.inv * v)
		wk.yinv[l] = math.Exp(-sp.inv * v / float64(p.Steps))
	}
	// Every kept l of the pair (i, j) has d_il ≤ d_ij + Θ_ij.
	reach := 0.0
	for q := range idx {
		reach = max(reach, math.Sqrt(wk.dist[q])+math.Sqrt(wk.radius2(s, n, idx, q, p.ExcludeEndpoints)+sp.slack))
	}
	wk.ball = wk.ball[:0]
	for _, l := range sp.ord {
		if wk.di[l] <= reach {
			wk.ball = append(wk.ball, int32(l))
		}
	}
	T := p.Steps
	for q := range idx {
		j := int(idx[q])
		dij := math.Sqrt(wk.dist[q])
		theta2 := wk.radius2(s, n, idx, q, p.ExcludeEndpoints) + sp.slack
		// l is kept iff r_l ≤ Θ, i.e. d_jl ≤ τ_l = 2Θ + d_ij − d_il (no sqrt).
		theta := math.Sqrt(theta2)
		sjj := s[j*n+j]
		wk.ei, wk.ej, wk.g, wk.xl, wk.rl = wk.ei[:0], wk.ej[:0], wk.g[:0], wk.xl[:0], wk.rl[:0]
		clear(wk.cnt)
		for _, l32 := range wk.ball {
			l := int(l32)
			if p.ExcludeEndpoints && (l == i || l == j) {
				continue
			}
			d2jl := sjj + sp.diag[l] - 2*s[j*n+l]
			if d2jl < 0 || l == j {
				d2jl = 0
			}
			if tau := 2*theta + dij - wk.di[l]; tau < 0 || d2jl > tau*tau {
				continue
			}
			wk.cnt[classes[l]]++
			wk.ei = append(wk.ei, sp.inv*wk.d2i[l])
			wk.xl = append(wk.xl, wk.xi[l])
			// r = exp((b−a)/T) from the tables unless exp(−a/T) could
			// overflow or exp(b/T) is subnormal (too imprecise to scale up).
			a, b := sp.inv*wk.d2i[l], sp.inv*d2jl
			var r float64
			if y := sp.y[j*n+l]; a >= -700 && y >= 0x1p-1022 {
				r = y * wk.yinv[l]
			} else if a >= b || a >= -700 {
				r = math.Exp((b - a) / float64(T))
			}
			wk.rl = append(wk.rl, r)
			wk.ej = append(wk.ej, sp.inv*d2jl)
			wk.g = append(wk.g, s[j*n+l]-s[i*n+l])
		}
		m := len(wk.g)
		counts[0] += int64(m)
		counts[1] += int64(n)
		if p.ExcludeEndpoints {
			counts[1] -= 2
		}
		wk.pathSums(T)
		for t := 0; t <= T; t++ {
			k := len(wk.wc)
			copy(wk.wc, wk.wcT[t*k:(t+1)*k])
			copy(wk.gc, wk.gcT[t*k:(t+1)*k])
			var W float64
			for _, w := range wk.wc {
				W += w
			}
			if W < fisherUnderflow {
				counts[2]++
				wk.logSums(float64(T-t)/float64(T), float64(t)/float64(T))
			}
			wk.f[t] = fisherF(wk.wc, wk.gc)
		}
		var midSum float64
		for t := 1; t < T; t++ {
			midSum += wk.f[t]
		}
		r.F0[i*knn+q], r.F1[i*knn+q], r.Mid[i*knn+q] = wk.f[0], wk.f[T], midSum
	}
}

// pathSums fills wcT[t·k+c] and gcT[t·k+c], the class sums of the weights
// and weighted g at path point t, for the kept terms of the current pair.
// The weight of term v at point t is exp(a)·r^t with r = exp((b−a)/T),
// a = E_il, b = E_jl, or from the j end, exp(b)·r^−(T−t), when a < b and
// exp(a) would lose precision (a < −700); so the running product never
// exceeds 1 and only underflows where the weight does.
func (wk *sparseWork) pathSums(T int) {
	accW, accG := wk.accW[:T+1], wk.accG[:T+1]
	k := len(wk.cnt)
	lo := 0
	for c, nc := range wk.cnt {
		clear(accW)
		clear(accG)
		for v := lo; v < lo+nc; v++ {
			a, b, gv := wk.ei[v], wk.ej[v], wk.g[v]
			if a >= b || a >= -700 {
				x := wk.xl[v] // exp(a)
				r := wk.rl[v] // exp((b−a)/T)
				for t := range accW {
					accW[t] += x
					accG[t] += x * gv
					x *= r
				}
			} else {
				x := math.Exp(b)
				r := math.Exp((a - b) / float64(T))
				for t := T; t >= 0; t-- {
					accW[t] += x
					accG[t] += x * gv
					x *= r
				}
			}
		}
		for t := range accW {
			wk.wcT[t*k+c], wk.gcT[t*k+c] = accW[t], accG[t]
		}
		lo += nc
	}
}

// logSums fills the class sums of the current pair in the log domain.
func (wk *sparseWork) logSums(ca, cb float64) {
	lg := wk.lg[:len(wk.g)]
	mx := math.Inf(-1)
	for v := range lg {
		lg[v] = ca*wk.ei[v] + cb*wk.ej[v]
		mx = max(mx, lg[v])
	}
	lo := 0
	for c, nc := range wk.cnt {
		var w, sg float64
		for v := lo; v < lo+nc; v++ {
			x := math.Exp(lg[v] - mx)
			w += x
			sg += x * wk.g[v]
		}
		wk.wc[c], wk.gc[c] = w, sg
		lo += nc
	}
}
