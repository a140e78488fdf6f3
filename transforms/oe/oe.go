package oe

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/ordinate/ordinate/internal/lbfgs"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// Options are the options that t-STE and SOE share: the tste and soe
// stages' options and those of TSTE, SOE and PerAspect (each method's
// struct, TSTEOptions or SOEOptions, embeds them). Start from
// DefaultTSTEOptions or DefaultSOEOptions: a zero field is not a default.
type Options struct {
	// FitInput says how the stages read the triplet table; the functions,
	// which are given the table, do not read it.
	triplets.FitInput
	// PerAspect is the stages' choice of one map per aspect; the
	// functions TSTE and SOE always fit one map, PerAspect one per aspect.
	PerAspect bool   `opt:"per-aspect" help:"one independent map per aspect (the paper's disjoint learning)"`
	MaxIter   int    `opt:"max-iter" range:"[1,)" help:"L-BFGS iterations"` // L-BFGS major iterations
	Dims      int    `opt:"dims" range:"[1,)" help:"output dimensions"`     // map dimension
	Seed      uint64 `opt:"seed" help:"random seed (any whole number ≥ 0); the same input, seed and thread count give bit-identical output"`

	// The library's alone (no host sets them).

	Lambda    float64 `range:"[0,)"` // L2 penalty λ‖Y‖² (both methods)
	InitScale float64 `range:"(0,)"` // standard deviation of the initial points
	Tol       float64 `range:"(0,)"` // relative cost decrease over 10 iterations to continue
	Store     int     `range:"[1,)"` // L-BFGS memory (pairs)
	Threads   int     // ≤ 0: GOMAXPROCS

	// Progress, if not nil, is called after every L-BFGS iteration (at
	// most MaxIter times per map; Result.Iterations times in all).
	Progress func()
}

// defaultOptions are the shared defaults, with the method's initial scale.
func defaultOptions(initScale float64) Options {
	return Options{FitInput: triplets.DefaultFitInput(), MaxIter: 1000, Dims: 2, Seed: 1,
		InitScale: initScale, Tol: 1e-9, Store: 15}
}

// TSTEOptions are the options of t-STE: of TSTEStage and TSTE.
type TSTEOptions struct {
	Options
	// Alpha is the Student-t degrees of freedom α; 0 is Dims − 1, at
	// least 1.
	Alpha float64 `opt:"alpha" range:"[0,)" help:"Student-t degrees of freedom (0: dims − 1, at least 1)"`
}

// DefaultTSTEOptions returns the defaults of t-STE: 2 dimensions, α = 0
// (Dims − 1, at least 1), at most 1000 iterations, λ = 0, initial scale
// 10⁻⁴ (MATLAB's tste.m), Tol 10⁻⁹, L-BFGS memory 15, seed 1.
func DefaultTSTEOptions() TSTEOptions {
	return TSTEOptions{Options: defaultOptions(1e-4)}
}

// SOEOptions are the options of SOE: of SOEStage and SOE.
type SOEOptions struct {
	Options
	Margin float64 `opt:"margin" range:"(0,)" help:"hinge margin δ"` // SOE margin δ
}

// DefaultSOEOptions returns the defaults of SOE: as DefaultTSTEOptions but
// with margin δ = 0.1 and initial scale 1 (R's loe and cblearn).
func DefaultSOEOptions() SOEOptions {
	return SOEOptions{Options: defaultOptions(1), Margin: 0.1}
}

// Result is a fitted map.
type Result struct {
	Y          []float64 // n×Dims, row-major
	Dims       int
	Cost       float64 // objective at Y, including the λ term
	Iterations int     // L-BFGS major iterations
	Status     string  // why the optimisation stopped
}

// Method is the options of one of the two methods, *TSTEOptions or
// *SOEOptions: they choose what PerAspect fits.
type Method interface {
	common() *Options
	loss() lossFunc
}

func (o *TSTEOptions) common() *Options { return &o.Options }
func (o *SOEOptions) common() *Options  { return &o.Options }

// alpha is α as used: Alpha, or for 0 Dims − 1, at least 1.
func (o *TSTEOptions) alpha() float64 {
	if o.Alpha == 0 {
		return math.Max(float64(o.Dims-1), 1)
	}
	return o.Alpha
}

func (o *TSTEOptions) loss() lossFunc { return tsteLoss(o.alpha()) }
func (o *SOEOptions) loss() lossFunc  { return soeLoss(o.Margin) }

// fitOne is TSTE and SOE: it checks the options and the input and fits
// one map.
func fitOne(ctx context.Context, n int, t *triplets.Table, m Method) (*Result, error) {
	if err := transforms.Validate(m); err != nil {
		return nil, err
	}
	if err := checkInput(n, t); err != nil {
		return nil, err
	}
	return fit(ctx, n, t, m, 0)
}

// checkInput validates n and the triplets against n objects (aspect
// values only need to be non-negative here).
func checkInput(n int, t *triplets.Table) error {
	if n < 3 {
		return transforms.Errorf(ErrObjects, "n = %d", n)
	}
	if t == nil || t.Len() == 0 {
		return transforms.Errorf(ErrNoTriplets, "empty table")
	}
	if row, err := t.Validate(n, math.MaxInt32); err != nil {
		return &TripletError{Row: int64(row), Err: err}
	}
	return nil
}

// fit minimises the method's loss (plus λ‖Y‖²) with L-BFGS from a seeded
// Gaussian start drawn from rand.NewPCG(Seed, stream). The options and
// the input have been checked.
func fit(ctx context.Context, n int, t *triplets.Table, m Method, stream uint64) (*Result, error) {
	o := *m.common()
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	rng := rand.New(rand.NewPCG(o.Seed, stream))
	y := make([]float64, n*o.Dims)
	for p := range y {
		y[p] = o.InitScale * rng.NormFloat64()
	}
	ev := newEvaluator(t, n, o, m.loss())
	var step func(int, float64)
	if o.Progress != nil {
		step = func(int, float64) { o.Progress() }
	}
	res, err := lbfgs.MinimizeWith(ctx, ev.eval, y, o.MaxIter, o.Store, o.Tol, step)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(res.F) || math.IsInf(res.F, 0) {
		return nil, transforms.Errorf(ErrNumerical, "cost %g", res.F)
	}
	return &Result{Y: res.X, Dims: o.Dims, Cost: res.F, Iterations: res.Iterations, Status: res.Status}, nil
}

// PerAspect fits one independent map per aspect with the method of o
// (&TSTEOptions or &SOEOptions), each from the triplets of its aspect
// only: the "disjoint learning" of Le and Lauw. Aspect values must lie in
// [0, aspects); every aspect needs at least one triplet. Aspect t is
// initialised from rand.NewPCG(o.Seed, t+1). Aspects are fitted one after
// another, each using o.Threads. o.PerAspect is not read.
func PerAspect(ctx context.Context, n, aspects int, t *triplets.Table, o Method) ([]*Result, error) {
	if err := transforms.Validate(o); err != nil {
		return nil, err
	}
	if err := checkInput(n, t); err != nil {
		return nil, err
	}
	if aspects < 1 {
		return nil, transforms.Errorf(transforms.ErrInvalidOption, "aspects = %d, want ≥ 1", aspects)
	}
	if row, err := t.Validate(n, aspects); err != nil {
		return nil, &TripletError{Row: int64(row), Err: err}
	}
	parts := splitByAspect(t, aspects)
	for a := range parts {
		if parts[a].Len() == 0 {
			return nil, transforms.Errorf(ErrNoTriplets, "aspect %d", a)
		}
	}
	return perAspect(ctx, n, parts, o, nil)
}

// perAspect fits the map of every part. When phase is not nil it is called
// before part a, and the function it returns after part a (also on error).
func perAspect(ctx context.Context, n int, parts []triplets.Table, m Method, phase func(a int) (done func())) ([]*Result, error) {
	out := make([]*Result, len(parts))
	for a := range parts {
		done := func() {}
		if phase != nil {
			done = phase(a)
		}
		r, err := fit(ctx, n, &parts[a], m, uint64(a)+1)
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
