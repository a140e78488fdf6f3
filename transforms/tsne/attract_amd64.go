//go:build amd64 && !purego

package tsne

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX && cpu.X86.HasAVX2

//go:noescape
func attract2AVX2(lanes *[8]float64, y *float64, n int, col *int32, val *float64, blocks int, y0, y1 float64) (ok bool)

// attract2Blocks adds the first 4·blocks entries to the lanes with AVX2
// and reports whether it did (false where the CPU lacks AVX2). It panics
// if a column is not a point of y, as indexing would.
func attract2Blocks(lanes *[8]float64, y []float64, col []int32, val []float64, blocks int, y0, y1 float64) bool {
	if !hasAVX2 {
		return false
	}
	_ = col[4*blocks-1]
	_ = val[4*blocks-1]
	if !attract2AVX2(lanes, &y[0], len(y)/2, &col[0], &val[0], blocks, y0, y1) {
		panic("tsne: a column of P is out of range")
	}
	return true
}
