package oe

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/ordinate/ordinate/internal/lbfgs"

	"github.com/ordinate/ordinate/transforms/triplets"
)

// Options configure TSTE and SOE. The zero value of a field means its
// default.
type Options struct {
	Dims      int     // map dimension; default 2
	MaxIter   int     // L-BFGS major iterations; default 1000
	Alpha     float64 // t-STE degrees of freedom; default max(Dims−1, 1)
	Lambda    float64 // L2 penalty λ‖Y‖² (both methods); default 0
	Margin    float64 // SOE margin δ; default 0.1
	Seed      uint64  // seed of the initial configuration
	InitScale float64 // standard deviation of the initial points; default 1e-4 (t-STE), 1 (SOE)
	Tol       float64 // relative cost decrease over 10 iterations to continue; default 1e-9
	Store     int     // L-BFGS memory (pairs); default 15
	Threads   int     // ≤ 0 → GOMAXPROCS

	// Progress, if not nil, is called after every L-BFGS iteration (at
	// most MaxIter times per map; Result.Iterations times in all).
	Progress func()

	stream uint64 // PCG stream of the initial configuration (aspect + 1 in PerAspect)
}

// Result is a fitted map.
type Result struct {
	Y          []float64 // n×Dims, row-major
	Dims       int
	Cost       float64 // objective at Y, including the λ term
	Iterations int     // L-BFGS major iterations
	Status     string  // why the optimisation stopped
}

// Method is the signature of TSTE and SOE, for PerAspect.
type Method func(ctx context.Context, n int, t *triplets.Table, o Options) (*Result, error)

func (o Options) withDefaults(initScale float64) (Options, error) {
	if o.Dims == 0 {
		o.Dims = 2
	}
	if o.MaxIter == 0 {
		o.MaxIter = 1000
	}
	if o.Alpha == 0 {
		o.Alpha = math.Max(float64(o.Dims-1), 1)
	}
	if o.Margin == 0 {
		o.Margin = 0.1
	}
	if o.InitScale == 0 {
		o.InitScale = initScale
	}
	if o.Tol == 0 {
		o.Tol = 1e-9
	}
	if o.Store == 0 {
		o.Store = 15
	}
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	switch {
	case o.Dims < 1:
		return o, wrapf(ErrOption, "Dims = %d < 1", o.Dims)
	case o.MaxIter < 0:
		return o, wrapf(ErrOption, "MaxIter = %d < 0", o.MaxIter)
	case o.Store < 0:
		return o, wrapf(ErrOption, "Store = %d < 0", o.Store)
	case !(o.Alpha > 0) || math.IsInf(o.Alpha, 0):
		return o, wrapf(ErrOption, "Alpha = %g is not a positive finite number", o.Alpha)
	case !(o.Lambda >= 0) || math.IsInf(o.Lambda, 0):
		return o, wrapf(ErrOption, "Lambda = %g is not a non-negative finite number", o.Lambda)
	case !(o.Margin > 0) || math.IsInf(o.Margin, 0):
		return o, wrapf(ErrOption, "Margin = %g is not a positive finite number", o.Margin)
	case !(o.InitScale > 0) || math.IsInf(o.InitScale, 0):
		return o, wrapf(ErrOption, "InitScale = %g is not a positive finite number", o.InitScale)
	case !(o.Tol > 0) || math.IsInf(o.Tol, 0):
		return o, wrapf(ErrOption, "Tol = %g is not a positive finite number", o.Tol)
	}
	return o, nil
}

// checkInput validates n and the triplets against n objects (aspect
// values only need to be non-negative here).
func checkInput(n int, t *triplets.Table) error {
	if n < 3 {
		return wrapf(ErrObjects, "n = %d", n)
	}
	if t == nil || t.Len() == 0 {
		return wrapf(ErrNoTriplets, "empty table")
	}
	if row, err := t.Validate(n, math.MaxInt32); err != nil {
		return &TripletError{Row: int64(row), Err: err}
	}
	return nil
}

// fit minimises loss (plus λ‖Y‖²) with L-BFGS from a seeded Gaussian start.
func fit(ctx context.Context, n int, t *triplets.Table, o Options, loss lossFunc) (*Result, error) {
	rng := rand.New(rand.NewPCG(o.Seed, o.stream))
	y := make([]float64, n*o.Dims)
	for p := range y {
		y[p] = o.InitScale * rng.NormFloat64()
	}
	ev := newEvaluator(t, n, o, loss)
	var step func(int, float64)
	if o.Progress != nil {
		step = func(int, float64) { o.Progress() }
	}
	res, err := lbfgs.MinimizeWith(ctx, ev.eval, y, o.MaxIter, o.Store, o.Tol, step)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(res.F) || math.IsInf(res.F, 0) {
		return nil, wrapf(ErrNumerical, "cost %g", res.F)
	}
	return &Result{Y: res.X, Dims: o.Dims, Cost: res.F, Iterations: res.Iterations, Status: res.Status}, nil
}

// PerAspect fits one independent map per aspect with method (TSTE or SOE),
// each from the triplets of its aspect only: the "disjoint learning" of Le
// and Lauw. Aspect values must lie in [0, aspects); every aspect needs at
// least one triplet. Aspect t is initialised from rand.NewPCG(o.Seed, t+1).
// Aspects are fitted one after another, each using o.Threads.
func PerAspect(ctx context.Context, n, aspects int, t *triplets.Table, method Method, o Options) ([]*Result, error) {
	if err := checkInput(n, t); err != nil {
		return nil, err
	}
	if aspects < 1 {
		return nil, wrapf(ErrOption, "aspects = %d < 1", aspects)
	}
	if row, err := t.Validate(n, aspects); err != nil {
		return nil, &TripletError{Row: int64(row), Err: err}
	}
	parts := splitByAspect(t, aspects)
	for a := range parts {
		if parts[a].Len() == 0 {
			return nil, wrapf(ErrNoTriplets, "aspect %d", a)
		}
	}
	return perAspect(ctx, n, parts, method, o, nil)
}

// perAspect fits the map of every part. When phase is not nil it is called
// before part a, and the function it returns after part a (also on error).
func perAspect(ctx context.Context, n int, parts []triplets.Table, method Method, o Options, phase func(a int) (done func())) ([]*Result, error) {
	out := make([]*Result, len(parts))
	for a := range parts {
		done := func() {}
		if phase != nil {
			done = phase(a)
		}
		oa := o
		oa.stream = uint64(a) + 1
		r, err := method(ctx, n, &parts[a], oa)
		done()
		if err != nil {
			return nil, err
		}
		out[a] = r
	}
	return out, nil
}

// splitByAspect is a stable counting sort of the rows by aspect.
func splitByAspect(t *triplets.Table, aspects int) []triplets.Table {
	counts := make([]int, aspects)
	for _, a := range t.Aspect {
		counts[a]++
	}
	parts := make([]triplets.Table, aspects)
	for a, c := range counts {
		parts[a] = triplets.Table{
			I: make([]int32, 0, c), J: make([]int32, 0, c),
			K: make([]int32, 0, c), Aspect: make([]int32, 0, c),
		}
	}
	for r, a := range t.Aspect {
		parts[a].Append(t.I[r], t.J[r], t.K[r], a)
	}
	return parts
}
