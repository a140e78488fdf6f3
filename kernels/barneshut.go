package kernels

import (
	"fmt"
	"math"
)

// MaxBHDims is the largest embedding dimension BHTree supports (and so the
// Barnes–Hut t-SNE gradient and NeRV stress): a cell has 2^dims children,
// which stops paying off beyond three dimensions.
const MaxBHDims = 3

// bhMaxDepth caps the tree depth. Points closer than 2^−bhMaxDepth of the
// bounding box share a leaf and interact exactly, which also makes duplicate
// points safe.
const bhMaxDepth = 48

// BHTree is a 2^dims-ary space-partitioning tree (a quadtree in 2-D) over
// the rows of an embedding, the far-field structure of the Barnes–Hut
// t-SNE gradient (transforms/tsne) and NeRV stress (transforms/nerv). Node
// 0 is the root; the children of an internal node are the 2^Dims
// consecutive nodes from its Child index, some of them empty, and every
// child has a larger index than its parent. A leaf holds the points
// Perm[Lo:Hi].
//
// Build fills the exported fields; callers walk them and must not modify
// them. The zero value is ready to use and Build reuses its buffers; a
// BHTree must not be used by several goroutines while it is being built.
type BHTree struct {
	Dims  int
	Nodes []BHNode
	Perm  []int32 // the points in tree order: each node's are contiguous
	buf   []int32 // partition scratch
}

// BHNode is one cell of a BHTree.
type BHNode struct {
	Center [MaxBHDims]float64 // cell centre
	COM    [MaxBHDims]float64 // centre of mass of the cell's points
	Half   float64            // half the cell's edge (cells are cubes)
	Count  int32              // number of points in the cell
	Child  int32              // first child, or −1 for a leaf
	Lo, Hi int32              // the cell's range in Perm
}

// Build makes the tree for y (n×dims, row-major). Every step depends only
// on y, so the tree — and the order of every sum over it — is the same in
// every run. Points closer than 2⁻⁴⁸ of the bounding box (duplicates in
// particular) share a leaf. It panics unless 1 ≤ dims ≤ MaxBHDims and
// len(y) = n·dims.
func (t *BHTree) Build(y []float64, n, dims int) {
	CheckEmbedding(y, n, dims)
	if dims > MaxBHDims {
		panic(fmt.Sprintf("kernels: Barnes–Hut needs dims ≤ %d, got %d", MaxBHDims, dims))
	}
	t.Dims = dims
	t.Nodes = t.Nodes[:0]
	t.Perm = Grow(t.Perm, n)
	t.buf = Grow(t.buf, n)
	for i := range t.Perm {
		t.Perm[i] = int32(i)
	}
	var root BHNode
	var half float64
	for c := range dims {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			lo, hi = min(lo, y[i*dims+c]), max(hi, y[i*dims+c])
		}
		root.Center[c] = lo + (hi-lo)/2
		half = max(half, (hi-lo)/2)
	}
	root.Half = half*(1+1e-9) + math.SmallestNonzeroFloat64
	root.Child = -1
	t.Nodes = append(t.Nodes, root)
	t.split(0, y, 0, n, 0)
}

// split fills node nd with the points Perm[lo:hi] and subdivides it.
func (t *BHTree) split(nd int, y []float64, lo, hi, depth int) {
	dims := t.Dims
	node := &t.Nodes[nd]
	node.Count = int32(hi - lo)
	node.Lo, node.Hi = int32(lo), int32(hi)
	if hi == lo {
		return
	}
	var com [MaxBHDims]float64
	allSame := true
	first := y[int(t.Perm[lo])*dims : int(t.Perm[lo])*dims+dims]
	for _, p := range t.Perm[lo:hi] {
		yp := y[int(p)*dims : int(p)*dims+dims]
		for c := range dims {
			com[c] += yp[c]
			allSame = allSame && yp[c] == first[c]
		}
	}
	inv := 1 / float64(hi-lo)
	for c := range dims {
		com[c] *= inv
	}
	node.COM = com
	if hi-lo == 1 || allSame || depth >= bhMaxDepth {
		return
	}
	// Stable counting sort of the points by orthant.
	nc := 1 << dims
	var start [1<<MaxBHDims + 1]int
	ctr := node.Center
	orth := func(p int32) int {
		o := 0
		for c := range dims {
			if y[int(p)*dims+c] >= ctr[c] {
				o |= 1 << c
			}
		}
		return o
	}
	for _, p := range t.Perm[lo:hi] {
		start[orth(p)+1]++
	}
	for o := range nc {
		start[o+1] += start[o]
	}
	pos := start
	for _, p := range t.Perm[lo:hi] {
		o := orth(p)
		t.buf[lo+pos[o]] = p
		pos[o]++
	}
	copy(t.Perm[lo:hi], t.buf[lo:hi])
	h := node.Half / 2
	firstChild := len(t.Nodes)
	node.Child = int32(firstChild)
	for o := range nc {
		ch := BHNode{Half: h, Child: -1}
		for c := range dims {
			ch.Center[c] = ctr[c] - h
			if o&(1<<c) != 0 {
				ch.Center[c] = ctr[c] + h
			}
		}
		t.Nodes = append(t.Nodes, ch) // node is stale from here on
	}
	for o := range nc {
		t.split(firstChild+o, y, lo+start[o], lo+start[o+1], depth+1)
	}
}

// Contains reports whether the point yi (Dims coordinates) lies in the
// cell, boundary included.
func (nd *BHNode) Contains(yi []float64) bool {
	for c, v := range yi {
		if math.Abs(v-nd.Center[c]) > nd.Half {
			return false
		}
	}
	return true
}
