package score

import (
	"context"
	"math"
	"runtime"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// initDelta is the initial δₜ, the mean of the uniform prior on δₜ.
const initDelta = 0.5

// Options are the options of SCORE: the score stage's and Fit's. Start from
// DefaultOptions (the paper's settings, Section 5.1): a zero field is not
// a default. Fit checks them with transforms.Validate.
type Options struct {
	// FitInput says how the stage reads the triplet table; Fit, which is
	// given the table, does not read it.
	triplets.FitInput

	// SingleMap pools all triplets into one aspect (the paper's Table 1
	// "single map"); the Model then repeats that aspect's pole and δ for
	// every aspect, so all maps are the same.
	SingleMap bool `opt:"single-map" help:"pool all triplets into one map (the paper's single-map comparison)"`

	// Dims is K: points on S^K ⊂ R^{K+1}.
	Dims int `opt:"dims" range:"[1,)" help:"output dimensions K (objects live on the sphere S^K)"`
	// Alpha is the scaling factor α of Eqs. 3 and 5.
	Alpha float64 `opt:"alpha" range:"(0,)" help:"scaling factor α"`
	// LearningRate is the initial SGD step ε (see Decay).
	LearningRate float64 `opt:"learning-rate" range:"(0,)" help:"SGD step ε"`
	// Kappa is the vMF concentration κ of the priors; 0 is the uniform
	// prior.
	Kappa float64 `opt:"kappa" range:"[0,)" help:"von Mises-Fisher prior concentration κ (0: flat)"`
	// MaxIter is the maximum number of passes over the triplets (epochs).
	MaxIter int `opt:"max-iter" alias:"epochs" range:"[1,)" help:"maximum passes over the triplets (epochs)"`
	// Tol stops the run when |ΔmeanLL| < Tol between epochs (unless
	// FixedIter).
	Tol float64 `opt:"tol" range:"(0,)" help:"stop when the mean log-likelihood changes less than this per epoch"`

	// Deterministic runs one ordered SGD stream, so that a Seed gives
	// bit-identical results whatever Threads is. Otherwise Threads workers
	// update private copies merged every round (see the package doc);
	// results are then reproducible only for the same Threads.
	Deterministic bool `opt:"deterministic" help:"one ordered SGD stream: bit-identical results for a seed (slower)"`
	// Seed seeds the initialisation and the triplet order.
	Seed uint64 `opt:"seed" help:"random seed (any whole number ≥ 0); the same input, seed and thread count give bit-identical output"`

	// The library's alone (no host sets them).

	// Mu is the vMF mean μ (normalised by Fit); nil is (0, …, 0, 1).
	// Otherwise it has Dims + 1 entries and a finite, non-zero norm.
	Mu []float64
	// Decay sets the learning rate after u updates to ε/(1 + Decay·3u/N);
	// 0 keeps ε constant.
	Decay float64 `range:"[0,)"`
	// FixedIter runs all MaxIter epochs: Tol is not checked. (Tol itself is
	// always > 0, as on the command line.)
	FixedIter bool
	Threads   int // ≤ 0: GOMAXPROCS

	// Progress, if not nil, is called after every epoch (1-based) with
	// the mean log-likelihood of the triplets seen in it.
	Progress func(epoch int, meanLL float64)
}

// DefaultOptions returns the defaults, the paper's settings where it gives
// them (Section 5.1): K = 2, α = 30, ε = 0.05, κ = 0 (uniform priors),
// μ = (0, …, 0, 1); at most 200 epochs, stopping when the mean
// log-likelihood changes by less than 10⁻³; Decay 0.01; seed 1.
func DefaultOptions() Options {
	return Options{FitInput: triplets.DefaultFitInput(), Dims: 2, Alpha: 30, LearningRate: 0.05,
		MaxIter: 200, Tol: 1e-3, Decay: 0.01, Seed: 1}
}

// Validate checks what ties options together: Mu against Dims. The
// ranges are in the tags (transforms.Validate checks them, then this).
func (o *Options) Validate() error {
	if o.Mu == nil {
		return nil
	}
	if len(o.Mu) != o.Dims+1 {
		return transforms.Optionf("Mu", "%d entries, want dims + 1 = %d: %w", len(o.Mu), o.Dims+1, ErrMu)
	}
	if n := math.Sqrt(dot(o.Mu, o.Mu)); !(n > 0) || math.IsInf(n, 0) {
		return transforms.Optionf("Mu", "norm %g: %w", n, ErrMu)
	}
	return nil
}

// unitMu is μ normalised, or (0, …, 0, 1) for nil, in a new slice.
func unitMu(mu []float64, dims int) []float64 {
	out := make([]float64, dims+1)
	if mu == nil {
		out[dims] = 1
		return out
	}
	n := math.Sqrt(dot(mu, mu))
	for m, v := range mu {
		out[m] = v / n
	}
	return out
}

// Model is a fitted SCORE model. Rows are points in R^{K+1} of unit norm.
type Model struct {
	Y     []float64 // N×(K+1), object coordinates yᵢ on S^K
	X     []float64 // A×(K+1), aspect poles xₜ on S^K
	Delta []float64 // A, weights δₜ ∈ [0, 1] of the aspect-specific view
	Dims  int       // K
}

// Stats describes a run.
type Stats struct {
	Epochs    int       // epochs run
	MeanLL    []float64 // per epoch, mean ln lᵗᵢⱼₖ over its triplets (online)
	Updates   int64     // triplet updates done
	Converged bool      // stopped by Tol before MaxIter
}

// Fit learns a SCORE model (Le & Lauw, IJCAI 2019, Section 4) from the
// triplets in tab over objects 0..objects−1 and aspects 0..aspects−1.
func Fit(ctx context.Context, tab *triplets.Table, objects, aspects int, o Options) (*Model, Stats, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, Stats{}, err
	}
	if tab == nil || tab.Len() == 0 {
		return nil, Stats{}, transforms.Errorf(ErrNoTriplets, "the table is empty")
	}
	if tab.Len() > math.MaxUint32 {
		return nil, Stats{}, transforms.Errorf(transforms.ErrInvalidOption, "%d triplets, at most %d", tab.Len(), uint64(math.MaxUint32))
	}
	if objects < 3 || aspects < 1 {
		return nil, Stats{}, transforms.Errorf(ErrTriplet, "need ≥ 3 objects and ≥ 1 aspect, have %d and %d", objects, aspects)
	}
	if row, err := tab.Validate(objects, aspects); err != nil {
		return nil, Stats{}, &TripletError{Row: int64(row), Err: err}
	}
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	o.Mu = unitMu(o.Mu, o.Dims)
	fitAspects := aspects
	if o.SingleMap {
		fitAspects = 1
	}
	f := newFitter(tab, objects, fitAspects, o)
	st, err := f.run(ctx)
	if err != nil {
		return nil, st, err
	}
	return f.model(aspects), st, nil
}
