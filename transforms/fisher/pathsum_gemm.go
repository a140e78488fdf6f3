package fisher

import (
	"context"
	"math"

	"github.com/ordinate/ordinate/kernels"
)

// gemmMinN is the smallest n for which PathSums uses Gemm: below it the
// products are too small for their per-call cost (the direct loop is
// faster at N = 100, a draw at N = 435: BENCHMARKS.md, "Fisher distances
// (transforms/fisher)", "Where the Gemm form starts").
const gemmMinN = 256

// gemmMinClass is the smallest mean class size for which PathSums uses
// Gemm: the class sizes are the products' inner dimension (n = 800, T = 10:
// Gemm wins clearly with 5 classes, narrowly with 20 classes of 40 points,
// and loses with 40 classes of 20 points; BENCHMARKS.md, "Fisher distances
// (transforms/fisher)", "Where the Gemm form starts").
const gemmMinClass = 32

// gemmScratch sets the row block of PathSums: b rows with 6k·b·n·8 bytes
// at most gemmScratch. Fewer, larger blocks pack and transpose each
// column's tables fewer times; the strips themselves are only b × chunk.
const gemmScratch = 256 << 20

// PathSums computes the unscaled Fisher path integrands of every pair
// of points of the symmetric n×n kernel s (already corrected to be PSD;
// only its values are used, so an indefinite s gives a pseudo-metric) with
// class labels classes[i] ∈ [0, k).
//
// For the path x(a) = (1−a)x_i + a x_j in feature space, the Parzen weights
// are ξ_l(a) = softmax_l(−[(1−a)d²_il + a d²_jl]/(2σ²)) with d² the kernel
// squared distances, g_l = s_jl − s_il, m = Σ ξ_l g_l, p(c) = Σ_{l∈c} ξ_l,
// m_c = Σ_{l∈c} ξ_l g_l / p(c) and F_ij(a) = √(Σ_c p(c)(m_c − m)²).
// PathSums writes f0[i·n+j] = F_ij(0) for every i ≠ j (so that
// f0[j·n+i] = F_ij(1)) and mid[i·n+j] = mid[j·n+i] = Σ_{t=1}^{T−1} F_ij(t/T);
// diagonals are set to 0. The left-rule path length is then
// (f0[i·n+j] + mid[i·n+j])/(σ²T) and the trapezoid one
// (½f0[i·n+j] + ½f0[j·n+i] + mid[i·n+j])/(σ²T).
//
// From n = 256 on, with classes of 32 points or more on average (below,
// the direct loop is faster), the sums are matrix products (kernels.Gemm).
// With tables
// X_q = exp((q/T)E), E = −D²/(2σ²) ≤ 0 (columns in class order, X_0 = 1),
// the class sums at path point t are
//
//	W_c(t) = X_{T−t,c} X_{t,c}ᵀ,  G_c(t) = U_c(T−t)ᵀ − U_c(t),  U_c(t) = X_{T−t,c}(X_{t,c}∘H)ᵀ
//
// with H = D²/2: F is unchanged when a constant is added to g, and
// g_l = s_jl − s_il differs from h_l = (d²_il − d²_jl)/2 by the constant
// (s_jj − s_ii)/2. The terms of these products are ξ_l·d²/2, small where
// the weights are large, instead of ξ_l·s, so the difference G_c cancels
// far less for near pairs than with s (see the package documentation for
// the error). W_c(T−t) = W_c(t)ᵀ, so the products of t ≤ T/2 give all
// points. ExcludeEndpoints zeroes the diagonal entries (i, i) of every
// table, which drops l = i and l = j from every product exactly.
//
// The rows of a block of b points go through all path points at once
// (products with the block's rows only: a product and its transpose have
// the same terms in the same order), in chunks of columns: the diagonal
// block, then 256 columns at a time, whose 6k strips of products are
// still in cache when F reads them back (strips of the whole width came
// back from memory). F multiplies by reciprocals of the class sums, one
// division per class. Per pair and point the class sums also
// give a bound on the difference from the direct sums (gemmBound.f: the
// rounding of the products and of H); a pair whose bounds, summed over the
// points, exceed 1e-11 of its path sum F_ij(0) + F_ij(1) + Σ F_ij(t/T) is
// redone by the direct loop (pathSumsDirect's code, so its bits). That
// catches near pairs (h small against d²), exact duplicates (F = 0) and
// pairs in regions of one class (F tiny); on the benchmark's mixture none
// is redone, on the voting copy at perplexity 30 over a quarter.
//
// A pair step whose normaliser is below 2⁻⁹⁶⁰ is recomputed in the log
// domain with max subtraction and counted in fallbacks. Gemm is
// bit-identical for any thread count and each element's sum does not
// depend on the shape of the product, so results are bit-identical for any
// thread count and a Pairs-restricted run gives the full run's bits; rows
// are kept in input order, so a tile of the fisher stage is a range of row
// blocks and columns and costs its share of the work.
// Memory: T+4 n×n float64 work arrays (X_0…X_T, H, and s and E with
// columns in class order) besides s, f0 and mid, plus 6k·b·max(b, 256)
// values of product strips, (T+1)·b·n path values, 6b·n block rows (Y
// and the packed operands) and 2·max(b, 256)·n chunk rows, b ≤ 1024
// (b = 559 at n = 2,000 with 5 classes: about 250 MB in all; the
// benchmark's peak RSS against the direct loop's is in BENCHMARKS.md,
// "Fisher distances (transforms/fisher)").
//
// Wrong sizes, σ ≤ 0, T < 1 or a class out of range panic; the only error is
// ctx.Err().
func PathSums(ctx context.Context, f0, mid, s []float64, n int, classes []int, k int, p PathParams) (fallbacks int64, err error) {
	checkFisher(s, n, classes, k, p)
	present := 0
	_, bounds := classOrder(classes, k)
	for c := range k {
		if bounds[c+1] > bounds[c] {
			present++
		}
	}
	if n < gemmMinN || n < gemmMinClass*present {
		return pathSumsDirect(ctx, f0, mid, s, n, classes, k, p)
	}
	fallbacks, _, err = pathSumsGemm(ctx, f0, mid, s, n, classes, k, p, gemmOpts{})
	return fallbacks, err
}

// gemmOpts are PathSums' internal choices, which the tests vary.
type gemmOpts struct {
	keep bool // keep every Gemm value: no pair is redone directly
	rows int  // rows per block; 0: from gemmScratch
	cols int  // columns per chunk beyond the diagonal block; 0: gemmCols
}

// pathSumsGemm is PathSums; it also returns the number of pairs redone
// directly.
func pathSumsGemm(ctx context.Context, f0, mid, s []float64, n int, classes []int, k int, p PathParams, opt gemmOpts) (fallbacks, redone int64, err error) {
	checkFisher(s, n, classes, k, p)
	if len(f0) != n*n || len(mid) != n*n {
		panic("fisher: PathSums: bad output size")
	}
	ord, bounds := classOrder(classes, k)
	pos := make([]int, n)
	for a, o := range ord {
		pos[o] = a
	}
	T := p.Steps
	nn := n * n
	// Rows stay in input order (so that the tiles of Pairs are contiguous
	// row ranges); columns, the summation index l, go in class order.
	sp := make([]float64, nn) // s
	e := make([]float64, nn)  // E
	x := make([]float64, (T+1)*nn)
	h := make([]float64, nn) // H = D²/2; the products take X_q∘H by rows
	inv := -1 / (2 * p.Sigma * p.Sigma)
	// A Pairs-restricted run (a tile) needs the tables' rows of its pairs
	// only, and row blocks over its rows only.
	rlo, rhi, tlo, thi := wantedRows(n, p.Pairs)
	if err := kernels.ParallelFor(ctx, thi-tlo, p.Threads, 16, func(lo, hi int) {
		d2 := make([]float64, n)
		for i := tlo + lo; i < tlo+hi; i++ {
			kernels.KernelSqDistRow(d2, s, n, i)
			srow, erow := s[i*n:(i+1)*n], e[i*n:(i+1)*n]
			for a, o := range ord {
				sp[i*n+a] = srow[o]
				erow[a] = inv * d2[o]
			}
			hr := h[i*n : (i+1)*n]
			for a, o := range ord {
				hr[a] = d2[o] / 2
			}
			for q := 0; q <= T; q++ {
				c := float64(q) / float64(T)
				xr := x[q*nn+i*n : q*nn+(i+1)*n]
				for a := range xr {
					v := 1.0
					if q > 0 {
						v = math.Exp(c * erow[a])
					}
					xr[a] = v
				}
				if p.ExcludeEndpoints {
					xr[pos[i]] = 0
				}
			}
		}
	}); err != nil {
		return 0, 0, err
	}
	clear(f0)
	clear(mid)

	// Row blocks of b rows. Per class six strips of products of the
	// block's rows with a chunk of columns (a product and its transpose
	// have the same terms, summed in the same order, so either gives the
	// same bits):
	//	0: W(t)[I,J]     2: U(t)[I,J]     4: U(T−t)[I,J]
	//	1: W(t)[J,I]ᵀ    3: U(t)[J,I]ᵀ    5: U(T−t)[J,I]ᵀ
	// then the b × n × (T+1) values of F.
	b := opt.rows
	if b <= 0 {
		b = max(gemmMinRows, min(gemmMaxRows, gemmScratch/8/(6*max(k, 1)*n)))
	}
	b = min(b, n) // the buffers below are sized by b
	wj := opt.cols
	if wj <= 0 {
		wj = gemmCols
	}
	width := max(b, wj) // of a chunk: wj columns, or the diagonal block
	g := &gemmPass{n: n, k: k, T: T, b: b, x: x, h: h, e: e, sp: sp, pos: pos, bounds: bounds, p: p,
		strips: make([][]float64, 6*k),
		yI:     [2][]float64{make([]float64, b*n), make([]float64, b*n)},
		fv:     make([]float64, (T+1)*b*n),
		errs:   make([]float64, b*n),
		logs:   make([]int32, b*n),
		eb:     gemmBound{nc: make([]float64, k)},
		pa:     make([][4]kernels.PackedA, k),
	}
	for q := range g.strips {
		g.strips[q] = make([]float64, b*width)
	}
	for c := range k {
		g.eb.nc[c] = float64(bounds[c+1] - bounds[c])
	}
	for q := range g.yJ {
		g.yJ[q] = make([]float64, width*n)
	}
	for _, v := range s { // max s_ll for a PSD s; any s is allowed here
		g.eb.smax = max(g.eb.smax, math.Abs(v))
	}
	workers := kernels.Workers(b, p.Threads, 1)
	fb := make([]int64, workers)
	g.ws = make([]fisherWork, workers)
	for w := range g.ws {
		g.ws[w] = fisherWork{g: make([]float64, n), wc: make([]float64, k), gc: make([]float64, k), ub: make([]float64, k), seg: make([]int, 0, 6*k)}
	}
	ws, fv, errs, logs := g.ws, g.fv, g.errs, g.logs
	total := int64(n) * int64(n-1) / 2
	var done int64
	for i := range rlo { // rows before the first wanted one
		done += int64(n - 1 - i)
	}
	for i0 := rlo; i0 < rhi; i0 += b {
		i1 := min(i0+b, rhi)
		m := i1 - i0
		// Columns j of the block's pairs (i < j, wanted).
		jlo, jhi := n, 0
		for i := i0; i < i1; i++ {
			for j := i + 1; j < n; j++ {
				if p.Pairs == nil || p.Pairs(i, j) {
					jlo, jhi = min(jlo, j), max(jhi, j+1)
					if p.Pairs == nil {
						break
					}
				}
			}
		}
		if p.Pairs == nil {
			jhi = n
		}
		if jlo < jhi {
			g.i0, g.i1, g.jlo = i0, i1, jlo
			// Columns [ca, jhi) in chunks: first the diagonal block I×I when
			// a pair lies in it (its odd strips are transposes of the even
			// ones), then chunks of wj columns, so that a chunk's 6k strips
			// are still in cache when the F loop reads them.
			ca := jlo
			if jlo < i1 {
				ca = i0
			}
			clear(errs)
			clear(logs)
			for t := 0; 2*t <= T; t++ {
				if err := g.blockRowsY(ctx, t); err != nil {
					return 0, 0, err
				}
				if err := g.packRows(ctx, t); err != nil {
					return 0, 0, err
				}
				for cs := ca; cs < jhi; {
					ce := min(cs+wj, jhi)
					if cs == i0 {
						ce = min(i1, jhi)
					}
					if err := g.chunk(ctx, t, cs, ce); err != nil {
						return 0, 0, err
					}
					cs = ce
				}
			}
			if err := kernels.ParallelForWorker(ctx, m, p.Threads, 1, func(w, r0, r1 int) {
				wk := &ws[w]
				for i := i0 + r0; i < i0+r1; i++ {
					r := i - i0
					for j := max(i+1, jlo); j < jhi; j++ {
						if p.Pairs != nil && !p.Pairs(i, j) {
							continue
						}
						q := r*n + j
						var sum, all float64
						for t := 1; t < T; t++ {
							sum += fv[t*b*n+q]
						}
						a, z := fv[q], fv[T*b*n+q]
						all = a + z + sum
						if !opt.keep && !(errs[q] <= gemmTrust*all) {
							// Too close to the rounding of the products (near
							// pairs, pure regions): redo the pair as pathSumsDirect.
							u, v := i, j
							if pos[u] > pos[v] {
								u, v = v, u
							}
							a, z, sum = wk.pair(x, u*n, v*n, nn, sp[u*n:(u+1)*n], sp[v*n:(v+1)*n], e[u*n:(u+1)*n], e[v*n:(v+1)*n], bounds, pos[u], pos[v], T, p.ExcludeEndpoints, &fb[w])
							f0[u*n+v], f0[v*n+u] = a, z
							mid[u*n+v], mid[v*n+u] = sum, sum
							wk.redone++
							continue
						}
						fb[w] += int64(logs[q])
						f0[i*n+j], f0[j*n+i] = a, z
						mid[i*n+j], mid[j*n+i] = sum, sum
					}
				}
			}); err != nil {
				return 0, 0, err
			}
		}
		if p.Progress != nil {
			before := done
			for i := i0; i < i1; i++ {
				done += int64(n - 1 - i)
			}
			if done > before { // a last block of row n−1 alone adds no pair
				p.Progress(done, total)
			}
		}
	}
	if p.Progress != nil && done < total {
		p.Progress(total, total)
	}
	for w, v := range fb {
		fallbacks += v
		redone += ws[w].redone
	}
	return fallbacks, redone, nil
}

// wantedRows returns the rows [rlo, rhi) that hold the first object i < j
// of a wanted pair, and the rows [tlo, thi) of all the wanted pairs' objects
// (a range that covers both ends of every pair): all rows for pairs nil.
func wantedRows(n int, pairs func(i, j int) bool) (rlo, rhi, tlo, thi int) {
	if pairs == nil {
		return 0, max(n-1, 0), 0, n
	}
	rlo, clo := n, n
	for i := range n {
		for j := i + 1; j < n; j++ {
			if pairs(i, j) {
				rlo, rhi = min(rlo, i), i+1
				clo, thi = min(clo, j), max(thi, j+1)
			}
		}
	}
	if rlo >= rhi {
		return 0, 0, 0, 0
	}
	return rlo, rhi, min(rlo, clo), thi
}

// gemmPass is the state of one pathSumsGemm run: the tables (rows in input
// order, columns in class order), the current row block [i0, i1) with its
// first wanted column jlo, and the block's buffers.
type gemmPass struct {
	n, k, T, b  int
	x, h, e, sp []float64 // X_0…X_T, H, E, s
	pos, bounds []int
	p           PathParams
	i0, i1, jlo int

	strips [][]float64  // 6 per class, b × chunk width
	yI     [2][]float64 // the block's rows of Y_t = X_t∘H and Y_{T−t}
	yJ     [2][]float64 // the chunk's rows of Y_t and Y_{T−t}
	fv     []float64    // F at every path point, (T+1) × b × n
	errs   []float64    // Σ_t of the error bounds of F_ij(t), b × n
	logs   []int32      // fallbacks per pair, b × n
	eb     gemmBound
	ws     []fisherWork
	pa     [][4]kernels.PackedA // per class: X_{T−t}, X_t, Y_t, Y_{T−t} of the block's rows
	pb     [4]kernels.PackedB   // one class's columns of the chunk's rows of X_t, Y_t, X_{T−t}, Y_{T−t}
}

// X returns table q from row i on.
func (g *gemmPass) X(q, i int) []float64 { return g.x[q*g.n*g.n+i*g.n:] }

// blockRowsY sets the block's rows of Y_t and Y_{T−t}.
func (g *gemmPass) blockRowsY(ctx context.Context, t int) error {
	n := g.n
	return kernels.ParallelFor(ctx, g.i1-g.i0, g.p.Threads, 16, func(r0, r1 int) {
		for q, tq := range [2]int{t, g.T - t} {
			for r := r0; r < r1; r++ {
				xr, hr := g.X(tq, g.i0+r)[:n], g.h[(g.i0+r)*n:(g.i0+r+1)*n]
				yr := g.yI[q][r*n : (r+1)*n]
				for a, v := range xr {
					yr[a] = v * hr[a]
				}
			}
		}
	})
}

// packRows packs the block's rows of X_{T−t}, X_t, Y_t and Y_{T−t}, class
// by class, once for all the chunks of path point t (X_t and Y_{T−t} only
// when T−t ≠ t).
func (g *gemmPass) packRows(ctx context.Context, t int) error {
	n, T, i0 := g.n, g.T, g.i0
	m := g.i1 - i0
	ops := [4][]float64{g.X(T-t, i0), g.X(t, i0), g.yI[0], g.yI[1]}
	for c := range g.k {
		lo, nc := g.bounds[c], g.bounds[c+1]-g.bounds[c]
		for q, a := range ops {
			if 2*t == T && q%2 == 1 {
				continue
			}
			if err := kernels.PackA(ctx, g.p.Threads, &g.pa[c][q], false, m, nc, a[lo:], n); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunkRowsY sets the rows [cs, ce) of Y_t and, when T−t ≠ t, Y_{T−t}.
func (g *gemmPass) chunkRowsY(ctx context.Context, t, cs, ce int) error {
	n, T := g.n, g.T
	return kernels.ParallelFor(ctx, ce-cs, g.p.Threads, 16, func(r0, r1 int) {
		for q, tq := range [2]int{t, T - t} {
			if q == 1 && 2*t == T {
				break
			}
			for r := r0; r < r1; r++ {
				xr, hr := g.X(tq, cs+r)[:n], g.h[(cs+r)*n:(cs+r+1)*n]
				yr := g.yJ[q][r*n : (r+1)*n]
				for a, v := range xr {
					yr[a] = v * hr[a]
				}
			}
		}
	})
}

// chunk computes F at path points t and T−t for the block's pairs with
// columns [cs, ce): the 6k product strips of the chunk, then F from them.
// The chunk that starts at i0, the block's own columns, takes its odd
// strips by transposing the even ones.
func (g *gemmPass) chunk(ctx context.Context, t, cs, ce int) error {
	n, T, i0 := g.n, g.T, g.i0
	w := ce - cs
	diag := cs == i0
	mirror := 2*t < T // T−t ≠ t; otherwise strip 3 serves as 5
	if err := g.chunkRowsY(ctx, t, cs, ce); err != nil {
		return err
	}
	// The chunk's rows of X_t, Y_t, X_{T−t}, Y_{T−t}, class by class, as
	// right operands: op(B) = (rows [cs, ce), class columns)ᵀ.
	src := [4][]float64{g.X(t, cs), g.yJ[0], g.X(T-t, cs), g.yJ[1]}
	// X_{T−t} serves the odd strips only (X_t itself when T−t = t).
	need := [4]bool{true, true, mirror && !diag, mirror}
	for c := range g.k {
		lo, nc := g.bounds[c], g.bounds[c+1]-g.bounds[c]
		st := g.strips[6*c : 6*c+6]
		for q, b := range src {
			if need[q] {
				if err := kernels.PackB(ctx, g.p.Threads, &g.pb[q], true, nc, w, b[lo:], n); err != nil {
					return err
				}
			}
		}
		pXTt := &g.pb[2]
		if !mirror {
			pXTt = &g.pb[0]
		}
		pa := &g.pa[c]
		prods := [6]struct {
			a *kernels.PackedA
			b *kernels.PackedB
		}{
			{&pa[0], &g.pb[0]},
			{&pa[1], pXTt},
			{&pa[0], &g.pb[1]},
			{&pa[2], pXTt},
			{&pa[1], &g.pb[3]},
			{&pa[3], &g.pb[0]},
		}
		for q, pr := range prods {
			if (!mirror && (q == 1 || q >= 4)) || (diag && q%2 == 1) {
				continue
			}
			if err := kernels.GemmPacked(ctx, g.p.Threads, pr.a, pr.b, 1, 0, st[q], w); err != nil {
				return err
			}
		}
		if diag {
			for q := 1; q < 6; q += 2 {
				if mirror || q == 3 {
					// Rows i ≥ ce of the block have no pair in the chunk.
					if err := transposeBlock(ctx, g.p.Threads, st[q], st[q-1], w, w); err != nil {
						return err
					}
				}
			}
		}
	}
	return g.pathPoints(ctx, t, cs, ce)
}

// pathPoints sets F at path points t and T−t, with its error bounds, for
// the block's pairs with columns [cs, ce) from the chunk's strips.
func (g *gemmPass) pathPoints(ctx context.Context, t, cs, ce int) error {
	n, T, b, i0 := g.n, g.T, g.b, g.i0
	w := ce - cs
	mirror := 2*t < T
	u5 := 5 // U(T−t)[J,I]ᵀ, or U(t)[J,I]ᵀ when T−t = t
	if !mirror {
		u5 = 3
	}
	return kernels.ParallelForWorker(ctx, g.i1-i0, g.p.Threads, 1, func(wi, r0, r1 int) {
		wk := &g.ws[wi]
		for i := i0 + r0; i < i0+r1; i++ {
			r := i - i0
			for j := max(i+1, g.jlo, cs); j < ce; j++ {
				if g.p.Pairs != nil && !g.p.Pairs(i, j) {
					continue
				}
				at := r*w + (j - cs) // in the strips
				q := r*n + j
				f, bound := g.point(wk, at, 0, u5, 2, i, j, t, &g.logs[q])
				g.fv[t*b*n+q] = f
				g.errs[q] += bound
				if !mirror {
					continue
				}
				f, bound = g.point(wk, at, 1, 3, 4, i, j, T-t, &g.logs[q])
				g.fv[(T-t)*b*n+q] = f
				g.errs[q] += bound
			}
		}
	})
}

// point returns F_ij at path point t and its error bound from element at
// of the strips: per class W_c in strip sw and the two U sums whose
// difference is G_c in strips sa and sz. It multiplies by reciprocals where
// gemmBound.f divides (one division per class instead of four: F differs
// from f's by rounding), and leaves pairs whose normaliser underflows, or
// whose class sums are subnormal, to f.
func (g *gemmPass) point(wk *fisherWork, at, sw, sa, sz, i, j, t int, logs *int32) (f, bound float64) {
	st := g.strips
	var W, G float64
	for c := range g.k {
		W += st[6*c+sw][at]
		G += st[6*c+sa][at] - st[6*c+sz][at]
	}
	if W < fisherUnderflow {
		return g.slowPoint(wk, at, sw, sa, sz, i, j, t, logs)
	}
	const u = 0x1p-53
	iW := 1 / W
	mean := G * iW
	var f2, b2 float64
	for c := range g.k {
		w := st[6*c+sw][at]
		if !(w > 0) {
			continue
		}
		if w < 0x1p-1000 { // 1/w would overflow
			return g.slowPoint(wk, at, sw, sa, sz, i, j, t, logs)
		}
		iw := 1 / w
		a, z := st[6*c+sa][at], st[6*c+sz][at]
		d := (a - z) - mean*w
		f2 += (d * iW) * (d * iw)
		e := u * ((g.eb.nc[c]+2)*(a+z) + 13*g.eb.smax*w)
		b2 += (e * iW) * (e * iw)
	}
	return math.Sqrt(f2), 2 * math.Sqrt(b2)
}

// slowPoint is point through gemmBound.f: the class sums copied out, the
// log domain when the normaliser underflows.
func (g *gemmPass) slowPoint(wk *fisherWork, at, sw, sa, sz, i, j, t int, logs *int32) (f, bound float64) {
	st := g.strips
	for c := range g.k {
		a, z := st[6*c+sa][at], st[6*c+sz][at]
		wk.wc[c], wk.gc[c], wk.ub[c] = st[6*c+sw][at], a-z, a+z
	}
	return g.eb.f(wk, g.e, g.sp, g.n, g.bounds, i, j, g.pos, t, g.T, g.p.ExcludeEndpoints, logs)
}

// transposeBlock sets the m×m block at the start of dst (stride ld) to the
// transpose of the one in src, rows of dst split over threads.
func transposeBlock(ctx context.Context, threads int, dst, src []float64, ld, m int) error {
	return kernels.ParallelFor(ctx, m, threads, 64, func(r0, r1 int) {
		const tb = 16 // tile edge: both sides stay in L1
		for c0 := 0; c0 < m; c0 += tb {
			c1 := min(c0+tb, m)
			for r := r0; r < r1; r++ {
				row := dst[r*ld+c0 : r*ld+c1]
				for c := range row {
					row[c] = src[(c0+c)*ld+r]
				}
			}
		}
	})
}

// Row block limits of PathSums: at least one Gemm micro-tile, at most a
// block that leaves n×(T+1) path values per row affordable.
const (
	gemmCols    = 256 // columns of a chunk: its 6k strips stay in cache
	gemmMinRows = 6
	gemmMaxRows = 1024
)

// gemmTrust is the relative error bound of a pair's path sums below which
// PathSums keeps the Gemm values; other pairs are redone directly.
const gemmTrust = 1e-11

// gemmBound holds what the error bound of a Gemm F needs: class sizes and
// the largest |s_il|.
type gemmBound struct {
	nc   []float64
	smax float64
}

// f returns F_ij at path point t from the class sums wc, gc in wk and a
// bound on its error against the direct sums with the same weights; wk.ub
// holds Σ_{l∈c} ξ_l(h_il + h_jl) (nonnegative terms). When the normaliser
// is below fisherUnderflow the sums are redone in the log domain (counted
// in logs) and the bound is 0.
//
// Bound (u = 2⁻⁵³, first order): G_c adds n_c products per side, sums of
// nonnegative terms, so its rounding is below (n_c+2)u·ub_c. d² = s_ii +
// s_ll − 2s_il is rounded by less than 6u·smax (smax = max |s_il|, which is
// max s_ll for a PSD s), H = d²/2 by 3u·smax, h_l = H_il − H_jl by 6u·smax: 13u·smax·w_c
// leaves a factor 2 for the rounding of W_c in m. F is a weighted 2-norm of
// G_c − m w_c, a projection of G, so its error is at most
// √(Σ_c δ_c²/(W w_c)); twice that is returned.
func (eb *gemmBound) f(wk *fisherWork, e, sp []float64, n int, bounds []int, i, j int, pos []int, t, T int, excl bool, logs *int32) (f, bound float64) {
	var W float64
	for _, w := range wk.wc {
		W += w
	}
	if W < fisherUnderflow {
		*logs++
		si, sj := sp[i*n:(i+1)*n], sp[j*n:(j+1)*n]
		for l := range wk.g {
			wk.g[l] = sj[l] - si[l]
		}
		ca, cb := float64(T-t)/float64(T), float64(t)/float64(T)
		logSums(wk.wc, wk.gc, e[i*n:(i+1)*n], e[j*n:(j+1)*n], wk.g, ca, cb, bounds, pos[i], pos[j], excl)
		return fisherF(wk.wc, wk.gc), 0
	}
	const u = 0x1p-53
	var b2 float64
	for c, w := range wk.wc {
		if w > 0 {
			d := u * ((eb.nc[c]+2)*wk.ub[c] + 13*eb.smax*w)
			b2 += (d / W) * (d / w)
		}
	}
	return fisherF(wk.wc, wk.gc), 2 * math.Sqrt(b2)
}
