//go:build amd64 && !purego

package kernels

import "golang.org/x/sys/cpu"

// hasAVX2 selects the AVX2/FMA versions of the squared-distance loops.
// They add the same terms to the same four lanes in the same order, each
// square fused into its addition as math.FMA does, so they return the
// pure-Go results bit for bit; only the speed differs.
var hasAVX2 = cpu.X86.HasAVX && cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func sqDistLanesAVX2(s *[4]float64, a, b []float64)

//go:noescape
func sqDistBelowAVX2(a, b []float64, bound float64) (d float64, ok bool)

//go:noescape
func sqDistAVX2(a, b []float64) float64

//go:noescape
func sqDistAtMost2AVX2(a, b1, b2 []float64, bound1, bound2 float64) (d1, d2 float64, ok1, ok2 bool)

// sqDist32AVX2 is sqDist32 (len(b) ≥ len(a)): the eight lanes of one
// register are its eight partial sums, the tail goes to lane 0 one term at
// a time, and the lanes are added in its order, so the bits are its bits.
//
//go:noescape
func sqDist32AVX2(a, b []float32) float32

//go:noescape
func sqDist4x2AVX2(blocks int, a, b *float64, stride int, s *[32]float64)

// sqDist4x2 sets out[2r+c] to SqDist of rows i+r and j+c of x (n×d), for
// r < 4 and c < 2, bit for bit, through one AVX2 pass over the eight pairs
// (which keeps eight independent addition chains in flight, where SqDist
// has one). It reports false, doing nothing, where the CPU lacks AVX2.
func sqDist4x2(out *[8]float64, x []float64, d, i, j int) bool {
	if !hasAVX2 {
		return false
	}
	_ = x[(i+3)*d+d-1]
	_ = x[(j+1)*d+d-1]
	var s [32]float64
	d4 := d &^ 3
	sqDist4x2AVX2(d4/4, &x[i*d], &x[j*d], d*8, &s)
	for p := range 8 {
		lanes := (*[4]float64)(s[4*p : 4*p+4])
		if d4 < d {
			r, c := p/2, p%2
			sqDistLanesGo(lanes, x[(i+r)*d+d4:(i+r+1)*d], x[(j+c)*d+d4:(j+c+1)*d])
		}
		out[p] = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
	}
	return true
}

// sqDist4x2Packed adds to the lanes s the first 4·blocks terms of the eight
// pairs (rows r < 4 of a, rows c < 2 of b), rows stride elements apart in
// both, as sqDist4x2AVX2 (the caller checked hasAVX2).
func sqDist4x2Packed(s *[32]float64, blocks int, a, b []float64, stride int) {
	if blocks == 0 {
		return
	}
	_ = a[3*stride+4*blocks-1]
	_ = b[stride+4*blocks-1]
	sqDist4x2AVX2(blocks, &a[0], &b[0], stride*8, s)
}

// containsInt32AVX2 reports whether s holds v, eight entries a compare.
//
//go:noescape
func containsInt32AVX2(s []int32, v int32) bool

// sqDistAtMost4AVX2 is four sqDistAtMost from one row (see the assembly):
// n terms read from a and from each b_r.
//
//go:noescape
func sqDistAtMost4AVX2(n int, a, b0, b1, b2, b3 *float64, bound, out *[4]float64) uint8
