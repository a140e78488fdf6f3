package nerv

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ordinate/ordinate/kernels"
)

// Student-t kernel sums by FFT-accelerated interpolation (FIt-SNE,
// Linderman et al., Nature Methods 2019), for the t output kernel
// (stresst.go). For the members M of a plane (all points, the labelled
// ones, one class) at every member i, in map units (the caller divides the
// map by its scale):
//
//	F0_i = Σ_{j∈M, j≠i} w_ij,          F1_i = Σ w_ij L_ij,
//	G0_i = Σ w_ij² (y_i − y_j),         G1_i = Σ w_ij² L_ij (y_i − y_j),
//	w = 1/(1 + D²),  L = log(1 + D²) = −log w.
//
// The kernel's core, one unit wide, is where equispaced nodes a third of a
// unit apart interpolate it worst (relative gradient errors of 1e-2, which
// leave L-BFGS's line searches failing within 20 iterations), so the sums
// split as particle–particle particle–mesh methods split them: every
// kernel K = K·S + K·(1 − S) with S the quintic smooth step in x = D²/R²,
// S = x³(10 − 15x + 6x²) below R and 1 beyond (twice continuously
// differentiable, and 10D⁶/R⁶ at 0, so the far part keeps nothing of the
// core: with S = 1 − (1 − x)³, 3D²/R² at 0, a grid of intervals 6.7 units
// wide erred by 4e-2 in the gradient fields, by 2e-5 with the quintic).
// This file interpolates the far part K·S, whose features are R wide, and
// TStress sums the near part, which vanishes beyond R, exactly over the
// pairs a cell list finds (near).
//
// One grid of intervals covers the whole map (setGrid): exactly
// tIntervalWidth wide, centred, once an axis spans more than tMinIntervals
// of them (then the node spacing, and with it the kernels' spectra, stays
// put while the map grows), tMaxIntervals at most (tInterp.maxI: 300 for a
// wide map's fine grid, 40 for soft labels' channels); past the cap the
// widths take a ladder of 2^(1/8) steps, so that the spectra stay while
// the map's extent changes a little; a hard class's own grid has a given
// width (tInterp.width). Each interval holds
// tNodesPerInterval equispaced Lagrange nodes at offsets (k + ½)/p, as in
// transforms/tsne's interpolation. A plane takes the window of intervals
// its members occupy, so a class that fills a corner of the map costs its
// corner: each member spreads a unit charge onto the p^dims nodes of its
// interval with its Lagrange weights, the window is convolved with the
// 2 + 2·dims kernels w, w·L, w²·x_c and w²·L·x_c by a zero-padded FFT, and
// each member reads the fields back with the same weights. The FFT lengths
// are rounded up to 2^k or 3·2^k, so that planes and iterations share the
// kernels' spectra, which are kept per length while the node spacing stays.
// The own term of F0 and F1 is what the scheme gives for a source at y_i
// itself (the weights' autocorrelation against the kernel at the node
// offsets), not w(0) = 1 and L(0) = 0; those of G0 and G1 vanish, the
// autocorrelation being even and the kernels odd. Planes of at most
// tDirectMax members are summed directly, and so is any call whose pairs
// cost less than its transforms (direct: a small map's grid is as wide as
// a large one's).

// The interpolation's settings: openTSNE's min_num_intervals and
// ints_in_interval, and five nodes per interval where openTSNE has three:
// with three, the gradient's error (1e-3 relative after a first, weaker
// near/far split) still left L-BFGS's line searches failing after about
// 30 iterations on 3,000 rows; with five the monitor ended the level at
// 50. With the quintic split three nodes give 3e-4 and five 3e-5 on
// TestTInterpAgainstDirect's wide map, eight 2e-4 (Runge's oscillation
// on equispaced nodes). The caps bound the
// kernels' spectra (six of about (2·p·intervals)²/2 complex values in
// 2-D: 19 MB each at 150 intervals and five nodes, 76 MB at 300), of
// which an interpolation keeps one and a half sets (keepBytes).
const (
	tNodesPerInterval = 5
	tMinIntervals     = 50
	tIntervalWidth    = 1.0
	tMaxIntervals     = 150
	// tMaxFineIntervals is the fine grid's cap on a wide map where its
	// near pairs cost more than its nodes (TStress.chooseFine).
	tMaxFineIntervals = 300
	// tClassIntervals caps the grid of the class (channel) planes: their
	// far fields take a coarser grid and a wider near radius, whose pairs
	// are a class's own (a per-class cell list): on 20,000 rows of 30
	// classes the FFTs of 31 full planes took nine tenths of an
	// evaluation's 19 s.
	tClassIntervals = 40
	tDirectMax      = 256
	// tClassNodesPerMember bounds the window of a hard class plane, in
	// nodes a member (TStress.chooseGrids).
	tClassNodesPerMember = 24
	tMaxNodes            = 10
	// tNearRadius is R, in kernel units, at intervals one unit wide (six
	// interval widths otherwise): on a 600-row map five nodes gave the
	// stress to 9e-4 at R = 3, 1.6e-4 at 6 and 8e-5 at 9 (relative), and a
	// converged map's rows have some 40 points within 6 (refineT's scale).
	tNearRadius = 6.0
)

// tSplit returns S(D) for the squared distance d2 and near radius r (see
// the top of the file).
func tSplit(d2, r float64) float64 {
	x := d2 / (r * r)
	if x >= 1 {
		return 1
	}
	return x * x * x * (10 + x*(6*x-15))
}

// tFields returns the number of sums per member: F0, F1, G0 and G1.
func tFields(dims int) int { return 2 + 2*dims }

// tInterp holds the grid of one evaluation and reusable buffers. The zero
// value is ready to use; it is not safe for concurrent use.
type tInterp struct {
	p     int     // nodes per interval; 0 means tNodesPerInterval
	maxI  int     // intervals per axis at most; 0 means tMaxIntervals
	capI  int     // the most maxI will be (the spectra's budget); 0 means tMaxIntervals
	width float64 // > 0: intervals exactly this wide (a class's own grid)
	// gridOnly interpolates every plane of more than tDirectMax members,
	// however few (tests of the interpolation).
	gridOnly bool

	dims    int
	lo, w   [2]float64 // origin of interval 0 and interval width per axis
	h       [2]float64 // node spacing
	r       float64    // the near radius R
	nb      [2]int     // intervals per axis
	den     [tMaxNodes]float64
	selfW   [(2*tMaxNodes - 1) * (2*tMaxNodes - 1)]float64 // w at the node offsets
	selfL   [(2*tMaxNodes - 1) * (2*tMaxNodes - 1)]float64 // w·L at the node offsets
	cell    []int32                                        // n×dims interval of each point
	lw      []float64                                      // n×dims×p Lagrange weights
	charge  []float64
	pot     []float64
	qs, wk  []complex128
	fft     kernels.RealFFT2
	spectra []tSpectra
	reused  int // buffers makeRoom reused, for tests
	stamp   int // setGrid calls, for the spectra's last use
	one     [1]float64
}

// tSpectra are the kernels' spectra for one FFT size.
type tSpectra struct {
	p0, p1 int
	h      [2]float64
	data   []complex128
	used   int // the stamp of its last use
}

func (t *tInterp) nodes() int {
	if t.p == 0 {
		return tNodesPerInterval
	}
	if t.p < 1 || t.p > tMaxNodes {
		panic(fmt.Sprintf("nerv: %d interpolation nodes per interval, want 1 … %d", t.p, tMaxNodes))
	}
	return t.p
}

// setGrid lays the intervals over the map y (n×dims, map units) and
// locates every point in them.
func (t *tInterp) setGrid(y []float64, n, dims int) {
	p := t.nodes()
	t.dims = dims
	t.stamp++
	t.one[0] = 1
	kernels.LagrangeDenominators(t.den[:p])
	t.nb = [2]int{1, 1}
	t.w, t.h, t.lo = [2]float64{1, 1}, [2]float64{1, 1}, [2]float64{}
	for c := range dims {
		lo, ext := kernels.AxisExtent(y, n, dims, c)
		minI, maxI := tMinIntervals, tMaxIntervals
		if t.maxI > 0 {
			minI, maxI = min(minI, t.maxI), t.maxI
		}
		nb, w := minI, ext/float64(minI)
		if t.width > 0 {
			// The caller keeps ext/width within maxI.
			nb, w = int(math.Ceil(ext/t.width)), t.width
			lo -= (float64(nb)*w - ext) / 2
		} else if need := math.Ceil(ext / tIntervalWidth); need > float64(maxI) {
			// Widths on a ladder of 2^(1/8) steps, so that the node
			// spacing, and with it the kernels' spectra, stays while the
			// map's extent changes a little.
			w = math.Exp2(math.Ceil(8*math.Log2(ext/float64(maxI))) / 8)
			nb = min(maxI, int(math.Ceil(ext/w)))
			lo -= (float64(nb)*w - ext) / 2
		} else if need > float64(minI) {
			nb, w = int(need), tIntervalWidth
			lo -= (float64(nb)*w - ext) / 2
		}
		t.lo[c], t.nb[c], t.w[c], t.h[c] = lo, nb, w, w/float64(p)
	}
	// The far kernels' features are R wide: R grows with the intervals, so
	// that a capped grid over a wide map keeps its accuracy and the near
	// pairs take up the difference.
	t.r = tNearRadius * max(1, t.w[0]/tIntervalWidth, t.w[1]/tIntervalWidth)
	if dims == 1 {
		t.r = tNearRadius * max(1, t.w[0]/tIntervalWidth)
	}
	s := 2*p - 1
	for d1 := range s {
		x1 := 0.0
		if dims == 2 {
			x1 = float64(d1-p+1) * t.h[1]
		}
		for d0 := range s {
			x0 := float64(d0-p+1) * t.h[0]
			d2 := x0*x0 + x1*x1
			w := tSplit(d2, t.r) / (1 + d2)
			t.selfW[d1*s+d0] = w
			t.selfL[d1*s+d0] = w * math.Log1p(d2)
		}
	}
	t.cell = kernels.Grow(t.cell, n*dims)
	t.lw = kernels.Grow(t.lw, n*dims*p)
	for i := range n * dims {
		t.cell[i] = int32(t.locate(y[i], i%dims, t.lw[i*p:(i+1)*p]))
	}
}

// locate returns the interval of coordinate v on axis c and writes the
// Lagrange weights of its position in it to wts.
func (t *tInterp) locate(v float64, c int, wts []float64) int {
	return kernels.LocateInterval(v, t.lo[c], t.w[c], t.nb[c], wts, t.den[:len(wts)])
}

// tFFTSize returns the smallest of 2^k and 3·2^k (k ≥ 1) at least n.
func tFFTSize(n int) int {
	m := 2
	for m < n {
		if 3*m/2 >= n && m >= 4 {
			return 3 * m / 2
		}
		m *= 2
	}
	return m
}

// sums writes to dst (len(members)×len(comps), in the order of members)
// the far parts of the fields comps (indices into F0, F1, G0, G1: 0, 1, 2 … 1+dims, 2+dims
// … 1+2·dims) of the plane of members at each of them, each source j
// weighted by charge[r] (r its position in members; nil: 1), for the map y
// on which setGrid last ran.
func (t *tInterp) sums(ctx context.Context, dst, y []float64, members []int32, charge []float64, comps []int, threads int) error {
	dims, m, nc := t.dims, len(members), len(comps)
	if len(dst) != m*nc || (charge != nil && len(charge) != m) {
		panic(fmt.Sprintf("nerv: len(dst) = %d, want %d; %d charges for %d members", len(dst), m*nc, len(charge), m))
	}
	p := t.nodes()
	i0, i1 := t.window(members)
	n0, n1 := int(i1[0]-i0[0]+1)*p, 1
	p0, p1 := tFFTSize(2*n0-1), 1
	if dims == 2 {
		n1 = int(i1[1]-i0[1]+1) * p
		p1 = tFFTSize(2*n1 - 1)
	}
	if t.direct(m, nc, p0, p1) {
		return kernels.ParallelFor(ctx, m, threads, 64, func(lo, hi int) {
			tDirectRows(dst, y, dims, members, charge, comps, t.r, lo, hi)
		})
	}
	t.charge = kernels.Grow(t.charge, n0*n1)
	q := t.charge[:n0*n1]
	clear(q)
	for r, j := range members {
		a, b := t.weights(int(j))
		qj := 1.0
		if charge != nil {
			qj = charge[r]
		}
		o0 := int(t.cell[int(j)*dims]-i0[0]) * p
		o1 := 0
		if dims == 2 {
			o1 = int(t.cell[int(j)*dims+1]-i0[1]) * p
		}
		for m1, wb := range b {
			row := q[(o1+m1)*n0+o0 : (o1+m1)*n0+o0+p]
			for m0, wa := range a {
				row[m0] += qj * wb * wa
			}
		}
	}
	t.fft.Setup(p0, p1, threads)
	_, _, h0 := t.fft.Size()
	size := p1 * h0
	t.qs = kernels.Grow(t.qs, size)
	t.wk = kernels.Grow(t.wk, size)
	qs, wk := t.qs[:size], t.wk[:size]
	if err := t.fft.Forward(ctx, qs, func(r int, row []float64) bool {
		if r >= n1 {
			return false
		}
		copy(row, q[r*n0:(r+1)*n0])
		return true
	}); err != nil {
		return err
	}
	spec, err := t.spectrum(ctx, p0, p1)
	if err != nil {
		return err
	}
	t.pot = kernels.Grow(t.pot, n0*n1*nc)
	pot := t.pot[:n0*n1*nc]
	scale := complex(1/float64(p0*p1), 0)
	for f, comp := range comps {
		for i, v := range spec[comp*size : (comp+1)*size] {
			wk[i] = v * qs[i] * scale
		}
		if err := t.fft.Inverse(ctx, wk, n1, func(r int, row []float64) {
			out := pot[r*n0*nc : (r+1)*n0*nc]
			for i, v := range row[:n0] {
				out[i*nc+f] = v
			}
		}); err != nil {
			return err
		}
	}
	return kernels.ParallelFor(ctx, m, threads, 256, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			qr := 1.0
			if charge != nil {
				qr = charge[r]
			}
			t.gather(dst[r*nc:(r+1)*nc], pot, int(members[r]), qr, comps, i0, n0)
		}
	})
}

// window returns the first and last intervals per axis that the members
// occupy, on the grid setGrid last laid.
func (t *tInterp) window(members []int32) (i0, i1 [2]int32) {
	i0 = [2]int32{math.MaxInt32, math.MaxInt32}
	for _, j := range members {
		for c := range t.dims {
			b := t.cell[int(j)*t.dims+c]
			i0[c], i1[c] = min(i0[c], b), max(i1[c], b)
		}
	}
	return i0, i1
}

// weights returns point j's Lagrange weights on axes 0 and 1 (a single 1
// on axis 1 in 1-D).
func (t *tInterp) weights(j int) (a, b []float64) {
	p, dims := t.nodes(), t.dims
	a = t.lw[j*dims*p : j*dims*p+p]
	if dims == 2 {
		return a, t.lw[j*dims*p+p : (j+1)*dims*p]
	}
	return a, t.one[:]
}

// gather interpolates the fields comps at point j into out and removes
// its own terms (charge q) from F0 and F1.
func (t *tInterp) gather(out, pot []float64, j int, q float64, comps []int, i0 [2]int32, n0 int) {
	p, dims, k := t.nodes(), t.dims, len(comps)
	a, b := t.weights(j)
	o0 := int(t.cell[j*dims]-i0[0]) * p
	o1 := 0
	if dims == 2 {
		o1 = int(t.cell[j*dims+1]-i0[1]) * p
	}
	clear(out)
	for m1, wb := range b {
		base := ((o1+m1)*n0 + o0) * k
		for m0, wa := range a {
			f := wb * wa
			v := pot[base+m0*k : base+(m0+1)*k]
			for c := range out {
				out[c] += f * v[c]
			}
		}
	}
	if comps[0] >= 2 {
		return // no own terms
	}
	var sa, sb [2*tMaxNodes - 1]float64
	s := 2*p - 1
	kernels.Autocorr(sa[:s], a)
	sb[p-1] = 1
	if dims == 2 {
		kernels.Autocorr(sb[:s], b)
	}
	var selfW, selfL float64
	for d1, c1 := range sb[:s] {
		if c1 == 0 {
			continue
		}
		var w, l float64
		for d0, c0 := range sa[:s] {
			w += c0 * t.selfW[d1*s+d0]
			l += c0 * t.selfL[d1*s+d0]
		}
		selfW += c1 * w
		selfL += c1 * l
	}
	for f, comp := range comps {
		switch comp {
		case 0:
			out[f] -= q * selfW
		case 1:
			out[f] -= q * selfL
		}
	}
}

// spectrum returns the kernels' spectra for FFT lengths p0×p1 at the
// current node spacing, from the kept ones when it can.
func (t *tInterp) spectrum(ctx context.Context, p0, p1 int) ([]complex128, error) {
	k := tFields(t.dims)
	for q := range t.spectra {
		if s := &t.spectra[q]; s.p0 == p0 && s.p1 == p1 && s.h == t.h {
			s.used = t.stamp
			return s.data, nil
		}
	}
	_, _, h0 := t.fft.Size()
	size := p1 * h0
	data := t.makeRoom(k * size)
	h := t.h
	for comp := range k {
		err := t.fft.Forward(ctx, data[comp*size:(comp+1)*size], func(r int, row []float64) bool {
			d1 := r
			if r > p1/2 {
				d1 = r - p1
			}
			x1 := float64(d1) * h[1]
			if t.dims == 1 {
				x1 = 0
			}
			for i := range row {
				d0 := i
				if i > p0/2 {
					d0 = i - p0
				}
				x0 := float64(d0) * h[0]
				d2 := x0*x0 + x1*x1
				w := 1 / (1 + d2)
				sp := tSplit(d2, t.r)
				switch {
				case comp == 0:
					row[i] = sp * w
				case comp == 1:
					row[i] = sp * w * math.Log1p(d2)
				case comp < 2+t.dims:
					row[i] = sp * w * w * [2]float64{x0, x1}[comp-2]
				default:
					row[i] = sp * w * w * math.Log1p(d2) * [2]float64{x0, x1}[comp-2-t.dims]
				}
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	t.spectra = append(t.spectra, tSpectra{p0: p0, p1: p1, h: h, data: data, used: t.stamp})
	return data, nil
}

// makeRoom drops the least recently used spectra until need more complex
// values fit the budget (keepBytes; the memory plan counts it,
// tGridBytes), and returns need values for the new set: the smallest
// buffer it dropped that holds them, else a new one. The windows and the
// node spacing change from one map to the next, and a new buffer each
// time (450 MB at 300 intervals) left the collector the old ones.
func (t *tInterp) makeRoom(need int) []complex128 {
	kept := 16 * float64(need)
	for _, sp := range t.spectra {
		kept += 16 * float64(cap(sp.data))
	}
	var spare []complex128
	for len(t.spectra) > 0 && kept > t.keepBytes() {
		old := 0
		for q := range t.spectra {
			if t.spectra[q].used < t.spectra[old].used {
				old = q
			}
		}
		d := t.spectra[old].data
		kept -= 16 * float64(cap(d))
		if cap(d) >= need && (spare == nil || cap(d) < cap(spare)) {
			spare = d
		}
		t.spectra = slices.Delete(t.spectra, old, old+1)
	}
	if spare != nil {
		t.reused++
		return spare[:need]
	}
	return make([]complex128, need)
}

// tDirect writes the far parts of the sums for near radius r by direct
// summation (whole kernels with r = 0).
func tDirect(dst, y []float64, dims int, members []int32, charge []float64, comps []int, radius float64) {
	tDirectRows(dst, y, dims, members, charge, comps, radius, 0, len(members))
}

// tDirectRows is tDirect for the members at positions lo … hi−1.
func tDirectRows(dst, y []float64, dims int, members []int32, charge []float64, comps []int, radius float64, lo, hi int) {
	nc := len(comps)
	var all [2 + 2*gridMaxDims]float64
	// Pass 2's first call wants G0 alone, which needs no logarithm.
	needL := slices.ContainsFunc(comps, func(f int) bool { return f == 1 || f >= 2+dims })
	for r := lo; r < hi; r++ {
		i := members[r]
		clear(all[:])
		yi := y[int(i)*dims : int(i+1)*dims]
		for s, j := range members {
			if j == i {
				continue
			}
			q := 1.0
			if charge != nil {
				q = charge[s]
			}
			yj := y[int(j)*dims : int(j+1)*dims]
			d2 := kernels.EmbedSqDist(yi, yj)
			if radius > 0 {
				q *= tSplit(d2, radius)
			}
			w := 1 / (1 + d2)
			l := 0.0
			if needL {
				l = math.Log(1 + d2) // d2 ≥ 0: Log1p's care is not needed
			}
			all[0] += q * w
			all[1] += q * w * l
			for c := range dims {
				g := q * w * w * (yi[c] - yj[c])
				all[2+c] += g
				all[2+dims+c] += g * l
			}
		}
		for f, comp := range comps {
			dst[r*nc+f] = all[comp]
		}
	}
}

// direct reports whether a call of sums for m members and nc fields,
// whose transforms are p0×p1 long, is cheaper summed directly
// (tDirectPairSeconds a pair) than by the grid (tFFTPointSeconds a point of
// each of its 1 + nc transforms): a small map's grid is 50 to 150
// intervals a side whatever its rows, and 569 rows spent a third of a
// second an evaluation on it.
func (t *tInterp) direct(m, nc, p0, p1 int) bool {
	if m <= tDirectMax {
		return true
	}
	if t.gridOnly {
		return false
	}
	return float64(m)*float64(m)*tDirectPairSeconds < float64(1+nc)*float64(p0)*float64(p1)*tFFTPointSeconds
}

// tSpectraBytes returns the bytes of one set of spectra (2-D) for a
// grid of intervals per axis.
func tSpectraBytes(intervals int) float64 {
	p := float64(tFFTSize(2*tNodesPerInterval*intervals - 1))
	return 16 * p * (p/2 + 1) * float64(tFields(2))
}

// keepBytes is the budget of the kept spectra: one and a half sets at
// the cap (the plane of all points and smaller windows beside it).
func (t *tInterp) keepBytes() float64 {
	return 1.5 * tSpectraBytes(t.cap())
}

// cap returns the intervals per axis at most.
func (t *tInterp) cap() int {
	if t.capI > 0 {
		return t.capI
	}
	return tMaxIntervals
}

// tGridBytes bounds the memory of TStress's three interpolations: their
// kept spectra, the two arrays of a transform, and the charges and fields
// on the nodes (2-D), at their caps.
func tGridBytes() float64 {
	var total float64
	for _, intervals := range []int{tMaxFineIntervals, tMaxIntervals, tClassIntervals} {
		nodes := float64(tNodesPerInterval * intervals)
		p := float64(tFFTSize(2*tNodesPerInterval*intervals - 1))
		total += 1.5*tSpectraBytes(intervals) + 2*16*p*(p/2+1) + 8*nodes*nodes*float64(1+tFields(2))
	}
	return total
}

// tPointBytes bounds TStress's per-point state: the map in kernel units,
// the passes' records, a plane's sums and charges (a point in up to
// three planes with hard labels), the Lagrange weights, the cell list, the
// rows' chunk accumulators (16 of n×2), and the near pairs' class, label,
// charges and sums in the cells' order (nearSym).
const tPointBytes = 16 + 8*(9+4) + 3*8*7 + 8 + 8*2*tNodesPerInterval + 24 + 16*16 + 20 + 4 + 1 + 24 + 8*9
