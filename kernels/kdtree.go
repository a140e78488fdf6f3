package kernels

import (
	"context"
	"math"
)

// Exact k-NN on a k-d tree, for few features.
//
// The tree splits the widest side of each box at the median until a leaf
// holds at most kdLeaf points; a query visits the child on its own side
// first and skips a box whose nearest possible point is farther than the
// current k-th neighbour. With d features that prunes nearly everything
// for small d (about O(log n + k) leaves per query) and nearly nothing
// once d passes 10 to 15, where the exhaustive search's streaming loop is
// faster. The results are KNN's to the bit: the same distance function,
// the same (distance, index) order, and a box is skipped only when its
// bound exceeds the k-th distance by a relative 1e-12, far more than the
// rounding by which a summed bound can differ from a distance.

// KDTreeMaxDims is the most features for which KNN searches a k-d tree
// instead of every row (measured in BenchmarkKNNTree at n = 20,000: at d = 8
// the tree is still clearly faster, at d = 12 on an isotropic Gaussian it is
// not; BENCHMARKS.md, "Neighbour searches").
const KDTreeMaxDims = 8

// kdTreeMinRows is the fewest rows for which KNN builds the tree; below it
// the exhaustive search costs about as much.
const kdTreeMinRows = 2048

const (
	kdLeaf      = 32
	kdPruneSlop = 1 - 1e-12
)

// kdNode is a box of the tree: its points are perm[lo:hi]; a leaf has
// left < 0, else its children are nodes left and left+1.
type kdNode struct {
	lo, hi int32
	left   int32
}

// kdTree is a k-d tree over n points of d features, the points copied in
// tree order (pts) with their bounding boxes (box: per node, d minima then
// d maxima).
type kdTree struct {
	d     int
	nodes []kdNode
	box   []float64
	perm  []int32
	pts   []float64
}

// newKDTree builds the tree over x (n×d). Splits are deterministic.
func newKDTree(x []float64, n, d int) *kdTree {
	t := &kdTree{d: d, perm: make([]int32, n)}
	for i := range t.perm {
		t.perm[i] = int32(i)
	}
	t.nodes = make([]kdNode, 0, 2*(n/kdLeaf+1))
	t.nodes = append(t.nodes, kdNode{lo: 0, hi: int32(n), left: -1})
	// Breadth-first: nodes are appended in order, children after parents.
	for nd := 0; nd < len(t.nodes); nd++ {
		lo, hi := int(t.nodes[nd].lo), int(t.nodes[nd].hi)
		if hi-lo <= kdLeaf {
			continue
		}
		axis, spread := widestAxis(x, d, t.perm[lo:hi])
		if spread == 0 {
			continue // all points equal: one leaf
		}
		mid := lo + (hi-lo)/2
		selectNth(t.perm[lo:hi], mid-lo, x, d, axis)
		t.nodes[nd].left = int32(len(t.nodes))
		t.nodes = append(t.nodes, kdNode{lo: int32(lo), hi: int32(mid), left: -1}, kdNode{lo: int32(mid), hi: int32(hi), left: -1})
	}
	t.pts = make([]float64, n*d)
	for r, p := range t.perm {
		copy(t.pts[r*d:(r+1)*d], x[int(p)*d:(int(p)+1)*d])
	}
	t.box = make([]float64, len(t.nodes)*2*d)
	for nd := len(t.nodes) - 1; nd >= 0; nd-- {
		b := t.box[nd*2*d : (nd+1)*2*d]
		node := t.nodes[nd]
		if node.left >= 0 {
			l := t.box[int(node.left)*2*d : int(node.left+1)*2*d]
			r := t.box[int(node.left+1)*2*d : int(node.left+2)*2*d]
			for c := range d {
				b[c], b[d+c] = min(l[c], r[c]), max(l[d+c], r[d+c])
			}
			continue
		}
		for c := range d {
			b[c], b[d+c] = math.Inf(1), math.Inf(-1)
		}
		for r := int(node.lo); r < int(node.hi); r++ {
			for c, v := range t.pts[r*d : (r+1)*d] {
				b[c], b[d+c] = min(b[c], v), max(b[d+c], v)
			}
		}
	}
	return t
}

// widestAxis returns the feature with the largest range over the points p.
func widestAxis(x []float64, d int, p []int32) (axis int, spread float64) {
	for c := range d {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, i := range p {
			v := x[int(i)*d+c]
			lo, hi = min(lo, v), max(hi, v)
		}
		if hi-lo > spread {
			axis, spread = c, hi-lo
		}
	}
	return axis, spread
}

// selectNth reorders p so that p[m] holds the point of rank m by feature
// axis, with no larger one before it and no smaller one after
// (Hoare partitioning around the median of three; deterministic).
func selectNth(p []int32, m int, x []float64, d, axis int) {
	key := func(i int) float64 { return x[int(p[i])*d+axis] }
	lo, hi := 0, len(p)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		a, b, c := key(lo), key(mid), key(hi)
		pivot := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for key(i) < pivot {
				i++
			}
			for key(j) > pivot {
				j--
			}
			if i <= j {
				p[i], p[j] = p[j], p[i]
				i++
				j--
			}
		}
		switch {
		case m <= j:
			hi = j
		case m >= i:
			lo = i
		default:
			return
		}
	}
}

// boxBound returns a lower bound of the squared distance from q to box b.
func boxBound(q, b []float64) float64 {
	d := len(q)
	var s float64
	for c, v := range q {
		g := max(b[c]-v, v-b[d+c], 0)
		s += g * g
	}
	return s
}

// kdKNN is KNN on a k-d tree (same arguments and results). It calls
// progress, if not nil, from the calling goroutine with the number of rows
// done since the last call, about every twentieth of the rows.
func kdKNN(ctx context.Context, idx []int32, dist []float64, x []float64, n, d, k, threads int, progress func(rows int)) error {
	t := newKDTree(x, n, d)
	const grain = 256
	workers := Workers(n, threads, grain)
	heaps := make([]maxHeap, workers)
	stacks := make([][]kdVisit, workers)
	for w := range heaps {
		heaps[w] = newMaxHeap(k)
	}
	batch := max(n/20, 16*grain)
	for b0 := 0; b0 < n; b0 += batch {
		b1 := min(b0+batch, n)
		err := ParallelForWorker(ctx, b1-b0, threads, grain, func(w, lo, hi int) {
			h := &heaps[w]
			// Queries in tree order: consecutive ones visit the same leaves.
			for r := b0 + lo; r < b0+hi; r++ {
				i := t.perm[r]
				h.reset()
				stacks[w] = t.search(h, stacks[w], t.pts[r*d:(r+1)*d], i)
				h.drain(idx[int(i)*k:(int(i)+1)*k], rowOrNil(dist, int(i), k))
			}
		})
		if err != nil {
			return err
		}
		if progress != nil {
			progress(b1 - b0)
		}
	}
	return nil
}

// kdVisit is a node waiting on the search stack with its box bound.
type kdVisit struct {
	node  int32
	bound float64
}

// search fills h with the k nearest points to q other than self.
func (t *kdTree) search(h *maxHeap, stack []kdVisit, q []float64, self int32) []kdVisit {
	d := t.d
	stack = append(stack[:0], kdVisit{0, 0})
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if h.full() && v.bound*kdPruneSlop > h.d[0] {
			continue
		}
		node := t.nodes[v.node]
		if node.left < 0 {
			for r := int(node.lo); r < int(node.hi); r++ {
				j := t.perm[r]
				if j == self {
					continue
				}
				p := t.pts[r*d : (r+1)*d]
				if !h.full() {
					h.push(SqDist(q, p), j)
					continue
				}
				if s, ok := sqDistAtMost(q, p, h.d[0]); ok && (s < h.d[0] || j < h.idx[0]) {
					h.push(s, j)
				}
			}
			continue
		}
		l, r := node.left, node.left+1
		bl := boxBound(q, t.box[int(l)*2*d:int(l+1)*2*d])
		br := boxBound(q, t.box[int(r)*2*d:int(r+1)*2*d])
		// The nearer child is pushed last, so it is searched first.
		if bl <= br {
			stack = append(stack, kdVisit{r, br}, kdVisit{l, bl})
		} else {
			stack = append(stack, kdVisit{l, bl}, kdVisit{r, br})
		}
	}
	return stack
}
