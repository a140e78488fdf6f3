package kernels

import (
	"context"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// tridiagPanel is the number of columns reduced per panel (LAPACK's nb).
const tridiagPanel = 32

// tridiagonalize reduces the symmetric n×n matrix a (row-major, BOTH
// triangles filled) to tridiagonal form T = Qᵀ A Q by Householder
// reflections, as LAPACK's blocked dsytrd/dlatrd with uplo = Lower: on
// return d and e (lengths n and n−1) hold T's diagonal and off-diagonal,
// and a's lower triangle and tau (length n−1) hold the reflectors in the
// storage of gonum's Dsytrd(blas.Lower), which Dorgtr(blas.Lower) turns
// into Q. a's upper triangle is destroyed.
//
// Each panel of tridiagPanel columns is reduced with the matrix–vector
// products of its not yet updated trailing matrix (symvLower: its lower
// triangle only, each element read once for both of its uses, in row
// chunks on up to threads goroutines), and the trailing matrix is then
// updated as A −= V Wᵀ + W Vᵀ by one Gemm, its lower triangle mirrored to
// the upper one. Every element is
// computed by one chunk in a fixed order, so the result does not depend on
// the thread count. It returns ctx.Err() on cancellation (checked between
// chunks).
func tridiagonalize(ctx context.Context, a []float64, n int, d, e, tau []float64, threads int) error {
	impl := gonum.Implementation{}
	nb := tridiagPanel
	vw := make([]float64, n*2*nb) // rows: [V | W] of the panel
	wv := make([]float64, n*2*nb) // rows: [W | V]
	v := make([]float64, n)
	w := make([]float64, n)
	t12 := make([]float64, 2*nb)
	sy := make([]float64, symvChunks*n)
	for i0 := 0; i0 < n-1; i0 += nb {
		jb := min(nb, n-1-i0)
		m := n - i0
		ld := 2 * jb
		clear(vw[:m*ld])
		// V[r][p] = vw[r*ld+p], W[r][p] = vw[r*ld+jb+p], rows relative to i0.
		for j := range jb {
			c := i0 + j
			cr := c - i0
			// Column c, rows c…n−1, gets the updates of the panel's
			// earlier reflectors.
			if j > 0 {
				vc, wc := vw[cr*ld:cr*ld+j], vw[cr*ld+jb:cr*ld+jb+j]
				for r := c; r < n; r++ {
					row := vw[(r-i0)*ld:]
					var s float64
					for p := range j {
						s += row[p]*wc[p] + row[jb+p]*vc[p]
					}
					a[r*n+c] -= s
				}
			}
			d[c] = a[c*n+c]
			// The reflector that zeroes column c below its subdiagonal.
			alpha := a[(c+1)*n+c]
			var beta, t float64
			if c+2 < n {
				beta, t = impl.Dlarfg(n-c-1, alpha, a[(c+2)*n+c:], n)
			} else {
				beta, t = impl.Dlarfg(1, alpha, nil, 1)
			}
			e[c], tau[c] = beta, t
			a[(c+1)*n+c] = beta
			vv := v[c+1 : n]
			vv[0] = 1
			for r := c + 2; r < n; r++ {
				vv[r-c-1] = a[r*n+c]
			}
			for r := c + 1; r < n; r++ {
				vw[(r-i0)*ld+j] = vv[r-c-1]
			}
			// w = τ (A₂₂ v − V Wᵀv − W Vᵀv), A₂₂ the trailing matrix as of
			// the panel's start (full rows c+1…n−1).
			ww := w[c+1 : n]
			if err := symvLower(ctx, ww, a, n, c+1, vv, sy, threads); err != nil {
				return err
			}
			if j > 0 {
				t1, t2 := t12[:j], t12[jb:jb+j]
				clear(t1)
				clear(t2)
				for q, x := range vv {
					row := vw[(c+1+q-i0)*ld:]
					for p := range j {
						t1[p] += row[jb+p] * x
						t2[p] += row[p] * x
					}
				}
				for q := range ww {
					row := vw[(c+1+q-i0)*ld:]
					var s float64
					for p := range j {
						s += row[p]*t1[p] + row[jb+p]*t2[p]
					}
					ww[q] -= s
				}
			}
			var wtv float64
			for q, x := range ww {
				ww[q] = t * x
				wtv += ww[q] * vv[q]
			}
			alpha2 := -0.5 * t * wtv
			for q := range ww {
				ww[q] += alpha2 * vv[q]
				vw[(c+1+q-i0)*ld+jb+j] = ww[q]
			}
		}
		// Trailing update of rows and columns i1…n−1.
		i1 := i0 + jb
		mt := n - i1
		if mt == 0 {
			break
		}
		for r := i0; r < n; r++ {
			src := vw[(r-i0)*ld : (r-i0+1)*ld]
			dst := wv[(r-i0)*ld : (r-i0+1)*ld]
			copy(dst[:jb], src[jb:])
			copy(dst[jb:], src[:jb])
		}
		// A₂₂ −= V Wᵀ + W Vᵀ over the whole trailing block in one product
		// (twice the flops of its lower triangle, at Gemm's speed), then
		// the lower triangle mirrored, so that A₂₂ stays exactly symmetric.
		if err := Gemm(ctx, threads, false, true, mt, mt, ld, -1, vw[(i1-i0)*ld:], ld, wv[(i1-i0)*ld:], ld, 1, a[i1*n+i1:], n); err != nil {
			return err
		}
		if err := ParallelFor(ctx, mt, threads, max(16, 8192/mt), func(lo, hi int) {
			for r := i1 + lo; r < i1+hi; r++ {
				for s := r + 1; s < n; s++ {
					a[r*n+s] = a[s*n+r]
				}
			}
		}); err != nil {
			return err
		}
	}
	d[n-1] = a[(n-1)*n+n-1]
	return nil
}

// triIndex maps q = ti(ti+1)/2 + tj, 0 ≤ tj ≤ ti, to (ti, tj).
func triIndex(q int) (ti, tj int) {
	for (ti+1)*(ti+2)/2 <= q {
		ti++
	}
	return ti, q - ti*(ti+1)/2
}

// tridiagQPanel is the number of reflectors applied at once by
// applyTridiagQ.
const tridiagQPanel = 64

// applyTridiagQ overwrites the n×n row-major z with Q·z, where Q =
// H(0)·H(1)···H(n−2) is the orthogonal factor of tridiagonalize, given by
// the reflectors it leaves in a's lower triangle and in tau (Dsytrd's lower
// storage). It applies them in blocks of tridiagQPanel, the last block
// first, each as I − V·T·Vᵀ (LAPACK's compact WY form, T from Dlarft) with
// two Gemm products: about 2n³ flops, where forming Q (Dorgtr) and then
// multiplying costs about 10n³/3, and all of them at Gemm's speed.
func applyTridiagQ(ctx context.Context, a []float64, n int, tau, z []float64, threads int) error {
	nr := n - 1 // reflectors
	if nr < 1 {
		return nil
	}
	impl := gonum.Implementation{}
	bi := blas64.Implementation()
	t := make([]float64, tridiagQPanel*tridiagQPanel)
	w := make([]float64, tridiagQPanel*n)
	v := make([]float64, nr*tridiagQPanel)
	for start := (nr - 1) / tridiagQPanel * tridiagQPanel; start >= 0; start -= tridiagQPanel {
		kb := min(tridiagQPanel, nr-start)
		m := n - 1 - start // the block acts on rows start+1 … n−1
		// V explicitly: unit diagonal, zeros above it.
		for r := range m {
			row := v[r*kb : (r+1)*kb]
			for j := range kb {
				switch {
				case r < j:
					row[j] = 0
				case r == j:
					row[j] = 1
				default:
					row[j] = a[(start+1+r)*n+start+j]
				}
			}
		}
		impl.Dlarft(lapack.Forward, lapack.ColumnWise, m, kb, v, kb, tau[start:start+kb], t, tridiagQPanel)
		zb := z[(start+1)*n:]
		if err := Gemm(ctx, threads, true, false, kb, n, m, 1, v, kb, zb, n, 0, w, n); err != nil {
			return err
		}
		bi.Dtrmm(blas.Left, blas.Upper, blas.NoTrans, blas.NonUnit, kb, n, 1, t, tridiagQPanel, w, n)
		if err := Gemm(ctx, threads, false, false, m, n, kb, -1, v, kb, w, n, 1, zb, n); err != nil {
			return err
		}
	}
	return nil
}

// symvChunks is the most row chunks symvLower splits a product into.
const symvChunks = 8

// symvLower sets y = B·x for the symmetric trailing block B = a[c0:, c0:]
// (a is n×n row-major) from B's lower triangle alone, so that each element
// is read once instead of twice: row r adds its dot product with x to y_r
// and x_r times itself to the y_s of the columns s < r (dotAxpy). Rows are
// split into at most symvChunks chunks (a number that depends only on the
// size), each summing into its own part of scratch (symvChunks·n floats),
// which are then added in chunk order: the result is the same for any
// thread count.
func symvLower(ctx context.Context, y, a []float64, n, c0 int, x, scratch []float64, threads int) error {
	cnt := n - c0
	chunks := min(symvChunks, max(1, cnt/64))
	grain := (cnt + chunks - 1) / chunks
	chunks = (cnt + grain - 1) / grain
	if err := ParallelFor(ctx, cnt, threads, grain, func(lo, hi int) {
		yc := scratch[(lo/grain)*n : (lo/grain)*n+hi]
		clear(yc)
		for q := lo; q < hi; q++ {
			r := c0 + q
			xr := x[q]
			yc[q] += dotAxpy(a[r*n+c0:r*n+r], x[:q], yc[:q], xr) + a[r*n+r]*xr
		}
	}); err != nil {
		return err
	}
	for q := range y {
		var s float64
		for ch := range chunks {
			if q < min((ch+1)*grain, cnt) {
				s += scratch[ch*n+q]
			}
		}
		y[q] = s
	}
	return nil
}

// dotAxpyGo is dotAxpy in plain Go (four partial dot products, so that
// one addition chain does not wait on the latency of the last).
func dotAxpyGo(a, x, y []float64, xr float64) float64 {
	var t0, t1, t2, t3 float64
	k := 0
	for ; k+4 <= len(a); k += 4 {
		v := a[k : k+4 : k+4]
		xv := x[k : k+4 : k+4]
		yv := y[k : k+4 : k+4]
		t0 += v[0] * xv[0]
		t1 += v[1] * xv[1]
		t2 += v[2] * xv[2]
		t3 += v[3] * xv[3]
		yv[0] += v[0] * xr
		yv[1] += v[1] * xr
		yv[2] += v[2] * xr
		yv[3] += v[3] * xr
	}
	for ; k < len(a); k++ {
		t0 += a[k] * x[k]
		y[k] += a[k] * xr
	}
	return (t0 + t1) + (t2 + t3)
}
