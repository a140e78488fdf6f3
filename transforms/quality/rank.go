package quality

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/ordinate/ordinate/kernels"
)

// ranker orders one row of dissimilarities: the same order and ranks as
// kernels.Ranker (by value, ties by index, the point itself left out), in
// about two thirds of its time, which is most of the cost of the exact
// metrics. Each (value, index) pair is packed into one 64-bit word, the
// order-preserving key of the value (kernels.FloatKey) in the high bits
// and the index in the low ones, so that a radix pass moves 8 bytes per
// point instead of 12 and the pairs sort as plain integers. Values whose
// keys agree above the index bits are put back in exact order afterwards.
type ranker struct {
	a, b  []uint64
	run   []int32
	count [rankPasses][rankDigits]int32
}

// Radix parameters: the keys of a row are taken relative to their span
// (the smallest key of a positive value to the largest) and shifted to the
// top of the word, so that two passes of 12 bits sort by the top 24 bits
// of the span: on a row of distances spread over ten binades that is as
// fine as three passes over the raw keys' top 33 bits (sign, exponent, 21
// bits of mantissa), a third less work. An insertion sort finishes, or,
// when the values crowd within a hair of each other, a comparison sort.
const (
	rankDigitBits = 12
	rankDigits    = 1 << rankDigitBits
	rankPasses    = 2
	rankTopLow    = 64 - rankPasses*rankDigitBits
	rankRunMin    = 48 // longest run of equal words above the index bits put in order by insertion
)

// order sets order to the indices j ≠ self of row sorted by (row[j], j),
// and rank[j] to the 1-based position of j in it (rank[self] = 0).
// len(order) is len(row)−1 and len(rank) len(row); row holds no NaN.
func (r *ranker) order(order, rank []int32, row []float64, self int) {
	a, mask := r.sorted(row, self)
	order, rank = order[:len(a)], rank[:len(row)]
	for q, w := range a {
		j := int32(w & mask)
		order[q], rank[j] = j, int32(q+1)
	}
	rank[self] = 0
}

// sorted returns the words of the indices j ≠ self of row in the order of
// (row[j], j): each the key of row[j] above the index bits (mask) and j in
// them. The words are the ranker's until its next use.
func (r *ranker) sorted(row []float64, self int) (words []uint64, mask uint64) {
	n := len(row)
	m := n - 1
	if m <= 0 {
		return nil, 0
	}
	ib := uint(bits.Len(uint(n - 1)))
	mask = uint64(1)<<ib - 1
	r.a, r.b = grow(r.a, m), grow(r.b, m)
	a := r.a[:m]
	count := &r.count
	*count = [rankPasses][rankDigits]int32{}
	lo, shift := keySpan(row, self)
	// The words, and the counts of their top digits. Keys below lo (zeros
	// and negatives among positive values) are raised to it: the words stay
	// in order, and the run pass below puts such ties right.
	add := func(p int, v float64, j int) {
		w := (max(kernels.FloatKey(v), lo)-lo)<<shift&^mask | uint64(j)
		a[p] = w
		count[0][(w>>rankTopLow)&(rankDigits-1)]++
		count[1][(w>>(rankTopLow+rankDigitBits))&(rankDigits-1)]++
	}
	for j, v := range row[:self] {
		add(j, v, j)
	}
	for j, v := range row[self+1:] {
		add(self+j, v, self+1+j)
	}
	radixPacked(a, r.b[:m], count)
	if !insertionPacked(a, 4*m) {
		slices.Sort(a) // many values within a hair of each other
	}
	// Words that agree above the index bits hold values that may differ
	// below them: put such a run in the exact order (value, index).
	for q := 0; q+1 < m; q++ {
		if a[q+1]&^mask != a[q]&^mask {
			continue
		}
		e := q + 1
		for e < m && a[e]&^mask == a[q]&^mask {
			e++
		}
		run := grow(r.run, e-q)
		for p := q; p < e; p++ {
			run[p-q] = int32(a[p] & mask)
		}
		exactOrder(run, row)
		for p := q; p < e; p++ {
			a[p] = a[p]&^mask | uint64(run[p-q])
		}
		r.run = run
		q = e - 1
	}
	return a, mask
}

// keySpan returns the lowest key of the row (leaving out self) that its
// words count from, the key of its smallest positive value when it has one
// (a zero distance, a duplicate row, would otherwise stretch the span to
// every exponent below), and the shift that brings the span's highest bit
// to the top of a word.
func keySpan(row []float64, self int) (lo uint64, shift uint) {
	minPos, minAll, maxAll := math.Inf(1), math.Inf(1), math.Inf(-1)
	scan := func(part []float64) {
		for _, v := range part {
			// Plain comparisons: the builtin min and max also order NaNs
			// and signed zeros, which costs a third of the sort here.
			if v < minAll {
				minAll = v
			}
			if v > maxAll {
				maxAll = v
			}
			if v > 0 && v < minPos {
				minPos = v
			}
		}
	}
	scan(row[:self])
	scan(row[self+1:])
	lo = kernels.FloatKey(minAll)
	if !math.IsInf(minPos, 1) {
		lo = kernels.FloatKey(minPos)
	}
	return lo, uint(bits.LeadingZeros64(kernels.FloatKey(maxAll) - lo))
}

// exactOrder sorts the indices js (in increasing order) by (row[j], j).
func exactOrder(js []int32, row []float64) {
	if len(js) > rankRunMin {
		slices.SortFunc(js, func(x, y int32) int {
			if c := cmp.Compare(kernels.FloatKey(row[x]), kernels.FloatKey(row[y])); c != 0 {
				return c
			}
			return cmp.Compare(x, y)
		})
		return
	}
	for i := 1; i < len(js); i++ {
		x := js[i]
		kx := kernels.FloatKey(row[x])
		q := i
		for ; q > 0 && kernels.FloatKey(row[js[q-1]]) > kx; q-- {
			js[q] = js[q-1]
		}
		js[q] = x
	}
}

// radixPacked sorts the words a stably by their top rankPasses digits,
// one per pass from the lowest, skipping digits on which every word
// agrees, with tmp (as long) as the other buffer; count holds the counts
// of the digits (and is used up). The result ends in a.
func radixPacked(a, tmp []uint64, count *[rankPasses][rankDigits]int32) {
	m := int32(len(a))
	src, dst := a, tmp
	for b := range rankPasses {
		shift := uint(rankTopLow + b*rankDigitBits)
		c := &count[b]
		if c[(a[0]>>shift)&(rankDigits-1)] == m {
			continue
		}
		var sum int32
		for v, n := range c {
			c[v] = sum
			sum += n
		}
		for _, w := range src {
			d := (w >> shift) & (rankDigits - 1)
			o := c[d]
			c[d] = o + 1
			dst[o] = w
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

// insertionPacked sorts a by insertion, giving up (false) once the moves
// exceed budget (< 0: no limit).
func insertionPacked(a []uint64, budget int) bool {
	moves := 0
	for i := 1; i < len(a); i++ {
		k := a[i]
		j := i
		for ; j > 0 && a[j-1] > k; j-- {
			a[j] = a[j-1]
		}
		a[j] = k
		moves += i - j
		if budget >= 0 && moves > budget {
			return false
		}
	}
	return true
}

// grow returns s with length n, reusing its storage when it fits.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
