package nerv

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/placement"
	"github.com/ordinate/ordinate/transforms/table"
)

// exactWarnAbove and bhWarnAbove are the sizes above which the stage
// warns that the method will run out of memory or take hours (the measured
// costs are in BENCHMARKS.md).
const (
	exactWarnAbove = 10_000
	bhWarnAbove    = 200_000
)

// bhSecondsPer1e5 is the measured time of one iteration of the full map
// from the sample start per 10⁵ rows, on two cores: the 50 iterations of the
// 10⁶-row run at e5da2a9 (25 exaggerated; 52 stress evaluations) divided by
// 50 and by 10 (BENCHMARKS.md, "NeRV (issue 5)", the 10⁶-row fit with the
// step scale carried).
const bhSecondsPer1e5 = 5.6

// sizeWarning returns the warning for fitting n rows with o, or "".
func sizeWarning(o Options, n int) string {
	switch {
	case o.kernel() == KernelT && n > tMeasuredRows:
		return fmt.Sprintf("output kernel t at N = %d: its level was measured up to %d rows (17 minutes at 10⁵ rows of overlapping clusters, BENCHMARKS.md); its cost grows faster than the rows, and the plan's time beyond is extrapolated", n, tMeasuredRows)
	case o.Method == Exact && n > exactWarnAbove:
		return fmt.Sprintf("the exact method holds three N×N matrices (%.1f GB at N = %d) and costs O(N²) per iteration; methods grid, cutoff and bh scale to larger N",
			3*8*float64(n)*float64(n)/1e9, n)
	case (o.Method == BarnesHut || o.Method == Cutoff) && n > bhWarnAbove && !o.fromSample(n):
		return fmt.Sprintf("method %v at N = %d from the PCA start: its first iterations took about 14 s each at 10⁵ rows and 10 minutes at 10⁶ on two cores (BENCHMARKS.md); --start sample (the default above %d rows) avoids them", o.Method, n, SampleStartAbove)
	case (o.Method == BarnesHut || o.Method == Cutoff) && n > bhWarnAbove:
		return fmt.Sprintf("method %v at N = %d: from the sample start an L-BFGS iteration takes about %g s per 10⁵ rows on two cores (BENCHMARKS.md), %s for the last level's %s; tsne is faster at this size",
			o.Method, n, bhSecondsPer1e5, aboutMinutes(bhSecondsPer1e5*float64(n)/1e5*float64(o.MaxIter)/60), transforms.Plural(o.MaxIter, "iteration"))
	}
	return ""
}

// aboutMinutes says "about m minutes", rounded, at least one.
func aboutMinutes(m float64) string {
	return "about " + transforms.Plural(max(1, int(math.Round(m))), "minute")
}

// Stage is the nerv stage: NeRV, ClassNeRV or SoftClassNeRV of a feature
// table (role "in"), written as an embedding ("out").
type Stage struct{}

// NewOptions returns the defaults (DefaultOptions).
func (Stage) NewOptions() transforms.Options {
	o := DefaultOptions()
	return &o
}

// Info describes the stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "nerv",
		Category: transforms.CategoryMethods,
		Summary:  "SoftClassNeRV embedding with soft class labels; ClassNeRV with hard labels, NeRV without (Mustatea et al.)",
		Usage:    `ordinate nerv --in T [--soft-labels 'p_*' | --label y] [--alpha 0.5] [--gamma 0.5] [--method auto] --out E`,
		Doc: `Neighbour retrieval visualisation: the stress trades recall (weight Λ) against
precision (1 − Λ) per pair, with Λ = (1 − α)γ + α·λ and λ the class community of
the two points' label distributions (1 − half the L1 distance). Soft labels are
one column per class of non-negative weights, normalised per row (an all-null row
is unlabelled and uses Λ = γ); --label gives hard one-hot labels (ClassNeRV with
τ_in = (1 − α)γ + α, τ_out = (1 − α)γ); with neither it is NeRV with trade-off γ.
Input widths from per-point perplexity; output widths transferred (sᵢ = σᵢ) or
one global width; PCA start; L-BFGS; multiscale perplexities N/2, N/4, … down to
--perplexity. --method auto (the default) runs the exact method up to 400 rows (the
measured crossover) and grid above, or cutoff for 3 dims, and logs its
plan. The exact method costs
O(N²) time and memory per iteration (a few thousand rows); --method bh uses sparse input neighbourhoods (the 3K nearest
neighbours, β floored outside them), a Barnes–Hut sum over the embedding and one
global output width, for tens of thousands of rows (its multiscale schedule
starts at the first level at or below perplexity 100); its neighbour lists come
from an exact search up to 4c² rows (c = 4 × the schedule's largest perplexity,
NN-descent's candidates per point: 390,000 rows from perplexity 78) and from
NN-descent above (--knn), and the
figure "knn" says which ran. --method cutoff has bh's objective, neighbours and
schedule but sums each point's output Gaussian exactly over every point within its
reach and drops the rest, their share of the point's normaliser bounded by
--cutoff-tol (default 0.01); a point with more than 2,000 points in reach (the
dense first iterations) takes the Barnes–Hut sums. More accurate than bh, and faster
once the map has spread out (on crowded maps, where most points stay dense, about
10 % slower). --method grid has the same objective and takes every point's sums over
all points at once: each point's charge is spread onto a regular grid over the map
with a Gaussian window, the grid is convolved with a Gaussian (separably), and the
fields are read back with the same window, per class for hard labels; soft labels
are rounded to eighths and taken as one field per class and level (a row in about
8), for the pairs beyond the neighbour lists only, which keep their exact weights.
Its cost does not grow with the density of the map (9 times faster than cutoff at
10⁵ rows, 65 times on a crowded map; soft labels cost 1.35 to 2.7 times hard ones,
4 to 5 times faster than cutoff), its relative error is about 1e-7 (stress) and 1e-5
(gradient), 3e-5 and 1e-2 with soft labels' rounding, and a map whose grid would be
too large (far outliers) takes cutoff's sums, with a warning.

Start: PCA, or above 50,000 rows with bh, cutoff and grid (--start auto) a fitted sample:
a random quarter of the rows is fitted first (itself from a sample above 50,000
rows), scaled to the sample map's own density, every other row placed at the mean of
its three nearest sampled neighbours, and only the last perplexity runs on all rows,
its first 30 iterations (30·√(N/250,000) above 250,000 rows; at most half of
--max-iter) with the attraction to the
listed neighbours counted 4 times (early exaggeration: it gathers each class at the
scale of its cluster, as the PCA start's dense first iterations do). From the PCA
start a large map's first iterations see thousands of points within reach of every
point (minutes per iteration at 10⁶ rows); the figures "start" and "levels" say
which ran.

Stopping: the earlier scales of the multiscale schedule only prepare the start
of the next one and stop after --coarse-max-iter 30 L-BFGS iterations (or a
relative stress decrease below --coarse-tol 1e-3 over 10); the last scale runs
to --max-iter 150 or --tol 1e-4.

--model-out saves the map for ordinate apply, which places new rows into it, each
by the same stress restricted to that row against the fixed map (its labels, when
apply is given them, else Λ = γ).

--standardize is off by default, unlike pca, lda, bvp, ckpca and lsp: NeRV, like
t-SNE, is usually run on features that are already comparable. A constant
feature column is dropped with a warning.`,
		Examples: []string{
			"ordinate nerv --in testdata/ordinal/newthyroid.csv --label label --out nerv.parquet",
			"ordinate nerv --in testdata/ordinal/newthyroid.csv --label label --alpha 0.7 --standardize --out classnerv.parquet",
			"ordinate nerv --in testdata/ordinal/newthyroid.csv --features 'x*' --gamma 0.3 --out nerv.parquet",
			"ordinate nerv --in testdata/ordinal/newthyroid.csv --label label --method bh --perplexity 20 --out classnerv.parquet",
			"ordinate nerv --in testdata/ordinal/newthyroid.csv --label label --method cutoff --perplexity 20 --out classnerv-cutoff.parquet",
			"ordinate nerv --in testdata/ordinal/newthyroid.csv --label label --method cutoff --start sample --perplexity 10 --out classnerv-sample.parquet",
			"ordinate nerv --in testdata/ordinal/newthyroid.csv --label label --out classnerv.parquet --model-out classnerv.model.parquet",
		},
		Inputs: []transforms.Role{
			{Name: "in", Help: "feature table", Required: true},
		},
		Outputs: []transforms.Role{
			{Name: "out", Help: "the embedding: id, kept columns, emb_0 … emb_{d-1}", Kind: table.Embedding, Required: true},
			{Name: "model-out", Help: "also save the map as a model (Parquet) for ordinate apply, which places new rows into it", Kind: table.Model, Models: []string{placement.Kind}},
		},
	}
}

// Run fits the embedding and writes it.
func (Stage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	o := *opts.(*Options) // a copy: Run sets the library's fields
	sel := o.Columns.Selection()
	sel.SoftLabels = o.SoftLabels
	ft, err := env.ReadFeatures(ctx, "in", sel, o.Standardize)
	if err != nil {
		return err
	}
	defer ft.Release()
	var soft []float64
	var classes []string
	mode := "nerv"
	switch {
	case ft.Soft != nil:
		soft, classes, mode = ft.Soft, ft.SoftNames, "softclassnerv"
	case ft.Label != nil:
		cls, err := transforms.NominalClasses(ft.Frame, nil)
		if err != nil {
			return err
		}
		classes, mode = cls.Names, "classnerv"
		soft = make([]float64, ft.N*cls.K())
		for i, k := range cls.Index {
			soft[i*cls.K()+k] = 1
		}
	}
	auto := o.Method == Auto
	first := o.ResolveMethod(ft.N, soft, len(classes))
	o.Method = o.resolveMethod(ctx, ft.N, soft, len(classes))
	if o.Method != first {
		limit, _ := transforms.MemoryLimit(ctx)
		env.Warn("method grid would need more than the memory the run may use (%s); method cutoff instead, which is slower on dense maps",
			transforms.FormatBytes(float64(limit)))
	}
	if w := sizeWarning(o, ft.N); w != "" {
		env.Warn("%s", w)
	}
	kn, knn := o.neighbourPlan(ft.N, ft.K())
	softFields := softFields(soft, len(classes), o)
	planBytes := memoryPlan(ft.N, o, softFields).bytes()
	took := o.timePlan(ft.N, ft.K(), env.Threads, softFields)
	env.Log.Info("nerv plan", "rows", ft.N, "method", string(o.Method), "auto", auto, "levels", len(o.Levels(ft.N)), "start", startPlan(o, ft.N),
		"neighbours", kn, "knn", string(knn), "memory", transforms.FormatBytes(planBytes), "time", took.String())
	plan := map[string]any{"method": string(o.Method), "levels": len(o.Levels(ft.N)), "start": startPlan(o, ft.N),
		"neighbours": kn, "knn": string(knn), "memory_bytes": planBytes, "seconds": []float64{math.Round(took.Low), math.Round(took.High)}}
	o.Threads, o.Reporter = env.Threads, env.Progress
	o.Progress = func(perp, stress float64, iters int) {
		env.Log.Info("scale done", "perplexity", perp, "stress", stress, "iterations", iters)
	}
	res, err := Fit(ctx, ft.Z, ft.N, ft.K(), soft, len(classes), o)
	if err != nil {
		return err
	}
	if res.GridFallbacks > 0 {
		env.Warn("method grid: %s took the cut-off's sums, since the map was far wider than its density (outlying points) and its grid would have been too large",
			transforms.Plural(res.GridFallbacks, "evaluation"))
	}
	iters := 0
	for _, l := range res.Levels {
		iters += l.Iterations
	}
	env.Figures(map[string]any{"mode": mode, "method": string(res.Method), "output_scale": string(res.OutputScale), "output_kernel": string(res.OutputKernel),
		"stress": res.Stress, "levels": res.Levels, "iterations": iters, "classes": classes, "knn": string(res.KNN), "grid_fallbacks": res.GridFallbacks, "plan": plan,
		"start": startFigure(res), "quality": qualityFigure(res.Quality)})
	if q := res.Quality; q != nil {
		env.Log.Info("map quality", "sample_rows", q.Rows, "preserved_10nn", q.Preserved, "class_accuracy_10nn", q.Accuracy,
			"within_sample_preserved_10nn", q.SamplePreserved, "within_sample_class_accuracy_10nn", q.SampleAccuracy, "status", res.Levels[len(res.Levels)-1].Status)
	}
	env.Log.Info(fmt.Sprintf("%s: %d rows, %d features -> %d dims", mode, ft.N, ft.K(), o.Dims), "stress", res.Stress)
	if err := env.WriteEmbedding(ctx, "out", ft.Frame, res.Y, o.Dims); err != nil {
		return err
	}
	if !env.Has("model-out") {
		return nil
	}
	method := &placeMethod{o: PlaceOptions{Perplexity: o.Perplexity, Alpha: o.Alpha, Gamma: o.Gamma, Scale: res.Width, Kernel: res.OutputKernel,
		MaxIter: DefaultPlaceMaxIter, Tol: DefaultPlaceTol, InitNeighbors: DefaultPlaceInitNeighbors}}
	model, err := placement.NewFromFeatures(ctx, "nerv", method, ft, o.Standardize, res.Y, o.Dims, res.NeighborIdx, res.NeighborK, env.Threads)
	if err != nil {
		return err
	}
	model.Classes, model.Soft = classes, soft
	return env.WriteModel(ctx, "model-out", model)
}

// qualityFigure is the provenance of the neighbourhood monitor's final
// score (monitor.go), nil for the exact method; class_accuracy only with
// labels.
func qualityFigure(q *Quality) map[string]any {
	if q == nil {
		return nil
	}
	f := map[string]any{"rows": q.Rows, "k": q.K, "preserved": q.Preserved, "sample_preserved": q.SamplePreserved, "checks": q.Checks}
	if !math.IsNaN(q.Accuracy) {
		f["class_accuracy"], f["sample_class_accuracy"] = q.Accuracy, q.SampleAccuracy
	}
	return f
}

// startPlan is the start a fit of n rows with o will take: "pca" or
// "sample".
func startPlan(o Options, n int) string {
	if o.fromSample(n) {
		return "sample"
	}
	return "pca"
}

// startFigure describes the start of res: "pca", or the samples it came
// from, e.g. "sample of 250000 rows (from a sample of 62500 rows)".
func startFigure(res *Result) string {
	if len(res.SampleRows) == 0 {
		return "pca"
	}
	out := fmt.Sprintf("sample of %d rows", res.SampleRows[0])
	for _, m := range res.SampleRows[1:] {
		out += fmt.Sprintf(" (from a sample of %d rows", m)
	}
	return out + strings.Repeat(")", len(res.SampleRows)-1)
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
