package kernels

// Cache-blocked all-pairs squared distances (the AVX2 path of SqDistances
// for wide points). Streaming whole rows, as sqDistTile does, runs at the
// speed of L2 at D = 512: the six rows of a 4×2 pass are 24 KiB, and rows
// 4 KiB apart fall in the same L1 sets. Here a tile's rows are copied, a
// run of sqDistBlockTerms terms at a time, into two packed panels whose row
// stride is not a multiple of 4 KiB; four rows of the first panel stay in L1
// while the second panel's rows pass by from L2. Each pair keeps its four
// lanes between runs, and every run is a multiple of four terms long, so
// term k still lands in lane k mod 4 in increasing k: the results are
// SqDist's, bit for bit.

const (
	// sqDistBlockTerms is the run of terms packed at once (2 KiB a row).
	sqDistBlockTerms = 256
	// sqDistBlockRows is the tile edge. Larger tiles read X from memory
	// fewer times (packing a tile's panels costs (ti + tj)·d copies for
	// ti·tj·d terms), smaller ones keep the pairs' lanes (512 KiB here)
	// nearer L2; at D = 512 edges of 128 with runs of 256 terms measured
	// best among 64–256 rows and 64–512 terms, within the machine's noise.
	sqDistBlockRows = 128
	// sqDistBlockMinDims is the width from which the blocked path pays; at
	// smaller widths writing the n×n output dominates.
	sqDistBlockMinDims = 64
	// sqDistPanelPad offsets consecutive panel rows by 32 bytes more than
	// their length, off the 4 KiB aliasing stride.
	sqDistPanelPad = 4
)

// sqDistBlockScratch is one worker's panels, lanes and transposed tile.
type sqDistBlockScratch struct {
	a, b  []float64 // packed panels, sqDistBlockRows rows of stride terms
	lanes []float64 // 4 lanes per pair, in the order of laneOffset
	tileT []float64 // the tile's distances, transposed, for the mirror image
}

// useBlockedSqDist reports whether SqDistances takes the blocked path.
func useBlockedSqDist(d int) bool { return hasAVX2 && d >= sqDistBlockMinDims }

// laneOffset is where the lanes of pair (r, c) of a tile with tj columns
// start: groups of 4 rows × 2 columns hold their 32 lanes together, in the
// layout of sqDist4x2Packed's s, so the kernel works on them in place.
func laneOffset(r, c, tj int) int {
	return ((r>>2)*((tj+1)>>1)+c>>1)*32 + (r&3)*8 + (c&1)*4
}

// sqDistTileBlocked is sqDistTile through packed panels: the block rows
// [i0, i1) × columns [j0, j1) (i0 ≤ j0) and its transpose, without the lower
// half of a diagonal block.
func sqDistTileBlocked(sc *sqDistBlockScratch, dst, x []float64, n, d, i0, i1, j0, j1 int) {
	ti, tj := i1-i0, j1-j0
	diag := i0 == j0
	stride := min(d, sqDistBlockTerms) + sqDistPanelPad
	sc.a = Grow(sc.a, sqDistBlockRows*stride)
	sc.b = Grow(sc.b, sqDistBlockRows*stride)
	nl := ((ti + 3) >> 2) * ((tj + 1) >> 1) * 32
	sc.lanes = Grow(sc.lanes, nl)
	lanes := sc.lanes[:nl]
	clear(lanes)
	d4 := d &^ 3
	for k0 := 0; k0 < d4; k0 += sqDistBlockTerms {
		w := min(sqDistBlockTerms, d4-k0)
		pack(sc.a, x, d, stride, i0, i1, k0, w)
		b := sc.a
		if !diag {
			pack(sc.b, x, d, stride, j0, j1, k0, w)
			b = sc.b
		}
		r := 0
		for ; r+4 <= ti; r += 4 {
			c := 0
			if diag {
				c = r
			}
			for ; c+2 <= tj; c += 2 {
				o := laneOffset(r, c, tj)
				sqDist4x2Packed((*[32]float64)(lanes[o:o+32]), w/4, sc.a[r*stride:], b[c*stride:], stride)
			}
			for ; c < tj; c++ {
				for rr := r; rr < r+4; rr++ {
					sqDistPanelPair(lanes, sc.a, b, stride, tj, rr, c, w)
				}
			}
		}
		for ; r < ti; r++ {
			c := 0
			if diag {
				c = r
			}
			for ; c < tj; c++ {
				sqDistPanelPair(lanes, sc.a, b, stride, tj, r, c, w)
			}
		}
	}
	// Each row of the tile straight into dst, its transpose into tileT for
	// the mirror image's rows: both written as runs of consecutive elements.
	// A diagonal tile's lower half was never summed in full, and is skipped.
	sc.tileT = Grow(sc.tileT, ti*tj)
	tt := sc.tileT[:ti*tj]
	for r := range ti {
		xi := x[(i0+r)*d : (i0+r+1)*d]
		row := dst[(i0+r)*n+j0 : (i0+r)*n+j1]
		c0 := 0
		if diag {
			row[r] = 0
			c0 = r + 1
		}
		for c := c0; c < tj; c++ {
			l := (*[4]float64)(lanes[laneOffset(r, c, tj):])
			if d4 < d {
				sqDistLanesGo(l, xi[d4:], x[(j0+c)*d+d4:(j0+c+1)*d])
			}
			v := (l[0] + l[1]) + (l[2] + l[3])
			row[c] = v
			tt[c*ti+r] = v
		}
	}
	for c := range tj {
		r1 := ti
		if diag {
			r1 = c
		}
		copy(dst[(j0+c)*n+i0:(j0+c)*n+i0+r1], tt[c*ti:c*ti+r1])
	}
}

// pack copies terms [k0, k0+w) of rows [r0, r1) of x (n×d) into the panel p,
// row r − r0 at offset (r − r0)·stride.
func pack(p, x []float64, d, stride, r0, r1, k0, w int) {
	for r := r0; r < r1; r++ {
		copy(p[(r-r0)*stride:(r-r0)*stride+w], x[r*d+k0:r*d+k0+w])
	}
}

// sqDistPanelPair adds the run of w terms of panel rows r (of a) and c (of b)
// to the lanes of pair (r, c).
func sqDistPanelPair(lanes, a, b []float64, stride, tj, r, c, w int) {
	o := laneOffset(r, c, tj)
	sqDistLanes((*[4]float64)(lanes[o:o+4]), a[r*stride:r*stride+w], b[c*stride:c*stride+w])
}
