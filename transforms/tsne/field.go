package tsne

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ordinate/ordinate/transforms/placement"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// The repulsion field of a fixed t-SNE map y_1..y_N at a point y:
//
//	Z(y) = Σ_k w_k,  R(y) = Σ_k w_k²·(y − y_k),  w_k = 1/(1 + ‖y − y_k‖²).
//
// Both depend on the reference map only, so for Dims 1 and 2 they are
// tabulated once on a regular grid and interpolated; ∇Z = −2R.

// ErrField is returned (wrapped) for invalid FieldOptions.
var ErrField = errors.New("invalid repulsion field option")

// Field defaults; see the package doc for the measurements behind them.
const (
	DefaultFieldSpacing  = 0.5
	DefaultFieldMaxNodes = 1024
)

// MaxFieldNodes is the most grid nodes per axis FieldOptions.MaxNodes may
// ask for: 8 times the default, a 2-D table of 1.6 GB (and its FFT
// buffers) that takes minutes to fill; a finer grid gains nothing at the
// spacing the placement needs (see the package doc).
const MaxFieldNodes = 8 * DefaultFieldMaxNodes

// FieldOptions sets the interpolation grid of a RepulsionField. Zero values
// take the defaults.
type FieldOptions struct {
	// Spacing is the distance between grid nodes in map units
	// (0 → DefaultFieldSpacing). It grows when an axis would need more
	// than MaxNodes nodes.
	Spacing float64 `json:"spacing,omitempty"`
	// Margin is how far the grid extends beyond the bounding box of the
	// reference map on each side, in map units (0 → 10 % of the largest
	// extent, at least 2).
	Margin float64 `json:"margin,omitempty"`
	// MaxNodes caps the nodes per axis (0 → DefaultFieldMaxNodes, minimum
	// 8, at most MaxFieldNodes).
	MaxNodes int `json:"max_nodes,omitempty"`
	// Exact skips the grid: Eval always sums over the reference map, O(N)
	// per call (cheaper than building the grid when few rows are placed).
	Exact bool `json:"exact,omitempty"`
}

// RepulsionField evaluates Z and R of a fixed reference map, by cubic
// Lagrange interpolation on a grid (Dims 1 and 2) or by direct sums. It is
// read-only after construction and safe for concurrent use.
type RepulsionField struct {
	ref placement.Reference
	// Grid, for Dims ≤ 2 only (n[1] = 1 when Dims = 1): node (i0, i1) is at
	// lo + (i0·h[0], i1·h[1]) and stores Dims+1 values, Z then R, at
	// table[((i1·n[0]+i0)·(Dims+1)):].
	grid        bool
	lo, h, invH [2]float64 // invH = 1/h
	n           [2]int
	table       []float64
}

// NewRepulsionField tabulates the field of ref (for Dims 1 and 2; for
// Dims ≥ 3 it only keeps ref and Eval sums directly). Node values are exact
// sums over the reference points in index order, so the table is
// bit-identical for any thread count (threads ≤ 0: GOMAXPROCS). It returns
// an error wrapping ErrField for invalid options and ctx.Err() if ctx is
// cancelled. It panics if ref is malformed.
func NewRepulsionField(ctx context.Context, ref placement.Reference, o FieldOptions, threads int) (*RepulsionField, error) {
	ref.Check()
	for _, v := range ref.Y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("tsne: place: %w: reference map has a non-finite coordinate %v", ErrField, v)
		}
	}
	if !(o.Spacing >= 0) || math.IsInf(o.Spacing, 1) || !(o.Margin >= 0) || math.IsInf(o.Margin, 1) || o.MaxNodes < 0 || o.MaxNodes > MaxFieldNodes {
		return nil, fmt.Errorf("tsne: place: %w: Spacing = %v, Margin = %v, MaxNodes = %d, want finite values ≥ 0 and MaxNodes ≤ %d",
			ErrField, o.Spacing, o.Margin, o.MaxNodes, MaxFieldNodes)
	}
	f := &RepulsionField{ref: ref}
	if ref.Dims > 2 || o.Exact {
		return f, nil
	}
	if o.Spacing == 0 {
		o.Spacing = DefaultFieldSpacing
	}
	if o.MaxNodes == 0 {
		o.MaxNodes = DefaultFieldMaxNodes
	}
	o.MaxNodes = max(o.MaxNodes, 8)
	var bmin, bmax [2]float64
	ext := 0.0
	for c := range ref.Dims {
		bmin[c], bmax[c] = math.Inf(1), math.Inf(-1)
		for i := range ref.N {
			v := ref.Y[i*ref.Dims+c]
			bmin[c], bmax[c] = min(bmin[c], v), max(bmax[c], v)
		}
		ext = max(ext, bmax[c]-bmin[c])
	}
	if o.Margin == 0 {
		o.Margin = max(0.1*ext, 2)
	}
	f.grid = true
	f.n = [2]int{1, 1}
	for c := range ref.Dims {
		// One extra node beyond the margin on each side: a cubic needs
		// the nodes on both sides of the query's cell.
		// The count is computed in float64: a spacing far below the span
		// (1e-300) gives more cells than an int holds, and MaxNodes caps
		// them.
		span := bmax[c] - bmin[c] + 2*o.Margin
		if math.IsInf(span, 0) {
			return nil, fmt.Errorf("tsne: place: %w: Margin = %v makes the grid infinite", ErrField, o.Margin)
		}
		h := o.Spacing
		cells := o.MaxNodes - 1
		if fc := math.Ceil(span/h) + 2; fc+1 <= float64(o.MaxNodes) {
			cells = int(fc)
		} else {
			h = span / float64(cells-2)
		}
		f.h[c], f.invH[c] = h, 1/h
		f.n[c] = cells + 1
		f.lo[c] = bmin[c] - o.Margin - h
	}
	if err := transforms.Reserve(ctx, f.tableBytes(), fmt.Sprintf("the repulsion grid of %d×%d nodes", f.n[0], f.n[1]),
		"use a coarser grid (max_nodes, spacing) or the exact field"); err != nil {
		return nil, err
	}
	f.table = make([]float64, f.n[0]*f.n[1]*(ref.Dims+1))
	if ref.Dims == 2 {
		if err := f.fill2(ctx, threads); err != nil {
			return nil, err
		}
		return f, nil
	}
	if err := kernels.ParallelFor(ctx, f.n[0], threads, fieldGrain1, func(lo, hi int) {
		f.fill1(lo, hi)
	}); err != nil {
		return nil, err
	}
	return f, nil
}

// tableBytes is the memory the grid takes while it is filled: the table,
// and for Dims 2 fill2's charges and its two FFT buffers.
func (f *RepulsionField) tableBytes() float64 {
	n0, n1 := f.n[0], f.n[1]
	b := transforms.Float64Bytes(n0, n1, f.ref.Dims+1)
	if f.ref.Dims == 2 {
		p0, p1 := kernels.FFTSize(2*n0-1), kernels.FFTSize(2*n1-1)
		b += transforms.Float64Bytes(n0, n1) + 2*transforms.Float64Bytes(2, p1, p0/2+1)
	}
	return b
}

// fieldGrain1 is the number of nodes per chunk of a 1-D table.
const fieldGrain1 = 16

// fill1 computes the exact values at the nodes lo..hi−1 of a 1-D grid:
// O(nodes·N), at most 1024·N. The loop runs over reference points outside
// and nodes inside, which keeps each node's sums in point order while
// giving the processor independent work.
func (f *RepulsionField) fill1(lo, hi int) {
	row := f.table[2*lo : 2*hi]
	for _, yk := range f.ref.Y {
		for i := range hi - lo {
			d := f.lo[0] + float64(lo+i)*f.h[0] - yk
			w := 1 / (1 + d*d)
			row[2*i] += w
			row[2*i+1] += w * w * d
		}
	}
}

// Dims returns the dimension of the reference map.
func (f *RepulsionField) Dims() int { return f.ref.Dims }

// Grid reports the interpolation grid: the nodes per axis and their spacing
// (both zero beyond Dims, and all zero for Dims ≥ 3, which sums directly).
func (f *RepulsionField) Grid() (nodes [2]int, spacing [2]float64) {
	if !f.grid {
		return
	}
	nodes, spacing = f.n, f.h
	if f.ref.Dims == 1 {
		nodes[1] = 0
	}
	return nodes, spacing
}

// EvalExact writes R(y) to r (Dims values) and returns Z(y), summing over
// every reference point in index order: O(N). It panics on wrong lengths.
func (f *RepulsionField) EvalExact(y, r []float64) (z float64) {
	dims := f.ref.Dims
	if len(y) != dims || len(r) != dims {
		panic(fmt.Sprintf("tsne: place: len(y) = %d, len(r) = %d, want Dims = %d", len(y), len(r), dims))
	}
	ry := f.ref.Y
	switch dims {
	case 1:
		var r0 float64
		for _, v := range ry {
			d := y[0] - v
			w := 1 / (1 + d*d)
			z += w
			r0 += w * w * d
		}
		r[0] = r0
	case 2:
		var r0, r1 float64
		for k := 0; k < len(ry); k += 2 {
			d0, d1 := y[0]-ry[k], y[1]-ry[k+1]
			w := 1 / (1 + d0*d0 + d1*d1)
			z += w
			w2 := w * w
			r0 += w2 * d0
			r1 += w2 * d1
		}
		r[0], r[1] = r0, r1
	default:
		clear(r)
		for k := range f.ref.N {
			yk := ry[k*dims : (k+1)*dims]
			s := 1.0
			for c, v := range yk {
				d := y[c] - v
				s += d * d
			}
			w := 1 / s
			z += w
			w2 := w * w
			for c, v := range yk {
				r[c] += w2 * (y[c] - v)
			}
		}
	}
	return z
}

// Eval writes R(y) to r (Dims values) and returns Z(y): interpolated from
// the grid when y is inside it (Dims 1 and 2), else EvalExact. It panics on
// wrong lengths.
func (f *RepulsionField) Eval(y, r []float64) (z float64) {
	if !f.grid {
		return f.EvalExact(y, r)
	}
	if len(y) != f.ref.Dims || len(r) != f.ref.Dims {
		panic(fmt.Sprintf("tsne: place: len(y) = %d, len(r) = %d, want Dims = %d", len(y), len(r), f.ref.Dims))
	}
	if f.ref.Dims == 2 {
		z, r[0], r[1] = f.eval2(y[0], y[1])
		return z
	}
	// Cell i covers [lo + i·h, lo + (i+1)·h); its cubic uses nodes i−1..i+2,
	// so the usable cells are 1..n−3.
	u0 := (y[0] - f.lo[0]) * f.invH[0]
	if !(u0 >= 1 && u0 < float64(f.n[0]-2)) {
		return f.EvalExact(y, r)
	}
	i0 := int(u0)
	a := lagrange4(u0 - float64(i0))
	t := f.table[2*(i0-1) : 2*(i0+3)]
	z = a[0]*t[0] + a[1]*t[2] + a[2]*t[4] + a[3]*t[6]
	r[0] = a[0]*t[1] + a[1]*t[3] + a[2]*t[5] + a[3]*t[7]
	return z
}

// eval2 is Eval for Dims = 2 on a grid, with scalar arguments and results
// (Place's inner loop).
func (f *RepulsionField) eval2(y0, y1 float64) (z, r0, r1 float64) {
	u0 := (y0 - f.lo[0]) * f.invH[0]
	u1 := (y1 - f.lo[1]) * f.invH[1]
	if !(u0 >= 1 && u0 < float64(f.n[0]-2) && u1 >= 1 && u1 < float64(f.n[1]-2)) {
		var y, r [2]float64
		y[0], y[1] = y0, y1
		z = f.EvalExact(y[:], r[:])
		return z, r[0], r[1]
	}
	i0, i1 := int(u0), int(u1)
	a := lagrange4(u0 - float64(i0))
	b := lagrange4(u1 - float64(i1))
	n0 := f.n[0]
	// The 4×4 nodes from (i0−1, i1−1): 12 values per grid row.
	base := ((i1-1)*n0 + i0 - 1) * 3
	stride := n0 * 3
	t := f.table[base : base+3*stride+12]
	for m := range 4 {
		v := t[m*stride : m*stride+12 : m*stride+12]
		z0 := a[0]*v[0] + a[1]*v[3] + a[2]*v[6] + a[3]*v[9]
		x0 := a[0]*v[1] + a[1]*v[4] + a[2]*v[7] + a[3]*v[10]
		x1 := a[0]*v[2] + a[1]*v[5] + a[2]*v[8] + a[3]*v[11]
		z += b[m] * z0
		r0 += b[m] * x0
		r1 += b[m] * x1
	}
	return z, r0, r1
}

// lagrange4 returns the weights of the cubic through the nodes −1, 0, 1, 2
// evaluated at t ∈ [0, 1).
func lagrange4(t float64) [4]float64 {
	const sixth = 1.0 / 6 // a product: a division costs several
	tm1, tp1, tm2 := t-1, t+1, t-2
	return [4]float64{
		-t * tm1 * tm2 * sixth,
		tp1 * tm1 * tm2 * 0.5,
		-tp1 * t * tm2 * 0.5,
		tp1 * t * tm1 * sixth,
	}
}

// fieldNear is the half-width, in cells, of the patch of nodes around each
// point's cell whose values fill2 sums exactly: nodes c−fieldNear+1 ..
// c+fieldNear on each axis of a point in cell c, so every pair left to the
// spread sum is at least fieldNear spacings apart.
const fieldNear = 4

// fill2 computes the node values of a 2-D grid as particle–particle
// particle–mesh sums. Each point is spread onto the 4×4 nodes around it
// with the cubic Lagrange weights of its position (the interpolation that
// Eval uses); the spread charges are convolved with the three kernels w,
// w²·d0, w²·d1 at the node offsets by FFT, which is exact for charges on
// nodes; and for the nodes within fieldNear cells of each point, that
// point's spread term is replaced by its exact term. What remains
// approximate is the interpolation of the kernels in the source position
// at distances of at least fieldNear spacings (see the package doc for the
// measured error). Every sum runs in an order fixed by the grid and the
// point indices, and each FFT line is computed on its own, so the table is
// bit-identical for any thread count.
func (f *RepulsionField) fill2(ctx context.Context, threads int) error {
	n0, n1 := f.n[0], f.n[1]
	ref := f.ref
	// The points by cell row (stable), and the spread charges, summed in
	// point order.
	start := make([]int32, n1+1)
	q := make([]float64, n0*n1)
	for k := range ref.N {
		c0, c1, a, b := f.cell2(ref.Y[2*k : 2*k+2])
		start[c1+1]++
		for m1 := range 4 {
			row := q[(c1-1+m1)*n0+c0-1 : (c1-1+m1)*n0+c0+3]
			for m0 := range 4 {
				row[m0] += b[m1] * a[m0]
			}
		}
	}
	for i := range n1 {
		start[i+1] += start[i]
	}
	order := make([]int32, ref.N)
	pos := slices.Clone(start[:n1])
	for k := range ref.N {
		_, c1, _, _ := f.cell2(ref.Y[2*k : 2*k+2])
		order[pos[c1]] = int32(k)
		pos[c1]++
	}

	// Mesh: the linear convolution of q with each kernel, on an FFT grid
	// at least 2n−1 long per axis so that no offset wraps around.
	var t kernels.RealFFT2
	t.Setup(kernels.FFTSize(2*n0-1), kernels.FFTSize(2*n1-1), threads)
	p0, p1, rowLen := t.Size()
	qs, ks := make([]complex128, p1*rowLen), make([]complex128, p1*rowLen)
	if err := t.Forward(ctx, qs, func(r int, row []float64) bool {
		if r >= n1 {
			return false
		}
		copy(row, q[r*n0:(r+1)*n0])
		return true
	}); err != nil {
		return err
	}
	scale := 1 / float64(p0*p1)
	for comp := range 3 {
		if err := t.Forward(ctx, ks, func(r int, row []float64) bool {
			d1 := r
			if r >= n1 {
				d1 = r - p1
				if d1 <= -n1 {
					return false
				}
			}
			for i := range row {
				d0 := i
				if i >= n0 {
					d0 = i - p0
					if d0 <= -n0 {
						row[i] = 0
						continue
					}
				}
				row[i] = fieldKernel(float64(d0)*f.h[0], float64(d1)*f.h[1], comp)
			}
			return true
		}); err != nil {
			return err
		}
		for i, v := range qs {
			ks[i] *= v
		}
		if err := t.Inverse(ctx, ks, n1, func(r int, row []float64) {
			dst := f.table[r*n0*3 : (r+1)*n0*3]
			for i0, v := range row[:n0] {
				dst[3*i0+comp] = v * scale
			}
		}); err != nil {
			return err
		}
	}

	// Near field: the exact minus the spread terms of each point at the
	// nodes within fieldNear cells of it. A chunk owns a band of node rows
	// and visits the points of the cell rows that reach it, in row then
	// point order: the order of every node's sum is that, whatever the
	// chunks.
	return kernels.ParallelFor(ctx, n1, threads, fieldBand, func(lo, hi int) {
		// The kernels at the offsets −fieldNear−2 .. fieldNear+1 between
		// a node and a spreading node, per axis.
		const span = 2*fieldNear + 4
		var kt [3][span][span]float64
		for comp := range 3 {
			for i1 := range span {
				for i0 := range span {
					kt[comp][i1][i0] = fieldKernel(float64(i0-fieldNear-2)*f.h[0], float64(i1-fieldNear-2)*f.h[1], comp)
				}
			}
		}
		for c1 := max(lo-fieldNear, 0); c1 <= min(hi+fieldNear-1, n1-1); c1++ {
			for _, k := range order[start[c1]:start[c1+1]] {
				yk := ref.Y[2*k : 2*k+2]
				c0, _, a, b := f.cell2(yk)
				for i1 := max(c1-fieldNear+1, lo); i1 <= min(c1+fieldNear, hi-1); i1++ {
					// bs[comp][j] = Σ_m1 b_m1·K(j−fieldNear−2, i1 − (c1−1+m1)).
					var bs [3][span]float64
					for m1 := range 4 {
						d1 := i1 - (c1 - 1 + m1) + fieldNear + 2
						for comp := range 3 {
							for j, v := range kt[comp][d1] {
								bs[comp][j] += b[m1] * v
							}
						}
					}
					dst := f.table[i1*n0*3 : (i1+1)*n0*3]
					d1 := f.lo[1] + float64(i1)*f.h[1] - yk[1]
					q1 := 1 + d1*d1
					for i0 := max(c0-fieldNear+1, 0); i0 <= min(c0+fieldNear, n0-1); i0++ {
						d0 := f.lo[0] + float64(i0)*f.h[0] - yk[0]
						w := 1 / (q1 + d0*d0)
						w2 := w * w
						// Offsets i0 − (c0−1+m0), shifted.
						j := i0 - c0 + 1 + fieldNear + 2
						t := dst[3*i0 : 3*i0+3 : 3*i0+3]
						t[0] += w - (a[0]*bs[0][j] + a[1]*bs[0][j-1] + a[2]*bs[0][j-2] + a[3]*bs[0][j-3])
						t[1] += w2*d0 - (a[0]*bs[1][j] + a[1]*bs[1][j-1] + a[2]*bs[1][j-2] + a[3]*bs[1][j-3])
						t[2] += w2*d1 - (a[0]*bs[2][j] + a[1]*bs[2][j-1] + a[2]*bs[2][j-2] + a[3]*bs[2][j-3])
					}
				}
			}
		}
	})
}

// fieldBand is the number of node rows per chunk of fill2's near field:
// each point is visited by about 1 + (2·fieldNear−1)/fieldBand chunks.
const fieldBand = 16

// cell2 returns the grid cell (c0, c1) of a reference point y and its
// cubic Lagrange weights along each axis: the point spreads onto nodes
// c0−1..c0+2 × c1−1..c1+2, which NewRepulsionField's margin keeps inside
// the grid.
func (f *RepulsionField) cell2(y []float64) (c0, c1 int, a, b [4]float64) {
	u0 := (y[0] - f.lo[0]) * f.invH[0]
	u1 := (y[1] - f.lo[1]) * f.invH[1]
	c0, c1 = int(u0), int(u1)
	return c0, c1, lagrange4(u0 - float64(c0)), lagrange4(u1 - float64(c1))
}

// fieldKernel is the kernel of Z (comp 0) or of R's component comp−1 at
// the offset (d0, d1): w, w²·d0 or w²·d1 with w = 1/(1 + d0² + d1²).
func fieldKernel(d0, d1 float64, comp int) float64 {
	w := 1 / (1 + d0*d0 + d1*d1)
	switch comp {
	case 0:
		return w
	case 1:
		return w * w * d0
	}
	return w * w * d1
}
