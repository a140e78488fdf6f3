package tsne

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ordinate/ordinate/transforms/placement"

	"github.com/ordinate/ordinate/kernels"
)

// Errors of t-SNE placement. Perplexity errors wrap kernels.ErrPerplexity as
// well as ErrPlaceOption.
var (
	ErrPlaceOption = errors.New("invalid t-SNE placement option")
	ErrPlaceInput  = errors.New("invalid t-SNE placement input")
)

// PlaceOptions are the settings of t-SNE placement; DefaultPlaceOptions gives
// the defaults, and the package doc says why each is what it is.
type PlaceOptions struct {
	// Perplexity of the new row's affinities to its K = min(N,
	// ⌊3·Perplexity⌋) nearest reference rows; ≥ 1 and < K.
	Perplexity float64 `json:"perplexity"`
	// Exaggeration multiplies the attraction during optimisation (> 0).
	Exaggeration float64 `json:"exaggeration"`
	// LearningRate is in openTSNE's units: the step is taken along
	// ½·∂C/∂y (> 0).
	LearningRate float64 `json:"learning_rate"`
	// Momentum of the updates, in [0, 1).
	Momentum float64 `json:"momentum"`
	// MaxGradNorm clips the Euclidean norm of ½·∂C/∂y; 0 does not clip.
	MaxGradNorm float64 `json:"max_grad_norm"`
	// Iterations is the largest number of gradient steps (0 ≤ Iterations
	// ≤ MaxPlaceIterations).
	Iterations int `json:"iterations"`
	// Tol stops a row early, before the step at which both the norm of
	// ½·∂C_α/∂y (unclipped) and that of the last update are at most Tol
	// (≥ 0; 0 runs all Iterations).
	Tol float64 `json:"tol,omitempty"`
	// InitNeighbors is how many nearest reference rows the median
	// initialisation uses (≥ 1).
	InitNeighbors int `json:"init_neighbors"`
	// Field sets the interpolation grid of the repulsion (zero: defaults).
	Field FieldOptions `json:"field"`
}

// DefaultPlaceOptions returns the defaults: openTSNE's transform settings
// (perplexity 5, 25 neighbours for the median initialisation, learning rate
// 0.1, exaggeration 1.5, momentum 0.8, gradient norm clipped at 0.25, 250
// iterations) and an early stop at Tol 1e-4; the package doc has the
// measurements behind them.
func DefaultPlaceOptions() PlaceOptions {
	return PlaceOptions{
		Perplexity:    5,
		Exaggeration:  1.5,
		LearningRate:  0.1,
		Momentum:      0.8,
		MaxGradNorm:   0.25,
		Iterations:    250,
		Tol:           1e-4,
		InitNeighbors: 25,
	}
}

// MaxPlaceIterations bounds the gradient steps of one placed row: 40 times
// the default, a few milliseconds a row. A row is one unit of work between
// checks for cancellation, so a larger budget (10¹² steps, with Tol 0)
// would hold a run against a signal for ever.
const MaxPlaceIterations = 10000

// TSNE places new rows into a fixed t-SNE map (see the package doc). It is
// read-only after NewPlacer and safe for concurrent use.
type Placer struct {
	ref   placement.Reference
	o     PlaceOptions
	k     int // affinity neighbours, min(N, ⌊3·Perplexity⌋)
	field *RepulsionField
}

// NewPlacer validates o against the reference map and builds its repulsion
// field (threads ≤ 0: GOMAXPROCS; the result does not depend on it). It
// returns an error wrapping ErrPlaceOption (and kernels.ErrPerplexity for the
// perplexity) or ErrField for bad options, and ctx.Err() when cancelled.
// It panics if ref is malformed.
func NewPlacer(ctx context.Context, ref placement.Reference, o PlaceOptions, threads int) (*Placer, error) {
	ref.Check()
	k := min(ref.N, int(math.Floor(3*o.Perplexity)))
	if !(o.Perplexity >= 1 && o.Perplexity < float64(k)) {
		return nil, fmt.Errorf("tsne: place: %w: %w: perplexity = %v, want 1 ≤ perplexity < min(N, ⌊3·perplexity⌋) with N = %d reference rows",
			ErrPlaceOption, kernels.ErrPerplexity, o.Perplexity, ref.N)
	}
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("tsne: place: %w: %s = %v, want %s", ErrPlaceOption, name, v, want)
	}
	switch {
	case !(o.Exaggeration > 0) || math.IsInf(o.Exaggeration, 1):
		return nil, bad("exaggeration", o.Exaggeration, "a finite value > 0")
	case !(o.LearningRate > 0) || math.IsInf(o.LearningRate, 1):
		return nil, bad("learning rate", o.LearningRate, "a finite value > 0")
	case !(o.Momentum >= 0 && o.Momentum < 1):
		return nil, bad("momentum", o.Momentum, "0 ≤ momentum < 1")
	case !(o.MaxGradNorm >= 0) || math.IsInf(o.MaxGradNorm, 1):
		return nil, bad("max gradient norm", o.MaxGradNorm, "a finite value ≥ 0 (0: no clipping)")
	case o.Iterations < 0 || o.Iterations > MaxPlaceIterations:
		return nil, bad("iterations", o.Iterations, fmt.Sprintf("0 ≤ iterations ≤ %d", MaxPlaceIterations))
	case !(o.Tol >= 0) || math.IsInf(o.Tol, 1):
		return nil, bad("tolerance", o.Tol, "a finite value ≥ 0")
	case o.InitNeighbors < 1:
		return nil, bad("init neighbours", o.InitNeighbors, "≥ 1")
	}
	f, err := NewRepulsionField(ctx, ref, o.Field, threads)
	if err != nil {
		return nil, err
	}
	return &Placer{ref: ref, o: o, k: k, field: f}, nil
}

// Neighbors returns how many nearest reference rows Place uses:
// max(min(N, ⌊3·Perplexity⌋), InitNeighbors).
func (t *Placer) Neighbors() int { return max(t.k, t.o.InitNeighbors) }

// Options returns the options t was built with.
func (t *Placer) Options() PlaceOptions { return t.o }

// Field returns the repulsion field of the reference map.
func (t *Placer) Field() *RepulsionField { return t.field }

// PlaceScratch holds one goroutine's buffers for Place; the zero value is ready
// to use, and Place does not allocate once it has grown.
type PlaceScratch struct {
	p, buf                []float64
	yn                    []float64 // the affinity neighbours' positions
	y, r, g, update, gain []float64
}

func (s *PlaceScratch) grow(m, dims int) {
	if cap(s.p) < m {
		s.p = make([]float64, m)
		s.buf = make([]float64, m)
	}
	if cap(s.yn) < m*dims {
		s.yn = make([]float64, m*dims)
	}
	if cap(s.y) < dims {
		s.y = make([]float64, dims)
		s.r = make([]float64, dims)
		s.g = make([]float64, dims)
		s.update = make([]float64, dims)
		s.gain = make([]float64, dims)
	}
}

// Place writes to dst (Dims values) the position of a new row whose nearest
// reference rows are nbr, ascending, at the SQUARED input distances d2. It
// uses the first min(len(nbr), Neighbors()) of them: the first K for the
// affinities and the first InitNeighbors for the start, fewer if fewer are
// given. It returns the row's KL divergence at the final position (with the
// field's interpolated Z). The result is a function of the arguments only,
// bit for bit. s may be nil (Place then allocates).
//
// It returns an error wrapping kernels.ErrPerplexity when Perplexity is not
// below the number of affinity neighbours given, and ErrPlaceInput for a
// negative or NaN distance or when no distance is finite. It panics if
// len(dst) ≠ Dims, len(nbr) ≠ len(d2) or a neighbour is out of range.
func (t *Placer) Place(dst []float64, nbr []int32, d2 []float64, s *PlaceScratch) (kl float64, err error) {
	dims := t.ref.Dims
	if len(dst) != dims || len(nbr) != len(d2) {
		panic(fmt.Sprintf("tsne: place: len(dst) = %d, len(nbr) = %d, len(d2) = %d, want Dims = %d and equal lengths",
			len(dst), len(nbr), len(d2), dims))
	}
	for _, j := range nbr {
		if j < 0 || int(j) >= t.ref.N {
			panic(fmt.Sprintf("tsne: place: neighbour %d out of range [0, %d)", j, t.ref.N))
		}
	}
	if s == nil {
		s = new(PlaceScratch)
	}
	m := min(len(nbr), t.Neighbors())
	k := min(t.k, m)
	finite := false
	for _, v := range d2[:k] {
		if math.IsNaN(v) || v < 0 {
			return 0, fmt.Errorf("tsne: place: %w: squared distance %v", ErrPlaceInput, v)
		}
		finite = finite || !math.IsInf(v, 1)
	}
	if k > 0 && !finite {
		return 0, fmt.Errorf("tsne: place: %w: no neighbour at a finite distance", ErrPlaceInput)
	}
	s.grow(m, dims)
	p := s.p[:k]
	if _, err := kernels.PerplexityRow(p, d2[:k], -1, t.o.Perplexity, 0); err != nil {
		return 0, fmt.Errorf("tsne: place: %w (with %d neighbours given)", err, len(nbr))
	}
	nbr = nbr[:k]
	y := s.y[:dims]
	placement.MedianInit(y, t.ref, nbr[:min(t.o.InitNeighbors, m)], s.buf)
	yn := t.gather(s.yn[:k*dims], nbr)
	if dims == 2 {
		y[0], y[1], _ = t.descend2(y[0], y[1], yn, p)
	} else {
		t.descend(y, yn, p, s)
	}
	copy(dst, y)
	return t.cost(y, nbr, p, s.r[:dims], false), nil
}

// gather copies the positions of the reference points nbr to dst (len(nbr)
// rows) and returns it: the inner loops then read them in order.
func (t *Placer) gather(dst []float64, nbr []int32) []float64 {
	dims := t.ref.Dims
	for i, j := range nbr {
		copy(dst[i*dims:(i+1)*dims], t.ref.Row(j))
	}
	return dst
}

// descend runs the optimiser from y (any Dims; descend2 is the same for
// Dims = 2 on scalars).
func (t *Placer) descend(y, yn, p []float64, s *PlaceScratch) {
	dims := t.ref.Dims
	g, update, gain := s.g[:dims], s.update[:dims], s.gain[:dims]
	for c := range dims {
		update[c], gain[c] = 0, 1
	}
	eta, mom, tol2 := t.o.LearningRate, t.o.Momentum, t.o.Tol*t.o.Tol
	for range t.o.Iterations {
		t.halfGrad(g, y, yn, p, t.o.Exaggeration, s.r[:dims], false)
		n2 := dotSelf(g)
		if n2 <= tol2 && dotSelf(update) <= tol2 {
			break
		}
		if f := clipFactor(n2, t.o.MaxGradNorm); f < 1 {
			for c := range g {
				g[c] *= f
			}
		}
		for c, v := range g {
			update[c], gain[c] = gainStep(v, update[c], gain[c], eta, mom)
			y[c] += update[c]
		}
	}
}

// descend2 is descend for Dims = 2 on scalars (the same arithmetic in the
// same order, bit for bit); it also returns the number of steps taken.
func (t *Placer) descend2(y0, y1 float64, yn, p []float64) (float64, float64, int) {
	var u0, u1 float64
	k0, k1 := 1.0, 1.0
	alpha, eta, mom, clip := t.o.Exaggeration, t.o.LearningRate, t.o.Momentum, t.o.MaxGradNorm
	tol2 := t.o.Tol * t.o.Tol
	// clipFactor(n2, clip) < 1 needs √n2 > clip − 1e-6; the bound below
	// that is loose enough for rounding.
	clip2 := 0.99 * max(clip-1e-6, 0) * max(clip-1e-6, 0)
	for it := range t.o.Iterations {
		a0, a1 := placeAttract2(y0, y1, yn, p)
		z, r0, r1 := t.field.eval2(y0, y1)
		inv := 1 / z
		g0, g1 := alpha*a0-r0*inv, alpha*a1-r1*inv
		n2 := g0*g0 + g1*g1
		if n2 <= tol2 && u0*u0+u1*u1 <= tol2 {
			return y0, y1, it
		}
		if n2 > clip2 { // else clipFactor ≥ 1: skip its root and division
			if f := clipFactor(n2, clip); f < 1 {
				g0, g1 = g0*f, g1*f
			}
		}
		u0, k0 = gainStep(g0, u0, k0, eta, mom)
		u1, k1 = gainStep(g1, u1, k1, eta, mom)
		y0 += u0
		y1 += u1
	}
	return y0, y1, t.o.Iterations
}

// placeAttract2 returns Σ_i p_i·w_i·(y − yn_i) over the 2-D positions yn, in two
// partial sums (even and odd i) added at the end: independent chains keep
// the divisions flowing.
func placeAttract2(y0, y1 float64, yn, p []float64) (float64, float64) {
	var e0, e1, o0, o1 float64
	yn = yn[:2*len(p)]
	i := 0
	for ; i+1 < len(p); i += 2 {
		v := yn[2*i : 2*i+4 : 2*i+4]
		d0, d1 := y0-v[0], y1-v[1]
		f0, f1 := y0-v[2], y1-v[3]
		pw := p[i] / (1 + d0*d0 + d1*d1)
		qw := p[i+1] / (1 + f0*f0 + f1*f1)
		e0 += pw * d0
		e1 += pw * d1
		o0 += qw * f0
		o1 += qw * f1
	}
	if i < len(p) {
		d0, d1 := y0-yn[2*i], y1-yn[2*i+1]
		pw := p[i] / (1 + d0*d0 + d1*d1)
		e0 += pw * d0
		e1 += pw * d1
	}
	return e0 + o0, e1 + o1
}

// clipFactor is openTSNE's gradient clipping, with its guard against a
// zero norm: the factor to multiply a gradient of squared norm n2 by when
// it is below 1 (clip = 0: no clipping).
func clipFactor(n2, clip float64) float64 {
	if clip == 0 {
		return 1
	}
	return clip / (math.Sqrt(n2) + 1e-6)
}

// gainStep is openTSNE's update of one coordinate: the gain grows by 0.2
// when the gradient's sign differs from the last update's (sign(0) = 0),
// else becomes gain·0.8 + 0.01, and update ← mom·update − eta·gain·g.
func gainStep(g, update, gain, eta, mom float64) (float64, float64) {
	if tsneSign(g) != tsneSign(update) {
		gain += 0.2
	} else {
		gain = gain*0.8 + 0.01
	}
	return mom*update - eta*gain*g, gain
}

// halfGrad writes to g half the gradient of the row's objective with the
// attraction multiplied by alpha,
//
//	½·∂C_α/∂y = α·Σ_j p_j·w_j·(y − y_j) − R(y)/Z(y),
//
// with the neighbours' positions y_j gathered in yn, from the interpolated
// field, or the exact one when exact is set; r is Dims values of scratch.
// It returns Z(y).
func (t *Placer) halfGrad(g, y, yn, p []float64, alpha float64, r []float64, exact bool) float64 {
	dims := t.ref.Dims
	clear(g)
	if dims == 2 {
		g[0], g[1] = placeAttract2(y[0], y[1], yn, p)
	} else {
		for i := range p {
			yj := yn[i*dims : (i+1)*dims]
			s := 1.0
			for c, v := range yj {
				d := y[c] - v
				s += d * d
			}
			pw := p[i] / s
			for c, v := range yj {
				g[c] += pw * (y[c] - v)
			}
		}
	}
	var z float64
	if exact {
		z = t.field.EvalExact(y, r)
	} else {
		z = t.field.Eval(y, r)
	}
	inv := 1 / z
	for c := range g {
		g[c] = alpha*g[c] - r[c]*inv
	}
	return z
}

// cost returns the row's objective C(y) = Σ_j p_j·log(p_j·Z(y)/w_j), with
// the interpolated or the exact Z.
func (t *Placer) cost(y []float64, nbr []int32, p, r []float64, exact bool) float64 {
	var z float64
	if exact {
		z = t.field.EvalExact(y, r)
	} else {
		z = t.field.Eval(y, r)
	}
	var kl float64
	for i, j := range nbr {
		if p[i] == 0 {
			continue
		}
		s := 1.0
		for c, v := range t.ref.Row(j) {
			d := y[c] - v
			s += d * d
		}
		// log(p·Z/w) = log(p·Z·(1 + d²)).
		kl += p[i] * math.Log(p[i]*z*s)
	}
	return kl
}

// dotSelf returns Σ v_i².
func dotSelf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}

// tsneSign is −1, 0 or 1 (numpy's sign, which openTSNE's gains use).
func tsneSign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
