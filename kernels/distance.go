package kernels

import (
	"context"
	"fmt"
	"math"
)

// SqDist returns Σ_k (a_k − b_k)², with term k added to partial sum k mod 4
// in increasing k and the result (s0 + s1) + (s2 + s3): the squared
// distance of the package conventions, as SqDistRow, SqDistances and KNN
// compute it. len(b) must be at least len(a). Four partial sums hide the
// latency of the additions; each square is fused into its addition
// (math.FMA: s_k ← s_k + t² rounded once), which is what lets the AVX2
// kernels issue one subtract and one FMA per term, and since math.FMA is
// exact everywhere the result is the same on every architecture and
// wherever it is computed.
func SqDist(a, b []float64) float64 {
	if hasAVX2 {
		return sqDistAVX2(a, b[:len(a)])
	}
	var s [4]float64
	sqDistLanes(&s, a, b)
	return (s[0] + s[1]) + (s[2] + s[3])
}

// sqDistLanes adds the terms of a and b to the partial sums s, term k to
// s[k mod 4], with the AVX2 kernel where the CPU has it.
func sqDistLanes(s *[4]float64, a, b []float64) {
	b = b[:len(a)]
	if hasAVX2 {
		sqDistLanesAVX2(s, a, b)
		return
	}
	sqDistLanesGo(s, a, b)
}

// sqDistLanesGo is sqDistLanes in pure Go (len(b) = len(a)).
func sqDistLanesGo(s *[4]float64, a, b []float64) {
	s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
	k := 0
	for ; k+4 <= len(a); k += 4 {
		t0, t1, t2, t3 := a[k]-b[k], a[k+1]-b[k+1], a[k+2]-b[k+2], a[k+3]-b[k+3]
		s0 = math.FMA(t0, t0, s0)
		s1 = math.FMA(t1, t1, s1)
		s2 = math.FMA(t2, t2, s2)
		s3 = math.FMA(t3, t3, s3)
	}
	if k < len(a) {
		t := a[k] - b[k]
		s0 = math.FMA(t, t, s0)
	}
	if k+1 < len(a) {
		t := a[k+1] - b[k+1]
		s1 = math.FMA(t, t, s1)
	}
	if k+2 < len(a) {
		t := a[k+2] - b[k+2]
		s2 = math.FMA(t, t, s2)
	}
	s[0], s[1], s[2], s[3] = s0, s1, s2, s3
}

// sqDistBelow is SqDist that gives up, returning ok = false, once a partial
// result reaches bound. Sums of non-negative terms never decrease under
// rounding, so ok = false implies SqDist(a, b) ≥ bound; when ok is true, d
// equals SqDist(a, b) bit for bit. The bound is checked every 16 terms
// (which keeps each lane's sequence of additions that of SqDist).
func sqDistBelow(a, b []float64, bound float64) (d float64, ok bool) {
	b = b[:len(a)]
	if hasAVX2 {
		return sqDistBelowAVX2(a, b, bound)
	}
	return sqDistBelowGo(a, b, bound)
}

// sqDistBelowGo is sqDistBelow in pure Go (len(b) = len(a)).
func sqDistBelowGo(a, b []float64, bound float64) (d float64, ok bool) {
	const step = 16
	var s [4]float64
	k := 0
	for ; k+step < len(a); k += step {
		sqDistLanesGo(&s, a[k:k+step], b[k:k+step])
		if (s[0]+s[1])+(s[2]+s[3]) >= bound {
			return 0, false
		}
	}
	sqDistLanesGo(&s, a[k:], b[k:])
	d = (s[0] + s[1]) + (s[2] + s[3])
	return d, d < bound
}

// sqDistAtMost4 is m ≤ 4 calls sqDistAtMost(a, b[r], bound[r]): bit r of
// ok is the r-th ok, and d[r] the r-th distance where it is set. The AVX2
// kernel keeps the four chains of additions in flight together; lanes from
// m on idle (never ok), whatever b and bound hold there.
func sqDistAtMost4(d *[4]float64, a []float64, b *[4][]float64, bound *[4]float64, m int) (ok uint8) {
	n := len(a)
	if hasAVX2 && n > 0 {
		rows, bounds := *b, *bound
		for r := m; r < 4; r++ {
			rows[r], bounds[r] = rows[0], math.NaN() // nothing is at most NaN
		}
		b0, b1, b2, b3 := rows[0][:n], rows[1][:n], rows[2][:n], rows[3][:n]
		return sqDistAtMost4AVX2(n, &a[0], &b0[0], &b1[0], &b2[0], &b3[0], &bounds, d)
	}
	for r := range m {
		var in bool
		d[r], in = sqDistAtMostGo(a, b[r][:n], bound[r])
		if in {
			ok |= 1 << r
		}
	}
	return ok
}

// sqDistAtMost is sqDistBelow with ok = d ≤ bound: it gives up once a
// partial result exceeds bound (checked every 16 terms), and when ok is
// true d equals SqDist(a, b) bit for bit. NaN is never at most anything.
func sqDistAtMost(a, b []float64, bound float64) (d float64, ok bool) {
	b = b[:len(a)]
	if hasAVX2 {
		d, _, ok, _ = sqDistAtMost2AVX2(a, b, b, bound, bound)
		return d, ok
	}
	return sqDistAtMostGo(a, b, bound)
}

// sqDistAtMostGo is sqDistAtMost in pure Go (len(b) = len(a)).
func sqDistAtMostGo(a, b []float64, bound float64) (d float64, ok bool) {
	const step = 16
	var s [4]float64
	k := 0
	for ; k+step < len(a); k += step {
		sqDistLanesGo(&s, a[k:k+step], b[k:k+step])
		if (s[0]+s[1])+(s[2]+s[3]) > bound {
			return 0, false
		}
	}
	sqDistLanesGo(&s, a[k:], b[k:])
	d = (s[0] + s[1]) + (s[2] + s[3])
	return d, d <= bound
}

// EmbedSqDist returns Σ_k (a_k − b_k)² summed in one accumulator in
// increasing k: the squared distance between points of a low-dimensional
// embedding (the t-SNE gradients and KL, and the Barnes–Hut walks of t-SNE
// and NeRV over BHTree), where it is cheaper than SqDist and inlined. For up to three coordinates it equals SqDist bit for bit, except
// where the compiler fuses the multiply into the add (arm64, or amd64 at
// GOAMD64=v3 and above); for more it may differ from SqDist in the last
// bits. len(b) must be at least len(a).
func EmbedSqDist(a, b []float64) float64 {
	var s float64
	for c, v := range a {
		t := v - b[c]
		s += t * t
	}
	return s
}

// CheckEmbedding panics unless dims ≥ 1, n ≥ 0 and len(y) = n·dims: the
// check of an n×dims row-major embedding that the method packages' stresses
// and gradients (and BHTree.Build) make.
func CheckEmbedding(y []float64, n, dims int) {
	if dims < 1 || n < 0 || len(y) != n*dims {
		panic(fmt.Sprintf("kernels: len(y) = %d, want n·dims = %d·%d", len(y), n, dims))
	}
}

func checkPoints(x []float64, n, d int) {
	if d < 1 {
		panic(fmt.Sprintf("kernels: dimension %d < 1", d))
	}
	if n < 0 || len(x) != n*d {
		panic(fmt.Sprintf("kernels: len(x) = %d, want n·d = %d·%d", len(x), n, d))
	}
}

// SqDistRow sets dst[j] to the squared Euclidean distance between rows i and
// j of the row-major point set x of dimension d, for every row j; dst[i] is
// 0. It panics unless len(x) is a multiple of d, len(dst) is the number of
// rows and i is a row.
func SqDistRow(dst []float64, x []float64, d, i int) {
	if d < 1 || len(x)%d != 0 {
		panic(fmt.Sprintf("kernels: len(x) = %d is not a multiple of d = %d", len(x), d))
	}
	n := len(x) / d
	if len(dst) != n {
		panic(fmt.Sprintf("kernels: len(dst) = %d, want %d", len(dst), n))
	}
	if i < 0 || i >= n {
		panic(fmt.Sprintf("kernels: row %d out of range [0, %d)", i, n))
	}
	xi := x[i*d : (i+1)*d]
	for j := range n {
		dst[j] = SqDist(xi, x[j*d:(j+1)*d])
	}
	dst[i] = 0
}

// tileRows picks the tile edge of SqDistances so that the two blocks of
// points of a tile stay in L1 (about 2·16 KiB) and the output tile in L2.
func tileRows(d int) int {
	return min(max(2048/d, 16), 128)
}

// SqDistances fills the n×n row-major dst with the squared Euclidean
// distances between the rows of x (n×d): symmetric bit for bit, with a zero
// diagonal, and equal to SqDistRow element by element. It works on square
// tiles of the upper triangle in parallel; each tile writes its mirror image
// too. It panics if len(x) ≠ n·d or len(dst) ≠ n·n, and returns ctx.Err() if
// cancelled (dst then holds partial results).
func SqDistances(ctx context.Context, dst []float64, x []float64, n, d, threads int) error {
	checkPoints(x, n, d)
	if len(dst) != n*n {
		panic(fmt.Sprintf("kernels: len(dst) = %d, want n² = %d", len(dst), n*n))
	}
	if useBlockedSqDist(d) {
		t := sqDistBlockRows
		nb := (n + t - 1) / t
		work := make([]sqDistBlockScratch, Workers(nb*(nb+1)/2, threads, 1))
		return ParallelForWorker(ctx, nb*(nb+1)/2, threads, 1, func(w, lo, hi int) {
			for p := lo; p < hi; p++ {
				bi, bj := upperPair(p, nb)
				sqDistTileBlocked(&work[w], dst, x, n, d, bi*t, min(bi*t+t, n), bj*t, min(bj*t+t, n))
			}
		})
	}
	t := tileRows(d)
	nb := (n + t - 1) / t
	return ParallelFor(ctx, nb*(nb+1)/2, threads, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			bi, bj := upperPair(p, nb)
			sqDistTile(dst, x, n, d, bi*t, min(bi*t+t, n), bj*t, min(bj*t+t, n))
		}
	})
}

// upperPair maps p in [0, nb(nb+1)/2) to the p-th pair (bi, bj), bi ≤ bj, of
// the upper triangle in row-major order.
func upperPair(p, nb int) (bi, bj int) {
	for bi = 0; p >= nb-bi; bi++ {
		p -= nb - bi
	}
	return bi, bi + p
}

// sqDistTile computes the block rows [i0, i1) × columns [j0, j1) (i0 ≤ j0)
// and its transpose, skipping the lower half of a diagonal block. Groups
// of four rows and two columns go through sqDist4x2 where the CPU allows
// (the same bits as SqDist, eight pairs at once); the rest, and the
// columns of a diagonal block within four of the row, one pair at a time.
func sqDistTile(dst, x []float64, n, d, i0, i1, j0, j1 int) {
	diag := i0 == j0
	i := i0
	var out [8]float64
	for ; i+4 <= i1; i += 4 {
		js := j0
		if diag {
			// The triangle j ≤ i+3 one pair at a time; the kernel from i+4.
			for r := range 4 {
				dst[(i+r)*n+i+r] = 0
				for j := i + r + 1; j < min(i+4, j1); j++ {
					v := SqDist(x[(i+r)*d:(i+r+1)*d], x[j*d:(j+1)*d])
					dst[(i+r)*n+j] = v
					dst[j*n+i+r] = v
				}
			}
			js = i + 4
		}
		j := js
		for ; j+2 <= j1; j += 2 {
			if !sqDist4x2(&out, x, d, i, j) {
				break
			}
			for p, v := range out {
				r, c := p/2, p%2
				dst[(i+r)*n+j+c] = v
				dst[(j+c)*n+i+r] = v
			}
		}
		for r := range 4 {
			xi := x[(i+r)*d : (i+r+1)*d]
			for jj := j; jj < j1; jj++ {
				v := SqDist(xi, x[jj*d:(jj+1)*d])
				dst[(i+r)*n+jj] = v
				dst[jj*n+i+r] = v
			}
		}
	}
	for ; i < i1; i++ {
		xi := x[i*d : (i+1)*d]
		row := dst[i*n : (i+1)*n]
		js := j0
		if diag {
			row[i] = 0
			js = i + 1
		}
		for j := js; j < j1; j++ {
			v := SqDist(xi, x[j*d:(j+1)*d])
			row[j] = v
			dst[j*n+i] = v
		}
	}
}
