package nerv

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/internal/lbfgs"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/linear"
)

// OutputScale chooses the output neighbourhood widths.
type OutputScale string

const (
	// ScaleAuto is Transfer for the exact method and Global for BarnesHut
	// and Cutoff, which need one width; Fit resolves it
	// (Result.OutputScale).
	ScaleAuto OutputScale = "auto"
	// Transfer uses sᵢ = σᵢ, the input bandwidth of each point (exact
	// method only).
	Transfer OutputScale = "transfer"
	// Global uses one scale for every point: the mean of the σᵢ.
	Global OutputScale = "global"
)

// Values lists the output scales.
func (OutputScale) Values() []string { return []string{"auto", "transfer", "global"} }

// Kernel chooses the output neighbourhood's kernel.
type Kernel string

const (
	// KernelGaussian is the papers' output neighbourhood, b_ij ∝
	// exp(−D²_ij/(2s²)).
	KernelGaussian Kernel = "gaussian"
	// KernelT is Student's t with one degree of freedom, b_ij ∝ 1/(1 +
	// D²_ij/(2s²)), still normalised per row (TStress, stresst.go): a
	// heavy tail against the crowding of many dimensions' neighbourhoods
	// in a 2-D map. A last level after the Gaussian ones (doc.go), method
	// grid, 1 or 2 dimensions.
	KernelT Kernel = "t"
)

// Values lists the kernels.
func (Kernel) Values() []string { return []string{"gaussian", "t"} }

// Method chooses how the stress is evaluated.
type Method string

const (
	// Auto is Exact up to AutoExactMax rows, Grid above for hard labels
	// (or none) in one or two dimensions, and Cutoff otherwise
	// (ResolveMethod).
	Auto Method = "auto"
	// Exact evaluates the O(N²) stress (see Stress).
	Exact Method = "exact"
	// BarnesHut uses sparse input neighbourhoods over the 3K nearest
	// neighbours and a Barnes–Hut sum over the embedding with one global
	// output scale (see BH): O(N·K + N log N) per evaluation.
	BarnesHut Method = "bh"
	// Cutoff has BarnesHut's objective (sparse input, one global output
	// scale) and sums, for each point, every point within reach of its
	// output Gaussian exactly and drops the rest, with the dropped mass
	// bounded by CutoffTol (see CutoffStress): O(N·K + N·R) per evaluation for R
	// points in reach, faster and more accurate than BarnesHut once the
	// map has spread out.
	Cutoff Method = "cutoff"
	// Grid has BarnesHut's objective and takes every row's sums over all
	// points by a Gaussian convolution on a regular grid over the map (see
	// GridStress): O(N·K + nodes) per evaluation, whatever the density of
	// the map. Hard labels (ClassNeRV) or none, at most two dimensions.
	Grid Method = "grid"
)

// Values lists the methods.
func (Method) Values() []string { return []string{"auto", "exact", "bh", "cutoff", "grid"} }

// AutoExactMax is the largest N for which Auto runs the exact method; above
// it Auto runs Cutoff. The whole fits of BENCHMARKS.md ("NeRV: method
// auto") cross between 400 and 500 rows: up to 400 the exact method was
// the faster in every run, from 500 the cut-off (2–6 times faster from
// 1,000 rows, at the same trustworthiness), and the exact method's O(N²)
// memory (four N×N matrices, 0.8 GB at 5,000 rows) grows out of reach.
const AutoExactMax = 400

// ResolveMethod returns the method a fit of n rows with the n×c soft labels
// soft (nil: none) runs: o.Method, or for Auto the exact method up to
// AutoExactMax rows, and also above with more than kernels.MaxBHDims output
// dimensions or output scale transfer (which only it supports), unless the
// sample start is asked for; Grid in at most gridMaxDims dimensions
// (hard, soft or no labels); Cutoff otherwise (three dimensions).
func (o Options) ResolveMethod(n int, soft []float64, c int) Method {
	if o.Method != Auto {
		return o.Method
	}
	if o.OutputKernel == KernelT {
		return Grid
	}
	exactOnly := o.Dims > kernels.MaxBHDims || o.OutputScale == Transfer
	if o.Start != StartSample && (n <= AutoExactMax || exactOnly) {
		return Exact
	}
	if o.Dims <= gridMaxDims {
		return Grid
	}
	return Cutoff
}

// gridPointBytes is GridStress's per-point state beyond the gradient
// accumulators that the optimiser's copies count (group, order, windows).
const gridPointBytes = 24

// resolveMethod is ResolveMethod within the memory the run of ctx may use
// (transforms.MemoryLimit): for Auto, Grid gives way to Cutoff when only
// the cut-off's plan (the lists without the grids) fits, so that auto
// never picks a plan the memory guard refuses while another would run.
func (o Options) resolveMethod(ctx context.Context, n int, soft []float64, c int) Method {
	m := o.ResolveMethod(n, soft, c)
	if o.Method != Auto || m != Grid {
		return m
	}
	sf := softFields(soft, c, o)
	fits := func(m Method) bool {
		oo := o
		oo.Method = m
		return transforms.Reserve(ctx, memoryPlan(n, oo, sf).bytes(), "", "") == nil
	}
	if !fits(Grid) && fits(Cutoff) {
		return Cutoff
	}
	return m
}

// gridSoftPointBytes bounds GridStress's per-point state for soft labels
// (gridsoft.go): a row's levels (c bytes, at most 8 counted here) and
// self weight, and its memberships of 16 bytes (point, channel, order and
// sort key), L of them for a normalised row (roundRow), counted as L + 4.
const gridSoftPointBytes = 16 + 16*(DefaultGridSoftLevels+4)

// softFields reports whether a fit with the n×c soft and o has soft labels
// that GridStress takes as channels.
func softFields(soft []float64, c int, o Options) bool {
	return o.Alpha != 0 && !labelsOneHot(soft, c)
}

// gridMaxDims is the most output dimensions GridStress supports.
const gridMaxDims = 2

// sparse reports whether m uses sparse input neighbourhoods and one global
// output scale (BarnesHut, Cutoff and Grid).
func (m Method) sparse() bool { return m == BarnesHut || m == Cutoff || m == Grid }

// DefaultCutoffTol is the default bound of Cutoff on the relative error of
// every row's normaliser; measured errors are far smaller (TestCutoffApprox:
// stress ≤ 1e-5 and gradient ≤ 1.4e-4 relative at 1e-2, where BarnesHut at
// its default gives up to 5e-2 and 7e-2 on a dense map), and the cost grows
// only with log(1/tol).
const DefaultCutoffTol = 1e-2

// DefaultBHTol is the default Barnes–Hut cell tolerance (see BH):
// on the data of TestNeRVBHApprox it gives stress errors of about 1e-4 and
// gradient errors of about 1e-3 (relative), against 1e-6 and 3e-5 at 1e-4,
// and is faster than 1e-3 at N = 20,000 (BENCHMARKS.md, "NeRV (issue 5)",
// the Barnes–Hut mode's cell test).
const DefaultBHTol = 1e-2

// MaxBHPerplexity caps the perplexities of the multiscale schedule with
// BarnesHut: a level with perplexity K_h needs 3K_h neighbours per point,
// so the coarse levels (K_h up to N/2) would make the sparse input dense.
// Levels above max(K, MaxBHPerplexity) are skipped.
const MaxBHPerplexity = 100

// keptForceMaxN is the largest N for which the exact method keeps the
// pair forces between the passes of Stress (Input.Force): one more N×N
// array, 128 MiB at this N, beside the three the exact method holds
// already (distances, β and log β).
const keptForceMaxN = 4096

// KNNSeed seeds the NN-descent search of BarnesHut (Options.Neighbors):
// the stage has no seed of its own, since the rest of the fit is
// deterministic (PCA start, L-BFGS), so one fixed seed keeps the whole fit
// a function of the data and the thread count.
const KNNSeed = 15

// ErrInput is the sentinel of bad input data given to the core (Fit).
var ErrInput = transforms.NewSentinel(transforms.ErrInvalidData, "nerv: bad input")

// Options are the options of the nerv stage and of Fit: one struct, its
// tagged fields the stage's options (transforms.Options), the untagged ones
// the library's. Start from DefaultOptions and change what you need: α = 0
// and γ = 0 are meaningful values, so a zero field is not a default. Fit
// ignores the column options (Columns, SoftLabels, Standardize: the
// stage's reading of the table) but validates them all the same.
type Options struct {
	transforms.Columns
	SoftLabels []string `opt:"soft-labels" help:"soft label columns, one per class (names and globs): SoftClassNeRV"`
	transforms.Standardization
	Dims int `opt:"dims" range:"[1,)" help:"output dimensions, at most 3 with methods bh and cutoff, 2 with grid"`
	// Alpha weighs the class community in Λ.
	Alpha float64 `opt:"alpha" range:"[0,1]" help:"weight of the class community in Λ"`
	// Gamma is the base trade-off between recall and precision.
	Gamma float64 `opt:"gamma" range:"[0,1]" help:"recall/precision trade-off without classes"`
	// Perplexity is K, the effective number of neighbours.
	Perplexity float64 `opt:"perplexity" range:"[1,)" help:"effective number of neighbours K, below N − 1"`
	// Multiscale runs the schedule K_h = max(N/2^h, K), warm-started.
	Multiscale bool   `opt:"multiscale" help:"perplexity schedule max(N/2^h, K), warm-started (--multiscale=false: K only)"`
	Method     Method `opt:"method" help:"exact (O(N²) time and memory), bh (sparse input, Barnes–Hut sums, global width), cutoff (bh's objective, exact sums within reach of each point's output Gaussian; more accurate and faster than bh), grid (bh's objective, every sum by a Gaussian convolution on a grid over the map, soft labels rounded to eighths for pairs beyond the neighbour lists; 1 or 2 dims; the fastest above 400 rows) or auto (exact up to 400 rows; above, grid, or cutoff for 3 dims)"`
	// Neighbors selects the k-NN search of the sparse methods' input
	// neighbourhoods: exact up to kernels.AutoApproxRows rows for
	// NN-descent's default candidates (4k/3 for the k = 3K neighbours of
	// the largest perplexity K) or up to kernels.KDTreeMaxDims features,
	// NN-descent otherwise (KNNAuto), or one of them always. NN-descent is
	// seeded with KNNSeed.
	Neighbors kernels.KNNMethod `opt:"knn" help:"input neighbours of methods bh, cutoff and grid: exact (a k-d tree for up to 8 features), approx (NN-descent) or auto (exact up to 4c² rows, c = 4 × the schedule's largest perplexity, NN-descent's candidates per point; and for up to 8 features)"`
	// BHTol is the Barnes–Hut cell tolerance (BarnesHut, and Cutoff's
	// dense rows).
	BHTol float64 `opt:"bh-tol" range:"[0,)" help:"Barnes–Hut (bh, and the dense points of cutoff): largest error of a cell's kernel sum relative to the row's neighbour kernels; 0: exact sums"`
	// CutoffTol bounds each row's relative normaliser error (Cutoff only).
	CutoffTol float64 `opt:"cutoff-tol" range:"[0,)" help:"cutoff: bound on the relative error of each point's output normaliser from the points left out; 0: every pair"`
	// Start places the points before the first scale: PCA, or a fitted
	// sample of the rows (sparse methods; StartAuto picks by N, see
	// SampleStartAbove).
	Start       Start       `opt:"start" help:"start of the map: pca, sample (methods bh, cutoff and grid: fit a quarter of the rows first, itself started the same way above 50,000 rows, scale it to the sample map's own density, place the other rows next to their sampled neighbours, and run the last perplexity only, its first 30 iterations exaggerated, 30·√(N/250,000) above 250,000 rows) or auto (sample above 50,000 rows with bh, cutoff and grid, pca otherwise)"`
	OutputScale OutputScale `opt:"output-scale" help:"output widths: transfer (sᵢ = σᵢ), global (one width), or auto (transfer; global with methods bh, cutoff and grid)"`
	// OutputKernel is the output neighbourhood's kernel.
	OutputKernel Kernel `opt:"output-kernel" help:"output neighbourhood: gaussian (the papers') or t (a last level under Student's t, heavy-tailed, whose maps keep neighbourhoods apart without crowding, T(10) near t-SNE's; costs a plane per class: 72 s at 20,000 rows of 30 classes, 17 minutes at 10⁵; method grid or auto, 1 or 2 dims)"`
	// MaxIter and Tol stop the last (finest) scale: L-BFGS iterations, and
	// the relative cost decrease over 10 iterations (doc.go, "Stopping
	// rule").
	MaxIter int     `opt:"max-iter" range:"[1,)" help:"L-BFGS iterations of the last (finest) scale"`
	Tol     float64 `opt:"tol" range:"[0,)" help:"relative stress decrease over 10 iterations that ends the last scale"`
	// NeighbourTol ends the last scale of the sparse methods when the
	// monitor's sampled neighbourhood scores moved by no more than it over
	// 10 iterations (monitor.go); 0 turns the rule off.
	NeighbourTol float64 `opt:"neighbour-tol" range:"[0,1]" help:"methods bh, cutoff and grid: largest change over 10 iterations of a 1,000-row sample's 10-NN preservation and class accuracy (among all rows and within the sample) that ends the last scale; 0: stop on --tol and --max-iter only"`
	// CoarseMaxIter and CoarseTol are MaxIter and Tol for the scales
	// before the last one of a multiscale schedule, which only need to
	// bring the next scale a good start (doc.go, "Stopping rule"); 0 uses
	// MaxIter or Tol.
	CoarseMaxIter int     `opt:"coarse-max-iter" range:"[0,)" help:"L-BFGS iterations of each earlier scale of the multiscale schedule; 0: as --max-iter; the rule before issue 15 is --coarse-max-iter 0 --coarse-tol 0 --max-iter 500 --tol 1e-5"`
	CoarseTol     float64 `opt:"coarse-tol" range:"[0,)" help:"relative stress decrease over 10 iterations that ends an earlier scale; 0: as --tol"`

	// Threads bounds the goroutines (≤ 0: GOMAXPROCS).
	Threads int
	// Progress, if not nil, is called after each scale with its perplexity,
	// final stress and iterations.
	Progress func(perplexity, stress float64, iterations int)
	// Reporter, if not nil, receives the phases of the fit: "pair
	// distances" or "neighbours" (rows), then "optimising level i/L" for
	// each scale, with its iteration cap as its total and one unit per L-BFGS
	// iteration.
	Reporter transforms.Progress
}

// DefaultOptions are the defaults: 2-D, perplexity 32, α = γ = 0.5,
// multiscale, method auto (exact up to AutoExactMax rows, grid or cutoff
// above),
// output scales transferred from the input for the exact method and one
// global width for the sparse ones (auto), and the stopping rule of
// doc.go; standardisation off.
func DefaultOptions() Options {
	return Options{Columns: transforms.DefaultColumns(), Dims: 2, Alpha: 0.5, Gamma: 0.5, Perplexity: 32, Multiscale: true,
		Method: Auto, Neighbors: kernels.KNNAuto, BHTol: DefaultBHTol, CutoffTol: DefaultCutoffTol, Start: StartAuto, OutputScale: ScaleAuto, OutputKernel: KernelGaussian,
		MaxIter: 150, Tol: 1e-4, NeighbourTol: DefaultNeighbourTol, CoarseMaxIter: 30, CoarseTol: 1e-3}
}

// Validate checks the rules that tie options together (transforms.Validate
// checks each option's range and values first).
func (o *Options) Validate() error {
	switch {
	case o.Label != "" && o.SoftLabels != nil:
		return transforms.Optionf("soft-labels", "give label (hard) or soft-labels (soft), not both")
	case o.Method == Grid && o.Dims > gridMaxDims:
		return transforms.Optionf("dims", "method grid supports at most %d output dimensions, not %d (methods bh and cutoff %d)", gridMaxDims, o.Dims, kernels.MaxBHDims)
	case o.Method.sparse() && o.Dims > kernels.MaxBHDims:
		return transforms.Optionf("dims", "method %v supports at most %d output dimensions, not %d", o.Method, kernels.MaxBHDims, o.Dims)
	case o.Start == StartSample && o.Method == Exact:
		return transforms.Optionf("start", "sample needs method bh, cutoff or grid (the exact method's cost is its O(N²) iterations, not its start)")
	case o.Start == StartSample && o.Method == Auto && (o.Dims > kernels.MaxBHDims || o.OutputScale == Transfer):
		return transforms.Optionf("start", "sample needs method bh, cutoff or grid, which support neither more than %d output dimensions nor output-scale transfer", kernels.MaxBHDims)
	case o.OutputKernel == KernelT && o.Method != Auto && o.Method != Grid:
		return transforms.Optionf("output-kernel", "t runs with method grid or auto, not %s", o.Method)
	case o.OutputKernel == KernelT && o.Dims > gridMaxDims:
		return transforms.Optionf("dims", "output kernel t supports at most %d output dimensions, not %d", gridMaxDims, o.Dims)
	case o.OutputKernel == KernelT && o.OutputScale == Transfer:
		return transforms.Optionf("output-scale", "transfer needs the Gaussian kernel and method exact; output kernel t takes one global width")
	case o.Method.sparse() && o.OutputScale == Transfer:
		return transforms.Optionf("output-scale", "transfer needs method exact: methods bh, cutoff and grid need one global width")
	}
	return nil
}

// kernel returns the output kernel, the Gaussian when unset (an Options
// literal without it).
func (o Options) kernel() Kernel {
	if o.OutputKernel == "" {
		return KernelGaussian
	}
	return o.OutputKernel
}

// outputScale resolves ScaleAuto: Transfer for the exact method, Global for
// the sparse ones.
func (o Options) outputScale() OutputScale {
	if o.OutputScale != ScaleAuto {
		return o.OutputScale
	}
	if o.Method.sparse() {
		return Global
	}
	return Transfer
}

// LegacyStopping returns o with the stopping rule used before the
// coarse-scale rule of doc.go: every scale runs to MaxIter 500 or Tol 1e-5.
func (o Options) LegacyStopping() Options {
	o.MaxIter, o.Tol, o.CoarseMaxIter, o.CoarseTol = 500, 1e-5, 0, 0
	return o
}

// stopping returns the iteration cap and tolerance of level h of levels.
func (o Options) stopping(h, levels int) (int, float64) {
	if h == levels-1 {
		return o.MaxIter, o.Tol
	}
	maxIter, tol := o.MaxIter, o.Tol
	if o.CoarseMaxIter > 0 {
		maxIter = o.CoarseMaxIter
	}
	if o.CoarseTol > 0 {
		tol = o.CoarseTol
	}
	return maxIter, tol
}

// Level is one scale of the optimisation.
type Level struct {
	Perplexity float64 `json:"perplexity"`
	Stress     float64 `json:"stress"`
	Iterations int     `json:"iterations"`
	// Exaggerated is how many of Iterations ran the exaggerated stress
	// (after the sample start, exaggeration.go).
	Exaggerated int `json:"exaggerated,omitempty"`
	// Evaluations counts the stress evaluations, line searches included
	// (each costs about one iteration's time).
	Evaluations int    `json:"evaluations"`
	Status      string `json:"status"`
	// Kernel is the output kernel of the level: the Gaussian, or the t
	// kernel of the last stage of a fit with output kernel t.
	Kernel Kernel `json:"kernel,omitempty"`
}

// Result is a fitted embedding.
type Result struct {
	Y      []float64 // n×Dims row-major
	Stress float64   // at the final (finest) scale
	Levels []Level
	// Method is the method that ran: Options.Method with Auto resolved
	// (ResolveMethod).
	Method Method
	// GridFallbacks counts Grid's evaluations that the cut-off took
	// because the grid over the map would have been too large (far
	// outliers; GridStress.MaxNodes).
	GridFallbacks int
	// Quality is the neighbourhood monitor's score of the final map
	// (monitor.go), or nil for the exact method.
	Quality *Quality
	// OutputScale is the output scale that ran: Options.OutputScale with
	// ScaleAuto resolved.
	OutputScale OutputScale
	// OutputKernel is the output kernel of the map (Options.OutputKernel).
	OutputKernel Kernel
	// Width is the global output width s of the finest scale (the mean
	// σᵢ), or 0 with Transfer (each point's own σᵢ).
	Width float64
	// NeighborIdx holds, with BarnesHut, each point's NeighborK nearest
	// points by (squared distance, index), row-major; nil otherwise.
	NeighborIdx []int32
	NeighborK   int
	// SampleRows are the sizes of the samples the start came from,
	// largest first (a sample of 250,000 rows itself started from 62,500),
	// or nil for the PCA start (Options.Start).
	SampleRows []int
	// KNN is the neighbour search that ran: KNNExact (always for the
	// exact method, whose distances are all exact) or KNNApprox.
	KNN kernels.KNNMethod
	// scale is lbfgs.Result.Scale of the last level, which a fit starting
	// from this one as its sample carries over (sampleStart.scale).
	scale float64
}

// Levels returns the perplexities Fit runs through for n points: Schedule,
// without the levels above max(K, MaxBHPerplexity) for BarnesHut and
// Cutoff, or K alone when the fit starts from a sample (the sample's fit
// ran the schedule).
func (o Options) Levels(n int) []float64 {
	if o.fromSample(n) {
		return []float64{o.Perplexity}
	}
	ks := Schedule(n, o.Perplexity, o.Multiscale)
	if !o.Method.sparse() {
		return ks
	}
	capK := math.Max(o.Perplexity, MaxBHPerplexity)
	var out []float64
	for _, k := range ks {
		if k <= capK {
			out = append(out, k)
		}
	}
	return out
}

// Schedule returns the perplexities of the multiscale schedule,
// K_h = max(N/2^h, K) for h = 1 … ⌈log₂(N/K)⌉, coarse to fine, or just K.
func Schedule(n int, k float64, multiscale bool) []float64 {
	if !multiscale || float64(n) <= 2*k {
		return []float64{k}
	}
	hMax := int(math.Ceil(math.Log2(float64(n) / k)))
	var out []float64
	for h := 1; h <= hMax; h++ {
		out = append(out, math.Max(float64(n)/math.Pow(2, float64(h)), k))
	}
	return out
}

// Fit embeds the n×d row-major x. soft is the n×c row-major soft-label
// matrix (rows sum to 1; an all-NaN row is unlabelled), or nil for NeRV.
// Bad options are *transforms.OptionError naming the option, bad data
// errors wrapping ErrInput; a cancelled ctx gives ctx.Err().
func Fit(ctx context.Context, x []float64, n, d int, soft []float64, c int, o Options) (*Result, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, err
	}
	o.Method = o.resolveMethod(ctx, n, soft, c)
	if err := check(x, n, d, soft, c, o); err != nil {
		return nil, err
	}
	if err := reserve(ctx, n, o, softFields(soft, c, o)); err != nil {
		return nil, err
	}
	o.OutputScale = o.outputScale()
	rep := o.Reporter
	if rep == nil {
		rep = transforms.NoProgress{}
	}
	var y []float64
	var smp *sampleStart
	var err error
	if o.fromSample(n) {
		smp, err = fitSample(ctx, x, n, d, soft, c, o, rep)
	} else {
		y, err = initPCA(x, n, d, o.Dims)
	}
	if err != nil {
		return nil, err
	}
	var lv levelStress
	if o.Method.sparse() {
		lv, err = newSparseLevels(ctx, x, n, d, soft, c, o, rep)
	} else {
		rep.Start("pair distances", int64(n))
		lv, err = newDenseLevels(ctx, x, n, d, soft, c, o)
		if err == nil {
			rep.Add(int64(n))
		}
	}
	rep.Finish()
	if err != nil {
		return nil, err
	}
	res := &Result{KNN: kernels.KNNExact, OutputScale: o.OutputScale, Method: o.Method, OutputKernel: o.kernel()}
	levels := o.Levels(n)
	var mon *neighbourMonitor
	for h, k := range levels {
		maxIter, tol := o.stopping(h, len(levels))
		eval, width, err := lv.level(k, h == len(levels)-1)
		if err != nil {
			return nil, err
		}
		rep.Start(fmt.Sprintf("optimising level %d/%d", h+1, len(levels)), int64(maxIter))
		exaggerated, exagEvals, scale := 0, 0, 0.0
		if y == nil {
			sl := lv.(*sparseLevels)
			if y, err = smp.place(ctx, n, o, sl.idx, sl.kn, width, placeClasses(soft, n, c, o.Alpha)); err != nil {
				return nil, err
			}
			res.SampleRows = smp.sizes
			if y, exaggerated, exagEvals, scale, err = exaggerate(ctx, eval, sl.cur, y, o, maxIter, smp.fullScale(n, width), func() { rep.Add(1) }); err != nil {
				return nil, err
			}
		}
		set := lbfgs.Settings{MaxIter: maxIter - exaggerated, Store: 10, Tol: tol, InitialScale: scale, Step: func(int, float64) { rep.Add(1) }}
		if mon, err = lastMonitor(ctx, lv, h == len(levels)-1, x, n, d, soft, c, o); err != nil {
			return nil, err
		}
		if mon != nil {
			set.Converged = func(it int, y []float64, _ float64) bool { return mon.converged(ctx, it, y) }
		}
		r, err := lbfgs.Run(ctx, eval, y, set)
		rep.Finish()
		if err != nil {
			return nil, err
		}
		r.Iterations += exaggerated
		if r.Status == lbfgs.StatusConverged {
			r.Status = StatusNeighbours
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if math.IsNaN(r.F) || math.IsInf(r.F, 0) {
			return nil, fmt.Errorf("nerv: stress became %g at perplexity %g", r.F, k)
		}
		y = r.X
		res.Width, res.scale = width, r.Scale
		res.Levels = append(res.Levels, Level{Perplexity: k, Stress: r.F, Iterations: r.Iterations, Exaggerated: exaggerated, Evaluations: r.Evaluations + exagEvals, Status: r.Status})
		if o.Progress != nil {
			o.Progress(k, r.F, r.Iterations)
		}
	}
	if o.kernel() == KernelT {
		sl := lv.(*sparseLevels)
		lvl, yt, err := sl.refineT(y, x, d, o, rep)
		if err != nil {
			return nil, err
		}
		y = yt
		res.Levels = append(res.Levels, lvl)
		if mon, err = lastMonitor(ctx, lv, true, x, n, d, soft, c, o); err != nil {
			return nil, err
		}
	}
	res.Y = y
	if mon != nil {
		if res.Quality, err = mon.final(ctx, y); err != nil {
			return nil, err
		}
	}
	if sl, ok := lv.(*sparseLevels); ok {
		res.NeighborIdx, res.NeighborK, res.KNN = sl.idx, sl.kn, sl.knn
		res.GridFallbacks = sl.gridFallbacks
	}
	res.Stress = res.Levels[len(res.Levels)-1].Stress
	return res, nil
}

// levelStress prepares the stress of one perplexity level: level returns
// the function that L-BFGS minimises (NaN when cancelled). With last (no
// level follows) it may hand its own buffers to that function.
type levelStress interface {
	level(perplexity float64, last bool) (eval func(y, grad []float64) float64, width float64, err error)
}

// denseLevels is the exact method: dense squared distances, β and log β.
type denseLevels struct {
	ctx  context.Context
	o    Options
	d2   []float64
	in   *Input
	prec []float64
}

func newDenseLevels(ctx context.Context, x []float64, n, d int, soft []float64, c int, o Options) (*denseLevels, error) {
	d2 := make([]float64, n*n)
	if err := kernels.SqDistances(ctx, d2, x, n, d, o.Threads); err != nil {
		return nil, err
	}
	in := &Input{N: n, C: c, Soft: soft, Alpha: o.Alpha, Gamma: o.Gamma, Beta: make([]float64, n*n)}
	if n <= keptForceMaxN {
		in.Force = make([]float64, n*n)
	}
	return &denseLevels{ctx: ctx, o: o, d2: d2, in: in, prec: make([]float64, n)}, nil
}

func (l *denseLevels) level(k float64, _ bool) (func(y, grad []float64) float64, float64, error) {
	in := l.in
	if err := kernels.Perplexity(l.ctx, l.prec, in.Beta, l.d2, in.N, k, l.o.Threads); err != nil {
		return nil, 0, perplexityError(err)
	}
	in.Scale = scales(l.prec, l.o.OutputScale)
	var width float64
	if l.o.OutputScale == Global {
		width = in.Scale[0]
	}
	LogBeta(in)
	return func(y, g []float64) float64 {
		s, err := Stress(l.ctx, g, y, l.o.Dims, in, l.o.Threads)
		if err != nil {
			return math.NaN()
		}
		return s
	}, width, nil
}

// sparseNeighbours is the length of the neighbour lists a sparse fit of n
// rows finds once, for its largest level: 3K of that level, at most n − 1.
func (o Options) sparseNeighbours(n int) int {
	var kmax float64
	for _, k := range o.Levels(n) {
		kmax = math.Max(kmax, k)
	}
	return min(bhNeighbours(kmax), n-1)
}

// neighbourPlan returns the neighbours per row a sparse fit of n rows of d
// features finds (for its largest level) and the search that will find
// them; (0, "") for the exact method.
func (o Options) neighbourPlan(n, d int) (int, kernels.KNNMethod) {
	if !o.Method.sparse() {
		return 0, ""
	}
	kn := o.sparseNeighbours(n)
	return kn, kernels.PlanKNN(n, d, kn, o.Neighbors, kernels.NNDescentSettings{Seed: KNNSeed})
}

// sparseLevels is the Barnes–Hut method: one exact k-NN search for the
// largest level, whose sorted lists each level truncates to min(3K_h, n−1).
type sparseLevels struct {
	ctx   context.Context
	o     Options
	n, kn int
	idx   []int32
	d2    []float64
	knn   kernels.KNNMethod // the search that ran
	soft  []float64
	c     int
	bh    BH
	cut   CutoffStress
	grid  GridStress
	tst   TStress
	cur   *SparseInput // the input of the most recent call of level (for exaggerate)
	// gridFallbacks counts Grid's evaluations whose grid would have been
	// too large, which the cut-off took (Result.GridFallbacks).
	gridFallbacks int
}

// newSparseLevels finds the neighbours, reporting them to rep as phase
// "neighbours".
func newSparseLevels(ctx context.Context, x []float64, n, d int, soft []float64, c int, o Options, rep transforms.Progress) (*sparseLevels, error) {
	kn := o.sparseNeighbours(n)
	idx := make([]int32, n*kn)
	d2 := make([]float64, n*kn)
	set := kernels.NNDescentSettings{Seed: KNNSeed, Progress: func(rows int) { rep.Add(int64(rows)) }}
	rep.Start("neighbours", kernels.KNNWork(n, d, kn, o.Neighbors, set))
	ran, err := kernels.FindKNN(ctx, idx, d2, x, n, d, kn, o.Threads, o.Neighbors, set)
	if err != nil {
		return nil, err
	}
	return &sparseLevels{ctx: ctx, o: o, n: n, kn: kn, idx: idx, d2: d2, knn: ran, soft: soft, c: c}, nil
}

// bhFloorStretch sets the floor for unlisted β: the calibrated Gaussian
// at r = √(1 + bhFloorStretch) times the farthest listed distance d_b,
// log β = log β_b − β_i·d²_b·bhFloorStretch. With r = √3 the unlisted points
// count as lying beyond the next two shells of 3K neighbours (in 2-D).
// Chosen by measurement (BENCHMARKS.md): r = 1 (the row's smallest listed
// β) lost 0.02 of trustworthiness against the exact method, r = √2 0.004,
// r = √3 none, and the exact method's own floor for an underflowed β
// (2^−1022) lost 0.05 of R_NX AUC and doubled the iterations.
const bhFloorStretch = 2

// bhNeighbours is the neighbour-list length for perplexity k: 3K, rounded up.
func bhNeighbours(k float64) int { return int(math.Ceil(3 * k)) }

func (l *sparseLevels) level(k float64, last bool) (func(y, grad []float64) float64, float64, error) {
	n := l.n
	kh := min(bhNeighbours(k), n-1)
	in := &SparseInput{N: n, K: kh, C: l.c, Soft: l.soft, Alpha: l.o.Alpha, Gamma: l.o.Gamma}
	farthest := make([]float64, n) // d² of each row's last listed neighbour
	for i := range n {
		farthest[i] = l.d2[i*l.kn+kh-1]
	}
	if last && kh == l.kn {
		// The last level takes the lists as they are: the neighbour
		// indices shared (read only; Result.NeighborIdx), the distances
		// turned into β in place. At 10⁶ rows and 96 neighbours that is
		// 1.2 GB less held through the fit, twice that at the collector's
		// peak.
		in.Idx, in.Beta, l.d2 = l.idx, l.d2, nil
	} else {
		in.Idx, in.Beta = make([]int32, n*kh), make([]float64, n*kh)
		for i := range n {
			copy(in.Idx[i*kh:(i+1)*kh], l.idx[i*l.kn:])
			copy(in.Beta[i*kh:(i+1)*kh], l.d2[i*l.kn:])
		}
	}
	prec := make([]float64, n)
	if err := kernels.PerplexitySparse(l.ctx, prec, in.Beta, in.Beta, n, kh, k, l.o.Threads); err != nil {
		return nil, 0, perplexityError(err)
	}
	in.Scale = scales(prec, Global)[0]
	SparseLogBeta(in)
	in.LogFloor = make([]float64, n)
	for i := range n {
		lb := in.LogBeta[i*kh : (i+1)*kh]
		in.LogFloor[i] = slices.Min(lb) - prec[i]*farthest[i]*bhFloorStretch
	}
	l.cur = in
	stress := func(g, y []float64) (float64, error) {
		return l.bh.Stress(l.ctx, g, y, l.o.Dims, in, l.o.BHTol, l.o.Threads)
	}
	cutoff := func(g, y []float64) (float64, error) {
		return l.cut.Stress(l.ctx, g, y, l.o.Dims, in, l.o.CutoffTol, l.o.BHTol, l.o.Threads)
	}
	switch {
	case l.o.Method == Cutoff:
		stress = cutoff
	case l.o.Method == Grid:
		stress = func(g, y []float64) (float64, error) {
			s, err := l.grid.Stress(l.ctx, g, y, l.o.Dims, in, l.o.Threads)
			if errors.Is(err, ErrGridTooLarge) {
				// A map far wider than its density (outliers): the
				// cut-off's cost does not grow with the extent.
				l.gridFallbacks++
				return cutoff(g, y)
			}
			return s, err
		}
	}
	return func(y, g []float64) float64 {
		s, err := stress(g, y)
		if err != nil {
			return math.NaN()
		}
		return s
	}, in.Scale, nil
}

// scales turns perplexity precisions βᵢ (weights exp(−βᵢd²)) into output
// widths sᵢ = σᵢ = (2βᵢ)^−½, or their mean.
func scales(beta []float64, mode OutputScale) []float64 {
	s := make([]float64, len(beta))
	var sum float64
	for i, b := range beta {
		s[i] = 1 / math.Sqrt(2*b)
		sum += s[i]
	}
	if mode == Global {
		return []float64{sum / float64(len(beta))}
	}
	return s
}

// initPCA places the points at their first principal components, in data
// units (deterministic, and on the scale the transferred widths expect).
func initPCA(x []float64, n, d, dims int) ([]float64, error) {
	xm := mat.NewDense(n, d, append([]float64(nil), x...))
	p, err := linear.PCA(xm, min(dims, d))
	if err != nil {
		return nil, transforms.Errorf(ErrInput, "PCA initialisation: %w", err)
	}
	proj := p.Transform(nil, xm)
	y := make([]float64, n*dims)
	for i := range n {
		for j := range min(dims, d) {
			y[i*dims+j] = proj.At(i, j)
		}
	}
	return y, nil
}

// perplexityError is the error of a perplexity calibration: a perplexity
// out of range is an error of the option perplexity; anything else (a
// cancellation) is returned as it is, never as an option error.
func perplexityError(err error) error {
	if errors.Is(err, kernels.ErrPerplexity) {
		return transforms.Optionf("perplexity", "%w", err)
	}
	return err
}

// check checks what the options' ranges cannot: the sizes of x and soft,
// and the options that depend on N.
func check(x []float64, n, d int, soft []float64, c int, o Options) error {
	switch {
	case n < 3 || d < 1 || len(x) != n*d:
		return transforms.Errorf(ErrInput, "%d values for %d rows × %d features (need at least 3 rows)", len(x), n, d)
	case soft != nil && (c < 1 || len(soft) != n*c):
		return transforms.Errorf(ErrInput, "%d soft-label values for %d rows × %d classes", len(soft), n, c)
	case !(o.Perplexity < float64(n-1)):
		return transforms.Optionf("perplexity", "%w: %g, want below N − 1 = %d", kernels.ErrPerplexity, o.Perplexity, n-1)
	case o.Start == StartSample && !(o.Perplexity < float64(n/sampleFraction-1)):
		return transforms.Optionf("start", "a sample of %d rows (1/%d of %d) is too small for perplexity %g", n/sampleFraction, sampleFraction, n, o.Perplexity)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return transforms.MatrixErrorf("x", i/d, i%d, ErrInput, "%v is not finite", v)
		}
	}
	return nil
}

// optimiserCopies is the number of n×dims vectors a fit holds besides its
// pairs: the map, the L-BFGS state (10 pairs of vectors, the gradient, the
// direction and the trial point and its gradient) and the stress's own
// gradient buffers, rounded up.
const optimiserCopies = 28

// reserve checks the plan of a fit of n rows with the resolved o against
// the memory the run may use (transforms.Reserve), before anything grows
// with it (memoryPlan). A plan driven by the output dimensions is an error
// of option dims.
func reserve(ctx context.Context, n int, o Options, soft bool) error {
	p := memoryPlan(n, o, soft)
	if p.maps > p.pairs {
		return transforms.ReserveOption(ctx, "dims", p.bytes(),
			fmt.Sprintf("a map of %s rows in %s dimensions and the optimiser's %d copies of it", transforms.Thousands(int64(n)), transforms.Thousands(int64(o.Dims)), optimiserCopies),
			"use fewer dims")
	}
	return transforms.Reserve(ctx, p.bytes(), p.what, p.fix)
}

// plan is the memory a fit holds at its peak: its pairs and its maps.
type plan struct {
	pairs, maps float64 // bytes
	what, fix   string  // what the pairs are, and what would hold fewer
}

func (p plan) bytes() float64 { return p.pairs + p.maps }

// memoryPlan is the memory of a fit of n rows with the resolved o: the
// exact method's N×N matrices (distances, β, log β, and the kept pair
// forces up to keptForceMaxN rows), or the sparse methods' neighbour lists
// (each level's copy with β and log β), and the map with the optimiser's
// copies of it; soft says the labels are soft (softFields).
func memoryPlan(n int, o Options, soft bool) plan {
	var p plan
	if o.Method.sparse() {
		kn := o.sparseNeighbours(n)
		// The search's lists (int32 index, float64 d²), a level's copy of
		// both, its log β, and the search's own scratch of the same size.
		p.pairs = float64(n) * float64(kn) * (4 + 8 + 4 + 8 + 8 + 12)
		p.what = fmt.Sprintf("method %s's lists of %s neighbours per row at N = %s", o.Method, transforms.Thousands(int64(kn)), transforms.Thousands(int64(n)))
		if o.Method == Grid {
			// The node grids at their bound (a larger grid falls back to
			// the cut-off).
			p.pairs += float64(gridBuffers)*8*float64(DefaultGridMaxNodes(n)) + gridPointBytes*float64(n)
			if soft {
				p.pairs += gridSoftPointBytes * float64(n)
			}
			p.what += " and its grids"
			if o.kernel() == KernelT {
				// The t level's interpolation, besides the Gaussian grids
				// the levels before it hold (and have let go of by then;
				// counted both, as the collector may not have).
				p.pairs += tGridBytes() + tPointBytes*float64(n)
				if soft {
					// The channels' sums, and the rows' levels in the
					// cells' order (at most 8 counted, as gridSoftPointBytes).
					p.pairs += float64(8*tFields(2)*DefaultGridSoftLevels+8) * float64(n)
				}
				p.what += " and the t kernel's interpolation"
			}
		}
		p.fix = "use a smaller perplexity, or fewer rows"
	} else {
		m := 3
		if n <= keptForceMaxN {
			m = 4
		}
		p.pairs = float64(m) * transforms.Float64Bytes(n, n)
		p.what = fmt.Sprintf("the exact method's %d N×N matrices at N = %s", m, transforms.Thousands(int64(n)))
		p.fix = "use --method grid, cutoff or bh (--method auto does above " + transforms.Thousands(AutoExactMax) + " rows), or fewer rows"
	}
	p.maps = optimiserCopies * transforms.Float64Bytes(n, o.Dims)
	return p
}
