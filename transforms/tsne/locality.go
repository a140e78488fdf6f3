package tsne

import (
	"cmp"
	"math"
	"slices"
)

// Locality reordering. The attraction reads y_j for every entry of P in
// row order; with points stored in input order those reads jump across the
// whole map, and from about 10⁵ points on they miss the caches (a random
// order makes the attractive term several times slower than an order in
// which neighbours sit close: BenchmarkAttract; BENCHMARKS.md, "t-SNE side
// by side (issue 15)", item "Locality"). t-SNE puts
// neighbours close in the map, so the optimiser keeps the points sorted
// along a Z-order curve of the current map, re-sorting every
// localityEvery iterations, and undoes the permutation at the end.

const (
	// localityMin is the least N that is reordered: below it y and P's
	// hot rows fit in the caches and sorting gains nothing.
	localityMin = 1 << 15
	// localityEvery is the interval, in iterations, between re-sorts.
	localityEvery = 50
	// mortonBits is the grid resolution per axis of the Z-order key.
	mortonBits = 21
)

// locality keeps the permutation of a run: orig[p] is the input index of
// the point now stored at position p.
type locality struct {
	n, dims int
	orig    []int32
	perm    []int32 // one sort's permutation, new → old position
	inv     []int32 // old → new position
	keys    []uint64
	buf     []float64
	next    []int32
}

func newLocality(n, dims int) *locality {
	l := &locality{n: n, dims: dims, orig: make([]int32, n), perm: make([]int32, n), inv: make([]int32, n),
		keys: make([]uint64, n), buf: make([]float64, n*dims), next: make([]int32, n)}
	for i := range l.orig {
		l.orig[i] = int32(i)
	}
	return l
}

// reorder sorts the points along the Z-order curve of y and applies the
// permutation to every per-point array in rows (each n×dims), to y and to
// P, in place.
func (l *locality) reorder(p *SparseAffinities, y []float64, rows ...[]float64) {
	l.sortKeys(y)
	for _, r := range append(rows, y) {
		l.permuteRows(r)
	}
	for q, old := range l.perm {
		l.next[q] = l.orig[old]
	}
	copy(l.orig, l.next)
	l.permuteP(p)
}

// sortKeys sets perm to the points ordered by (Z-order key of y, index).
func (l *locality) sortKeys(y []float64) {
	n, dims := l.n, l.dims
	var lo, scale [3]float64
	bits := mortonBits
	if dims > 3 {
		bits = 63 / dims
	}
	cells := float64(uint64(1)<<bits - 1)
	for c := range min(dims, 3) {
		a, b := math.Inf(1), math.Inf(-1)
		for i := range n {
			a, b = min(a, y[i*dims+c]), max(b, y[i*dims+c])
		}
		lo[c], scale[c] = a, 0
		if b > a && !math.IsInf(b-a, 0) {
			scale[c] = cells / (b - a)
		}
	}
	for i := range n {
		var key uint64
		for c := range min(dims, 3) {
			v := (y[i*dims+c] - lo[c]) * scale[c]
			if !(v >= 0) { // NaN
				v = 0
			}
			key |= spreadBits(uint64(min(v, cells)), min(dims, 3), bits) << c
		}
		l.keys[i] = key
		l.perm[i] = int32(i)
	}
	slices.SortFunc(l.perm, func(a, b int32) int {
		if c := cmp.Compare(l.keys[a], l.keys[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for q, old := range l.perm {
		l.inv[old] = int32(q)
	}
}

// spreadBits places bit b of v at bit b·stride, for bits bits.
func spreadBits(v uint64, stride, bits int) uint64 {
	var out uint64
	for b := range bits {
		out |= (v >> b & 1) << (b * stride)
	}
	return out
}

func (l *locality) permuteRows(r []float64) {
	dims := l.dims
	for q, old := range l.perm {
		copy(l.buf[q*dims:(q+1)*dims], r[int(old)*dims:(int(old)+1)*dims])
	}
	copy(r, l.buf)
}

// permuteP relabels P's columns to the new positions in place and
// permutes its row map (SparseAffinities.at): the rows themselves stay
// where they are, so P is never copied (a copy was as large as P itself).
func (l *locality) permuteP(p *SparseAffinities) {
	for e, c := range p.Col {
		p.Col[e] = l.inv[c]
	}
	if p.at == nil {
		p.at = make([]int32, l.n)
		for i := range p.at {
			p.at[i] = int32(i)
		}
	}
	for q, old := range l.perm {
		l.next[q] = p.at[old]
	}
	copy(p.at, l.next)
}

// restore writes the rows of r (n×dims, in the current order) back in
// input order.
func (l *locality) restore(r []float64) {
	dims := l.dims
	for q, old := range l.orig {
		copy(l.buf[int(old)*dims:(int(old)+1)*dims], r[q*dims:(q+1)*dims])
	}
	copy(r, l.buf)
}
