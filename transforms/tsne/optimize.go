package tsne

import (
	"cmp"
	"context"
	"math"

	"github.com/ordinate/ordinate/transforms"
)

// Gains of the delta-bar-delta rule of van der Maaten's implementation.
const (
	gainUp   = 0.2
	gainDown = 0.8
	gainMin  = 0.01
)

// optimize runs gradient descent with momentum and gains from y (modified in
// place and returned in the Result).
func optimize(ctx context.Context, y []float64, a *affinities, n int, o Options, initName string) (*Result, error) {
	dims := o.Dims
	grad := make([]float64, n*dims)
	update := make([]float64, n*dims)
	gains := make([]float64, n*dims)
	for i := range gains {
		gains[i] = 1
	}
	var (
		bh     BHGradient
		interp = InterpGradient{InterpSettings: o.Interp}
	)
	gradient := func(alpha float64) (float64, error) {
		switch {
		case a.dense != nil:
			return GradExact(ctx, grad, y, a.dense, n, dims, alpha, o.Threads)
		case o.Method == Interp:
			return interp.Grad(ctx, grad, y, a.sparse, dims, alpha, o.Threads)
		}
		return bh.Grad(ctx, grad, y, a.sparse, dims, o.Theta, alpha, o.Threads)
	}
	kl := func(z float64) (float64, error) {
		if a.dense != nil {
			return KLExact(ctx, y, a.dense, n, dims, o.Threads)
		}
		return KLSparse(y, a.sparse, dims, z), nil
	}
	// The learning rate is in the units of bhtsne and openTSNE, whose
	// gradient omits the factor 4 (see the package doc).
	var loc *locality
	if minN := cmp.Or(o.reorderMin, localityMin); a.sparse != nil && n >= minN {
		loc = newLocality(n, dims)
	}
	o.Reporter.Start("optimising", int64(o.MaxIter))
	defer o.Reporter.Finish()
	for it := range o.MaxIter {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if loc != nil && it%localityEvery == 0 {
			loc.reorder(a.sparse, y, update, gains)
		}
		alpha, mom := 1.0, o.FinalMomentum
		if it < o.ExaggerationIters {
			alpha, mom = o.EarlyExaggeration, o.Momentum
		}
		eta := o.learningRate(n, alpha) / 4
		z, err := gradient(alpha)
		if err != nil {
			return nil, err
		}
		if o.Progress != nil && it > 0 && it%klEvery == 0 {
			v, err := kl(z)
			if err != nil {
				return nil, err
			}
			o.Progress(it, v)
		}
		for k, g := range grad {
			if sign(g) != sign(update[k]) {
				gains[k] += gainUp
			} else {
				gains[k] = max(gains[k]*gainDown, gainMin)
			}
			update[k] = mom*update[k] - eta*gains[k]*g
		}
		clipSteps(update, dims, o.MaxStepNorm)
		for k, u := range update {
			y[k] += u
		}
		center(y, n, dims)
		o.Reporter.Add(1)
	}
	z, err := gradient(1)
	if err != nil {
		return nil, err
	}
	final, err := kl(z)
	if err != nil {
		return nil, err
	}
	if loc != nil {
		loc.restore(y)
	}
	for k, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, transforms.Errorf(ErrNumerical, "coordinate %d of point %d is %v; try a smaller learning rate", k%dims, k/dims, v)
		}
	}
	if o.Progress != nil {
		o.Progress(o.MaxIter, final)
	}
	return &Result{
		Y:            y,
		KL:           final,
		Iterations:   o.MaxIter,
		Perplexity:   o.Perplexity,
		LearningRate: o.learningRate(n, 1),
		EarlyRate:    o.learningRate(n, o.EarlyExaggeration),
		Method:       string(o.Method),
		Init:         initName,
		Neighbors:    a.k,
	}, nil
}

// sign is bhtsne's sign: −1, 0 or 1.
func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// center subtracts the column means (summed in point order) from y.
func center(y []float64, n, dims int) {
	var mean [8]float64
	m := mean[:0]
	if dims <= len(mean) {
		m = mean[:dims]
	} else {
		m = make([]float64, dims)
	}
	for i := range n {
		for c := range dims {
			m[c] += y[i*dims+c]
		}
	}
	for c := range m {
		m[c] /= float64(n)
	}
	for i := range n {
		for c := range dims {
			y[i*dims+c] -= m[c]
		}
	}
}

// clipSteps scales each point's update (a row of dims) whose Euclidean
// norm exceeds limit back to that norm; limit 0 leaves them.
func clipSteps(update []float64, dims int, limit float64) {
	if limit <= 0 {
		return
	}
	for i := 0; i+dims <= len(update); i += dims {
		u := update[i : i+dims]
		var ss float64
		for _, v := range u {
			ss += v * v
		}
		if ss > limit*limit {
			f := limit / math.Sqrt(ss)
			for d := range u {
				u[d] *= f
			}
		}
	}
}
