package kernels

import (
	"fmt"
	"math"
)

// Ranker turns distance rows into neighbour orders, reusing its buffers
// between calls. The zero value is ready to use; a Ranker must not be used by
// two goroutines at once.
//
// The order is found by a least-significant-digit radix sort of the order-
// preserving integer images of the distances, starting from index order.
// Radix sort is stable, so ties keep increasing index order: the result is
// exactly the (distance, index) order, in O(n) per row.
type Ranker struct {
	keys, keys2 []uint64
	idx2        []int32
}

// radixMin is the longest run of keys that Ranker sorts by insertion.
const radixMin = 48

// NeighborOrder sets order to the indices j ≠ self of row sorted by
// (row[j], j): order[0] is the nearest neighbour of self. With self = −1
// every index is included. It panics unless len(order) is len(row)−1 (self
// in range) or len(row) (self = −1).
func (r *Ranker) NeighborOrder(order []int32, row []float64, self int) {
	n := len(row)
	m := checkOrder(order, n, self)
	r.keys = Grow(r.keys, m)
	keys := r.keys[:m]
	p := 0
	for j, v := range row {
		if j != self {
			keys[p] = FloatKey(v)
			order[p] = int32(j)
			p++
		}
	}
	if m <= radixMin {
		insertionSort(keys, order)
		return
	}
	r.keys2 = Grow(r.keys2, m)
	r.idx2 = Grow(r.idx2, m)
	radixSort(keys, order, r.keys2[:m], r.idx2[:m])
}

// NeighborRanks sets order as NeighborOrder does and rank to the inverse
// permutation: rank[order[p]] = p+1 (1 for the nearest neighbour) and
// rank[self] = 0. len(rank) must be len(row).
func (r *Ranker) NeighborRanks(order, rank []int32, row []float64, self int) {
	r.NeighborOrder(order, row, self)
	RanksFromOrder(rank, order, self)
}

// NeighborOrder is Ranker.NeighborOrder with a temporary Ranker.
func NeighborOrder(order []int32, row []float64, self int) {
	var r Ranker
	r.NeighborOrder(order, row, self)
}

// NeighborRanks is Ranker.NeighborRanks with a temporary Ranker.
func NeighborRanks(order, rank []int32, row []float64, self int) {
	var r Ranker
	r.NeighborRanks(order, rank, row, self)
}

// RanksFromOrder sets rank[order[p]] = p+1 and, if self ≥ 0, rank[self] = 0.
// It panics unless len(rank) is len(order)+1 (self ≥ 0) or len(order)
// (self = −1).
func RanksFromOrder(rank []int32, order []int32, self int) {
	checkOrder(order, len(rank), self)
	for p, j := range order {
		rank[j] = int32(p + 1)
	}
	if self >= 0 {
		rank[self] = 0
	}
}

func checkOrder(order []int32, n, self int) int {
	if self < -1 || self >= n {
		panic(fmt.Sprintf("kernels: self = %d out of range [−1, %d)", self, n))
	}
	m := n
	if self >= 0 {
		m--
	}
	if len(order) != m {
		panic(fmt.Sprintf("kernels: len(order) = %d, want %d", len(order), m))
	}
	return m
}

// Grow returns s resliced to length n, or a new slice of length n when s
// has too little capacity. The contents are unspecified (old values, or
// zeros after an allocation); it is the scratch-buffer idiom of the
// reusable types here and in the method packages (Ranker, BHTree, the
// Barnes–Hut NeRV stress).
func Grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// FloatKey maps v (not NaN) to an unsigned integer with the same order
// (−0 and +0 map to the same key): radix sorts order floats by it.
func FloatKey(v float64) uint64 {
	if v == 0 {
		return 1 << 63
	}
	b := math.Float64bits(v)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

func insertionSort(keys []uint64, idx []int32) {
	insertionSortWithin(keys, idx, -1)
}

// insertionSortWithin sorts stably by insertion, giving up (and reporting
// false) after the element whose insertion brings the number of moves above
// budget; budget < 0 means no limit. The keys are then only partly sorted,
// but equal keys are still in their original relative order.
func insertionSortWithin(keys []uint64, idx []int32, budget int) bool {
	moves := 0
	for i := 1; i < len(keys); i++ {
		k, x := keys[i], idx[i]
		j := i
		for ; j > 0 && keys[j-1] > k; j-- {
			keys[j], idx[j] = keys[j-1], idx[j-1]
		}
		keys[j], idx[j] = k, x
		moves += i - j
		if budget >= 0 && moves > budget {
			return false
		}
	}
	return true
}

// Radix sort parameters: digits of digitBits bits; the first stage sorts by
// the top 3 digits (sign, exponent and 21 mantissa bits).
const (
	digitBits = 11
	digits    = 1 << digitBits
	topLow    = 64 - 3*digitBits
)

// radixSort sorts (keys, idx) by key, stably, with (keys2, idx2) as the
// other buffer of each pass (at least as long). Three least-significant-
// digit passes sort by the top 33 bits, and an insertion sort finishes the
// job: it only moves keys within runs that agree on those bits, which are
// short unless many values lie within a relative 2⁻²¹ of each other. If it
// takes too many moves, the runs longer than radixMin are first sorted on the
// remaining bits. Exact ties are never moved past each other, so they stay
// in index order.
func radixSort(keys []uint64, idx []int32, keys2 []uint64, idx2 []int32) {
	radixPasses(keys, idx, keys2, idx2, topLow)
	if insertionSortWithin(keys, idx, 4*len(keys)) {
		return
	}
	for start := 0; start < len(keys); {
		prefix := keys[start] >> topLow
		end := start + 1
		for end < len(keys) && keys[end]>>topLow == prefix {
			end++
		}
		if end-start > radixMin {
			radixPasses(keys[start:end], idx[start:end], keys2, idx2, 0)
		}
		start = end
	}
	insertionSort(keys, idx)
}

// radixPasses sorts (keys, idx) stably by the 33 bits [low, low+33) of the
// keys (bits above 63 count as 0), one digit per pass from the lowest,
// skipping digits on which every key agrees. The result ends in (keys, idx).
func radixPasses(keys []uint64, idx []int32, keys2 []uint64, idx2 []int32, low uint) {
	var count [3][digits]int32
	s0, s1, s2 := low, low+digitBits, low+2*digitBits
	for _, k := range keys {
		count[0][(k>>s0)&(digits-1)]++
		count[1][(k>>s1)&(digits-1)]++
		count[2][(k>>s2)&(digits-1)]++
	}
	m := int32(len(keys))
	srcK, srcI, dstK, dstI := keys, idx, keys2[:len(keys)], idx2[:len(keys)]
	for b, shift := range [3]uint{s0, s1, s2} {
		c := &count[b]
		if c[(keys[0]>>shift)&(digits-1)] == m {
			continue
		}
		var sum int32
		for v, n := range c {
			c[v] = sum
			sum += n
		}
		scatter(dstK, dstI, srcK, srcI, c, shift)
		srcK, srcI, dstK, dstI = dstK, dstI, srcK, srcI
	}
	if &srcK[0] != &keys[0] {
		copy(keys, srcK)
		copy(idx, srcI)
	}
}

// scatter moves each (key, index) pair to the next free slot of its digit
// at shift; off holds the first free slot of each digit.
func scatter(dstK []uint64, dstI []int32, srcK []uint64, srcI []int32, off *[digits]int32, shift uint) {
	dstK = dstK[:len(srcK)]
	dstI = dstI[:len(srcK)]
	srcI = srcI[:len(srcK)]
	for p, k := range srcK {
		v := (k >> shift) & (digits - 1)
		o := off[v]
		off[v] = o + 1
		dstK[o] = k
		dstI[o] = srcI[p]
	}
}
