package fisher

import (
	"context"
	"fmt"
	"math"

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

	local *Local // the local mode's rows and lists (FitFeatures)
}

// Fit is the stage's computation on a similarity matrix s (n×n row-major,
// modified in place: symmetrised and corrected) with class indices in
// [0, k): the corrected kernel distances (metric kernel) or the Fisher path
// lengths, with the options of o (start from DefaultOptions). It reports
// its phases to prog (nil: none), and the pair distances' progress also to
// o.Progress if set; it uses up to o.Threads goroutines (≤ 0: all cores).
// Errors about options are *transforms.OptionError; errors about the data
// wrap transforms.ErrInvalidData.
func Fit(ctx context.Context, s []float64, n int, classes []int, k int, o Options, prog transforms.Progress) (*FitResult, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, err
	}
	return fit(ctx, s, n, classes, k, o, prog)
}

// fit is Fit on validated options.
func fit(ctx context.Context, s []float64, n int, classes []int, k int, o Options, prog transforms.Progress) (*FitResult, error) {
	if prog == nil {
		prog = transforms.NoProgress{}
	}
	if len(s) != n*n {
		return nil, transforms.Errorf(ErrLength, "len(s) = %d, want n² = %d", len(s), n*n)
	}
	if err := checkFinite(ctx, s, n); err != nil {
		return nil, err
	}
	if o.Neighbors > 0 && !o.Tile.IsZero() {
		return nil, transforms.Optionf("tile", "with a similarity matrix needs dense distances (no neighbors): a row's K nearest pairs can lie in any tile; the local mode (in with a kernel) takes tiles")
	}
	if o.Neighbors >= n {
		return nil, transforms.Optionf("neighbors", "%d must be below N = %d", o.Neighbors, n)
	}
	if o.Metric != MetricKernel {
		if err := reserve(ctx, n, k, o); err != nil {
			return nil, err
		}
	}
	res := &FitResult{N: n, Figures: map[string]any{}}
	sigma, err := setUp(ctx, res, s, n, o, prog)
	switch {
	case err != nil:
		return nil, err
	case o.Metric == MetricKernel:
		return res, nil
	}
	return pathLengths(ctx, res, s, n, classes, k, sigma, o, prog)
}

// setUp is the shared set-up of the dense and sparse modes on a similarity
// matrix: s symmetrised and corrected in place, then σ (o.Sigma or from the
// perplexity). For the kernel metric it fills res with the kernel
// distances instead (σ 0).
func setUp(ctx context.Context, res *FitResult, s []float64, n int, o Options, prog transforms.Progress) (float64, error) {
	threads := o.Threads
	asym, err := kernels.SymmetrizeContext(ctx, s, n, threads)
	if err != nil {
		return 0, err
	}
	if asym > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the similarity matrix is not symmetric (largest |s(i,j) − s(j,i)| = %.3g); used (S + Sᵀ)/2", asym))
		res.Figures["max_asymmetry"] = asym
	}
	if o.Neighbors > 0 && (o.Kernel != NoKernel || n > SparseEigenLimit) {
		if err := sparseCorrection(ctx, res, s, n, o, prog); err != nil {
			return 0, err
		}
	} else {
		prog.Start("eigendecomposition", 0)
		neg, err := kernels.CorrectSpectrumContext(ctx, s, s, n, o.Correction.spectrum(), threads)
		prog.Finish()
		if err != nil {
			return 0, err
		}
		res.Figures["negative_eigenvalue_share"] = neg
	}
	d2 := make([]float64, n*n)
	if err := kernels.ParallelFor(ctx, n, threads, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			kernels.KernelSqDistRow(d2[i*n:(i+1)*n], s, n, i)
		}
	}); err != nil {
		return 0, err
	}
	if o.Metric == MetricKernel {
		_, err := kernelDistances(ctx, res, d2, n, o, prog)
		return 0, err
	}
	sigma := o.Sigma
	if sigma == 0 {
		if !(o.Perplexity < float64(n-1)) {
			return 0, transforms.Optionf("perplexity", "%g must be below N − 1 = %d", o.Perplexity, n-1)
		}
		var err error
		sigma, err = meanBandwidth(n, o, prog, func(beta []float64) error {
			return kernels.Perplexity(ctx, beta, nil, d2, n, o.Perplexity, threads)
		})
		if err != nil {
			return 0, err
		}
	}
	res.Sigma = sigma
	res.Figures["sigma"] = sigma
	return sigma, nil
}

// pathLengths is the Fisher path lengths of the corrected similarity s at
// bandwidth σ: all pairs (or Tile's), or each row's Neighbors nearest.
func pathLengths(ctx context.Context, res *FitResult, s []float64, n int, classes []int, k int, sigma float64, o Options, prog transforms.Progress) (*FitResult, error) {
	fo := o
	fo.Sigma = sigma
	if !o.Tile.IsZero() {
		fo.Pairs = o.Tile.pairs(n)
	}
	fo.Progress = cumulative(prog, o.Progress)
	if err := validate(ctx, s, n, classes, k, fo); err != nil {
		return nil, err
	}
	if o.Neighbors > 0 {
		prog.Start("pair distances", int64(n)) // rows
		idx, dist, st, err := sparseDistances(ctx, s, n, classes, k, fo)
		prog.Finish()
		if err != nil {
			return nil, err
		}
		res.K, res.Idx, res.Dist = o.Neighbors, idx, dist
		res.noteStats(st)
		return res, nil
	}
	prog.Start("pair distances", int64(n)*int64(n-1)/2) // pairs i < j
	dist, st, err := distances(ctx, s, n, classes, k, fo)
	prog.Finish()
	if err != nil {
		return nil, err
	}
	res.Dist = dist
	res.noteStats(st)
	return res, nil
}

// cumulative adapts a phase's progress bar, and the caller's own
// callback if any, to PathParams.Progress, which reports cumulative counts
// from worker goroutines (never concurrently).
func cumulative(prog transforms.Progress, also func(done, total int64)) func(done, total int64) {
	var last int64
	return func(done, total int64) {
		prog.Add(done - last)
		last = done
		if also != nil {
			also(done, total)
		}
	}
}

// meanBandwidth is σ from the perplexity: calibrate fills the n per-point
// precisions β, and σ is the mean of (2β)^−½ times SigmaScale, reported
// as phase "bandwidths".
func meanBandwidth(n int, o Options, prog transforms.Progress, calibrate func(beta []float64) error) (float64, error) {
	beta := make([]float64, n)
	prog.Start("bandwidths", int64(n))
	err := calibrate(beta)
	prog.Add(int64(n))
	prog.Finish()
	if err != nil {
		return 0, err
	}
	var sum float64
	for _, b := range beta {
		sum += 1 / math.Sqrt(2*b)
	}
	sigma := sum / float64(n) * o.SigmaScale
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return 0, transforms.Optionf("sigma", "the mean perplexity bandwidth times sigma-scale is %g: want a finite σ > 0 (give sigma)", sigma)
	}
	return sigma, nil
}

// SparseEigenLimit is the largest number of objects for which the sparse
// mode (Neighbors > 0) corrects a similarity matrix with the full n×n
// eigendecomposition, as the dense mode does. Above it, the symmetric
// eigendecomposition (O(n³): 8 times the work at twice the objects; its
// time at 2,000 is in BENCHMARKS.md, "Fisher distances (transforms/fisher)",
// "The dense spectrum correction") would dominate the sparse computation,
// so sparseCorrection decides from the extreme eigenvalues instead.
const SparseEigenLimit = 2000

// psdTol is the relative size of a smallest eigenvalue, against the
// largest magnitude, that counts as rounding of a positive semi-definite
// matrix.
const psdTol = 1e-8

// sparseCorrection is the spectrum correction of the sparse mode without a
// dense eigendecomposition. A kernel matrix of feature rows (linear or rbf)
// is positive semi-definite by construction and needs none. A similarity
// matrix is checked by Lanczos estimates of its extreme eigenvalues
// (kernels.ExtremeEigenvalues: O(n²) per step, cancellable): if it is
// positive semi-definite up to rounding, every correction leaves it as it
// is; if it is indefinite, shift adds |λ_min| (plus the estimate's residual
// bound) to the diagonal, which is exactly U(Λ − λ_min)Uᵀ, none uses it as
// it is with a warning, and clip and flip, which need every negative
// eigenpair, are refused with an option error that says what to do.
func sparseCorrection(ctx context.Context, res *FitResult, s []float64, n int, o Options, prog transforms.Progress) error {
	corr := o.Correction
	if prog == nil {
		prog = transforms.NoProgress{}
	}
	if o.Kernel != NoKernel {
		res.Figures["correction_applied"] = "none (a " + string(o.Kernel) + " kernel matrix is positive semi-definite)"
		return nil
	}
	prog.Start("extreme eigenvalues", 0)
	ex, err := kernels.ExtremeEigenvalues(ctx, s, n, 0, o.Threads)
	prog.Finish()
	if err != nil {
		return err
	}
	res.Figures["min_eigenvalue"], res.Figures["max_eigenvalue"] = ex.Min, ex.Max
	scale := max(math.Abs(ex.Min), math.Abs(ex.Max))
	if ex.Min >= -psdTol*scale {
		res.Figures["correction_applied"] = "none (positive semi-definite)"
		return nil
	}
	switch corr {
	case CorrectNone:
		res.Figures["correction_applied"] = "none"
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the similarity matrix is indefinite (smallest eigenvalue about %.4g, largest %.4g) and correction none uses it as it is: "+
				"kernel distances are clamped at 0, and the sparse truncation bound, which assumes a positive semi-definite matrix, does not hold", ex.Min, ex.Max))
		return nil
	case CorrectShift:
		shift := -ex.Min + ex.MinResidual
		for i := range n {
			s[i*n+i] += shift
		}
		res.Figures["correction_applied"] = "shift"
		res.Figures["shift"] = shift
		return nil
	}
	return transforms.Optionf("correction", "%s needs the full eigendecomposition of the %d×%d similarity matrix (O(n³)), which the sparse mode (neighbors) "+
		"does not do above %d objects, and this matrix is indefinite (smallest eigenvalue about %.4g, largest %.4g): use correction shift "+
		"(adds |λ_min| to the diagonal, found from the smallest eigenvalue alone), or none, or correct the matrix beforehand",
		corr, n, n, SparseEigenLimit, ex.Min, ex.Max)
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
func kernelDistances(ctx context.Context, res *FitResult, d2 []float64, n int, o Options, prog transforms.Progress) (*FitResult, error) {
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
	err := kernels.KNNFromDistances(ctx, res.Idx, res.Dist, d2, n, res.K, o.Threads)
	prog.Add(int64(n))
	prog.Finish()
	if err != nil {
		return nil, err
	}
	return res, nil
}
