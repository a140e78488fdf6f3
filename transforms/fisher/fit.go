package fisher

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// FitResult holds the distances of Fit: dense (Dist is N×N) or, with
// Neighbors K > 0, sparse (Idx and Dist are N×K).
type FitResult struct {
	N, K     int
	Idx      []int32
	Dist     []float64
	Sigma    float64        // the bandwidth used (0 for the kernel metric)
	Figures  map[string]any // the stage's own figures, snake_case keys
	Warnings []string
}

// Fit is the stage's computation on a similarity matrix s (n×n row-major,
// modified in place: symmetrised and corrected) with class indices in
// [0, k): the corrected kernel distances (metric kernel) or the Fisher path
// lengths, with the options of o. It reports its phases to prog (nil: none)
// and uses up to threads goroutines (≤ 0: all cores). Errors about options
// are *transforms.OptionError; errors about the data wrap
// transforms.ErrInvalidData.
func Fit(ctx context.Context, s []float64, n int, classes []int, k int, o *StageOptions, threads int, prog transforms.Progress) (*FitResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if prog == nil {
		prog = transforms.NoProgress{}
	}
	if len(s) != n*n {
		return nil, wrapf(ErrLength, "len(s) = %d, want n² = %d", len(s), n*n)
	}
	for q, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, inputError("s", q/n, q%n, ErrNonFinite)
		}
	}
	if o.Neighbors >= n {
		return nil, transforms.Optionf("neighbors", "%d must be below N = %d", o.Neighbors, n)
	}
	res := &FitResult{N: n, Figures: map[string]any{}}
	if asym := kernels.Symmetrize(s, n); asym > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the similarity matrix is not symmetric (largest |s(i,j) − s(j,i)| = %.3g); used (S + Sᵀ)/2", asym))
		res.Figures["max_asymmetry"] = asym
	}
	prog.Start("eigendecomposition", 0)
	neg, err := kernels.CorrectSpectrum(s, s, n, kernels.Correction(o.Correction))
	prog.Finish()
	if err != nil {
		return nil, err
	}
	res.Figures["negative_eigenvalue_share"] = neg
	d2 := make([]float64, n*n)
	kernels.KernelSqDistances(d2, s, n)
	if o.Metric == MetricKernel {
		return kernelDistances(ctx, res, d2, n, o, threads, prog)
	}

	sigma := o.Sigma
	if sigma == 0 {
		if !(o.Perplexity >= 1 && o.Perplexity < float64(n-1)) {
			return nil, transforms.Optionf("perplexity", "%g must be at least 1 and below N − 1 = %d", o.Perplexity, n-1)
		}
		beta := make([]float64, n)
		prog.Start("bandwidths", int64(n))
		err := kernels.Perplexity(ctx, beta, nil, d2, n, o.Perplexity, threads)
		prog.Add(int64(n))
		prog.Finish()
		if err != nil {
			return nil, err
		}
		var sum float64
		for _, b := range beta {
			sum += 1 / math.Sqrt(2*b)
		}
		sigma = sum / float64(n) * o.SigmaScale
	}
	res.Sigma = sigma
	res.Figures["sigma"] = sigma
	var last atomic.Int64 // Progress reports cumulative counts from worker goroutines
	fo := Options{Sigma: sigma, Steps: o.Steps, Rule: o.Rule, ExcludeEndpoints: o.ExcludeEndpoints,
		Neighbors: o.Neighbors, Threads: threads,
		Progress: func(done, total int64) { prog.Add(done - last.Swap(done)) }}
	if o.Neighbors > 0 {
		prog.Start("pair distances", int64(n)) // rows
		idx, dist, st, err := SparseDistances(ctx, s, n, classes, k, fo)
		prog.Finish()
		if err != nil {
			return nil, err
		}
		res.K, res.Idx, res.Dist = o.Neighbors, idx, dist
		res.noteStats(st)
		return res, nil
	}
	prog.Start("pair distances", int64(n)*int64(n-1)/2) // pairs i < j
	dist, st, err := Distances(ctx, s, n, classes, k, fo)
	prog.Finish()
	if err != nil {
		return nil, err
	}
	res.Dist = dist
	res.noteStats(st)
	return res, nil
}

// noteStats records the computation's statistics as figures and warns
// where the path sum is coarse.
func (res *FitResult) noteStats(st *Stats) {
	res.Figures["fallbacks"] = st.Fallbacks
	res.Figures["long_steps"] = st.LongSteps
	if st.Rule == Left && st.Neighbors == 0 {
		res.Figures["left_rule_asymmetry"] = st.MaxAsymmetry
	}
	if st.Neighbors > 0 {
		res.Figures["kept_terms"] = st.KeptTerms
		res.Figures["dense_terms"] = st.DenseTerms
	}
	if st.LongSteps > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%d pairs have a path step d(i,j)/T longer than σ = %.3g: the T-point sum is coarse there; raise steps", st.LongSteps, st.Sigma))
	}
}

// kernelDistances returns the plain distances of the corrected kernel,
// √(sᵢᵢ + sⱼⱼ − 2sᵢⱼ): the "original" metric the paper compares with.
func kernelDistances(ctx context.Context, res *FitResult, d2 []float64, n int, o *StageOptions, threads int, prog transforms.Progress) (*FitResult, error) {
	for q, v := range d2 {
		d2[q] = math.Sqrt(v)
	}
	if o.Neighbors == 0 {
		res.Dist = d2
		return res, nil
	}
	res.K = o.Neighbors
	res.Idx = make([]int32, n*res.K)
	res.Dist = make([]float64, n*res.K)
	prog.Start("neighbours", int64(n))
	err := kernels.KNNFromDistances(ctx, res.Idx, res.Dist, d2, n, res.K, threads)
	prog.Add(int64(n))
	prog.Finish()
	if err != nil {
		return nil, err
	}
	return res, nil
}
