package kernels

import (
	"context"
	"fmt"
)

// Block sizes of Gemm, in the manner of BLIS/GotoBLAS: a 6×8 tile of C is
// held in twelve AVX2 registers (or a 6×16 tile in twelve AVX-512 ones,
// over two packed strips of B) while the k loop streams a packed 6-row
// strip of A and packed 8-column strips of B. A packed kc×mc block of A
// (240 KiB) stays in the per-core L2 cache (512 KiB on Zen 3, 2 MiB on
// the Sapphire Rapids cores of the benchmark machine), a kc×nc panel of B
// (2 MiB) in L3.
const (
	gemmMR = 6    // rows of a micro-tile
	gemmNR = 8    // columns of a micro-tile
	gemmKC = 256  // depth of a packed block
	gemmMC = 120  // rows of A packed at once (a multiple of gemmMR)
	gemmNC = 1024 // columns of B packed at once

)

// Gemm computes c = alpha·op(a)·op(b) + beta·c for row-major matrices, with
// gonum's blas64 conventions: op(a) is m×k (a itself if !transA, aᵀ
// otherwise, stored with row stride lda), op(b) is k×n (stride ldb), c is
// m×n (stride ldc). With beta = 0, c is not read (NaNs in it vanish).
//
// It packs A and B into cache-sized blocks and runs a 6×8 micro-kernel:
// AVX-512 (6×16 over two strips where both are whole) or AVX2 with fused
// multiply-adds on amd64 CPUs that have them (chosen at run time, the same
// bits either way; the purego build tag turns them off), plain Go
// otherwise. The rows of
// c are split into chunks that depend only on m, on up to threads
// goroutines (≤ 0: GOMAXPROCS), and each element is summed in the same
// order whatever the thread count, so the result is bit-identical for any
// thread count on one machine. The FMA kernel rounds once per term where
// the pure-Go kernel rounds twice: the two agree to rounding, not to the
// bit.
//
// Wrong dimensions, strides or lengths panic (programmer errors, as in
// gonum's BLAS). The only error is ctx.Err(), checked between chunks; c then
// holds partial results.
func Gemm(ctx context.Context, threads int, transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) error {
	checkGemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	g := gemmBlock{transA: transA, transB: transB, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc}
	return g.run(ctx, threads, nil, nil, m, n, beta)
}

// PackedA is the left operand of a product packed as Gemm packs it, for a
// sequence of products that share it (GemmPacked). Its zero value is
// empty; PackA fills it, reusing its memory.
type PackedA struct {
	m, k, mc, kc0, chunks int
	ap                    []float64
}

// PackA packs op(a), m×k (a itself if !transA, aᵀ otherwise, row stride
// lda), into dst. Bad dimensions or lengths panic; the only error is
// ctx.Err().
func PackA(ctx context.Context, threads int, dst *PackedA, transA bool, m, k int, a []float64, lda int) error {
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	if m < 0 || k < 0 {
		panic(fmt.Sprintf("kernels: PackA: negative dimension %d×%d", m, k))
	}
	checkOperand("PackA", "a", ar, ac, lda, len(a))
	mc, kc0 := gemmBlockRows(m), min(gemmKC, k)
	chunks := (m + mc - 1) / max(mc, 1)
	blocks := (k + gemmKC - 1) / gemmKC
	*dst = PackedA{m: m, k: k, mc: mc, kc0: kc0, chunks: chunks, ap: dst.ap}
	need := blocks * chunks * mc * kc0
	if cap(dst.ap) < need {
		dst.ap = make([]float64, need)
	}
	dst.ap = dst.ap[:need]
	if m == 0 || k == 0 {
		return ctx.Err()
	}
	g := gemmBlock{transA: transA, a: a, lda: lda}
	return ParallelFor(ctx, m, threads, mc, func(lo, hi int) {
		gb := g
		for p0 := 0; p0 < k; p0 += gemmKC {
			gb.ap = dst.block(p0, lo)
			gb.packA(lo, hi, p0, min(p0+gemmKC, k))
		}
	})
}

// block is the packed block of rows [lo, lo+mc) and depth [p0, p0+kc).
func (pa *PackedA) block(p0, lo int) []float64 {
	o := (p0/gemmKC*pa.chunks + lo/pa.mc) * pa.mc * pa.kc0
	return pa.ap[o : o+pa.mc*pa.kc0]
}

// PackedB is the right operand of a product packed as Gemm packs it, for
// products that share it (GemmPacked). Its zero value is empty; PackB
// fills it, reusing its memory.
type PackedB struct {
	k, n, nc, kc0, panels, blocks int
	bp                            []float64
}

// PackB packs op(b), k×n (b itself if !transB, bᵀ otherwise, row stride
// ldb), into dst. Bad dimensions or lengths panic; the only error is
// ctx.Err().
func PackB(ctx context.Context, threads int, dst *PackedB, transB bool, k, n int, b []float64, ldb int) error {
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	if k < 0 || n < 0 {
		panic(fmt.Sprintf("kernels: PackB: negative dimension %d×%d", k, n))
	}
	checkOperand("PackB", "b", br, bc, ldb, len(b))
	kc0 := max(min(gemmKC, k), 1)
	nc := max(gemmPanel(n, kc0), gemmNR)
	panels, blocks := (n+nc-1)/nc, (k+gemmKC-1)/gemmKC
	*dst = PackedB{k: k, n: n, nc: nc, kc0: kc0, panels: panels, blocks: blocks, bp: dst.bp}
	need := panels * blocks * nc * kc0
	if cap(dst.bp) < need {
		dst.bp = make([]float64, need)
	}
	dst.bp = dst.bp[:need]
	g := gemmBlock{transB: transB, b: b, ldb: ldb}
	for j0 := 0; j0 < n; j0 += nc {
		j1 := min(j0+nc, n)
		for p0 := 0; p0 < k; p0 += gemmKC {
			gb := g
			gb.bp = dst.panel(j0, p0)
			if err := ParallelFor(ctx, (j1-j0+gemmNR-1)/gemmNR, threads, 16, func(lo, hi int) {
				gb.packB(p0, min(p0+gemmKC, k), j0, j1, lo, hi)
			}); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// panel is the packed panel of columns [j0, j0+nc) and depth [p0, p0+kc).
func (pb *PackedB) panel(j0, p0 int) []float64 {
	o := (j0/pb.nc*pb.blocks + p0/gemmKC) * pb.nc * pb.kc0
	return pb.bp[o : o+pb.nc*pb.kc0]
}

// gemmPanel is the columns of a packed panel of B for a product of n
// columns and depth kc0 = min(gemmKC, k): a shallow product takes a wider
// panel of the same size.
func gemmPanel(n, kc0 int) int {
	return min(roundUp(n, gemmNR), gemmKC*gemmNC/kc0/gemmNR*gemmNR)
}

// GemmPacked is Gemm of operands packed by PackA and PackB: c =
// alpha·A·B + beta·c with A m×k and B k×n, the same bits as Gemm of the
// unpacked operands. It allocates nothing.
func GemmPacked(ctx context.Context, threads int, a *PackedA, b *PackedB, alpha, beta float64, c []float64, ldc int) error {
	if a.k != b.k {
		panic(fmt.Sprintf("kernels: GemmPacked: A is %d×%d, B %d×%d", a.m, a.k, b.k, b.n))
	}
	checkOperand("GemmPacked", "c", a.m, b.n, ldc, len(c))
	g := gemmBlock{k: a.k, alpha: alpha, c: c, ldc: ldc}
	return g.run(ctx, threads, a, b, a.m, b.n, beta)
}

// run is Gemm's loop over panels of B and blocks of A: B packed per
// panel, A per worker, or either taken packed from pa and pb.
func (g gemmBlock) run(ctx context.Context, threads int, pa *PackedA, pb *PackedB, m, n int, beta float64) error {
	k, c, ldc := g.k, g.c, g.ldc
	if m == 0 || n == 0 {
		return ctx.Err()
	}
	if g.alpha == 0 || k == 0 || (beta != 0 && beta != 1) {
		if err := ParallelFor(ctx, m, threads, gemmMC, func(lo, hi int) {
			scaleRows(c, ldc, lo, hi, n, beta)
		}); err != nil || g.alpha == 0 || k == 0 {
			return err
		}
	}
	// One packed panel of B, shared by the workers; one block of A each.
	kc0 := min(gemmKC, k)
	nc := gemmPanel(n, kc0)
	if pb == nil {
		g.bp = make([]float64, kc0*nc)
	}
	mc := gemmBlockRows(m)
	var aps [][]float64
	if pa == nil {
		aps = make([][]float64, Workers(m, threads, mc))
	}
	for j0 := 0; j0 < n; j0 += nc {
		j1 := min(j0+nc, n)
		strips := (j1 - j0 + gemmNR - 1) / gemmNR
		for p0 := 0; p0 < k; p0 += gemmKC {
			p1 := min(p0+gemmKC, k)
			if pb != nil {
				g.bp = pb.panel(j0, p0)
			} else if err := ParallelFor(ctx, strips, threads, 16, func(lo, hi int) {
				g.packB(p0, p1, j0, j1, lo, hi)
			}); err != nil {
				return err
			}
			if err := ParallelForWorker(ctx, m, threads, mc, func(w, lo, hi int) {
				gb := g
				if pa != nil {
					gb.ap = pa.block(p0, lo)
				} else {
					if aps[w] == nil {
						aps[w] = make([]float64, mc*kc0)
					}
					gb.ap = aps[w]
					gb.packA(lo, hi, p0, p1)
				}
				// With beta = 0 the first block stores instead of adding:
				// c is then neither cleared nor read.
				gb.multiply(lo, hi, j0, j1, p1-p0, beta == 0 && p0 == 0)
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

// gemmBlockRows is the rows of C (and of the packed block of A) per
// parallel chunk: gemmMC, or fewer for small m so that there are at least
// four chunks to share; a multiple of gemmMR. It depends only on m.
func gemmBlockRows(m int) int {
	return min(gemmMC, roundUp((m+3)/4, gemmMR))
}

func roundUp(x, to int) int { return (x + to - 1) / to * to }

// scaleRows sets rows [lo, hi) of c to beta·c (to 0 when beta is 0).
func scaleRows(c []float64, ldc, lo, hi, n int, beta float64) {
	if beta == 1 {
		return
	}
	for i := lo; i < hi; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// gemmBlock holds one Gemm call's operands and one worker's packing
// buffers.
type gemmBlock struct {
	transA, transB bool
	k              int
	alpha          float64
	a, b, c        []float64
	lda, ldb, ldc  int
	ap, bp         []float64
}

// packA copies rows [i0, i1) and columns [p0, p1) of op(A) into ap as
// strips of gemmMR rows, each stored column by column (gemmMR values per
// k step), padded with zeros to a whole strip.
func (g *gemmBlock) packA(i0, i1, p0, p1 int) {
	kc := p1 - p0
	for s := 0; s*gemmMR < i1-i0; s++ {
		dst := g.ap[s*gemmMR*kc : (s+1)*gemmMR*kc]
		for r := range gemmMR {
			i := i0 + s*gemmMR + r
			if i >= i1 {
				for l := range kc {
					dst[l*gemmMR+r] = 0
				}
				continue
			}
			if g.transA {
				for l := range kc {
					dst[l*gemmMR+r] = g.a[(p0+l)*g.lda+i]
				}
			} else {
				row := g.a[i*g.lda+p0 : i*g.lda+p1]
				for l, v := range row {
					dst[l*gemmMR+r] = v
				}
			}
		}
	}
}

// packB copies rows [p0, p1) and the strips [s0, s1) of columns [j0, j1)
// of op(B) into bp: strips of gemmNR columns, each stored row by row
// (gemmNR values per k step), padded with zeros to a whole strip.
func (g *gemmBlock) packB(p0, p1, j0, j1, s0, s1 int) {
	kc := p1 - p0
	for s := s0; s < s1; s++ {
		dst := g.bp[s*gemmNR*kc : (s+1)*gemmNR*kc]
		jb := j0 + s*gemmNR
		w := min(gemmNR, j1-jb)
		if !g.transB {
			for l := range kc {
				d := dst[l*gemmNR : (l+1)*gemmNR]
				copy(d, g.b[(p0+l)*g.ldb+jb:(p0+l)*g.ldb+jb+w])
				clear(d[w:])
			}
			continue
		}
		if w == gemmNR {
			// Eight rows of b read side by side, each step of dst written
			// whole: one pass over both.
			var rows [gemmNR][]float64
			for c := range rows {
				rows[c] = g.b[(jb+c)*g.ldb+p0 : (jb+c)*g.ldb+p1]
			}
			r0, r1, r2, r3, r4, r5, r6, r7 := rows[0], rows[1][:kc], rows[2][:kc], rows[3][:kc], rows[4][:kc], rows[5][:kc], rows[6][:kc], rows[7][:kc]
			for l, v := range r0 {
				d := dst[l*gemmNR : l*gemmNR+gemmNR : l*gemmNR+gemmNR]
				d[0], d[1], d[2], d[3] = v, r1[l], r2[l], r3[l]
				d[4], d[5], d[6], d[7] = r4[l], r5[l], r6[l], r7[l]
			}
			continue
		}
		for c := range gemmNR {
			if c >= w {
				for l := range kc {
					dst[l*gemmNR+c] = 0
				}
				continue
			}
			col := g.b[(jb+c)*g.ldb+p0 : (jb+c)*g.ldb+p1]
			for l, v := range col {
				dst[l*gemmNR+c] = v
			}
		}
	}
}

// multiply adds alpha times the product of the packed blocks into rows
// [i0, i1) and columns [j0, j1) of C, or stores it there if store is set.
// Where the CPU has a wide kernel, two whole strips of B go through it at
// once (the same bits: each element's sum does not depend on the tile).
func (g *gemmBlock) multiply(i0, i1, j0, j1, kc int, store bool) {
	var tile [gemmMR * gemmNR]float64
	for js := 0; js*gemmNR < j1-j0; js++ {
		bs := g.bp[js*gemmNR*kc : (js+1)*gemmNR*kc]
		jb := j0 + js*gemmNR
		w := min(gemmNR, j1-jb)
		if jb+2*gemmNR <= j1 && hasWideKernel {
			bw := g.bp[js*gemmNR*kc : (js+2)*gemmNR*kc]
			for is := 0; is*gemmMR < i1-i0; is++ {
				as := g.ap[is*gemmMR*kc : (is+1)*gemmMR*kc]
				ib := i0 + is*gemmMR
				h := min(gemmMR, i1-ib)
				if h == gemmMR && gemmKernelWideC(kc, as, bw, g.c[ib*g.ldc+jb:], g.ldc, g.alpha, store) {
					continue
				}
				g.tileAt(kc, as, bs, ib, jb, h, gemmNR, store, &tile)
				g.tileAt(kc, as, bw[gemmNR*kc:], ib, jb+gemmNR, h, gemmNR, store, &tile)
			}
			js++
			continue
		}
		for is := 0; is*gemmMR < i1-i0; is++ {
			as := g.ap[is*gemmMR*kc : (is+1)*gemmMR*kc]
			ib := i0 + is*gemmMR
			h := min(gemmMR, i1-ib)
			if h == gemmMR && w == gemmNR && gemmKernelC(kc, as, bs, g.c[ib*g.ldc+jb:], g.ldc, g.alpha, store) {
				continue
			}
			g.tileAt(kc, as, bs, ib, jb, h, w, store, &tile)
		}
	}
}

// tileAt adds (or stores) alpha times the product of one packed strip of A
// and one of B into the h×w corner of C at (ib, jb), through the 6×8 tile.
func (g *gemmBlock) tileAt(kc int, as, bs []float64, ib, jb, h, w int, store bool, tile *[gemmMR * gemmNR]float64) {
	gemmKernel(kc, as, bs, tile)
	for r := range h {
		row := g.c[(ib+r)*g.ldc+jb : (ib+r)*g.ldc+jb+w]
		t := tile[r*gemmNR : r*gemmNR+w]
		if store {
			for j, v := range t {
				row[j] = g.alpha * v
			}
			continue
		}
		for j, v := range t {
			row[j] += g.alpha * v
		}
	}
}

// gemmKernel is the micro-kernel: c (6×8, row-major) = Σ_l a_l b_lᵀ over
// the k ≥ 1 packed steps of a (6 per step) and b (8 per step). The
// assembly kernel, where there is one, stores its tile into c with
// alpha = 1, which is exact.
func gemmKernel(k int, a, b []float64, c *[gemmMR * gemmNR]float64) {
	if !gemmKernelC(k, a, b, c[:], gemmNR, 1, true) {
		gemmKernelGo(k, a, b, c)
	}
}

// gemmKernelGo is the portable micro-kernel: c = Σ_l a_l b_lᵀ over the k
// packed steps, with a separate multiply and add.
func gemmKernelGo(k int, a, b []float64, c *[gemmMR * gemmNR]float64) {
	var acc [gemmMR * gemmNR]float64
	for l := range k {
		av := a[l*gemmMR : (l+1)*gemmMR : (l+1)*gemmMR]
		bv := b[l*gemmNR : (l+1)*gemmNR : (l+1)*gemmNR]
		for r, x := range av {
			t := acc[r*gemmNR : (r+1)*gemmNR : (r+1)*gemmNR]
			for j, y := range bv {
				t[j] += x * y
			}
		}
	}
	*c = acc
}

// checkGemm panics on dimensions, strides or lengths that do not fit.
func checkGemm(transA, transB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("kernels: Gemm: negative dimension %d×%d×%d", m, n, k))
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	checkOperand("Gemm", "a", ar, ac, lda, len(a))
	checkOperand("Gemm", "b", br, bc, ldb, len(b))
	checkOperand("Gemm", "c", m, n, ldc, len(c))
}

// checkOperand panics when a rows×cols matrix with stride ld does not fit
// in have elements.
func checkOperand(fn, name string, rows, cols, ld, have int) {
	if ld < max(cols, 1) {
		panic(fmt.Sprintf("kernels: %s: stride %d of %s below its %d columns", fn, ld, name, cols))
	}
	if rows > 0 && cols > 0 && have < (rows-1)*ld+cols {
		panic(fmt.Sprintf("kernels: %s: %s has %d elements, a %d×%d matrix with stride %d needs %d", fn, name, have, rows, cols, ld, (rows-1)*ld+cols))
	}
}
