package place

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ordinate/ordinate/kernels"
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
	// MaxNodes caps the nodes per axis (0 → DefaultFieldMaxNodes, minimum 8).
	MaxNodes int `json:"max_nodes,omitempty"`
	// Exact skips the grid: Eval always sums over the reference map, O(N)
	// per call (cheaper than building the grid when few rows are placed).
	Exact bool `json:"exact,omitempty"`
}

// RepulsionField evaluates Z and R of a fixed reference map, by cubic
// Lagrange interpolation on a grid (Dims 1 and 2) or by direct sums. It is
// read-only after construction and safe for concurrent use.
type RepulsionField struct {
	ref Reference
	// Grid, for Dims ≤ 2 only (n[1] = 1 when Dims = 1): node (i0, i1) is at
	// lo + (i0·h[0], i1·h[1]) and stores Dims+1 values, Z then R, at
	// table[((i1·n[0]+i0)·(Dims+1)):].
	grid  bool
	lo, h [2]float64
	n     [2]int
	table []float64
}

// fieldGrain is the number of grid rows per chunk when building a table.
const fieldGrain = 1

// NewRepulsionField tabulates the field of ref (for Dims 1 and 2; for
// Dims ≥ 3 it only keeps ref and Eval sums directly). Node values are exact
// sums over the reference points in index order, so the table is
// bit-identical for any thread count (threads ≤ 0: GOMAXPROCS). It returns
// an error wrapping ErrField for invalid options and ctx.Err() if ctx is
// cancelled. It panics if ref is malformed.
func NewRepulsionField(ctx context.Context, ref Reference, o FieldOptions, threads int) (*RepulsionField, error) {
	ref.Check()
	for _, v := range ref.Y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("place: %w: reference map has a non-finite coordinate %v", ErrField, v)
		}
	}
	if !(o.Spacing >= 0) || math.IsInf(o.Spacing, 1) || !(o.Margin >= 0) || math.IsInf(o.Margin, 1) || o.MaxNodes < 0 {
		return nil, fmt.Errorf("place: %w: Spacing = %v, Margin = %v, MaxNodes = %d, want finite values ≥ 0",
			ErrField, o.Spacing, o.Margin, o.MaxNodes)
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
		span := bmax[c] - bmin[c] + 2*o.Margin
		h := o.Spacing
		cells := int(math.Ceil(span/h)) + 2
		if cells+1 > o.MaxNodes {
			cells = o.MaxNodes - 1
			h = span / float64(cells-2)
		}
		f.h[c] = h
		f.n[c] = cells + 1
		f.lo[c] = bmin[c] - o.Margin - h
	}
	f.table = make([]float64, f.n[0]*f.n[1]*(ref.Dims+1))
	if err := kernels.ParallelFor(ctx, f.n[1], threads, fieldGrain, func(lo, hi int) {
		for i1 := lo; i1 < hi; i1++ {
			f.fillRow(i1)
		}
	}); err != nil {
		return nil, err
	}
	return f, nil
}

// fillRow computes the exact values at the nodes of grid row i1. The loop
// runs over reference points outside and nodes inside, which keeps each
// node's sums in point order while giving the processor independent work.
func (f *RepulsionField) fillRow(i1 int) {
	n0 := f.n[0]
	row := f.table[i1*n0*(f.ref.Dims+1) : (i1+1)*n0*(f.ref.Dims+1)]
	y := f.ref.Y
	if f.ref.Dims == 1 {
		for k := range f.ref.N {
			yk := y[k]
			for i0 := range n0 {
				d := f.lo[0] + float64(i0)*f.h[0] - yk
				w := 1 / (1 + d*d)
				row[2*i0] += w
				row[2*i0+1] += w * w * d
			}
		}
		return
	}
	x1 := f.lo[1] + float64(i1)*f.h[1]
	x0 := make([]float64, n0)
	for i0 := range x0 {
		x0[i0] = f.lo[0] + float64(i0)*f.h[0]
	}
	for k := range f.ref.N {
		yk0, d1 := y[2*k], x1-y[2*k+1]
		q := 1 + d1*d1
		for i0, x := range x0 {
			d0 := x - yk0
			w := 1 / (q + d0*d0)
			w2 := w * w
			t := row[3*i0 : 3*i0+3 : 3*i0+3]
			t[0] += w
			t[1] += w2 * d0
			t[2] += w2 * d1
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
		panic(fmt.Sprintf("place: len(y) = %d, len(r) = %d, want Dims = %d", len(y), len(r), dims))
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
		panic(fmt.Sprintf("place: len(y) = %d, len(r) = %d, want Dims = %d", len(y), len(r), f.ref.Dims))
	}
	// Cell i covers [lo + i·h, lo + (i+1)·h); its cubic uses nodes i−1..i+2,
	// so the usable cells are 1..n−3.
	u0 := (y[0] - f.lo[0]) / f.h[0]
	if !(u0 >= 1 && u0 < float64(f.n[0]-2)) {
		return f.EvalExact(y, r)
	}
	i0 := int(u0)
	a := lagrange4(u0 - float64(i0))
	if f.ref.Dims == 1 {
		t := f.table[2*(i0-1) : 2*(i0+3)]
		z = a[0]*t[0] + a[1]*t[2] + a[2]*t[4] + a[3]*t[6]
		r[0] = a[0]*t[1] + a[1]*t[3] + a[2]*t[5] + a[3]*t[7]
		return z
	}
	u1 := (y[1] - f.lo[1]) / f.h[1]
	if !(u1 >= 1 && u1 < float64(f.n[1]-2)) {
		return f.EvalExact(y, r)
	}
	i1 := int(u1)
	b := lagrange4(u1 - float64(i1))
	n0 := f.n[0]
	var r0, r1 float64
	for m := range 4 {
		base := ((i1-1+m)*n0 + i0 - 1) * 3
		t := f.table[base : base+12 : base+12]
		z0 := a[0]*t[0] + a[1]*t[3] + a[2]*t[6] + a[3]*t[9]
		x0 := a[0]*t[1] + a[1]*t[4] + a[2]*t[7] + a[3]*t[10]
		x1 := a[0]*t[2] + a[1]*t[5] + a[2]*t[8] + a[3]*t[11]
		z += b[m] * z0
		r0 += b[m] * x0
		r1 += b[m] * x1
	}
	r[0], r[1] = r0, r1
	return z
}

// lagrange4 returns the weights of the cubic through the nodes −1, 0, 1, 2
// evaluated at t ∈ [0, 1).
func lagrange4(t float64) [4]float64 {
	tm1, tp1, tm2 := t-1, t+1, t-2
	return [4]float64{
		-t * tm1 * tm2 / 6,
		tp1 * tm1 * tm2 / 2,
		-tp1 * t * tm2 / 2,
		tp1 * t * tm1 / 6,
	}
}
