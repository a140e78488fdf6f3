package tsne

import (
	"context"
	"fmt"
	"math"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// FFT-accelerated interpolation of t-SNE's repulsive forces (FIt-SNE,
// Linderman et al., Nature Methods 2019, as openTSNE implements it). A
// grid of equal intervals per axis covers the bounding box of the map
// (intervals exactly IntervalWidth wide, centred on the box, once the map
// is wider than MinIntervals of them), each with
// NodesPerInterval equispaced Lagrange nodes at offsets (k + ½)/p of the
// interval, so that all nodes form one regular grid of spacing h =
// width/p. Each point spreads a unit charge onto the p^dims nodes of its
// interval with the Lagrange weights of its position; the node potentials
//
//	φ_0 = Σ w,  φ_c = Σ w²·(x − x')_c,  w = 1/(1 + ‖x − x'‖²),
//
// are the linear convolutions of the charges with these kernels, done by a
// zero-padded FFT; each point then interpolates them at its own position
// with the same weights. Σ_j w_ij = φ_0(y_i) − 1 (the self term) and
// Σ_j w_ij²(y_i − y_j) = φ_{1..dims}(y_i). openTSNE convolves four charges
// (1, y, |y|²) with w² only and recovers Z from them by cancellation; one
// charge and three kernels cancel nothing, and with the kernels' spectra
// kept (convolve) take four FFTs per gradient where openTSNE takes nine.

// InterpGradient defaults (openTSNE's n_interpolation_points,
// min_num_intervals and ints_in_interval).
const (
	DefaultNodesPerInterval = 3
	DefaultMinIntervals     = 50
	DefaultIntervalWidth    = 1.0
	DefaultMaxIntervals     = 500
	// MaxNodesPerInterval bounds NodesPerInterval: Lagrange interpolation
	// on equispaced nodes degrades beyond a few (Runge).
	MaxNodesPerInterval = 10
)

// MaxInterpDims is the largest output dimension the interpolation supports.
const MaxInterpDims = 2

// InterpSettings tunes the interpolation. Start from
// DefaultInterpSettings; transforms.Validate checks the ranges of the
// tags and then Validate.
type InterpSettings struct {
	// NodesPerInterval is the number p of Lagrange nodes per interval and
	// axis (at most MaxNodesPerInterval); the interpolation has degree
	// p − 1.
	NodesPerInterval int `range:"[1,10]"`
	// MinIntervals is the least number of intervals per axis.
	MinIntervals int `range:"[1,)"`
	// IntervalWidth is the widest an interval may be, in map units: an
	// axis of extent L has max(MinIntervals, ⌈L/IntervalWidth⌉)
	// intervals, capped by MaxIntervals.
	IntervalWidth float64 `range:"(0,)"`
	// MaxIntervals caps the intervals per axis (at least MinIntervals),
	// which bounds memory (five spectra of about 2·(p·MaxIntervals)²
	// complex values in 2-D, 72 MiB each at the defaults); beyond it the
	// intervals widen and the error grows.
	MaxIntervals int `range:"[1,)"`
}

// DefaultInterpSettings returns the defaults: DefaultNodesPerInterval,
// DefaultMinIntervals, DefaultIntervalWidth and DefaultMaxIntervals.
func DefaultInterpSettings() InterpSettings {
	return InterpSettings{NodesPerInterval: DefaultNodesPerInterval, MinIntervals: DefaultMinIntervals,
		IntervalWidth: DefaultIntervalWidth, MaxIntervals: DefaultMaxIntervals}
}

// Validate checks the rule that ties the settings together, MaxIntervals ≥
// MinIntervals (the ranges are the tags').
func (s InterpSettings) Validate() error {
	if s.MaxIntervals < s.MinIntervals {
		return transforms.Optionf("MaxIntervals", "%d: want at least MinIntervals = %d", s.MaxIntervals, s.MinIntervals)
	}
	return nil
}

// InterpGradient computes t-SNE gradients with the repulsive term and Z by
// FFT-accelerated interpolation, for dims 1 and 2, in O(N·p^dims + M log M)
// for M grid nodes. The settings are read at every call (and checked when
// they change); set them, from DefaultInterpSettings, before the first:
// the zero value is not valid. The other fields are reusable buffers: once
// the grid size is stable a call allocates nothing that grows with N. It is
// not safe for concurrent use.
type InterpGradient struct {
	InterpSettings

	checked      InterpSettings // the settings last validated, if valid
	checkedValid bool

	rowZ, rep []float64
	box       []int32 // box row of each point (its last coordinate)
	order     []int32 // points by box row, stable
	start     []int32 // order[start[r]:start[r+1]] are in box row r
	charge    []float64
	pot       []float64 // node potentials, (dims+1) per node
	qs, ks    []complex128
	kspec     []complex128 // the kernels' spectra, one after another
	kernelKey interpKernelKey
	fft       kernels.RealFFT2
}

// interpGrid is the grid of one call: nb[c] intervals of width w[c] from
// lo[c] on axis c, p nodes each, so nodes[c] = p·nb[c] of spacing h[c].
type interpGrid struct {
	dims, p  int
	lo, w, h [2]float64
	nb       [2]int
	nodes    [2]int
	den      [MaxNodesPerInterval]float64 // 1/Π_{m≠k}(x_k − x_m)
	// selfW[(d1+p−1)·(2p−1) + d0+p−1] is w at the node offset (d0, d1):
	// for the self term of φ_0 (see interpolate).
	selfW [(2*MaxNodesPerInterval - 1) * (2*MaxNodesPerInterval - 1)]float64
}

// Grad writes into grad (n×dims) the t-SNE gradient at y for the sparse
// joint P, with the attractive term exact over P's entries (scaled by
// exaggeration) and the repulsive term and Z = Σ_{i≠j} w_ij interpolated,
// and returns the Z estimate: the contract of BHGradient.Grad with the
// interpolation settings in place of θ. Spreading runs per interval row
// over the points in index order, each FFT line on its own and each point's
// interpolation on its own, so the result is bit-identical for any thread
// count (threads ≤ 0: GOMAXPROCS). It panics unless dims is 1 or 2, the
// settings are valid and the lengths match, and returns ctx.Err() if
// cancelled.
func (g *InterpGradient) Grad(ctx context.Context, grad, y []float64, p *SparseAffinities, dims int, exaggeration float64, threads int) (float64, error) {
	n := p.N
	kernels.CheckEmbedding(y, n, dims)
	if dims > MaxInterpDims {
		panic(fmt.Sprintf("tsne: interpolation needs dims ≤ %d, got %d", MaxInterpDims, dims))
	}
	if len(grad) != n*dims {
		panic(fmt.Sprintf("tsne: len(grad) = %d, want %d", len(grad), n*dims))
	}
	gr := g.grid(y, n, dims)
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	g.rowZ = interpGrow(g.rowZ, n)
	g.rep = interpGrow(g.rep, n*dims)
	if err := g.spread(ctx, &gr, y, n, threads); err != nil {
		return 0, err
	}
	if err := g.convolve(ctx, &gr, threads); err != nil {
		return 0, err
	}
	rowZ, rep := g.rowZ[:n], g.rep[:n*dims]
	err := kernels.ParallelFor(ctx, n, threads, tsneGrain, func(lo, hi int) {
		tsneAttractSparse(grad, y, p, dims, lo, hi, exaggeration)
		for i := lo; i < hi; i++ {
			rowZ[i] = g.interpolate(&gr, rep[i*dims:(i+1)*dims], y[i*dims:(i+1)*dims])
		}
	})
	if err != nil {
		return 0, err
	}
	return tsneCombineRows(grad, rep, rowZ), nil
}

// grid resolves the settings and lays the grid over the bounding box of y.
func (g *InterpGradient) grid(y []float64, n, dims int) interpGrid {
	if !g.checkedValid || g.InterpSettings != g.checked {
		if err := transforms.Validate(&g.InterpSettings); err != nil {
			panic(fmt.Sprintf("tsne: interpolation settings: %v", err))
		}
		g.checked, g.checkedValid = g.InterpSettings, true
	}
	set := g.InterpSettings
	gr := interpGrid{dims: dims, p: set.NodesPerInterval}
	minI, maxI, width := set.MinIntervals, set.MaxIntervals, set.IntervalWidth
	kernels.LagrangeDenominators(gr.den[:gr.p])
	gr.nodes = [2]int{1, 1}
	for c := range dims {
		lo, ext := kernels.AxisExtent(y, n, dims, c)
		// Between MinIntervals and MaxIntervals the intervals are exactly
		// IntervalWidth wide and the grid is centred on the map, so h, and
		// with it the kernels' spectra, changes only when an axis gains
		// an interval (see convolve); otherwise they span the extent.
		nb, w := minI, ext/float64(minI)
		if need := math.Ceil(ext / width); need > float64(maxI) {
			nb, w = maxI, ext/float64(maxI)
		} else if need > float64(minI) {
			nb, w = int(need), width
			lo -= (float64(nb)*w - ext) / 2
		}
		gr.lo[c], gr.nb[c] = lo, nb
		gr.w[c] = w
		gr.h[c] = gr.w[c] / float64(gr.p)
		gr.nodes[c] = nb * gr.p
	}
	s := 2*gr.p - 1
	for d1 := range s {
		x1 := 0.0
		if dims == 2 {
			x1 = float64(d1-gr.p+1) * gr.h[1]
		}
		for d0 := range s {
			x0 := float64(d0-gr.p+1) * gr.h[0]
			gr.selfW[d1*s+d0] = 1 / (1 + x0*x0 + x1*x1)
		}
	}
	return gr
}

// locate returns the interval of coordinate v on axis c and the Lagrange
// weights of its position in it.
func (gr *interpGrid) locate(v float64, c int, wts *[MaxNodesPerInterval]float64) int {
	return kernels.LocateInterval(v, gr.lo[c], gr.w[c], gr.nb[c], wts[:gr.p], gr.den[:gr.p])
}

// spread sorts the points by interval row and spreads their charges onto
// the node grid, one interval row per chunk: an interval's nodes are its
// own, so chunks write disjoint rows and each node sums in point order.
func (g *InterpGradient) spread(ctx context.Context, gr *interpGrid, y []float64, n, threads int) error {
	dims, p := gr.dims, gr.p
	last := dims - 1
	rows := gr.nb[last]
	g.box = interpGrow32(g.box, n)
	g.order = interpGrow32(g.order, n)
	g.start = interpGrow32(g.start, rows+1)
	box, order, start := g.box[:n], g.order[:n], g.start[:rows+1]
	clear(start)
	for i := range n {
		u := (y[i*dims+last] - gr.lo[last]) / gr.w[last]
		b := int(u)
		if !(u >= 0) {
			b = 0
		}
		b = min(b, rows-1)
		box[i] = int32(b)
		start[b+1]++
	}
	for r := range rows {
		start[r+1] += start[r]
	}
	for i := range n {
		b := box[i]
		order[start[b]] = int32(i)
		start[b]++
	}
	// start[r] now holds the end of row r; shift back.
	copy(start[1:], start[:rows])
	start[0] = 0

	n0 := gr.nodes[0]
	g.charge = interpGrow(g.charge, n0*gr.nodes[1])
	q := g.charge[:n0*gr.nodes[1]]
	if dims == 1 {
		// One row of boxes: spread serially, it is O(N·p).
		clear(q)
		var a [MaxNodesPerInterval]float64
		for i := range n {
			b := gr.locate(y[i], 0, &a)
			for k, v := range a[:p] {
				q[b*p+k] += v
			}
		}
		return ctx.Err()
	}
	return kernels.ParallelFor(ctx, rows, threads, 1, func(lo, hi int) {
		clear(q[lo*p*n0 : hi*p*n0])
		var a, b [MaxNodesPerInterval]float64
		for r := lo; r < hi; r++ {
			for _, i := range order[start[r]:start[r+1]] {
				b0 := gr.locate(y[2*i], 0, &a)
				gr.locate(y[2*i+1], 1, &b)
				for m1, wb := range b[:p] {
					row := q[(r*p+m1)*n0+b0*p : (r*p+m1)*n0+b0*p+p]
					for m0, wa := range a[:p] {
						row[m0] += wb * wa
					}
				}
			}
		}
	})
}

// interpFields returns the number of node potentials: φ_0 and one per axis.
func interpFields(dims int) int { return dims + 1 }

// convolve fills g.pot with the node potentials: the charges' linear
// convolutions with the kernels w, w²·d_0 (and w²·d_1), by FFT on a grid at
// least 2·nodes − 1 long per axis so that no offset wraps around. The
// kernels' spectra depend only on the grid, and are kept while it stays.
func (g *InterpGradient) convolve(ctx context.Context, gr *interpGrid, threads int) error {
	n0, n1 := gr.nodes[0], gr.nodes[1]
	p0 := kernels.FFTSize(2*n0 - 1)
	p1 := 1
	if gr.dims == 2 {
		p1 = kernels.FFTSize(2*n1 - 1)
	}
	t := &g.fft
	t.Setup(p0, p1, threads)
	_, _, rowLen := t.Size()
	size := p1 * rowLen
	fields := interpFields(gr.dims)
	g.qs = interpGrowC(g.qs, size)
	g.ks = interpGrowC(g.ks, size)
	qs, work := g.qs[:size], g.ks[:size]
	g.pot = interpGrow(g.pot, n0*n1*fields)
	pot := g.pot[:n0*n1*fields]
	q := g.charge[:n0*n1]
	if err := t.Forward(ctx, qs, func(r int, row []float64) bool {
		if r >= n1 {
			return false
		}
		copy(row, q[r*n0:(r+1)*n0])
		return true
	}); err != nil {
		return err
	}
	key := interpKernelKey{dims: gr.dims, p0: p0, p1: p1, n0: n0, n1: n1, h0: gr.h[0], h1: gr.h[1]}
	if g.kernelKey != key || len(g.kspec) < fields*size {
		g.kspec = interpGrowC(g.kspec, fields*size)
		g.kernelKey = interpKernelKey{} // invalid until every spectrum is done
		for comp := range fields {
			if err := g.kernelSpectrum(ctx, gr, g.kspec[comp*size:(comp+1)*size], comp, p0, p1); err != nil {
				return err
			}
		}
		g.kernelKey = key
	}
	// The inverse is unnormalised: fold 1/(p0·p1) into the product.
	scale := complex(1/float64(p0*p1), 0)
	for comp := range fields {
		for i, v := range g.kspec[comp*size : (comp+1)*size] {
			work[i] = v * qs[i] * scale
		}
		if err := t.Inverse(ctx, work, n1, func(r int, row []float64) {
			dst := pot[r*n0*fields : (r+1)*n0*fields]
			for i, v := range row[:n0] {
				dst[i*fields+comp] = v
			}
		}); err != nil {
			return err
		}
	}
	return nil
}

// interpKernelKey identifies the grid the kept kernel spectra belong to.
type interpKernelKey struct {
	dims, p0, p1, n0, n1 int
	h0, h1               float64
}

// kernelSpectrum writes to dst the spectrum of kernel comp (w, w²·d_0 or
// w²·d_1) at the node offsets of gr, laid out circularly on the p1×p0 grid.
func (g *InterpGradient) kernelSpectrum(ctx context.Context, gr *interpGrid, dst []complex128, comp, p0, p1 int) error {
	n0, n1 := gr.nodes[0], gr.nodes[1]
	h0, h1 := gr.h[0], gr.h[1]
	return g.fft.Forward(ctx, dst, func(r int, row []float64) bool {
		d1 := r
		if r >= n1 {
			d1 = r - p1
			if d1 <= -n1 {
				return false
			}
		}
		x1 := float64(d1) * h1
		s1 := 1 + x1*x1
		for i := range row {
			d0 := i
			if i >= n0 {
				d0 = i - p0
				if d0 <= -n0 {
					row[i] = 0
					continue
				}
			}
			x0 := float64(d0) * h0
			w := 1 / (s1 + x0*x0)
			switch comp {
			case 0:
				row[i] = w
			case 1:
				row[i] = w * w * x0
			default:
				row[i] = w * w * x1
			}
		}
		return true
	})
}

// interpolate writes φ_1..φ_dims at the point yi into rep and returns φ_0
// less the point's own term. That term is what the scheme gives for a
// source at yi itself, Σ_{k,k'} L_k L_k' w(x_k − x_k') (the autocorrelation
// of the weights against w at the node offsets), not w(0) = 1, which
// FIt-SNE subtracts: for sparse maps, where Σ_{j≠i} w_ij is small beside 1,
// the difference is most of the error of Z. The own terms of φ_c, c ≥ 1,
// vanish already (the autocorrelation is even, w²·d odd).
func (g *InterpGradient) interpolate(gr *interpGrid, rep, yi []float64) float64 {
	p, fields, n0 := gr.p, interpFields(gr.dims), gr.nodes[0]
	var a, b, sa, sb [2 * MaxNodesPerInterval]float64
	pot := g.pot
	b0 := gr.locate(yi[0], 0, (*[MaxNodesPerInterval]float64)(a[:]))
	s := 2*p - 1
	kernels.Autocorr(sa[:s], a[:p])
	if gr.dims == 1 {
		var z, r0, self float64
		v := pot[b0*p*2 : (b0*p+p)*2]
		for k, wa := range a[:p] {
			z += wa * v[2*k]
			r0 += wa * v[2*k+1]
		}
		for d, c := range sa[:s] {
			self += c * gr.selfW[(p-1)*s+d]
		}
		rep[0] = r0
		return z - self
	}
	b1 := gr.locate(yi[1], 1, (*[MaxNodesPerInterval]float64)(b[:]))
	kernels.Autocorr(sb[:s], b[:p])
	var self float64
	for d1, c1 := range sb[:s] {
		var t float64
		for d0, c0 := range sa[:s] {
			t += c0 * gr.selfW[d1*s+d0]
		}
		self += c1 * t
	}
	var z, r0, r1 float64
	for m1, wb := range b[:p] {
		base := ((b1*p+m1)*n0 + b0*p) * fields
		v := pot[base : base+p*fields]
		var s, x0, x1 float64
		for m0, wa := range a[:p] {
			s += wa * v[3*m0]
			x0 += wa * v[3*m0+1]
			x1 += wa * v[3*m0+2]
		}
		z += wb * s
		r0 += wb * x0
		r1 += wb * x1
	}
	rep[0], rep[1] = r0, r1
	return z - self
}

// The interpGrow functions return s resized to n, reallocated with a
// quarter's headroom when it is too small: the grid grows with the map's
// extent, a little at a time over hundreds of iterations, and an exact fit
// would reallocate it at nearly every one of them (about 1 MB of garbage an
// iteration at 10⁵ points, which raises the collector's peak).
func interpGrow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, n+n/4)
	}
	return s[:n]
}

func interpGrow32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, n+n/4)
	}
	return s[:n]
}

func interpGrowC(s []complex128, n int) []complex128 {
	if cap(s) < n {
		return make([]complex128, n, n+n/4)
	}
	return s[:n]
}
