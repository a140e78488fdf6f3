package tsne

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ordinate/ordinate/kernels"
)

// t-SNE objective and gradients.
//
// Conventions: y is the n×dims row-major embedding; P is the symmetric joint
// affinity matrix (Σ_ij p_ij = 1, p_ii = 0); w_ij = (1 + ‖y_i − y_j‖²)⁻¹ is
// the Student-t kernel, Z = Σ_{i≠j} w_ij and q_ij = w_ij/Z. The gradient of
// KL(P‖Q) = Σ p_ij log(p_ij/q_ij) is
//
//	∂KL/∂y_i = 4 Σ_j (p_ij − q_ij) w_ij (y_i − y_j),
//
// factor 4 included. With early exaggeration α the attractive part uses α·P.
// Terms with p_ij = 0 contribute nothing to KL. The Barnes–Hut gradient over
// a sparse P is in gradientbh.go.

// tsneGrain is the number of points per chunk of the t-SNE loops.
const tsneGrain = 32

// JointP turns the dense n×n conditional probabilities cond (rows
// p_{j|i} summing to 1, as kernels.Perplexity returns) into the joint
// p_ij = (p_{j|i} + p_{i|j})/(2n), in place. The result is symmetric bit for
// bit.
func JointP(cond []float64, n int) {
	if n < 0 || len(cond) != n*n {
		panic(fmt.Sprintf("tsne: len(cond) = %d, want n² = %d", len(cond), n*n))
	}
	s := 1 / (2 * float64(n))
	for i := range n {
		cond[i*n+i] = 0
		for j := i + 1; j < n; j++ {
			v := (cond[i*n+j] + cond[j*n+i]) * s
			cond[i*n+j], cond[j*n+i] = v, v
		}
	}
}

// SparseAffinities is a sparse symmetric n×n matrix in compressed sparse row
// form: row i's column indices are Col[RowPtr[i]:RowPtr[i+1]], increasing,
// with the values in Val at the same positions.
type SparseAffinities struct {
	N      int
	RowPtr []int
	Col    []int32
	Val    []float64

	// at[i] is the stored row of point i, nil for the identity. The
	// optimiser's locality reordering relabels Col in place and permutes
	// at instead of moving the rows, so P is never copied.
	at []int32
}

// row returns the bounds in Col and Val of point i's row.
func (p *SparseAffinities) row(i int) (lo, hi int) {
	if p.at != nil {
		r := int(p.at[i])
		return p.RowPtr[r], p.RowPtr[r+1]
	}
	return p.RowPtr[i], p.RowPtr[i+1]
}

// JointPSparse symmetrises conditional probabilities given over k
// neighbour lists (idx and cond in the layout of kernels.KNN: row i's
// neighbours and p_{j|i} at [i*k, (i+1)*k)) into the joint
// p_ij = (p_{j|i} + p_{i|j})/(2n), where a missing p_{i|j} counts as 0 and
// a neighbour listed twice counts twice. The pattern is the union of the
// neighbour graph and its transpose, each row's columns increasing. p_ij
// and p_ji are the same two partial sums added (each summed in increasing
// order of its terms), so P is symmetric bit for bit. Beside its result it
// holds only the transpose (12 bytes an entry) and a row buffer: no
// per-pair records. It panics on wrong lengths or if a neighbour index is
// out of range or equal to its row.
func JointPSparse(idx []int32, cond []float64, n, k int) *SparseAffinities {
	if n < 0 || k < 1 || len(idx) != n*k || len(cond) != n*k {
		panic(fmt.Sprintf("tsne: len(idx) = %d, len(cond) = %d, want n·k = %d·%d", len(idx), len(cond), n, k))
	}
	// The transpose: row j lists (i, p_{j|i}) for every i with j among
	// its neighbours, filled in increasing i.
	tptr := make([]int, n+1)
	for i := range n {
		for _, j := range idx[i*k : (i+1)*k] {
			if j < 0 || int(j) >= n || int(j) == i {
				panic(fmt.Sprintf("tsne: neighbour %d of row %d out of range or self", j, i))
			}
			tptr[j+1]++
		}
	}
	for i := range n {
		tptr[i+1] += tptr[i]
	}
	tcol := make([]int32, n*k)
	tval := make([]float64, n*k)
	fill := slices.Clone(tptr[:n])
	for i := range n {
		for q, j := range idx[i*k : (i+1)*k] {
			tcol[fill[j]], tval[fill[j]] = int32(i), cond[i*k+q]
			fill[j]++
		}
	}
	fill = nil
	// Row lengths: the distinct columns of the row and its transpose.
	stamp := make([]int32, n)
	for i := range stamp {
		stamp[i] = -1
	}
	a := &SparseAffinities{N: n, RowPtr: make([]int, n+1)}
	for i := range n {
		distinct := 0
		for _, list := range [2][]int32{idx[i*k : (i+1)*k], tcol[tptr[i]:tptr[i+1]]} {
			for _, c := range list {
				if stamp[c] != int32(i) {
					stamp[c] = int32(i)
					distinct++
				}
			}
		}
		a.RowPtr[i+1] = a.RowPtr[i] + distinct
	}
	stamp = nil
	a.Col = make([]int32, a.RowPtr[n])
	a.Val = make([]float64, a.RowPtr[n])
	s := 1 / (2 * float64(n))
	type entry struct {
		col int32
		v   float64
	}
	own := make([]entry, k)
	var run []float64
	// ascending sums a run of terms in increasing order (runs are longer
	// than one only where a list repeats a neighbour).
	ascending := func(v []float64) float64 {
		if len(v) == 1 {
			return v[0]
		}
		run = append(run[:0], v...)
		slices.Sort(run)
		var t float64
		for _, x := range run {
			t += x
		}
		return t
	}
	for i := range n {
		for q := range own {
			own[q] = entry{idx[i*k+q], cond[i*k+q]}
		}
		slices.SortFunc(own, func(x, y entry) int {
			if c := cmp.Compare(x.col, y.col); c != 0 {
				return c
			}
			return cmp.Compare(x.v, y.v)
		})
		e, o, t, tEnd := a.RowPtr[i], 0, tptr[i], tptr[i+1]
		for o < k || t < tEnd {
			c := int32(math.MaxInt32)
			if o < k {
				c = own[o].col
			}
			if t < tEnd {
				c = min(c, tcol[t])
			}
			var v float64
			have := false
			if o < k && own[o].col == c {
				var sum float64
				for ; o < k && own[o].col == c; o++ {
					sum += own[o].v
				}
				v, have = sum, true
			}
			if t < tEnd && tcol[t] == c {
				t0 := t
				for t < tEnd && tcol[t] == c {
					t++
				}
				if b := ascending(tval[t0:t]); have {
					v += b
				} else {
					v = b
				}
			}
			a.Col[e], a.Val[e] = c, v*s
			e++
		}
	}
	return a
}

// GradExact writes the exact gradient of KL(P‖Q) at y into grad (n×dims)
// for the dense n×n joint P (symmetric, as JointP makes it), with the
// attractive term scaled by exaggeration, and returns Z. Row i's sums run
// over j in a fixed order and Z is summed in row order, so the result is
// bit-identical for any thread count. It costs O(n²·dims) time and
// allocates O(n·dims). It panics on wrong lengths and returns ctx.Err() if
// cancelled.
func GradExact(ctx context.Context, grad, y, p []float64, n, dims int, exaggeration float64, threads int) (z float64, err error) {
	kernels.CheckEmbedding(y, n, dims)
	if len(grad) != n*dims || len(p) != n*n {
		panic(fmt.Sprintf("tsne: len(grad) = %d, len(p) = %d, want %d and %d", len(grad), len(p), n*dims, n*n))
	}
	rep := make([]float64, n*dims)
	rowZ := make([]float64, n)
	if err := tsneGradRows(ctx, grad, rep, rowZ, y, p, n, dims, exaggeration, threads); err != nil {
		return 0, err
	}
	return tsneCombineRows(grad, rep, rowZ), nil
}

// tsneGradRows is the row-by-row form of the exact gradient's sums.
func tsneGradRows(ctx context.Context, grad, rep, rowZ, y, p []float64, n, dims int, exaggeration float64, threads int) error {
	return kernels.ParallelFor(ctx, n, threads, tsneGrain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			rowZ[i] = tsneExactRow(grad[i*dims:(i+1)*dims], rep[i*dims:(i+1)*dims], y, p[i*n:(i+1)*n], i, dims, exaggeration)
		}
	})
}

// tsneCombineRows sums the rows' Σ_j w_ij into Z (in row order, so Z does
// not depend on the thread count), combines the gradient with it
// (tsneCombine) and returns Z.
func tsneCombineRows(grad, rep, rowZ []float64) float64 {
	var z float64
	for _, v := range rowZ {
		z += v
	}
	tsneCombine(grad, rep, z)
	return z
}

// tsneCombine sets grad = 4(grad − rep/Z): grad holds the attractive sums.
func tsneCombine(grad, rep []float64, z float64) {
	inv := 1 / z
	for i := range grad {
		grad[i] = 4 * (grad[i] - rep[i]*inv)
	}
}

// tsneExactRow sets att = α Σ_j p_ij w_ij (y_i − y_j) and
// rep = Σ_j w_ij² (y_i − y_j), and returns Σ_{j≠i} w_ij.
func tsneExactRow(att, rep, y, prow []float64, i, dims int, alpha float64) float64 {
	var z float64
	if dims == 2 {
		// Two interleaved sets of accumulators (even and odd j) halve the
		// add latency chains; they are combined in a fixed order.
		yi0, yi1 := y[2*i], y[2*i+1]
		var a0, a1, r0, r1, z2, b0, b1, s0, s1 float64
		j := 0
		for ; j+1 < len(prow); j += 2 {
			d0, d1 := yi0-y[2*j], yi1-y[2*j+1]
			e0, e1 := yi0-y[2*j+2], yi1-y[2*j+3]
			w := 1 / (1 + d0*d0 + d1*d1)
			v := 1 / (1 + e0*e0 + e1*e1)
			z += w
			z2 += v
			pw, pv := prow[j]*w, prow[j+1]*v
			a0 += pw * d0
			a1 += pw * d1
			b0 += pv * e0
			b1 += pv * e1
			ww, vv := w*w, v*v
			r0 += ww * d0
			r1 += ww * d1
			s0 += vv * e0
			s1 += vv * e1
		}
		if j < len(prow) {
			d0, d1 := yi0-y[2*j], yi1-y[2*j+1]
			w := 1 / (1 + d0*d0 + d1*d1)
			z += w
			pw := prow[j] * w
			a0 += pw * d0
			a1 += pw * d1
			ww := w * w
			r0 += ww * d0
			r1 += ww * d1
		}
		att[0], att[1] = alpha*(a0+b0), alpha*(a1+b1)
		rep[0], rep[1] = r0+s0, r1+s1
		return (z + z2) - 1 // j = i contributed w = 1 and nothing else
	}
	clear(att)
	clear(rep)
	yi := y[i*dims : (i+1)*dims]
	for j, pij := range prow {
		if j == i {
			continue
		}
		yj := y[j*dims : (j+1)*dims]
		var d2 float64
		for c := range dims {
			t := yi[c] - yj[c]
			d2 += t * t
		}
		w := 1 / (1 + d2)
		z += w
		pw, ww := pij*w, w*w
		for c := range dims {
			t := yi[c] - yj[c]
			att[c] += pw * t
			rep[c] += ww * t
		}
	}
	for c := range att {
		att[c] *= alpha
	}
	return z
}

// KLExact returns KL(P‖Q) at y for the dense joint P (terms with
// p_ij = 0 omitted), summed per row and then in row order.
func KLExact(ctx context.Context, y, p []float64, n, dims, threads int) (float64, error) {
	kernels.CheckEmbedding(y, n, dims)
	if len(p) != n*n {
		panic(fmt.Sprintf("tsne: len(p) = %d, want n² = %d", len(p), n*n))
	}
	rowZ := make([]float64, n)
	rowKL := make([]float64, n)
	rowP := make([]float64, n)
	err := kernels.ParallelFor(ctx, n, threads, tsneGrain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			yi := y[i*dims : (i+1)*dims]
			var z, kl, ps float64
			for j, pij := range p[i*n : (i+1)*n] {
				if j == i {
					continue
				}
				w := 1 / (1 + kernels.EmbedSqDist(yi, y[j*dims:(j+1)*dims]))
				z += w
				if pij > 0 {
					kl += pij * math.Log(pij/w)
					ps += pij
				}
			}
			rowZ[i], rowKL[i], rowP[i] = z, kl, ps
		}
	})
	if err != nil {
		return 0, err
	}
	return tsneKLFinish(rowZ, rowKL, rowP), nil
}

// tsneKLFinish combines Σ p log(p/w) + log Z · Σ p, in row order.
func tsneKLFinish(rowZ, rowKL, rowP []float64) float64 {
	var z, kl, ps float64
	for i := range rowZ {
		z += rowZ[i]
		kl += rowKL[i]
		ps += rowP[i]
	}
	return kl + math.Log(z)*ps
}

// tsneAttractSparse sets att_i = α Σ_j p_ij w_ij (y_i − y_j) over the
// sparse P, for rows [lo, hi).
func tsneAttractSparse(att, y []float64, p *SparseAffinities, dims, lo, hi int, alpha float64) {
	if dims == 2 {
		for i := lo; i < hi; i++ {
			from, to := p.row(i)
			a0, a1 := attract2(y, p.Col[from:to], p.Val[from:to], y[2*i], y[2*i+1])
			att[2*i], att[2*i+1] = alpha*a0, alpha*a1
		}
		return
	}
	for i := lo; i < hi; i++ {
		a := att[i*dims : (i+1)*dims]
		clear(a)
		yi := y[i*dims : (i+1)*dims]
		from, to := p.row(i)
		for e := from; e < to; e++ {
			yj := y[int(p.Col[e])*dims : (int(p.Col[e])+1)*dims]
			pw := p.Val[e] / (1 + kernels.EmbedSqDist(yi, yj))
			for c := range dims {
				a[c] += pw * (yi[c] - yj[c])
			}
		}
		for c := range a {
			a[c] *= alpha
		}
	}
}

// KLSparse returns KL(P‖Q) at y over the entries of the sparse P, with
// q_ij = w_ij/z for the given normalisation z (exact, or the Barnes–Hut
// estimate that BHGradient.Grad returns).
func KLSparse(y []float64, p *SparseAffinities, dims int, z float64) float64 {
	kernels.CheckEmbedding(y, p.N, dims)
	var kl, ps float64
	for i := range p.N {
		yi := y[i*dims : (i+1)*dims]
		lo, hi := p.row(i)
		for e := lo; e < hi; e++ {
			pij := p.Val[e]
			if pij <= 0 {
				continue
			}
			j := int(p.Col[e])
			w := 1 / (1 + kernels.EmbedSqDist(yi, y[j*dims:(j+1)*dims]))
			kl += pij * math.Log(pij/w)
			ps += pij
		}
	}
	return kl + math.Log(z)*ps
}
