package transforms

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms/fisher"
)

// FisherOptions are the options of the fisher stage (see transforms/fisher
// for the method). Zero values mean the defaults.
type FisherOptions struct {
	Correction       string  // clip (default), flip, shift, none
	Sigma            float64 // > 0: use this bandwidth; 0: from Perplexity
	Perplexity       float64 // 30
	SigmaScale       float64 // 1
	Steps            int     // 10
	Rule             string  // trapezoid (default) or left
	ExcludeEndpoints bool
	Neighbors        int    // 0: dense
	Metric           string // fisher (default) or kernel: the corrected kernel distances themselves
	Threads          int
	Progress         Progress
}

// FisherResult holds Fisher distances: dense (Dist is N×N) or, with
// Neighbors K > 0, sparse (Idx and Dist are N×K).
type FisherResult struct {
	N, K     int
	Idx      []int32
	Dist     []float64
	Sigma    float64
	Figures  map[string]any
	Warnings []string
}

// FitFisher turns a similarity matrix s (n×n row-major, modified in place:
// symmetrised and corrected) and class indices into Fisher path distances.
func FitFisher(ctx context.Context, s []float64, n int, classes []int, k int, o FisherOptions) (*FisherResult, error) {
	if o.Perplexity == 0 {
		o.Perplexity = 30
	}
	if o.SigmaScale == 0 {
		o.SigmaScale = 1
	}
	if o.Steps == 0 {
		o.Steps = 10
	}
	if o.Correction == "" {
		o.Correction = "clip"
	}
	corr, err := parseCorrection(o.Correction)
	if err != nil {
		return nil, err
	}
	var rule fisher.Rule
	switch o.Rule {
	case "", "trapezoid":
		rule, o.Rule = fisher.Trapezoid, "trapezoid"
	case "left":
		rule = fisher.Left
	default:
		return nil, fmt.Errorf("%w: --rule %q: want trapezoid or left", ErrOption, o.Rule)
	}
	if o.Sigma < 0 || o.SigmaScale <= 0 || o.Steps < 1 || o.Neighbors < 0 {
		return nil, fmt.Errorf("%w: --sigma %g, --sigma-scale %g, --steps %d, --neighbors %d: want sigma ≥ 0, scale > 0, steps ≥ 1, neighbors ≥ 0",
			ErrOption, o.Sigma, o.SigmaScale, o.Steps, o.Neighbors)
	}
	res := &FisherResult{N: n, Figures: map[string]any{}}
	for _, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: the similarity matrix holds %v", ErrOption, v)
		}
	}
	if asym := kernels.Symmetrize(s, n); asym > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the similarity matrix is not symmetric (largest |s(i,j) − s(j,i)| = %.3g); used (S + Sᵀ)/2", asym))
		res.Figures["max_asymmetry"] = asym
	}
	neg, err := kernels.CorrectSpectrum(s, s, n, corr)
	if err != nil {
		return nil, err
	}
	res.Figures["correction"] = o.Correction
	res.Figures["negative_eigenvalue_share"] = neg
	d2 := make([]float64, n*n)
	kernels.KernelSqDistances(d2, s, n)
	switch o.Metric {
	case "", "fisher":
		o.Metric = "fisher"
	case "kernel":
		return kernelDistances(ctx, res, d2, n, o)
	default:
		return nil, fmt.Errorf("%w: --metric %q: want fisher or kernel", ErrOption, o.Metric)
	}
	res.Figures["metric"] = o.Metric

	sigma := o.Sigma
	if sigma == 0 {
		if !(o.Perplexity >= 1 && o.Perplexity < float64(n-1)) {
			return nil, fmt.Errorf("%w: --perplexity %g must be at least 1 and below N − 1 = %d", ErrOption, o.Perplexity, n-1)
		}
		beta := make([]float64, n)
		if err := kernels.Perplexity(ctx, beta, nil, d2, n, o.Perplexity, o.Threads); err != nil {
			return nil, err
		}
		var sum float64
		for _, b := range beta {
			sum += 1 / math.Sqrt(2*b)
		}
		sigma = sum / float64(n) * o.SigmaScale
		res.Figures["perplexity"] = o.Perplexity
		res.Figures["sigma_scale"] = o.SigmaScale
	}
	res.Sigma = sigma
	res.Figures["sigma"] = sigma
	res.Figures["steps"] = o.Steps
	res.Figures["rule"] = o.Rule
	res.Figures["exclude_endpoints"] = o.ExcludeEndpoints
	p := progressOrNone(o.Progress)
	var last atomic.Int64 // Progress reports cumulative counts from worker goroutines
	fo := fisher.Options{Sigma: sigma, Steps: o.Steps, Rule: rule, ExcludeEndpoints: o.ExcludeEndpoints,
		Neighbors: o.Neighbors, Threads: o.Threads,
		Progress: func(done, total int64) { p.Add(done - last.Swap(done)) }}
	p.Start("fisher distances", 0)
	defer p.Finish()
	if o.Neighbors > 0 {
		idx, dist, st, err := fisher.SparseDistances(ctx, s, n, classes, k, fo)
		if err != nil {
			return nil, err
		}
		res.K, res.Idx, res.Dist = o.Neighbors, idx, dist
		res.Figures["neighbors"] = o.Neighbors
		res.noteStats(st)
		return res, nil
	}
	dist, st, err := fisher.Distances(ctx, s, n, classes, k, fo)
	if err != nil {
		return nil, err
	}
	res.Dist = dist
	res.noteStats(st)
	return res, nil
}

// noteStats records the computation's statistics and warns where the path
// sum is coarse.
func (res *FisherResult) noteStats(st *fisher.Stats) {
	if st == nil {
		return
	}
	res.Figures["stats"] = st
	if st.LongSteps > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%d pairs have a path step d(i,j)/T longer than σ = %.3g: the T-point sum is coarse there; raise --steps", st.LongSteps, st.Sigma))
	}
}

// kernelDistances returns the plain distances of the corrected kernel,
// √(sᵢᵢ + sⱼⱼ − 2sᵢⱼ): the "original" metric the paper compares with.
func kernelDistances(ctx context.Context, res *FisherResult, d2 []float64, n int, o FisherOptions) (*FisherResult, error) {
	res.Figures["metric"] = "kernel"
	for k, v := range d2 {
		d2[k] = math.Sqrt(v)
	}
	if o.Neighbors == 0 {
		res.Dist = d2
		return res, nil
	}
	if o.Neighbors >= n {
		return nil, fmt.Errorf("%w: --neighbors %d must be below N = %d", ErrOption, o.Neighbors, n)
	}
	res.K = o.Neighbors
	res.Idx = make([]int32, n*res.K)
	res.Dist = make([]float64, n*res.K)
	if err := kernels.KNNFromDistances(ctx, res.Idx, res.Dist, d2, n, res.K, o.Threads); err != nil {
		return nil, err
	}
	res.Figures["neighbors"] = o.Neighbors
	return res, nil
}

// parseCorrection maps a --correction name to the spectrum correction.
func parseCorrection(name string) (kernels.Correction, error) {
	switch name {
	case "clip":
		return kernels.Clip, nil
	case "flip":
		return kernels.Flip, nil
	case "shift":
		return kernels.Shift, nil
	case "none":
		return kernels.None, nil
	}
	return 0, fmt.Errorf("%w: --correction %q: want clip, flip, shift or none", ErrOption, name)
}
