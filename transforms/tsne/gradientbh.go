package tsne

import (
	"context"
	"fmt"

	"github.com/ordinate/ordinate/kernels"
)

// Barnes–Hut t-SNE gradient: the attractive forces exactly over the sparse
// P, the repulsive ones and Z over a kernels.BHTree of the embedding.

// BHGradient holds the reusable state of Barnes–Hut t-SNE gradients (the
// tree and scratch space). The zero value is ready to use; it is not safe
// for concurrent use.
type BHGradient struct {
	tree   kernels.BHTree
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
// It panics unless 1 ≤ dims ≤ kernels.MaxBHDims, theta ≥ 0 and the lengths
// match, and returns ctx.Err() if cancelled.
func (b *BHGradient) Grad(ctx context.Context, grad, y []float64, p *SparseAffinities, dims int, theta, exaggeration float64, threads int) (float64, error) {
	n := p.N
	kernels.CheckEmbedding(y, n, dims)
	if dims > kernels.MaxBHDims {
		panic(fmt.Sprintf("tsne: Barnes–Hut needs dims ≤ %d, got %d", kernels.MaxBHDims, dims))
	}
	if !(theta >= 0) {
		panic(fmt.Sprintf("tsne: theta = %v, want ≥ 0", theta))
	}
	if len(grad) != n*dims {
		panic(fmt.Sprintf("tsne: len(grad) = %d, want %d", len(grad), n*dims))
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	b.tree.Build(y, n, dims)
	if cap(b.rep) < n*dims {
		b.rep = make([]float64, n*dims)
	}
	if cap(b.rowZ) < n {
		b.rowZ = make([]float64, n)
	}
	rep, rowZ := b.rep[:n*dims], b.rowZ[:n]
	for len(b.stacks) < kernels.Workers(n, threads, tsneGrain) {
		b.stacks = append(b.stacks, nil)
	}
	theta2 := theta * theta
	err := kernels.ParallelForWorker(ctx, n, threads, tsneGrain, func(w, lo, hi int) {
		tsneAttractSparse(grad, y, p, dims, lo, hi, exaggeration)
		st := b.stacks[w]
		for i := lo; i < hi; i++ {
			rowZ[i], st = repulsion(&b.tree, rep[i*dims:(i+1)*dims], y, i, theta2, st)
		}
		b.stacks[w] = st
	})
	if err != nil {
		return 0, err
	}
	return tsneCombineRows(grad, rep, rowZ), nil
}

// repulsion accumulates, for point i, Σ_j w_ij² (y_i − y_j) into rep and
// returns Σ_{j≠i} w_ij, approximating a cell by its centre of mass when
// (cell edge)/distance < θ and the cell does not contain y_i. Children are
// visited in a fixed order.
func repulsion(t *kernels.BHTree, rep []float64, y []float64, i int, theta2 float64, stack []int32) (float64, []int32) {
	if t.Dims == 2 {
		return repulsion2(t, rep, y, i, theta2, stack)
	}
	dims := t.Dims
	yi := y[i*dims : (i+1)*dims]
	// A cell containing y_i has edge/distance ≥ 1/√dims; only a larger θ
	// can accept it, and then the containment test is needed.
	checkInside := theta2*float64(dims) >= 1
	clear(rep)
	var z float64
	stack = append(stack[:0], 0)
	for len(stack) > 0 {
		nd := &t.Nodes[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		if nd.Count == 0 {
			continue
		}
		if nd.Child < 0 {
			for _, p := range t.Perm[nd.Lo:nd.Hi] {
				j := int(p)
				if j == i {
					continue
				}
				yj := y[j*dims : (j+1)*dims]
				w := 1 / (1 + kernels.EmbedSqDist(yi, yj))
				z += w
				ww := w * w
				for c := range dims {
					rep[c] += ww * (yi[c] - yj[c])
				}
			}
			continue
		}
		com := nd.COM[:dims]
		d2 := kernels.EmbedSqDist(yi, com)
		edge := 2 * nd.Half
		if edge*edge < theta2*d2 && !(checkInside && nd.Contains(yi)) {
			w := 1 / (1 + d2)
			fc := float64(nd.Count)
			z += fc * w
			ww := fc * w * w
			for c := range dims {
				rep[c] += ww * (yi[c] - com[c])
			}
			continue
		}
		for o := int32(1<<dims) - 1; o >= 0; o-- {
			stack = append(stack, nd.Child+o)
		}
	}
	return z, stack
}

// repulsion2 is repulsion for dims = 2, with the same operations in the
// same order.
func repulsion2(t *kernels.BHTree, rep []float64, y []float64, i int, theta2 float64, stack []int32) (float64, []int32) {
	y0, y1 := y[2*i], y[2*i+1]
	checkInside := theta2*2 >= 1
	var z, r0, r1 float64
	stack = append(stack[:0], 0)
	for len(stack) > 0 {
		nd := &t.Nodes[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		if nd.Count == 0 {
			continue
		}
		if nd.Child < 0 {
			for _, p := range t.Perm[nd.Lo:nd.Hi] {
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
		d0, d1 := y0-nd.COM[0], y1-nd.COM[1]
		d2 := d0*d0 + d1*d1
		edge := 2 * nd.Half
		if edge*edge < theta2*d2 && !(checkInside && nd.Contains(y[2*i:2*i+2])) {
			w := 1 / (1 + d2)
			fc := float64(nd.Count)
			z += fc * w
			ww := fc * w * w
			r0 += ww * d0
			r1 += ww * d1
			continue
		}
		c := nd.Child
		stack = append(stack, c+3, c+2, c+1, c)
	}
	rep[0], rep[1] = r0, r1
	return z, stack
}
