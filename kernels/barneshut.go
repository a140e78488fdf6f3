package kernels

import (
	"context"
	"fmt"
	"math"
)

// MaxBHDims is the largest embedding dimension TSNEGradBH supports: a cell
// has 2^dims children, which stops paying off beyond three dimensions.
const MaxBHDims = 3

// bhMaxDepth caps the tree depth. Points closer than 2^−bhMaxDepth of the
// bounding box share a leaf and interact exactly, which also makes duplicate
// points safe.
const bhMaxDepth = 48

// bhTree is a 2^dims-ary space-partitioning tree (a quadtree in 2-D) over
// the rows of an embedding. Node 0 is the root; the children of an internal
// node are the 2^dims consecutive nodes from its child index, some of them
// empty. A leaf holds the points perm[lo:hi].
type bhTree struct {
	dims  int
	nodes []bhNode
	perm  []int32
	buf   []int32 // partition scratch
}

type bhNode struct {
	center [MaxBHDims]float64 // cell centre
	com    [MaxBHDims]float64 // centre of mass
	half   float64            // half the cell's edge (cells are cubes)
	count  int32
	child  int32 // first child, or −1 for a leaf
	lo, hi int32 // leaf's range in perm
}

// build makes the tree for y (n×dims). Every step depends only on y, so the
// tree — and the order of every sum over it — is the same in every run.
func (t *bhTree) build(y []float64, n, dims int) {
	t.dims = dims
	t.nodes = t.nodes[:0]
	t.perm = grow(t.perm, n)
	t.buf = grow(t.buf, n)
	for i := range t.perm {
		t.perm[i] = int32(i)
	}
	var root bhNode
	var half float64
	for c := range dims {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			lo, hi = min(lo, y[i*dims+c]), max(hi, y[i*dims+c])
		}
		root.center[c] = lo + (hi-lo)/2
		half = max(half, (hi-lo)/2)
	}
	root.half = half*(1+1e-9) + math.SmallestNonzeroFloat64
	root.child = -1
	t.nodes = append(t.nodes, root)
	t.split(0, y, 0, n, 0)
}

// split fills node nd with the points perm[lo:hi] and subdivides it.
func (t *bhTree) split(nd int, y []float64, lo, hi, depth int) {
	dims := t.dims
	node := &t.nodes[nd]
	node.count = int32(hi - lo)
	node.lo, node.hi = int32(lo), int32(hi)
	if hi == lo {
		return
	}
	var com [MaxBHDims]float64
	allSame := true
	first := y[int(t.perm[lo])*dims : int(t.perm[lo])*dims+dims]
	for _, p := range t.perm[lo:hi] {
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
	node.com = com
	if hi-lo == 1 || allSame || depth >= bhMaxDepth {
		return
	}
	// Stable counting sort of the points by orthant.
	nc := 1 << dims
	var start [1<<MaxBHDims + 1]int
	ctr := node.center
	orth := func(p int32) int {
		o := 0
		for c := range dims {
			if y[int(p)*dims+c] >= ctr[c] {
				o |= 1 << c
			}
		}
		return o
	}
	for _, p := range t.perm[lo:hi] {
		start[orth(p)+1]++
	}
	for o := range nc {
		start[o+1] += start[o]
	}
	pos := start
	for _, p := range t.perm[lo:hi] {
		o := orth(p)
		t.buf[lo+pos[o]] = p
		pos[o]++
	}
	copy(t.perm[lo:hi], t.buf[lo:hi])
	h := node.half / 2
	firstChild := len(t.nodes)
	node.child = int32(firstChild)
	for o := range nc {
		ch := bhNode{half: h, child: -1}
		for c := range dims {
			ch.center[c] = ctr[c] - h
			if o&(1<<c) != 0 {
				ch.center[c] = ctr[c] + h
			}
		}
		t.nodes = append(t.nodes, ch) // node is stale from here on
	}
	for o := range nc {
		t.split(firstChild+o, y, lo+start[o], lo+start[o+1], depth+1)
	}
}

// repulsion accumulates, for point i, Σ_j w_ij² (y_i − y_j) into rep and
// returns Σ_{j≠i} w_ij, approximating a cell by its centre of mass when
// (cell edge)/distance < θ and the cell does not contain y_i. Children are
// visited in a fixed order.
func (t *bhTree) repulsion(rep []float64, y []float64, i int, theta2 float64, stack []int32) (float64, []int32) {
	if t.dims == 2 {
		return t.repulsion2(rep, y, i, theta2, stack)
	}
	dims := t.dims
	yi := y[i*dims : (i+1)*dims]
	// A cell containing y_i has edge/distance ≥ 1/√dims; only a larger θ
	// can accept it, and then the containment test is needed.
	checkInside := theta2*float64(dims) >= 1
	clear(rep)
	var z float64
	stack = append(stack[:0], 0)
	for len(stack) > 0 {
		nd := &t.nodes[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		if nd.count == 0 {
			continue
		}
		if nd.child < 0 {
			for _, p := range t.perm[nd.lo:nd.hi] {
				j := int(p)
				if j == i {
					continue
				}
				yj := y[j*dims : (j+1)*dims]
				w := 1 / (1 + tsneSqDist(yi, yj))
				z += w
				ww := w * w
				for c := range dims {
					rep[c] += ww * (yi[c] - yj[c])
				}
			}
			continue
		}
		com := nd.com[:dims]
		d2 := tsneSqDist(yi, com)
		edge := 2 * nd.half
		if edge*edge < theta2*d2 && !(checkInside && nd.contains(yi)) {
			w := 1 / (1 + d2)
			fc := float64(nd.count)
			z += fc * w
			ww := fc * w * w
			for c := range dims {
				rep[c] += ww * (yi[c] - com[c])
			}
			continue
		}
		for o := int32(1<<dims) - 1; o >= 0; o-- {
			stack = append(stack, nd.child+o)
		}
	}
	return z, stack
}

// repulsion2 is repulsion for dims = 2, with the same operations in the
// same order.
func (t *bhTree) repulsion2(rep []float64, y []float64, i int, theta2 float64, stack []int32) (float64, []int32) {
	y0, y1 := y[2*i], y[2*i+1]
	checkInside := theta2*2 >= 1
	var z, r0, r1 float64
	stack = append(stack[:0], 0)
	for len(stack) > 0 {
		nd := &t.nodes[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		if nd.count == 0 {
			continue
		}
		if nd.child < 0 {
			for _, p := range t.perm[nd.lo:nd.hi] {
				j := int(p)
				if j == i {
					continue
				}
				d0, d1 := y0-y[2*j], y1-y[2*j+1]
				w := 1 / (1 + (d0*d0 + d1*d1))
				z += w
				ww := w * w
				r0 += ww * d0
				r1 += ww * d1
			}
			continue
		}
		d0, d1 := y0-nd.com[0], y1-nd.com[1]
		d2 := d0*d0 + d1*d1
		edge := 2 * nd.half
		if edge*edge < theta2*d2 && !(checkInside && nd.contains(y[2*i:2*i+2])) {
			w := 1 / (1 + d2)
			fc := float64(nd.count)
			z += fc * w
			ww := fc * w * w
			r0 += ww * d0
			r1 += ww * d1
			continue
		}
		c := nd.child
		stack = append(stack, c+3, c+2, c+1, c)
	}
	rep[0], rep[1] = r0, r1
	return z, stack
}

func (nd *bhNode) contains(yi []float64) bool {
	for c, v := range yi {
		if math.Abs(v-nd.center[c]) > nd.half {
			return false
		}
	}
	return true
}

// TSNEBH holds the reusable state of Barnes–Hut t-SNE gradients (the tree
// and scratch space). The zero value is ready to use; it is not safe for
// concurrent use.
type TSNEBH struct {
	tree   bhTree
	rep    []float64
	rowZ   []float64
	stacks [][]int32
}

// Grad writes into grad (n×dims) the t-SNE gradient at y for the sparse
// joint P, with the attractive term exact over P's entries (scaled by
// exaggeration) and the repulsive term and Z = Σ_{i≠j} w_ij approximated by
// Barnes–Hut with angle theta (θ = 0 is exact, at O(n²) cost; 0.5 is usual),
// and returns the Z estimate. The tree is built serially and each point's
// sums are independent, so the result is bit-identical for any thread count.
// It panics unless 1 ≤ dims ≤ MaxBHDims, theta ≥ 0 and the lengths match,
// and returns ctx.Err() if cancelled.
func (b *TSNEBH) Grad(ctx context.Context, grad, y []float64, p *SparseAffinities, dims int, theta, exaggeration float64, threads int) (float64, error) {
	n := p.N
	checkEmbedding(y, n, dims)
	if dims > MaxBHDims {
		panic(fmt.Sprintf("kernels: Barnes–Hut needs dims ≤ %d, got %d", MaxBHDims, dims))
	}
	if !(theta >= 0) {
		panic(fmt.Sprintf("kernels: theta = %v, want ≥ 0", theta))
	}
	if len(grad) != n*dims {
		panic(fmt.Sprintf("kernels: len(grad) = %d, want %d", len(grad), n*dims))
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	b.tree.build(y, n, dims)
	if cap(b.rep) < n*dims {
		b.rep = make([]float64, n*dims)
	}
	if cap(b.rowZ) < n {
		b.rowZ = make([]float64, n)
	}
	rep, rowZ := b.rep[:n*dims], b.rowZ[:n]
	for len(b.stacks) < Workers(n, threads, tsneGrain) {
		b.stacks = append(b.stacks, nil)
	}
	theta2 := theta * theta
	err := ParallelForWorker(ctx, n, threads, tsneGrain, func(w, lo, hi int) {
		tsneAttractSparse(grad, y, p, dims, lo, hi, exaggeration)
		st := b.stacks[w]
		for i := lo; i < hi; i++ {
			rowZ[i], st = b.tree.repulsion(rep[i*dims:(i+1)*dims], y, i, theta2, st)
		}
		b.stacks[w] = st
	})
	if err != nil {
		return 0, err
	}
	var z float64
	for _, v := range rowZ {
		z += v
	}
	tsneCombine(grad, rep, z)
	return z, nil
}
