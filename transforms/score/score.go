package score

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"github.com/ordinate/ordinate/transforms/triplets"
)

// Defaults (the paper's settings where it gives them, Section 5.1).
const (
	DefaultDims         = 2
	DefaultAlpha        = 30
	DefaultLearningRate = 0.05
	DefaultEpochs       = 200
	DefaultTol          = 1e-3
	DefaultDecay        = 0.01
	initDelta           = 0.5 // mean of the uniform prior on δₜ
)

// Options configures Fit. The zero value of each field selects the default
// given in its comment; negative values of Dims, Alpha, LearningRate, Kappa
// and Epochs are errors.
type Options struct {
	Dims         int       // K: points on S^K ⊂ R^{K+1}; 0 → 2
	Alpha        float64   // scaling factor α of Eqs. 3 and 5; 0 → 30
	LearningRate float64   // ε; 0 → 0.05
	Kappa        float64   // vMF concentration κ of the priors; 0 = uniform prior
	Mu           []float64 // vMF mean μ (normalised); nil → (0, …, 0, 1)
	Epochs       int       // maximum passes over the triplets; 0 → 200
	Tol          float64   // stop when |ΔmeanLL| < Tol between epochs; 0 → 1e-3, < 0 → never
	Decay        float64   // ε after u updates is ε/(1 + Decay·3u/N); 0 → 0.01, < 0 → constant ε

	// SingleMap pools all triplets into one aspect (the paper's Table 1
	// "single map"); the Model then repeats that aspect's pole and δ for
	// every aspect, so all maps are the same.
	SingleMap bool

	// Deterministic runs one ordered SGD stream, so that a Seed gives
	// bit-identical results whatever Threads is. Otherwise Threads workers
	// update private copies merged every round (see the package doc);
	// results are then reproducible only for the same Threads.
	Deterministic bool
	Threads       int    // ≤ 0 → GOMAXPROCS
	Seed          uint64 // seeds the initialisation and the triplet order

	// Progress, if not nil, is called after every epoch (1-based) with
	// the mean log-likelihood of the triplets seen in it.
	Progress func(epoch int, meanLL float64)
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
	Converged bool      // stopped by Tol before Epochs
}

// withDefaults fills defaults and validates o.
func (o Options) withDefaults() (Options, error) {
	if o.Dims == 0 {
		o.Dims = DefaultDims
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.LearningRate == 0 {
		o.LearningRate = DefaultLearningRate
	}
	if o.Epochs == 0 {
		o.Epochs = DefaultEpochs
	}
	if o.Tol == 0 {
		o.Tol = DefaultTol
	}
	if o.Decay == 0 {
		o.Decay = DefaultDecay
	}
	if o.Decay < 0 {
		o.Decay = 0
	}
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	switch {
	case o.Dims < 1:
		return o, optionErr(ErrDims, "%d", o.Dims)
	case !(o.Alpha > 0) || math.IsInf(o.Alpha, 0):
		return o, optionErr(ErrAlpha, "%g", o.Alpha)
	case !(o.LearningRate > 0) || math.IsInf(o.LearningRate, 0):
		return o, optionErr(ErrLearningRate, "%g", o.LearningRate)
	case !(o.Kappa >= 0) || math.IsInf(o.Kappa, 0):
		return o, optionErr(ErrKappa, "%g", o.Kappa)
	case o.Epochs < 0:
		return o, fmt.Errorf("score: %w: epochs %d < 0", ErrOption, o.Epochs)
	}
	d := o.Dims + 1
	mu := make([]float64, d)
	if o.Mu == nil {
		mu[d-1] = 1
	} else {
		if len(o.Mu) != d {
			return o, optionErr(ErrMu, "len %d, want %d", len(o.Mu), d)
		}
		n := math.Sqrt(dot(o.Mu, o.Mu))
		if !(n > 0) || math.IsInf(n, 0) {
			return o, optionErr(ErrMu, "norm %g", n)
		}
		for m, v := range o.Mu {
			mu[m] = v / n
		}
	}
	o.Mu = mu
	return o, nil
}

// Fit learns a SCORE model (Le & Lauw, IJCAI 2019, Section 4) from the
// triplets in tab over objects 0..objects−1 and aspects 0..aspects−1.
func Fit(ctx context.Context, tab *triplets.Table, objects, aspects int, o Options) (*Model, Stats, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, Stats{}, err
	}
	if tab == nil || tab.Len() == 0 {
		return nil, Stats{}, fmt.Errorf("score: %w", ErrNoTriplets)
	}
	if tab.Len() > math.MaxUint32 {
		return nil, Stats{}, fmt.Errorf("score: %w: %d triplets, at most %d", ErrOption, tab.Len(), uint64(math.MaxUint32))
	}
	if objects < 3 || aspects < 1 {
		return nil, Stats{}, fmt.Errorf("score: %w: need ≥ 3 objects and ≥ 1 aspect, have %d and %d", ErrTriplet, objects, aspects)
	}
	if row, err := tab.Validate(objects, aspects); err != nil {
		return nil, Stats{}, &TripletError{Row: int64(row), Err: err}
	}
	fitAspects := aspects
	if o.SingleMap {
		fitAspects = 1
	}
	f := newFitter(tab, objects, fitAspects, o)
	st, err := f.run(ctx)
	if err != nil {
		return nil, st, fmt.Errorf("score: %w", err)
	}
	return f.model(aspects), st, nil
}
