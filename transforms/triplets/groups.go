package triplets

// groups is the value-group structure of one aspect, from which triplets are
// enumerated and decoded without materialising them.
type groups struct {
	pairs   Pairs
	present []int32   // objects with a value, ascending
	rank    []int32   // rank[o]: position of o in present, −1 if missing
	group   []int32   // group[o]: dense group index of o's value, −1 if missing
	pos     []int32   // pos[o]: position of o in members[group[o]]
	members [][]int32 // members[g]: objects of group g, ascending
	ranks   [][]int32 // ranks[g][s] = rank[members[g][s]]
	// offsets[p] is the index, within the aspect, of the first triplet whose
	// i is present[p]; offsets[len(present)] is the aspect's count.
	offsets []int64
}

func newGroups(row []int32, pairs Pairs) *groups {
	g := &groups{
		pairs: pairs,
		rank:  make([]int32, len(row)),
		group: make([]int32, len(row)),
		pos:   make([]int32, len(row)),
	}
	dense := make(map[int32]int32)
	for o, v := range row {
		if v == Missing {
			g.rank[o], g.group[o], g.pos[o] = -1, -1, -1
			continue
		}
		d, ok := dense[v]
		if !ok {
			d = int32(len(g.members))
			dense[v] = d
			g.members = append(g.members, nil)
			g.ranks = append(g.ranks, nil)
		}
		g.rank[o] = int32(len(g.present))
		g.group[o] = d
		g.pos[o] = int32(len(g.members[d]))
		g.members[d] = append(g.members[d], int32(o))
		g.ranks[d] = append(g.ranks[d], g.rank[o])
		g.present = append(g.present, int32(o))
	}
	g.offsets = make([]int64, len(g.present)+1)
	for p, o := range g.present {
		g.offsets[p+1] = g.offsets[p] + int64(g.partners(o))*int64(g.others(o))
	}
	return g
}

// partners is the number of j paired with i.
func (g *groups) partners(i int32) int {
	n := len(g.members[g.group[i]])
	if g.pairs == Unordered {
		return n - 1 - int(g.pos[i])
	}
	return n - 1
}

// others is the number of k for i: present objects outside i's group.
func (g *groups) others(i int32) int {
	return len(g.present) - len(g.members[g.group[i]])
}

// js returns the j paired with i, ascending; for Ordered the two parts
// around i (before and after it in its group).
func (g *groups) js(i int32) (before, after []int32) {
	mem := g.members[g.group[i]]
	p := g.pos[i]
	if g.pairs == Unordered {
		return nil, mem[p+1:]
	}
	return mem[:p], mem[p+1:]
}

// complement appends to dst the present objects outside group d, ascending.
func (g *groups) complement(dst []int32, d int32) []int32 {
	for _, o := range g.present {
		if g.group[o] != d {
			dst = append(dst, o)
		}
	}
	return dst
}

// count is the number of triplets of the aspect.
func (g *groups) count() int64 { return g.offsets[len(g.present)] }

// decode returns the triplet at index x ∈ [0, count) of the generation order.
func (g *groups) decode(x int64) (i, j, k int32) {
	// First p with offsets[p+1] > x: the block holding x.
	lo, hi := 0, len(g.present)-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if g.offsets[mid+1] > x {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	i = g.present[lo]
	r := x - g.offsets[lo]
	m := int64(g.others(i))
	jx, kx := int(r/m), r%m

	d := g.group[i]
	mem := g.members[d]
	if g.pairs == Unordered || jx >= int(g.pos[i]) {
		jx++ // skip i itself (Ordered) or everything up to i (Unordered)
	}
	if g.pairs == Unordered {
		jx += int(g.pos[i])
	}
	j = mem[jx]

	// The kx-th non-member in rank order: before member s lie ranks[s] − s
	// non-members, so with s = the first member having more than kx of them,
	// the wanted object has rank kx + s.
	rk := g.ranks[d]
	lo, hi = 0, len(rk)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int64(rk[mid])-int64(mid) > kx {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	k = g.present[kx+int64(lo)]
	return i, j, k
}
