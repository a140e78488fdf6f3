package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBHTree checks the invariants the Barnes–Hut walks of transforms/tsne
// and transforms/nerv rely on: Perm is a permutation, every node's points
// are Perm[Lo:Hi] and lie in its cell, counts and centres of mass add up,
// children follow their parent, and duplicates end in one leaf.
func TestBHTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	var tree BHTree // reused across sizes and dimensions
	for _, dims := range []int{1, 2, 3} {
		for _, n := range []int{1, 2, 50, 700} {
			name := fmt.Sprintf("dims=%d n=%d", dims, n)
			y := randomPoints(rng, n, dims)
			if n > 10 {
				for i := 1; i < 6; i++ { // five duplicates of point 0
					copy(y[i*dims:(i+1)*dims], y[:dims])
				}
			}
			tree.Build(y, n, dims)
			if tree.Dims != dims || len(tree.Perm) != n || tree.Nodes[0].Count != int32(n) {
				t.Fatalf("%s: dims %d, %d in Perm, root count %d", name, tree.Dims, len(tree.Perm), tree.Nodes[0].Count)
			}
			sorted := slices.Clone(tree.Perm)
			slices.Sort(sorted)
			for i, p := range sorted {
				if p != int32(i) {
					t.Fatalf("%s: Perm is not a permutation", name)
				}
			}
			nc := int32(1) << dims
			for ndi, nd := range tree.Nodes {
				if nd.Hi-nd.Lo != nd.Count {
					t.Fatalf("%s: node %d holds [%d, %d) but counts %d", name, ndi, nd.Lo, nd.Hi, nd.Count)
				}
				var com [MaxBHDims]float64
				for _, p := range tree.Perm[nd.Lo:nd.Hi] {
					if !nd.Contains(y[int(p)*dims : int(p+1)*dims]) {
						t.Fatalf("%s: point %d outside node %d", name, p, ndi)
					}
					for c := range dims {
						com[c] += y[int(p)*dims+c] / float64(nd.Count)
					}
				}
				for c := range dims {
					if math.Abs(com[c]-nd.COM[c]) > 1e-12 {
						t.Fatalf("%s: node %d centre of mass %v, want %v", name, ndi, nd.COM, com)
					}
				}
				if nd.Child < 0 {
					continue
				}
				if int(nd.Child) <= ndi {
					t.Fatalf("%s: node %d has child %d", name, ndi, nd.Child)
				}
				lo, sum := nd.Lo, int32(0)
				for ch := nd.Child; ch < nd.Child+nc; ch++ {
					c := tree.Nodes[ch]
					if c.Lo != lo || c.Half != nd.Half/2 {
						t.Fatalf("%s: child %d of node %d: range from %d, half %v", name, ch, ndi, c.Lo, c.Half)
					}
					lo, sum = c.Hi, sum+c.Count
				}
				if lo != nd.Hi || sum != nd.Count {
					t.Fatalf("%s: children of node %d end at %d with %d points, want %d and %d", name, ndi, lo, sum, nd.Hi, nd.Count)
				}
			}
			if n > 10 {
				for _, nd := range tree.Nodes {
					if nd.Child < 0 && slices.Contains(tree.Perm[nd.Lo:nd.Hi], 0) && nd.Count < 6 {
						t.Errorf("%s: the leaf of point 0 holds %d points, want its 5 duplicates too", name, nd.Count)
					}
				}
			}
		}
	}
}
