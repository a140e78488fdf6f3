package nerv

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ordinate/ordinate/transforms/placement"

	"github.com/ordinate/ordinate/internal/lbfgs"
	"github.com/ordinate/ordinate/kernels"
)

// NeRV defaults and constants (see the package doc's "NeRV" section).
const (
	// DefaultPlaceMaxIter is the L-BFGS iteration budget of one row.
	DefaultPlaceMaxIter = 30
	// MaxPlaceMaxIter bounds that budget: a row is one unit of work
	// between checks for cancellation, so a budget no row finishes
	// (10¹²) would hold a run against a signal for ever.
	MaxPlaceMaxIter = 1000
	// DefaultPlaceTol ends a row's optimisation when every component of
	// the stress gradient, in units of the output width (s·∂ζ/∂y), is
	// within it.
	DefaultPlaceTol = 1e-4
	// DefaultPlaceInitNeighbors is the number of nearest reference rows
	// whose median position starts a row.
	DefaultPlaceInitNeighbors = 25
	// PlaceCutoff restricts the output sums to the reference points with
	// a_j ≤ a_min + PlaceCutoff: each point left out has b_j < e^−40·b_max
	// ≈ 4.2e−18·b_max.
	PlaceCutoff = 40
)

// The floor of log β for unlisted reference rows is the Barnes–Hut fit's
// (bhFloorStretch): the calibrated Gaussian at √(1 + 2) times the farthest
// listed distance. placeLogBetaFloor is log nervBetaFloor, the fit's
// floor for β inside logarithms: it keeps the stress finite when β
// underflows.
var placeLogBetaFloor = math.Log(nervBetaFloor)

// nervMargin is the slack, in output widths, of a row's cached candidate
// set: the set is valid while the row moves less than this from where it
// was gathered.
const nervMargin = 1

// PlaceOptions configure NeRV placement. Perplexity, Alpha, Gamma and Scale
// come from the fitted model; zero MaxIter, Tol and InitNeighbors mean
// their defaults.
type PlaceOptions struct {
	Perplexity    float64 `json:"perplexity"`               // K of the input neighbourhoods
	Alpha         float64 `json:"alpha"`                    // weight of the class community in Λ, in [0, 1]
	Gamma         float64 `json:"gamma"`                    // base recall/precision trade-off, in [0, 1]
	Scale         float64 `json:"scale"`                    // the global output width s; 0: each row's σ (transfer)
	MaxIter       int     `json:"max_iter,omitempty"`       // L-BFGS iterations per row (DefaultPlaceMaxIter; at most MaxPlaceMaxIter)
	Tol           float64 `json:"tol,omitempty"`            // gradient s·|∂ζ/∂y| that stops a row (DefaultPlaceTol)
	InitNeighbors int     `json:"init_neighbors,omitempty"` // neighbours of the median start (DefaultPlaceInitNeighbors)
	// Kernel is the map's output kernel ("" or KernelGaussian, KernelT).
	// With the t kernel a row's sums run over every reference row, the
	// kernel having no reach beyond which to drop them: O(N) a
	// evaluation.
	Kernel Kernel `json:"kernel,omitempty"`
}

// NeRV places new rows into a fitted NeRV-family map by minimising each
// row's own part of the stress against the fixed reference map. It is
// built once per model and safe for concurrent use; each goroutine brings
// its own PlaceScratch.
type Placer struct {
	ref  placement.Reference
	soft []float64 // N×c reference label weights, or nil
	c    int
	o    PlaceOptions
	kin  int // listed input neighbours, min(N, ⌈3K⌉)
	idx  *mapIndex
}

// NewPlacer prepares placement into ref. soft holds the reference rows' label
// weights (N×c, rows summing to 1, a row starting with NaN unlabelled), or
// is nil. It panics when ref is inconsistent and returns an error for bad
// options or labels.
func NewPlacer(ref placement.Reference, soft []float64, c int, o PlaceOptions) (*Placer, error) {
	ref.Check()
	if o.MaxIter == 0 {
		o.MaxIter = DefaultPlaceMaxIter
	}
	if o.Tol == 0 {
		o.Tol = DefaultPlaceTol
	}
	if o.InitNeighbors == 0 {
		o.InitNeighbors = DefaultPlaceInitNeighbors
	}
	kin := min(ref.N, int(math.Ceil(3*o.Perplexity)))
	switch {
	case !(o.Perplexity >= 1 && o.Perplexity < float64(kin)):
		return nil, fmt.Errorf("nerv: place: NeRV perplexity %g must be at least 1 and below the %d neighbours it is calibrated over (N = %d)", o.Perplexity, kin, ref.N)
	case !(o.Alpha >= 0 && o.Alpha <= 1) || !(o.Gamma >= 0 && o.Gamma <= 1):
		return nil, fmt.Errorf("nerv: place: NeRV alpha %g and gamma %g must lie in [0, 1]", o.Alpha, o.Gamma)
	case !(o.Scale >= 0) || math.IsInf(o.Scale, 1):
		return nil, fmt.Errorf("nerv: place: NeRV output scale %g must be finite and ≥ 0", o.Scale)
	case o.MaxIter < 1 || !(o.Tol > 0) || o.InitNeighbors < 1:
		return nil, fmt.Errorf("nerv: place: NeRV max iterations %d, tolerance %g and init neighbours %d must be positive", o.MaxIter, o.Tol, o.InitNeighbors)
	case o.MaxIter > MaxPlaceMaxIter:
		return nil, fmt.Errorf("nerv: place: NeRV max iterations %d: want at most %d per row", o.MaxIter, MaxPlaceMaxIter)
	case o.Kernel != "" && o.Kernel != KernelGaussian && o.Kernel != KernelT:
		return nil, fmt.Errorf("nerv: place: NeRV output kernel %q: want %q or %q", o.Kernel, KernelGaussian, KernelT)
	case o.Kernel == KernelT && !(o.Scale > 0):
		return nil, fmt.Errorf("nerv: place: NeRV output kernel t needs the map's global output scale, not %g", o.Scale)
	case soft != nil && (c < 1 || len(soft) != ref.N*c):
		return nil, fmt.Errorf("nerv: place: %d label weights for %d reference rows × %d classes", len(soft), ref.N, c)
	}
	cell := 0.0 // transfer: widths vary by row, so size the cells by density
	if o.Scale > 0 {
		cell = 2 * o.Scale
	}
	return &Placer{ref: ref, soft: soft, c: c, o: o, kin: kin, idx: newMapIndex(ref, cell)}, nil
}

// Options returns the options in use, defaults filled in.
func (p *Placer) Options() PlaceOptions { return p.o }

// Neighbors is the number of nearest reference rows Place wants:
// max(min(N, ⌈3K⌉), InitNeighbors).
func (p *Placer) Neighbors() int { return max(p.kin, p.o.InitNeighbors) }

// PlaceScratch holds one goroutine's buffers for Place; the zero value is
// ready to use. After the first few rows Place allocates only what
// lbfgs.Minimize allocates per call.
type PlaceScratch struct {
	// The row: listed neighbours, their β, log β, Λ and output terms.
	nbr        []int32
	beta, lb   []float64
	lamL, aL   []float64
	yL         []float64 // their map positions, k×Dims
	eL         []float64
	sorted     []int32 // the listed rows' ranks in the map index, ascending
	soft       []float64
	labelled   bool
	lf, h, s   float64
	y0, y, buf []float64
	bv, wv     []float64 // gradient sums

	// Unlisted candidates within the cached radius of center, ascending.
	cand       []int32
	lamC       []float64
	yC         []float64 // their map positions
	aC, eC     []float64
	center     []float64
	cached     bool
	nearD, rad float64
}

// Place writes to dst (Dims values) the position of a new row and returns
// its stress ζ there (the row's part of the stress, see the package doc).
// nbr and d2 are the row's nearest reference rows, ascending, with SQUARED
// input distances: the first min(N, ⌈3K⌉) define its input neighbourhood
// and the first InitNeighbors its start; fewer are used as they are, and
// too few for the perplexity is an error. soft holds the row's c label
// weights, or is nil (or starts with NaN) for an unlabelled row. It panics
// on mismatched lengths; the result is a function of the arguments alone.
func (p *Placer) Place(dst []float64, nbr []int32, d2 []float64, soft []float64, s *PlaceScratch) (float64, error) {
	dims := p.ref.Dims
	if len(dst) != dims || len(nbr) != len(d2) || len(nbr) == 0 || (soft != nil && len(soft) != p.c) {
		panic(fmt.Sprintf("nerv: place: NeRV.Place with %d outputs, %d neighbours, %d distances and %d label weights (dims %d, %d classes)",
			len(dst), len(nbr), len(d2), len(soft), dims, p.c))
	}
	if err := p.setup(nbr, d2, soft, s); err != nil {
		return 0, err
	}
	placement.MedianInit(s.y0, p.ref, nbr[:min(len(nbr), p.o.InitNeighbors)], s.buf)
	if math.IsInf(s.h, 1) {
		// σ = 0: at least K reference rows coincide with the row in input
		// space; the median of its neighbours is as good as any position.
		copy(dst, s.y0)
		return 0, nil
	}
	// Optimise u = (y − y0)/s: a unit first step is one output width. A
	// gradient within Tol is reported as 0, which stops L-BFGS there: a
	// smaller one is below the rounding of ζ, and the line search would
	// spend 40 evaluations failing to find a decrease.
	eval := func(u, g []float64) float64 {
		for c, v := range u {
			s.y[c] = s.y0[c] + s.s*v
		}
		f := p.eval(s, s.y, g)
		small := true
		for c := range g {
			g[c] *= s.s
			small = small && math.Abs(g[c]) <= p.o.Tol
		}
		if small {
			clear(g)
		}
		return f
	}
	u0 := s.buf[:dims]
	clear(u0)
	r, err := lbfgs.Minimize(context.Background(), eval, u0, p.o.MaxIter, 5, 0)
	if err != nil {
		return 0, err
	}
	for c, v := range r.X {
		dst[c] = s.y0[c] + s.s*v
	}
	return r.F, nil
}

// setup calibrates the row's input neighbourhood and trade-offs into s.
func (p *Placer) setup(nbr []int32, d2, soft []float64, s *PlaceScratch) error {
	n, dims := p.ref.N, p.ref.Dims
	k := min(len(nbr), p.kin)
	for _, j := range nbr {
		if j < 0 || int(j) >= n {
			panic(fmt.Sprintf("nerv: place: neighbour %d of %d reference rows", j, n))
		}
	}
	for q, v := range d2[:k] {
		if !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("nerv: place: squared distance %g to reference row %d", v, nbr[q])
		}
	}
	s.nbr = nbr[:k]
	s.beta = kernels.Grow(s.beta, k)
	s.lb = kernels.Grow(s.lb, k)
	s.lamL = kernels.Grow(s.lamL, k)
	s.aL = kernels.Grow(s.aL, k)
	s.eL = kernels.Grow(s.eL, k)
	s.y0 = kernels.Grow(s.y0, dims)
	s.y = kernels.Grow(s.y, dims)
	s.buf = kernels.Grow(s.buf, max(len(nbr), dims))
	s.center = kernels.Grow(s.center, dims)
	s.bv = kernels.Grow(s.bv, dims)
	s.wv = kernels.Grow(s.wv, dims)
	s.cached = false

	prec, err := kernels.PerplexityRow(s.beta, d2[:k], -1, p.o.Perplexity, 0)
	if err != nil {
		return fmt.Errorf("nerv: place: NeRV input neighbourhood of %d reference rows: %w", k, err)
	}
	minLB := math.Inf(1)
	for q, b := range s.beta {
		s.lb[q] = math.Max(math.Log(b), placeLogBetaFloor)
		minLB = min(minLB, s.lb[q])
	}
	s.lf = math.Max(minLB-prec*slices.Max(d2[:k])*bhFloorStretch, placeLogBetaFloor)
	s.s = p.o.Scale
	if s.s == 0 {
		s.s = 1 / math.Sqrt(2*prec)
	}
	s.h = 1 / (2 * s.s * s.s)

	s.labelled = soft != nil && !math.IsNaN(soft[0]) && p.soft != nil
	s.soft = soft
	s.yL = kernels.Grow(s.yL, k*dims)
	for q, j := range s.nbr {
		s.lamL[q] = p.tradeoff(s, j)
		copy(s.yL[q*dims:(q+1)*dims], p.ref.Row(j))
	}
	s.sorted = s.sorted[:0]
	for _, j := range s.nbr {
		s.sorted = append(s.sorted, p.idx.rank[j])
	}
	slices.Sort(s.sorted)
	return nil
}

// tradeoff returns Λ_j between the row in s and reference row j.
func (p *Placer) tradeoff(s *PlaceScratch, j int32) float64 {
	o := p.o
	if !s.labelled {
		return o.Gamma
	}
	wj := p.soft[int(j)*p.c : int(j+1)*p.c]
	if math.IsNaN(wj[0]) {
		return o.Gamma
	}
	var tv float64
	for c, v := range s.soft {
		tv += math.Abs(v - wj[c])
	}
	return (1-o.Alpha)*o.Gamma + o.Alpha*(1-0.5*tv)
}

// gather caches in s the unlisted reference points within radius rad of y,
// with rad large enough for every position within nervMargin widths of y
// (see valid).
func (p *Placer) gather(s *PlaceScratch, y []float64) {
	copy(s.center, y)
	_, d2 := p.idx.nearest(y)
	s.nearD = math.Sqrt(d2)
	m := nervMargin * s.s
	s.rad = math.Sqrt((s.nearD+m)*(s.nearD+m)+2*PlaceCutoff*s.s*s.s) + m
	if p.o.Kernel == KernelT {
		s.rad = math.Inf(1) // every reference row, once
	}
	all := p.idx.within(s.cand[:0], y, s.rad*s.rad)
	// Drop the listed rows (both lists by ascending rank).
	cand, q := all[:0], 0
	for _, j := range all {
		r := p.idx.rank[j]
		for q < len(s.sorted) && s.sorted[q] < r {
			q++
		}
		if q < len(s.sorted) && s.sorted[q] == r {
			continue
		}
		cand = append(cand, j)
	}
	s.cand = cand
	s.lamC = kernels.Grow(s.lamC, len(cand))
	for t, j := range cand {
		s.lamC[t] = p.tradeoff(s, j)
	}
	dims := p.ref.Dims
	s.yC = kernels.Grow(s.yC, len(cand)*dims)
	for t, j := range cand {
		copy(s.yC[t*dims:(t+1)*dims], p.ref.Row(j))
	}
	s.aC = kernels.Grow(s.aC, len(cand))
	s.eC = kernels.Grow(s.eC, len(cand))
	s.cached = true
}

// valid reports whether the cached candidates hold every reference point
// the cutoff can keep at y: the nearest point is within nearD + δ of y
// (δ = |y − center|), so the kept points lie within
// √((nearD + δ)² + 2·Cutoff·s²) of y, which must fit, with δ, inside the
// cached radius (with a little room for rounding).
func (s *PlaceScratch) valid(y []float64) bool {
	if !s.cached {
		return false
	}
	delta := math.Sqrt(kernels.EmbedSqDist(y, s.center))
	need := math.Sqrt((s.nearD+delta)*(s.nearD+delta)+2*PlaceCutoff*s.s*s.s)*(1+1e-9) + delta
	return need <= s.rad
}

// eval returns the row's stress at y and writes ∂ζ/∂y into grad (nil:
// none). The sums run over the unlisted rows with a_j ≤ a_min + PlaceCutoff
// in the map index's order, then over the listed rows in list order: the
// cache only decides how that set is found, never what it is, so the
// result is the same bits whatever was cached before.
func (p *Placer) eval(s *PlaceScratch, y, grad []float64) float64 {
	if !s.valid(y) {
		p.gather(s, y)
	}
	h := s.h
	amin := math.Inf(1)
	sqDists(s.aL, y, s.yL, h, &amin)
	sqDists(s.aC, y, s.yC, h, &amin)
	// The output kernel's weights e_j: exp(a_min − a_j), 0 beyond the
	// cut-off, or under the t kernel w_j = 1/(1 + a_j) over every
	// reference row (the candidates are all the unlisted ones).
	tk := p.o.Kernel == KernelT
	lim := amin + PlaceCutoff
	var z float64
	for t, a := range s.aC {
		e := 0.0
		switch {
		case tk:
			e = 1 / (1 + a)
		case a <= lim:
			e = math.Exp(amin - a)
		}
		s.eC[t] = e
		z += e
	}
	for q, a := range s.aL {
		if tk {
			s.eL[q] = 1 / (1 + a)
		} else {
			s.eL[q] = math.Exp(amin - a)
		}
		z += s.eL[q]
	}
	logZ, invZ := math.Log(z), 1/z
	logb := func(a float64) float64 {
		if tk {
			return -math.Log1p(a) - logZ
		}
		return amin - a - logZ
	}
	// ζ and, with g_j = b_j ∂ζ/∂b_j, G = Σ g_j, B = Σ b_j f_j (y − y_j) and
	// W = Σ g_j f_j (y − y_j): ∂ζ/∂y = 2h(G·B − W) (c_j = b_j G − g_j),
	// f_j = 1 for the Gaussian, w_j for t (∂ζ/∂a_j = c_j w_j there).
	var zeta, gsum float64
	bv, wv := s.bv, s.wv
	clear(bv)
	clear(wv)
	dims := len(y)
	lf := s.lf
	for t, e := range s.eC {
		if e == 0 {
			continue
		}
		b, lb := e*invZ, logb(s.aC[t])
		lam := s.lamC[t]
		zeta += lam*b + (1-lam)*b*(lb-lf-1)
		g := lam*b + (1-lam)*b*(lb-lf)
		gsum += g
		if grad != nil {
			f := 1.0
			if tk {
				f = e
			}
			yj := s.yC[t*dims : (t+1)*dims]
			for c, v := range y {
				d := (v - yj[c]) * f
				bv[c] += b * d
				wv[c] += g * d
			}
		}
	}
	for q, e := range s.eL {
		b, lb := e*invZ, logb(s.aL[q])
		beta, lbeta, lam := s.beta[q], s.lb[q], s.lamL[q]
		zeta += lam*(beta*(lbeta-lb)+b-beta) + (1-lam)*(b*(lb-lbeta)+beta-b)
		g := lam*(b-beta) + (1-lam)*b*(lb-lbeta)
		gsum += g
		if grad != nil {
			f := 1.0
			if tk {
				f = e
			}
			yj := s.yL[q*dims : (q+1)*dims]
			for c, v := range y {
				d := (v - yj[c]) * f
				bv[c] += b * d
				wv[c] += g * d
			}
		}
	}
	for c := range grad {
		grad[c] = 2 * h * (gsum*bv[c] - wv[c])
	}
	return zeta
}

// sqDists writes h·|y − p_t|² for the points p (row-major, len(y) values
// each) into dst and lowers amin to their minimum.
func sqDists(dst, y, pts []float64, h float64, amin *float64) {
	m := *amin
	if len(y) == 2 { // the common case, unrolled
		y0, y1 := y[0], y[1]
		pts = pts[:2*len(dst)]
		for t := range dst {
			d0, d1 := y0-pts[2*t], y1-pts[2*t+1]
			a := h * (d0*d0 + d1*d1)
			dst[t] = a
			m = min(m, a)
		}
	} else {
		dims := len(y)
		for t := range dst {
			a := h * kernels.EmbedSqDist(y, pts[t*dims:(t+1)*dims])
			dst[t] = a
			m = min(m, a)
		}
	}
	*amin = m
}
