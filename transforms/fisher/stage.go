package fisher

import (
	"context"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// Stage is the fisher stage: Fisher-metric distances between the objects
// of a similarity matrix (or of a feature table under a kernel) with class
// labels, written as a distance table.
type Stage struct{}

// NewOptions returns the defaults (DefaultOptions).
func (Stage) NewOptions() transforms.Options {
	o := DefaultOptions()
	return &o
}

// Info describes the stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "fisher",
		Category: transforms.CategoryMethods,
		Summary:  "Fisher-metric distances in kernel space from a similarity matrix and labels (Schulz & Hammer)",
		Usage: `ordinate fisher --similarity S [--labels L] [--id COL] --label y --out D
ordinate fisher --in T --label y --kernel linear|rbf|cosine [--neighbors K] [--standardize=false] --out D`,
		Doc: `S is a similarity matrix, either long (columns i, j, s: every pair including the
diagonal, or only i <= j) with labels from --labels L (columns --id and --label),
or square (one row per object, one numeric column per object in the same order,
with --id and --label columns in the same table or in --labels). With --in and
--kernel the similarity is the kernel of the feature rows, read like every
feature table (constant columns dropped with a warning) and z-scored first
unless --standardize=false: on by default, as for ckpca, because a kernel on
raw features is dominated by the columns of largest scale.

The matrix is symmetrised, its eigenvalues corrected (--correction clip), and
for every pair of objects the Fisher path length of the Parzen class posterior
is computed along the straight line between them in the kernel's feature space
(T = --steps points; --rule trapezoid is symmetric, left is the paper's left sum).
The bandwidth is --sigma, or the mean perplexity bandwidth times --sigma-scale.
With a small bandwidth the posterior at a training point is mostly its own label
and the metric just encodes the labels; --exclude-endpoints drops both end points
from the Parzen sums (use it when the distances feed an evaluation on the same rows).

The output is plain (not squared) distances, long form i, j, distance (--upper:
only i < j; kind distance_pairs), or --format square (kind distance_square);
--neighbors K keeps each row's K nearest pairs.

With --in and --neighbors K the local mode builds no N×N array (memory
O(N·max(K, L))): each row's max(K, L) nearest rows in the kernel metric (found by
--knn exact or NN-descent, as tsne's), σ calibrated over them, and the Parzen sums
of a pair over the union of its two end points' first L rows (--parzen-neighbors,
default 3·perplexity). The K pairs are the candidates that tsne --distances can
choose from: K well above 3·perplexity (150 at perplexity 30) keeps the class
structure of the dense distances' map, K = 90 is the fastest. 300 seeded pairs are
summed again over all rows and the relative differences logged (figures
truncation_error_*); pairs whose lists hold one class come out as 0.

--tile I,J/T computes and writes one tile of the long table, so that T² tasks
(T(T+1)/2 with --upper) on other machines make the whole table together: the
objects are split in T contiguous blocks of rows (block b = rows [b·n/T, (b+1)·n/T)),
and the tile holds the pairs with i in block I and j in block J. Every task
reads the same inputs and repeats the shared set-up (symmetrising, eigenvalue
correction, bandwidth); only the path sums, the expensive part, are restricted
to the tile, and each pair's distance has the same bits as in the untiled run.
T is at most 2³¹−1; a tile costs the same whatever T, and with more blocks than
objects most tiles are empty.`,
		Examples: []string{
			"ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --id id --label label --out fisher.parquet",
			"ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --features 's_*' --labels testdata/similarity/aural_sonar.parquet --id id --label label --exclude-endpoints --upper --out fisher-upper.parquet",
			"ordinate fisher --similarity testdata/similarity/protein.parquet --id id --label label --metric kernel --neighbors 10 --out kernel-knn.parquet",
			"ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --id id --label label --upper --tile 0,1/2 --out fisher-tile-0-1.parquet",
			"ordinate fisher --in testdata/ordinal/newthyroid.csv --label label --kernel rbf --format square --out fisher-rbf.csv",
			"ordinate fisher --in testdata/ordinal/newthyroid.csv --label label --kernel rbf --neighbors 90 --out fisher-local.parquet",
			"ordinate tsne --distances fisher-local.parquet --out fisher-local-tsne.parquet",
		},
		Inputs: []transforms.Role{
			{Name: "similarity", Help: "similarity table, long (i, j, s) or square"},
			{Name: "labels", Help: "table of labels with the id and label columns (default: label in the similarity or feature table)"},
			{Name: "in", Help: "instead of similarity: a feature table, with kernel"},
		},
		Outputs: []transforms.Role{
			{Name: "out", Help: "distance table: long (i, j, distance) or, with format square, one row per object", Kind: table.DistancePairs, Required: true},
		},
	}
}

// Run computes the distances and writes them.
func (Stage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	o := *opts.(*Options)
	o.Threads = env.Threads
	obj, err := readObjects(ctx, env, &o)
	if err != nil {
		return err
	}
	defer obj.frame.Release()
	if o.Tile.empty(obj.n) {
		// Nothing to compute: the empty table still has the output's schema
		// (a host can learn it this way without fitting, as ordinate.spark
		// does with tile 0,0 of 2³¹−1).
		env.Figures(o.Tile.figures(obj.n))
		w, err := env.Create(ctx, "out", table.PairsSchema(obj.frame.ID))
		if err != nil {
			return err
		}
		defer w.Abort()
		return env.Close("out", w)
	}
	var res *FitResult
	if obj.x != nil {
		res, err = fitFeatures(ctx, obj.x, obj.n, obj.d, obj.kern, obj.cls.Index, obj.cls.K(), o, env.Progress)
	} else {
		res, err = fit(ctx, obj.s, obj.n, obj.cls.Index, obj.cls.K(), o, env.Progress)
	}
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		env.Warn("%s", w)
	}
	env.Figures(res.Figures)
	env.Figure("classes", obj.cls.Names)
	if !o.Tile.IsZero() {
		env.Figures(o.Tile.figures(obj.n))
	}
	env.Log.Info("fisher", logFigures(obj.n, res)...)
	ids := obj.frame.ID
	if o.Format == FormatSquare {
		env.SetKind("out", table.DistanceSquare)
		schema, err := table.SquareSchema(obj.frame.IDName, ids)
		if err != nil {
			return err
		}
		rec := table.SquareRecord(env.Mem, schema, ids, res.Dist)
		defer rec.Release()
		return env.WriteRecord(ctx, "out", rec)
	}
	w, err := env.Create(ctx, "out", table.PairsSchema(ids))
	if err != nil {
		return err
	}
	defer w.Abort()
	rows := obj.n
	if !o.Tile.IsZero() {
		lo, hi := o.Tile.Block(o.Tile.I, obj.n)
		rows = hi - lo
	}
	env.Progress.Start("writing out", int64(rows))
	var last int64
	done := func(rows int64) { env.Progress.Add(rows - last); last = rows }
	switch {
	case !o.Tile.IsZero():
		err = writeTilePairs(ctx, w, env.Mem, ids, res.Dist, o.Tile, o.Upper, done)
	case res.K > 0:
		err = table.WriteNeighborPairs(ctx, w, env.Mem, ids, res.Idx, res.Dist, res.K, o.Upper, done)
	default:
		err = table.WriteDensePairs(ctx, w, env.Mem, ids, res.Dist, o.Upper, done)
	}
	env.Progress.Finish()
	if err != nil {
		return err
	}
	return env.Close("out", w)
}

// logFigures are the attributes of the run's log line: the objects, the
// bandwidth (the Fisher metric's; the kernel metric has none) and the
// figures of the eigenvalue correction that this run has (the negative
// eigenvalues' share after a dense correction, the correction applied and
// its shift after a sparse one), and the local mode's neighbour search
// and measured truncation error.
func logFigures(n int, res *FitResult) []any {
	attrs := []any{"objects", n}
	if res.Sigma > 0 {
		attrs = append(attrs, "sigma", res.Sigma)
	}
	for _, k := range []string{"negative_eigenvalue_share", "correction_applied", "shift", "knn", "knn_recall", "parzen_neighbors", "truncation_error_median", "truncation_error_p90"} {
		if v, ok := res.Figures[k]; ok && v != nil {
			attrs = append(attrs, k, v)
		}
	}
	return attrs
}

// objects are the rows of a similarity matrix: their ids, classes and the
// n×n matrix itself, or in the local mode (a feature table with neighbors)
// the n×d features and their kernel instead of the matrix.
type objects struct {
	frame *arrowio.Frame // holds the ids (and labels when they come from it)
	cls   *transforms.Classes
	s     []float64
	n     int
	x     []float64
	d     int
	kern  kernels.Kernel
}

// readObjects reads the similarity matrix (or builds the kernel matrix) and
// the labels, in one row order.
func readObjects(ctx context.Context, env *transforms.Env, o *Options) (*objects, error) {
	hasSim, hasIn := env.Has("similarity"), env.Has("in")
	if hasSim == hasIn {
		return nil, transforms.Optionf("similarity", "%w: give similarity S, or in T with kernel", transforms.ErrNoTable)
	}
	sel := o.Columns.Selection()
	sel.Keep = []string{}
	classes := func(f *arrowio.Frame) (*transforms.Classes, error) {
		return transforms.NominalClasses(f, o.Order)
	}
	if hasIn {
		return kernelObjects(ctx, env, o, sel)
	}
	if o.Kernel != NoKernel {
		return nil, transforms.Optionf("kernel", "applies to in (a feature table), not to similarity")
	}
	readLabels := func() (*arrowio.Frame, error) {
		if o.Label == "" {
			return nil, transforms.Optionf("label", "%w: labels needs label (and id) naming its columns", transforms.ErrNoLabel)
		}
		return env.ReadFrame(ctx, "labels", arrowio.Selection{ID: o.ID, Label: o.Label, NoFeatures: true, Keep: []string{}, OnInvalid: o.OnInvalid})
	}
	// One open: a stream on stdin cannot be read twice.
	r, err := env.Open(ctx, "similarity")
	if err != nil {
		return nil, err
	}
	defer r.Release()
	long := table.HasColumns(r.Schema(), table.PairI, table.PairJ, "s")
	if long {
		if !env.Has("labels") {
			return nil, transforms.Optionf("labels", "%w: a long similarity table (i, j, s) needs labels L with id and label", transforms.ErrNoTable)
		}
		lf, err := readLabels()
		if err != nil {
			return nil, err
		}
		pairs, err := env.ReadFrom(ctx, "similarity", r, table.PairsSelection("s"))
		if err != nil {
			lf.Release()
			return nil, err
		}
		defer pairs.Release()
		s, err := table.SimilarityMatrix(pairs, lf)
		if err != nil {
			lf.Release()
			return nil, err
		}
		cls, err := classes(lf)
		if err != nil {
			lf.Release()
			return nil, err
		}
		return &objects{frame: lf, cls: cls, s: s, n: lf.N}, nil
	}
	// Square: one row per object.
	if env.Has("labels") {
		sel.Label = ""
	}
	f, err := env.ReadFrom(ctx, "similarity", r, sel)
	if err != nil {
		return nil, err
	}
	s, err := table.SquareMatrix(f)
	if err != nil {
		f.Release()
		return nil, err
	}
	obj := &objects{frame: f, s: s, n: f.N}
	if !env.Has("labels") {
		if obj.cls, err = classes(f); err != nil {
			f.Release()
			return nil, err
		}
		return obj, nil
	}
	lf, err := readLabels()
	if err != nil {
		f.Release()
		return nil, err
	}
	defer lf.Release()
	idx, _, err := transforms.Align(f, lf)
	if err != nil {
		f.Release()
		return nil, err
	}
	lcls, err := classes(lf)
	if err != nil {
		f.Release()
		return nil, err
	}
	obj.cls = &transforms.Classes{Column: lcls.Column, Names: lcls.Names, Index: make([]int, f.N), Counts: make([]int, lcls.K())}
	for i, j := range idx {
		obj.cls.Index[i] = lcls.Index[j]
		obj.cls.Counts[lcls.Index[j]]++
	}
	return obj, nil
}

// kernelObjects reads a feature table through the shared path and builds
// the kernel matrix of its rows, or with neighbors keeps the rows for the
// local mode.
func kernelObjects(ctx context.Context, env *transforms.Env, o *Options, sel arrowio.Selection) (*objects, error) {
	if o.Kernel == NoKernel {
		return nil, transforms.Optionf("kernel", "in needs kernel linear, rbf or cosine")
	}
	if env.Has("labels") {
		return nil, transforms.Optionf("labels", "with in the labels come from label in the same table")
	}
	if o.Label == "" {
		return nil, transforms.Optionf("label", "%w: fisher needs class labels", transforms.ErrNoLabel)
	}
	ft, err := env.ReadFeatures(ctx, "in", sel, o.Standardize)
	if err != nil {
		return nil, err
	}
	cls, err := transforms.NominalClasses(ft.Frame, o.Order)
	if err != nil {
		ft.Release()
		return nil, err
	}
	n, d := ft.N, ft.K()
	k, err := kernels.Kernel{Kind: string(o.Kernel), Gamma: o.Gamma}.Resolve(ft.Z, n, d)
	if err != nil {
		ft.Release()
		return nil, transforms.Optionf("kernel", "%v", err)
	}
	if o.Kernel == RBFKernel {
		env.Figure("gamma", k.Gamma)
	}
	if o.Neighbors > 0 {
		return &objects{frame: ft.Frame, cls: cls, n: n, x: ft.Z, d: d, kern: k}, nil
	}
	// The N×N kernel of N rows is the first large allocation: the plan is
	// checked before it, not after.
	if err := reserveDense(ctx, n, cls.K(), *o); err != nil {
		ft.Release()
		return nil, err
	}
	env.Progress.Start("kernel matrix", int64(n))
	s, err := k.Gram(ctx, nil, ft.Z, n, ft.Z, n, d, env.Threads)
	env.Progress.Add(int64(n))
	env.Progress.Finish()
	if err != nil {
		ft.Release()
		return nil, err
	}
	return &objects{frame: ft.Frame, cls: cls, s: s, n: n}, nil
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
