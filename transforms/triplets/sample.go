package triplets

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Sample draws, for each aspect, perAspect triplets uniformly without
// replacement from that aspect's triplets (all of them when the aspect has
// fewer). It does not enumerate the triplets: it draws distinct indices into
// the aspect's generation order with Floyd's algorithm and decodes each index
// arithmetically from the value groups, so time and memory are
// O(perAspect·log + objects) per aspect. The result is in generation order
// (see Generate). The draws depend only on rng's state, aspect after aspect,
// so a seeded rng gives the same sample every time. Sample panics if
// perAspect < 0.
func Sample(codes Codes, pairs Pairs, perAspect int, rng *rand.Rand) *Table {
	if perAspect < 0 {
		panic(fmt.Sprintf("triplets: perAspect %d < 0", perAspect))
	}
	codes.check()
	pairs.check()
	out := new(Table)
	var idx []int64
	for a, row := range codes {
		g := newGroups(row, pairs)
		idx = floyd(idx[:0], g.count(), int64(perAspect), rng)
		for _, x := range idx {
			i, j, k := g.decode(x)
			out.Append(i, j, k, int32(a))
		}
	}
	return out
}

// floyd appends to dst, ascending, s distinct integers drawn uniformly from
// [0, n), or all of them when s ≥ n (then without using rng).
func floyd(dst []int64, n, s int64, rng *rand.Rand) []int64 {
	if s >= n {
		for x := range n {
			dst = append(dst, x)
		}
		return dst
	}
	set := make(map[int64]struct{}, s)
	for j := n - s; j < n; j++ {
		t := rng.Int64N(j + 1)
		if _, ok := set[t]; ok {
			t = j
		}
		set[t] = struct{}{}
	}
	m := len(dst)
	for x := range set {
		dst = append(dst, x)
	}
	slices.Sort(dst[m:])
	return dst
}
