package kernels

import (
	"context"
)

// RealFFT2 is a real-to-complex FFT over p1 rows of p0 values (p1 = 1 is
// 1-D), for convolutions on grids (t-SNE's interpolated repulsion, the
// placement field); a spectrum holds p1 rows of h0 = p0/2 + 1 coefficients. Every row
// and column is transformed on its own, so results do not depend on the
// thread count. The plans are kept while the sizes stay. The transforms are
// this package's Stockham FFTs (stockham.go), several times as fast as
// gonum's dsp/fourier (BENCHMARKS.md, "Kernels").
type RealFFT2 struct {
	p0, p1, h0 int
	threads    int
	workers    []fft2Worker
}

type fft2Worker struct {
	r    *realFFT
	c    *cmplxFFT
	rbuf []float64
	cbuf []complex128
}

// Size returns the grid's p0 and p1 and the spectrum's row length h0.
func (t *RealFFT2) Size() (p0, p1, h0 int) { return t.p0, t.p1, t.h0 }

// Setup prepares transforms of p1 rows of p0 values on up to threads
// goroutines; the plans are kept when the sizes do not change. p0 and p1
// are FFTSize lengths (or p1 = 1); other lengths panic.
func (t *RealFFT2) Setup(p0, p1, threads int) {
	if t.p0 != p0 || t.p1 != p1 {
		t.workers = t.workers[:0]
	}
	t.p0, t.p1, t.h0, t.threads = p0, p1, p0/2+1, threads
	for len(t.workers) < Workers(max(p1, t.h0), threads, 1) {
		t.workers = append(t.workers, fft2Worker{
			r: newRealFFT(p0), c: newCmplxFFT(p1),
			rbuf: make([]float64, p0), cbuf: make([]complex128, fftColBlock*p1),
		})
	}
}

// Forward writes to dst the spectrum of the grid whose row r fill writes
// (p0 values, zeroed before; it returns false for a row of zeros).
func (t *RealFFT2) Forward(ctx context.Context, dst []complex128, fill func(r int, row []float64) bool) error {
	h0 := t.h0
	if err := ParallelForWorker(ctx, t.p1, t.threads, 1, func(w, lo, hi int) {
		tw := &t.workers[w]
		for r := lo; r < hi; r++ {
			out := dst[r*h0 : (r+1)*h0]
			clear(tw.rbuf)
			if !fill(r, tw.rbuf) {
				clear(out)
				continue
			}
			tw.r.coefficients(out, tw.rbuf)
		}
	}); err != nil {
		return err
	}
	return t.columns(ctx, dst, t.p1, false)
}

// Inverse transforms the spectrum s in place (unnormalised) and hands its
// first rows rows to out.
func (t *RealFFT2) Inverse(ctx context.Context, s []complex128, rows int, out func(r int, row []float64)) error {
	if err := t.columns(ctx, s, rows, true); err != nil {
		return err
	}
	h0 := t.h0
	return ParallelForWorker(ctx, rows, t.threads, 1, func(w, lo, hi int) {
		tw := &t.workers[w]
		for r := lo; r < hi; r++ {
			tw.r.sequence(tw.rbuf, s[r*h0:(r+1)*h0])
			out(r, tw.rbuf)
		}
	})
}

// columns transforms each column of s and writes back its first rows rows
// (nothing to do in 1-D). Columns go in blocks of fftColBlock, gathered
// and scattered together: a row's block shares cache lines, where one
// column at a time would miss on every row.
func (t *RealFFT2) columns(ctx context.Context, s []complex128, rows int, inverse bool) error {
	if t.p1 == 1 {
		return ctx.Err()
	}
	h0, p1 := t.h0, t.p1
	blocks := (h0 + fftColBlock - 1) / fftColBlock
	return ParallelForWorker(ctx, blocks, t.threads, 1, func(w, lo, hi int) {
		tw := &t.workers[w]
		for blk := lo; blk < hi; blk++ {
			j0 := blk * fftColBlock
			m := min(fftColBlock, h0-j0)
			for r := range p1 {
				src := s[r*h0+j0 : r*h0+j0+m]
				for c, v := range src {
					tw.cbuf[c*p1+r] = v
				}
			}
			for c := range m {
				col := tw.cbuf[c*p1 : (c+1)*p1]
				if inverse {
					tw.c.inverse(col)
				} else {
					tw.c.forward(col)
				}
			}
			for r := range rows {
				dst := s[r*h0+j0 : r*h0+j0+m]
				for c := range dst {
					dst[c] = tw.cbuf[c*p1+r]
				}
			}
		}
	})
}

// fftColBlock is the number of columns columns transforms together.
const fftColBlock = 8

// FFTSize returns the smallest even n' ≥ n whose only prime factors
// are 2, 3 and 5: the lengths RealFFT2 takes.
func FFTSize(n int) int {
	for m := max(n+n%2, 2); ; m += 2 {
		r := m
		for _, f := range [...]int{2, 3, 5} {
			for r%f == 0 {
				r /= f
			}
		}
		if r == 1 {
			return m
		}
	}
}
